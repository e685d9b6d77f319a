/// Extension methods on ledger types and on core library types.
library;

import 'dart:math' as math;

import 'currency.dart';
import 'ids.dart';
import 'money.dart';

/// Parsing and layout helpers on [String].
extension LedgerStringX on String {
  /// Parses this string as an amount, see [Money.parse].
  Money toMoney([Currency fallback = Currency.usd]) =>
      Money.parse(this, fallback: fallback);

  /// Normalises this string into an account id.
  AccountId toAccountId() =>
      AccountId.of(split(RegExp(r'[:/]')).where((s) => s.trim().isNotEmpty).toList());

  /// Shortens to [width] characters, ending with [ellipsis] when cut.
  String truncate(int width, {String ellipsis = '…'}) => length <= width
      ? this
      : '${substring(0, math.max(0, width - ellipsis.length))}$ellipsis';

  String get titleCase => split(' ')
      .map((w) => w.isEmpty ? w : '${w[0].toUpperCase()}${w.substring(1).toLowerCase()}')
      .join(' ');

  bool get isBlank => trim().isEmpty;

  /// Pads to [width], on the left when [right] aligned.
  String cell(int width, {bool right = false}) =>
      right ? padLeft(width) : padRight(width);
}

/// Helpers on nullable strings.
extension NullableStringX on String? {
  bool get isNullOrBlank => this == null || this!.trim().isEmpty;

  String orDefault(String fallback) => isNullOrBlank ? fallback : this!;
}

/// Batch helpers on lists.
extension LedgerListX<T> on List<T> {
  /// Consecutive slices of at most [size] elements.
  Iterable<List<T>> chunked(int size) sync* {
    if (size <= 0) throw ArgumentError.value(size, 'size', 'must be positive');
    for (var i = 0; i < length; i += size) {
      yield sublist(i, math.min(i + size, length));
    }
  }

  Map<K, List<T>> groupBy<K>(K Function(T element) keyOf) {
    final groups = <K, List<T>>{};
    for (final element in this) {
      (groups[keyOf(element)] ??= <T>[]).add(element);
    }
    return groups;
  }

  /// A sorted copy, ordered by [key].
  List<T> sortedBy(Comparable<Object?> Function(T element) key) =>
      [...this]..sort((a, b) => key(a).compareTo(key(b)));

  /// The element at [index], or `null` when out of range.
  T? at(int index) => index >= 0 && index < length ? this[index] : null;
}

/// Aggregation over collections of [Money].
extension MoneyIterableX on Iterable<Money> {
  Money sum(Currency currency) => fold(Money.zero(currency), (a, b) => a + b);

  Money? get largest => isEmpty ? null : reduce(Money.max);

  Money? get smallest => isEmpty ? null : reduce(Money.min);

  /// The arithmetic mean, rounded to the nearest minor unit.
  Money average(Currency currency) =>
      isEmpty ? Money.zero(currency) : sum(currency) * (1 / length);
}

/// Presentation helpers on [Money].
extension MoneyX on Money {
  /// `$1.2k`, `€3.4M` – for dashboards, not statements.
  String get compact {
    final value = major.abs();
    final sign = isNegative ? '-' : '';
    final (scaled, suffix) = switch (value) {
      >= 1e9 => (value / 1e9, 'B'),
      >= 1e6 => (value / 1e6, 'M'),
      >= 1e3 => (value / 1e3, 'k'),
      _ => (value, ''),
    };
    final digits = suffix.isEmpty ? currency.decimals : 1;
    return '$sign${currency.symbol}${scaled.toStringAsFixed(digits)}$suffix';
  }

  Money percent(Percent p) => Money(p.applyTo(minor), currency);

  /// Accounting style: negatives in parentheses.
  String get accounting =>
      isNegative ? '(${currency.format(-minor)})' : currency.format(minor);
}

/// Calendar helpers.
extension DateTimeX on DateTime {
  DateTime get startOfMonth => DateTime(year, month);

  DateTime get startOfNextMonth => DateTime(year, month + 1);

  String get isoDate => toIso8601String().substring(0, 10);

  bool isSameDay(DateTime other) =>
      year == other.year && month == other.month && day == other.day;
}
