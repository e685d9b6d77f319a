/// Imports bank statements exported as CSV.
library;

import 'package:ledger_core/ledger_core.dart';
import 'package:ledger_core/src/classify.dart' show parseReference;

import 'importer.dart';

/// Reads `date,description,amount[,reference]` files, with or without a
/// header row, and with quoted fields.
base class CsvImporter extends StatementImporter {
  CsvImporter({
    required super.account,
    required super.suspense,
    super.currency,
    super.rules,
    this.delimiter = ',',
    this.dayFirst = false,
  });

  final String delimiter;

  /// Whether dates are written `dd/mm/yyyy` rather than `mm/dd/yyyy`.
  final bool dayFirst;

  @override
  String get format => 'csv';

  @override
  Iterable<StatementLine> parse(String source) sync* {
    final lines = source.split(RegExp(r'\r?\n'));
    for (final (index, raw) in lines.indexed) {
      if (raw.isBlank || raw.trimLeft().startsWith('#')) continue;
      final fields = splitFields(raw);
      if (index == 0 && _isHeader(fields)) continue;
      yield _toLine(index + 1, fields);
    }
  }

  bool _isHeader(List<String> fields) => switch (fields.map((f) => f.toLowerCase()).toList()) {
        ['date', ...] => true,
        [_, 'description' || 'text' || 'memo', ...] => true,
        _ => false,
      };

  StatementLine _toLine(int lineNumber, List<String> fields) {
    switch (fields) {
      case [final date, final text, final amount]:
        return StatementLine(
          lineNumber: lineNumber,
          date: parseDate(date, lineNumber),
          text: text,
          amount: _amount(amount, lineNumber),
        );
      case [final date, final text, final amount, final reference, ...]:
        return StatementLine(
          lineNumber: lineNumber,
          date: parseDate(date, lineNumber),
          text: text,
          amount: _amount(amount, lineNumber),
          reference: reference.isBlank ? null : reference,
        );
      default:
        throw ImportException(lineNumber, 'expected 3 or more fields, got ${fields.length}');
    }
  }

  Money _amount(String text, int lineNumber) {
    try {
      return text.replaceAll(RegExp(r'[$€£\s]'), '').toMoney(currency);
    } on MoneyFormatException catch (error) {
      throw ImportException(lineNumber, 'bad amount', cause: error);
    }
  }

  /// Accepts ISO dates and slashed dates in either order.
  DateTime parseDate(String text, int lineNumber) {
    final iso = DateTime.tryParse(text.trim());
    if (iso != null) return iso;
    final parts = text.trim().split('/').map(int.tryParse).toList();
    if (parts case [final int a, final int b, final int year]) {
      final (day, month) = dayFirst ? (a, b) : (b, a);
      return DateTime(year < 100 ? 2000 + year : year, month, day);
    }
    throw ImportException(lineNumber, 'bad date "$text"');
  }

  /// Splits one CSV record, honouring double quotes and `""` escapes.
  List<String> splitFields(String line) {
    final fields = <String>[];
    final current = StringBuffer();
    var quoted = false;
    for (var i = 0; i < line.length; i++) {
      final char = line[i];
      if (char == '"') {
        if (quoted && i + 1 < line.length && line[i + 1] == '"') {
          current.write('"');
          i++;
        } else {
          quoted = !quoted;
        }
      } else if (char == delimiter && !quoted) {
        fields.add(current.toString().trim());
        current.clear();
      } else {
        current.write(char);
      }
    }
    if (quoted) throw FormatException('unterminated quote', line);
    fields.add(current.toString().trim());
    return fields;
  }

  /// Orders lines by the numeric part of their reference, when present.
  List<StatementLine> byReference(Iterable<StatementLine> lines) => lines
      .toList()
      .sortedBy((line) => parseReference(line.reference ?? '').$2);
}
