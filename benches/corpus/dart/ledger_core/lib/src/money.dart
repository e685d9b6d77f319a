/// Exact money arithmetic in minor units.
library;

import 'dart:math' as math;

import 'annotations.dart';
import 'currency.dart';
import 'errors.dart';
import 'typedefs.dart';

/// An amount of one [Currency], held as an integer number of minor units.
///
/// Money never uses floating point internally; [major] is for display only.
final class Money implements Comparable<Money> {
  /// Creates an amount from minor units (cents for USD).
  const Money(this.minor, this.currency);

  /// The zero amount of [currency].
  const Money.zero(this.currency) : minor = 0;

  /// Creates an amount from major units, rounding to the nearest minor unit.
  factory Money.major(num amount, Currency currency) =>
      Money((amount * currency.minorPerMajor).round(), currency);

  /// Reads the `{minor, currency}` shape written by [toJson].
  Money.fromJson(Json json)
      : this(json['minor'] as int, Currency.parse(json['currency'] as String));

  /// Parses `"12.50"`, `"-3 EUR"` or `"1,200.00 USD"`.
  factory Money.parse(String input, {Currency fallback = Currency.usd}) {
    final match = _pattern.firstMatch(input.trim().replaceAll(',', ''));
    if (match == null) throw MoneyFormatException(input);
    final currency = Currency.tryParse(match.namedGroup('code')) ?? fallback;
    final sign = match.namedGroup('sign') == '-' ? -1 : 1;
    final whole = int.parse(match.namedGroup('whole')!);
    final digits = match.namedGroup('frac') ?? '';
    if (digits.length > currency.decimals) throw MoneyFormatException(input);
    final fraction = currency.decimals == 0
        ? 0
        : int.parse(digits.padRight(currency.decimals, '0'));
    return Money(sign * (whole * currency.minorPerMajor + fraction), currency);
  }

  static final RegExp _pattern = RegExp(
      r'^(?<sign>-)?\s*(?<whole>\d+)(?:\.(?<frac>\d+))?\s*(?<code>[A-Za-z]{3})?$');

  /// Zero US dollars, handy as a default.
  static const usdZero = Money.zero(Currency.usd);

  final int minor;
  final Currency currency;

  bool get isZero => minor == 0;
  bool get isNegative => minor < 0;
  bool get isPositive => minor > 0;

  /// The amount in major units, for display and charts only.
  double get major => minor / currency.minorPerMajor;

  Money operator +(Money other) {
    _checkSameCurrency(other);
    return Money(minor + other.minor, currency);
  }

  Money operator -(Money other) {
    _checkSameCurrency(other);
    return Money(minor - other.minor, currency);
  }

  Money operator -() => Money(-minor, currency);

  Money operator *(num factor) => Money((minor * factor).round(), currency);

  /// Splits into [parts] equal shares, discarding the remainder.
  Money operator ~/(int parts) => Money(minor ~/ parts, currency);

  bool operator <(Money other) => compareTo(other) < 0;
  bool operator <=(Money other) => compareTo(other) <= 0;
  bool operator >(Money other) => compareTo(other) > 0;
  bool operator >=(Money other) => compareTo(other) >= 0;

  Money abs() => isNegative ? -this : this;

  Money clamp(Money low, Money high) => this < low ? low : (this > high ? high : this);

  /// Splits the amount by [ratios] so that the shares add up exactly;
  /// leftover minor units go to the first shares.
  @Audited(reason: 'rounding policy')
  List<Money> allocate(List<int> ratios) {
    if (ratios.isEmpty || ratios.any((r) => r < 0)) {
      throw ValidationException('ratios must be non-negative', field: 'ratios');
    }
    final total = ratios.fold<int>(0, (sum, r) => sum + r);
    if (total == 0) throw ValidationException('ratios sum to zero', field: 'ratios');
    final shares = [for (final r in ratios) minor * r ~/ total];
    var remainder = minor - shares.fold<int>(0, (sum, s) => sum + s);
    for (var i = 0; remainder != 0; i = (i + 1) % shares.length) {
      final step = remainder.sign;
      shares[i] += step;
      remainder -= step;
    }
    return shares.map((s) => Money(s, currency)).toList(growable: false);
  }

  /// The larger of two amounts of the same currency.
  static Money max(Money a, Money b) => a >= b ? a : b;

  /// The smaller of two amounts of the same currency.
  static Money min(Money a, Money b) => a <= b ? a : b;

  /// Rounds to a whole number of major units.
  Money roundToMajor() {
    final unit = currency.minorPerMajor;
    final rounded = (minor / unit).round() * unit;
    return Money(rounded, currency);
  }

  /// The ratio of this amount to [other], as a double in `[-inf, inf]`.
  double ratioTo(Money other) {
    _checkSameCurrency(other);
    return other.isZero ? double.infinity : minor / other.minor;
  }

  /// Distance between two amounts on a log scale, used by anomaly checks.
  double logDistance(Money other) =>
      (math.log(minor.abs() + 1) - math.log(other.minor.abs() + 1)).abs();

  void _checkSameCurrency(Money other) {
    if (other.currency != currency) {
      throw CurrencyMismatchException(currency, other.currency);
    }
  }

  @override
  int compareTo(Money other) {
    _checkSameCurrency(other);
    return minor.compareTo(other.minor);
  }

  @override
  bool operator ==(Object other) =>
      other is Money && other.minor == minor && other.currency == currency;

  @override
  int get hashCode => Object.hash(minor, currency);

  Json toJson() => {'minor': minor, 'currency': currency.code};

  @override
  String toString() => currency.format(minor);
}
