/// Imports statements delivered as JSON by bank APIs.
library;

import 'dart:convert';

import 'package:ledger_core/ledger_core.dart';

import 'importer.dart';

/// Reads `{"account": ..., "lines": [{"date", "text", "amount"}, ...]}`.
///
/// The payload is deliberately handled as loosely typed data: bank APIs
/// disagree on whether amounts are numbers or strings.
final class JsonImporter extends StatementImporter {
  JsonImporter({required super.account, required super.suspense, super.currency, this.strict = false});

  /// Whether unknown fields are errors rather than ignored.
  final bool strict;

  static const _known = {'date', 'text', 'amount', 'reference', 'id'};

  @override
  String get format => 'json';

  @override
  Iterable<StatementLine> parse(String source) sync* {
    var data = jsonDecode(source);
    if (data is Map && data['lines'] != null) data = data['lines'];
    if (data is! List) throw ImportException(0, 'expected a list of lines');
    var number = 0;
    for (final row in data) {
      number++;
      if (strict && row is Map) {
        final unknown = row.keys.where((k) => !_known.contains(k)).toList();
        if (unknown.isNotEmpty) {
          throw ImportException(number, 'unknown fields ${unknown.join(', ')}');
        }
      }
      final parsed = readRow(row, currency);
      if (parsed == null) continue;
      final (:date, :text, :amount) = parsed;
      final postedOn = DateTime.tryParse(date) ??
          (throw ImportException(number, 'bad date "$date"'));
      yield StatementLine(
        lineNumber: number,
        date: postedOn,
        text: text,
        amount: amount,
        reference: row is Map ? row['reference']?.toString() : null,
      );
    }
  }

  /// Pulls the statement's account id out of the envelope, if it has one.
  static AccountId? accountOf(String source) {
    final dynamic data = jsonDecode(source);
    final id = data is Map ? data['account'] : null;
    return id is String ? id.toAccountId() : null;
  }
}
