/// The report framework: reports build rows, rows render to text.
library;

import 'dart:math' as math;

import 'package:ledger_core/ledger_core.dart';

import '../formatting.dart';

/// One line of a report.
sealed class ReportRow {
  const ReportRow();
}

final class HeadingRow extends ReportRow {
  const HeadingRow(this.text, {this.level = 1});

  final String text;
  final int level;
}

final class AmountRow extends ReportRow {
  const AmountRow(this.label, this.amount, {this.depth = 0, this.emphasis = false});

  final String label;
  final Money amount;
  final int depth;
  final bool emphasis;
}

final class BarRow extends ReportRow {
  const BarRow(this.label, this.fraction);

  final String label;
  final double fraction;
}

final class NoteRow extends ReportRow {
  const NoteRow(this.text);

  final String text;
}

final class SeparatorRow extends ReportRow {
  const SeparatorRow();
}

/// Options shared by all reports.
final class ReportOptions {
  const ReportOptions({
    this.width = 64,
    this.color = false,
    this.from,
    this.to,
    this.includeEmpty = false,
  });

  final int width;
  final bool color;
  final DateTime? from;
  final DateTime? to;
  final bool includeEmpty;

  ReportOptions copyWith({int? width, bool? color, bool? includeEmpty}) => ReportOptions(
        width: width ?? this.width,
        color: color ?? this.color,
        from: from,
        to: to,
        includeEmpty: includeEmpty ?? this.includeEmpty,
      );
}

/// A report over a ledger.
abstract class Report implements Describable {
  const Report(this.title);

  final String title;

  /// Builds the rows; subclasses decide what goes in.
  List<ReportRow> build(Ledger ledger, ReportOptions options);

  @override
  String describe() => '$title report';

  String render(Ledger ledger, [ReportOptions options = const ReportOptions()]) {
    final rows = [
      HeadingRow(title),
      const SeparatorRow(),
      ...build(ledger, options),
    ];
    return rows.map((row) => renderRow(row, options)).join('\n');
  }
}

/// Renders one row at the configured width.
String renderRow(ReportRow row, ReportOptions options) {
  final width = options.width;
  return switch (row) {
    HeadingRow(:final text, level: 1) => text.toUpperCase(),
    HeadingRow(:final text) => text,
    AmountRow(:final label, :final amount, :final depth, :final emphasis) =>
      _amountLine('${'  ' * depth}$label', amount, options, bold: emphasis),
    BarRow(:final label, :final fraction) =>
      '${label.padRight(24)} ${bar(fraction, width: math.max(8, width - 32))} ${formatShare(fraction)}',
    NoteRow(:final text) => options.color ? Ansi.dim(text) : text,
    SeparatorRow() => '-' * width,
  };
}

String _amountLine(String left, Money amount, ReportOptions options, {bool bold = false}) {
  final plain = formatMoney(amount, accounting: true);
  final gap = math.max(1, options.width - left.length - plain.length);
  final shown = options.color ? colorMoney(amount) : plain;
  final line = '$left${' ' * gap}$shown';
  return bold && options.color ? Ansi.bold(line) : line;
}

/// Builds a report by name from command-line options.
typedef ReportFactory = Report Function(Map<String, Object?> options);
