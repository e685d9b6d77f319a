/// Terminal formatting: tables, colours and money.
library;

import 'dart:math' as math;

import 'package:ledger_core/ledger_core.dart';
import 'package:ledger_core/src/extensions.dart' show LedgerStringX, MoneyX;

/// Horizontal alignment of a table column.
enum Align { left, right }

/// Turns a piece of text into styled text.
typedef Styler = String Function(String text);

/// One column of a [TableFormatter].
final class Column<R> {
  const Column(this.header, this.value, {this.align = Align.left, this.maxWidth});

  /// A right-aligned column showing money.
  Column.money(String header, Money Function(R row) amount, {bool accounting = true})
      : this(
          header,
          (row) => formatMoney(amount(row), accounting: accounting),
          align: Align.right,
        );

  final String header;
  final String Function(R row) value;
  final Align align;
  final int? maxWidth;
}

/// ANSI colours, switched off when output is not a terminal.
abstract final class Ansi {
  static bool enabled = true;

  static const _reset = '\x1B[0m';

  static String _wrap(String code, String text) =>
      enabled ? '\x1B[${code}m$text$_reset' : text;

  static String red(String text) => _wrap('31', text);
  static String green(String text) => _wrap('32', text);
  static String bold(String text) => _wrap('1', text);
  static String dim(String text) => _wrap('2', text);
}

/// Renders rows as a fixed-width text table.
class TableFormatter<R> {
  TableFormatter(this.columns, {this.separator = '  ', Styler? headerStyle})
      : headerStyle = headerStyle ?? Ansi.bold;

  final List<Column<R>> columns;
  final String separator;
  final Styler headerStyle;

  String render(Iterable<R> rows) {
    final cells = [
      for (final row in rows)
        [for (final column in columns) _clip(column.value(row), column.maxWidth)],
    ];
    final widths = [
      for (var i = 0; i < columns.length; i++)
        cells.fold(columns[i].header.length, (int w, r) => math.max(w, r[i].length)),
    ];
    final buffer = StringBuffer()
      ..writeln(headerStyle(_line([for (final c in columns) c.header], widths)))
      ..writeln(_line([for (final w in widths) '-' * w], widths));
    for (final row in cells) {
      buffer.writeln(_line(row, widths));
    }
    return buffer.toString();
  }

  String _line(List<String> values, List<int> widths) => [
        for (var i = 0; i < values.length; i++)
          values[i].cell(widths[i], right: columns[i].align == Align.right),
      ].join(separator).trimRight();

  static String _clip(String text, int? width) =>
      width == null ? text : text.truncate(width);
}

/// Formats money for humans; accounting style puts negatives in brackets.
String formatMoney(Money amount, {bool accounting = false, bool compact = false}) {
  if (compact) return amount.compact;
  return accounting ? amount.accounting : amount.toString();
}

/// Green for gains, red for losses.
String colorMoney(Money amount) => switch (amount) {
      Money(isNegative: true) => Ansi.red(formatMoney(amount, accounting: true)),
      Money(isZero: true) => Ansi.dim(formatMoney(amount)),
      _ => Ansi.green(formatMoney(amount)),
    };

String formatDate(DateTime date) => date.isoDate;

String formatShare(double fraction) => '${(fraction * 100).toStringAsFixed(1)}%';

/// A text bar of [width] cells, filled in proportion to [fraction].
String bar(double fraction, {int width = 20}) {
  final filled = (fraction.clamp(0, 1) * width).round();
  return '${'█' * filled}${'░' * (width - filled)}';
}

/// Indents every line of [text] by [depth] steps of two spaces.
String indent(String text, [int depth = 1]) {
  final pad = '  ' * depth;
  return text.split('\n').map((line) => line.isEmpty ? line : '$pad$line').join('\n');
}
