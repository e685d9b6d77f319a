/// Classification rules written with records and patterns.
library;

import 'accounts.dart';
import 'currency.dart';
import 'ids.dart';
import 'money.dart';
import 'transactions.dart';
import 'typedefs.dart';

/// Debit and credit totals of a transaction.
typedef Split = ({Money debits, Money credits});

/// Sums the debit and credit legs of [transaction] in [currency].
Split splitTotals(Transaction transaction, Currency currency) {
  var debits = Money.zero(currency);
  var credits = Money.zero(currency);
  for (final Posting(:amount) in transaction.postings) {
    if (amount.currency != currency) continue;
    if (amount.isPositive) {
      debits += amount;
    } else {
      credits -= amount;
    }
  }
  return (debits: debits, credits: credits);
}

/// A human description of an account, exhaustive over the sealed family.
String describeAccount(Account account) => switch (account) {
      AssetAccount(institution: final String bank) => 'asset held at $bank',
      AssetAccount() => 'asset',
      LiabilityAccount(:final creditLimit) when creditLimit.isZero => 'liability',
      LiabilityAccount(:final available) => 'credit line, $available available',
      RetainedEarnings() => 'retained earnings',
      EquityAccount(owner: final String owner) => 'equity of $owner',
      EquityAccount() => 'equity',
      IncomeAccount() => 'income',
      ExpenseAccount(overBudget: true, :final budget) => 'expense, over its $budget budget',
      ExpenseAccount() => 'expense',
    };

/// Buckets an amount by size.
String sizeBucket(Money amount) => switch (amount.minor) {
      < 0 => 'outflow',
      0 => 'nil',
      >= 1 && < 10000 => 'small',
      >= 10000 && < 1000000 => 'medium',
      _ => 'large',
    };

/// Splits a reference like `INV-2024-0017` into prefix and number.
(String prefix, int number) parseReference(String reference) =>
    switch (reference.split('-')) {
      [final prefix, final year, final serial]
          when int.tryParse(year) != null && int.tryParse(serial) != null =>
        (prefix, int.parse(year) * 10000 + int.parse(serial)),
      [final prefix, final serial] when int.tryParse(serial) != null =>
        (prefix, int.parse(serial)),
      [final prefix, ...final rest] => (prefix, rest.length),
      [] => ('', 0),
    };

/// The largest absolute posting amount, if any.
Money? largestPosting(Transaction transaction) {
  Money? best;
  for (final posting in transaction.postings) {
    final size = posting.amount.abs();
    if (best == null || (size.currency == best.currency && size > best)) {
      best = size;
    }
  }
  return best;
}

/// Guesses the kind of a bank statement line from its text and sign.
TransactionKind guessKind(String text, Money amount) {
  final lower = text.toLowerCase();
  switch ((lower, amount.isNegative)) {
    case (final t, _) when t.contains('interest'):
      return TransactionKind.interest;
    case (final t, true) when t.contains('fee') || t.contains('charge'):
      return TransactionKind.fee;
    case (final t, _) when t.startsWith('transfer') || t.contains(' to savings'):
      return TransactionKind.transfer;
    case (_, true):
      return TransactionKind.withdrawal;
    default:
      return TransactionKind.deposit;
  }
}

/// Whether an inflow kind was posted with an outflow amount, or vice versa.
bool looksMisclassified(Transaction transaction, AccountId account) {
  final amount = transaction.amountFor(account);
  if (amount == null) return false;
  switch (transaction.kind) {
    case TransactionKind.deposit || TransactionKind.interest:
      return amount.isNegative;
    case TransactionKind.withdrawal || TransactionKind.fee:
      return amount.isPositive;
    case TransactionKind.transfer || TransactionKind.adjustment:
      return false;
  }
}

/// Reads a loosely typed row (as decoded from JSON or CSV) into parts.
({String date, String text, Money amount})? readRow(Object? row, Currency currency) {
  switch (row) {
    case {'date': String date, 'text': String text, 'amount': num amount}:
      return (date: date, text: text, amount: Money.major(amount, currency));
    case {'date': String date, 'text': String text, 'amount': String amount}:
      return (date: date, text: text, amount: Money.parse(amount, fallback: currency));
    case [String date, String text, String amount, ...]:
      return (date: date, text: text, amount: Money.parse(amount, fallback: currency));
    case Map(isEmpty: true) || null:
      return null;
    default:
      return null;
  }
}

/// Range of the amounts in [values], as a [MoneyRange] record.
MoneyRange? rangeOf(Iterable<Money> values) {
  final iterator = values.iterator;
  if (!iterator.moveNext()) return null;
  var low = iterator.current;
  var high = iterator.current;
  while (iterator.moveNext()) {
    final value = iterator.current;
    if (value < low) low = value;
    if (value > high) high = value;
  }
  return (low: low, high: high);
}

/// Describes a [MoneyRange] using record destructuring.
String describeRange(MoneyRange range) {
  final (:low, :high) = range;
  return low == high ? 'exactly $low' : 'between $low and $high';
}

/// Pairs each account with its share of the total, largest first.
List<(Account, double)> sharesOf(Iterable<Account> accounts, Currency currency) {
  final relevant = [
    for (final a in accounts)
      if (a.currency == currency && !a.balance.isZero) a,
  ];
  final total = relevant.fold(0, (int sum, a) => sum + a.balance.minor.abs());
  if (total == 0) return const [];
  final shares = [
    for (final a in relevant) (a, a.balance.minor.abs() / total),
  ]..sort((x, y) => y.$2.compareTo(x.$2));
  return shares;
}
