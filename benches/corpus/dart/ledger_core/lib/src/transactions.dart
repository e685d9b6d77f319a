/// Transactions and their postings.
library;

import 'annotations.dart';
import 'currency.dart';
import 'entity.dart';
import 'errors.dart';
import 'ids.dart';
import 'mixins.dart';
import 'money.dart';
import 'typedefs.dart';

/// What a transaction represents, with its short code and sign convention.
enum TransactionKind implements Describable {
  deposit('DEP', 'Deposit', sign: 1),
  withdrawal('WDR', 'Withdrawal', sign: -1),
  transfer('TRF', 'Transfer'),
  fee('FEE', 'Bank fee', sign: -1),
  interest('INT', 'Interest', sign: 1),
  adjustment('ADJ', 'Adjustment');

  const TransactionKind(this.code, this.label, {this.sign = 0});

  /// Three-letter code used in bank statements.
  final String code;

  /// Label shown in reports.
  final String label;

  /// `1` for money coming in, `-1` for money going out, `0` for neutral.
  final int sign;

  static final Map<String, TransactionKind> _byCode = {
    for (final kind in values) kind.code: kind,
  };

  static TransactionKind fromCode(String code) =>
      _byCode[code.trim().toUpperCase()] ??
      (throw ValidationException('unknown transaction kind "$code"', field: 'kind'));

  bool get isInflow => sign > 0;

  bool get isOutflow => sign < 0;

  /// Applies the sign convention to an unsigned [amount].
  Money signed(Money amount) => sign < 0 ? -amount.abs() : amount.abs();

  @override
  String describe() => '$label [$code]';
}

/// Where a transaction is in its life cycle.
enum TransactionStatus {
  pending,
  cleared,
  reconciled,
  voided;

  bool get isFinal =>
      this == TransactionStatus.reconciled || this == TransactionStatus.voided;

  /// The status that normally follows this one.
  TransactionStatus next() => switch (this) {
        TransactionStatus.pending => TransactionStatus.cleared,
        TransactionStatus.cleared => TransactionStatus.reconciled,
        TransactionStatus.reconciled || TransactionStatus.voided => this,
      };
}

/// One leg of a transaction: an amount debited (positive) or credited
/// (negative) to an account.
final class Posting {
  const Posting({required this.account, required this.amount, this.memo});

  factory Posting.fromJson(Json json) => switch (json) {
        {'account': String account, 'amount': Json amount} => Posting(
            account: AccountId(account),
            amount: Money.fromJson(amount),
            memo: json['memo'] as String?,
          ),
        _ => throw ValidationException('malformed posting: $json', field: 'postings'),
      };

  final AccountId account;
  final Money amount;
  final String? memo;

  bool get isDebit => amount.isPositive;

  Posting negate() => Posting(account: account, amount: -amount, memo: memo);

  Json toJson() => {
        'account': account.value,
        'amount': amount.toJson(),
        if (memo != null) 'memo': memo,
      };

  @override
  bool operator ==(Object other) =>
      other is Posting &&
      other.account == account &&
      other.amount == amount &&
      other.memo == memo;

  @override
  int get hashCode => Object.hash(account, amount, memo);

  @override
  String toString() => '${account.value} $amount';
}

/// A balanced set of postings made on one date.
@Audited(reason: 'financial record')
class Transaction extends Timestamped implements Entity, Comparable<Transaction> {
  Transaction({
    required this.id,
    required this.kind,
    required this.date,
    required List<Posting> postings,
    this.description = '',
    TransactionStatus status = TransactionStatus.pending,
  })  : assert(postings.isNotEmpty, 'a transaction needs at least one posting'),
        postings = List.unmodifiable(postings),
        _status = status;

  /// Moves [amount] from one account to another.
  Transaction.transfer({
    required TransactionId id,
    required AccountId from,
    required AccountId to,
    required Money amount,
    required DateTime date,
    String description = 'Transfer',
  }) : this(
          id: id,
          kind: TransactionKind.transfer,
          date: date,
          description: description,
          postings: [
            Posting(account: from, amount: -amount),
            Posting(account: to, amount: amount),
          ],
        );

  /// A two-legged transaction whose direction follows [kind]'s sign.
  Transaction.simple(
    TransactionKind kind, {
    required TransactionId id,
    required AccountId account,
    required AccountId counter,
    required Money amount,
    required DateTime date,
    String? description,
  }) : this(
          id: id,
          kind: kind,
          date: date,
          description: description ?? kind.label,
          postings: [
            Posting(account: account, amount: kind.signed(amount)),
            Posting(account: counter, amount: -kind.signed(amount)),
          ],
        );

  factory Transaction.fromJson(Json json) {
    if (json
        case {
          'id': int id,
          'kind': String kind,
          'date': String date,
          'postings': List<Object?> raw,
        }) {
      return Transaction(
        id: TransactionId(id),
        kind: TransactionKind.fromCode(kind),
        date: DateTime.parse(date),
        postings: [for (final p in raw) Posting.fromJson(p as Json)],
        description: json['description'] as String? ?? '',
        status: TransactionStatus.values.byName(json['status'] as String? ?? 'pending'),
      );
    }
    throw ValidationException('malformed transaction: $json');
  }

  final TransactionId id;
  final TransactionKind kind;
  final DateTime date;
  final List<Posting> postings;
  final String description;
  TransactionStatus _status;

  TransactionStatus get status => _status;

  set status(TransactionStatus value) {
    if (_status.isFinal && value != _status) {
      throw LedgerStateError('transaction ${id.display} is already ${_status.name}');
    }
    _status = value;
    touch();
  }

  @override
  String get key => id.display;

  Set<Currency> get currencies => {for (final p in postings) p.amount.currency};

  /// The sum of postings in [currency]; zero when balanced.
  Money imbalance(Currency currency) => postings
      .where((p) => p.amount.currency == currency)
      .fold(Money.zero(currency), (sum, p) => sum + p.amount);

  bool get isBalanced => currencies.every((c) => imbalance(c).isZero);

  /// The sum of the debit legs, in the currency of the first posting.
  Money get total {
    final currency = postings.first.amount.currency;
    return postings
        .map((p) => p.amount)
        .where((m) => m.isPositive && m.currency == currency)
        .fold(Money.zero(currency), (a, b) => a + b);
  }

  Iterable<AccountId> get accounts => postings.map((p) => p.account);

  bool touches(AccountId account) => postings.any((p) => p.account == account);

  /// The amount posted to [account], or `null` if it is not touched.
  Money? amountFor(AccountId account) {
    Money? result;
    for (final p in postings) {
      if (p.account != account) continue;
      result = result == null ? p.amount : result + p.amount;
    }
    return result;
  }

  /// A transaction that undoes this one.
  Transaction reversal(TransactionId newId, DateTime reversedOn) => Transaction(
        id: newId,
        kind: kind,
        date: reversedOn,
        description: 'Reversal of ${id.display}',
        postings: [for (final p in postings) p.negate()],
      );

  @override
  int compareTo(Transaction other) {
    final byDate = date.compareTo(other.date);
    return byDate != 0 ? byDate : id.compareTo(other.id);
  }

  Json toJson() => {
        'id': id.value,
        'kind': kind.code,
        'date': date.toIso8601String(),
        'status': status.name,
        if (description.isNotEmpty) 'description': description,
        'postings': [for (final p in postings) p.toJson()],
      };

  @override
  String toString() => '${id.display} ${kind.code} $description';
}
