/// ISO 4217 currencies the ledger knows how to format.
library;

import 'dart:math' as math;

import 'entity.dart';
import 'errors.dart';

/// A currency with its symbol and number of minor digits.
enum Currency implements Describable, Comparable<Currency> {
  usd('USD', symbol: r'$'),
  eur('EUR', symbol: '€'),
  gbp('GBP', symbol: '£'),
  jpy('JPY', symbol: '¥', decimals: 0),
  chf('CHF', symbol: 'Fr.'),
  btc('BTC', symbol: '₿', decimals: 8);

  const Currency(this.code, {required this.symbol, this.decimals = 2});

  /// The three-letter ISO code.
  final String code;

  /// The symbol used when formatting.
  final String symbol;

  /// Number of digits after the decimal point.
  final int decimals;

  /// How many minor units make up one major unit (100 for cents).
  int get minorPerMajor => math.pow(10, decimals).toInt();

  /// Parses an ISO code, throwing [ValidationException] if unknown.
  static Currency parse(String code) =>
      tryParse(code) ??
      (throw ValidationException('unknown currency "$code"', field: 'currency'));

  /// Parses an ISO code, returning `null` if unknown.
  static Currency? tryParse(String? code) {
    if (code == null) return null;
    final upper = code.trim().toUpperCase();
    for (final currency in values) {
      if (currency.code == upper) return currency;
    }
    return null;
  }

  /// Formats an amount in minor units, e.g. `format(-1250) == '-$12.50'`.
  String format(int minor, {bool withSymbol = true, String groupSeparator = ','}) {
    final negative = minor < 0;
    final absolute = minor.abs();
    final major = absolute ~/ minorPerMajor;
    final fraction = absolute % minorPerMajor;
    final grouped = _group(major.toString(), groupSeparator);
    final body = decimals == 0
        ? grouped
        : '$grouped.${fraction.toString().padLeft(decimals, '0')}';
    final sign = negative ? '-' : '';
    return withSymbol ? '$sign$symbol$body' : '$sign$body';
  }

  static String _group(String digits, String separator) {
    if (separator.isEmpty || digits.length <= 3) return digits;
    final buffer = StringBuffer();
    final head = digits.length % 3;
    if (head > 0) buffer.write(digits.substring(0, head));
    for (var i = head; i < digits.length; i += 3) {
      if (buffer.isNotEmpty) buffer.write(separator);
      buffer.write(digits.substring(i, i + 3));
    }
    return buffer.toString();
  }

  @override
  String describe() => '$code ($symbol, $decimals decimals)';

  @override
  int compareTo(Currency other) => code.compareTo(other.code);
}
