/// The journal: an append-only, ordered log of posted transactions.
///
/// The library is split over two part files: entries and events live in
/// `journal_entry.dart`, querying in `journal_query.dart`.
library ledger_core.journal;

import 'dart:collection';

import 'accounts.dart';
import 'annotations.dart';
import 'currency.dart';
import 'entity.dart';
import 'errors.dart';
import 'ids.dart';
import 'mixins.dart';
import 'money.dart';
import 'transactions.dart';
import 'typedefs.dart';

part 'journal_entry.dart';
part 'journal_query.dart';

/// Posts transactions to the accounts of a [Repository] and keeps them in
/// posting order.
class Journal extends IterableBase<JournalEntry> with Observable<JournalEvent> {
  Journal(this.accounts, {this.onPosted});

  final Repository<Account> accounts;

  /// Called after each successful post.
  final PostingCallback? onPosted;

  final List<JournalEntry> _entries = [];
  final Map<int, int> _indexById = {};
  int _sequence = 0;

  @override
  Iterator<JournalEntry> get iterator => _entries.iterator;

  @override
  int get length => _entries.length;

  JournalEntry operator [](int index) => _entries[index];

  JournalEntry? byId(TransactionId id) {
    final index = _indexById[id.value];
    return index == null ? null : _entries[index];
  }

  /// Validates [transaction], applies its postings and records it.
  ///
  /// Either every posting is applied or none is.
  @Audited(reason: 'posts to accounts', level: AuditLevel.high)
  JournalEntry post(Transaction transaction) {
    _validate(transaction);
    final applied = <(Account, Money)>[];
    try {
      for (final posting in transaction.postings) {
        final account = accounts.require(posting.account.value);
        account.applyDelta(posting.amount);
        applied.add((account, posting.amount));
      }
    } on LedgerException {
      for (final (account, amount) in applied.reversed) {
        account.applyDelta(-amount);
      }
      rethrow;
    }
    final entry = JournalEntry._(++_sequence, transaction, DateTime.now());
    _indexById[transaction.id.value] = _entries.length;
    _entries.add(entry);
    if (transaction.status == TransactionStatus.pending) {
      transaction.status = TransactionStatus.cleared;
    }
    onPosted?.call(transaction);
    emit(EntryPosted(entry));
    return entry;
  }

  void _validate(Transaction transaction) {
    if (_indexById.containsKey(transaction.id.value)) {
      throw ValidationException(
        'duplicate transaction ${transaction.id.display}',
        field: 'id',
      );
    }
    for (final currency in transaction.currencies) {
      final imbalance = transaction.imbalance(currency);
      if (!imbalance.isZero) {
        throw UnbalancedTransactionException(transaction.id.value, imbalance);
      }
    }
  }

  /// Posts the reversal of transaction [id] under [newId].
  @Audited()
  JournalEntry reverse(TransactionId id, {required TransactionId newId, DateTime? at}) {
    final original =
        byId(id) ?? (throw NotFoundException(Transaction, id.display));
    if (original.isReversed) {
      throw LedgerStateError('${id.display} was already reversed');
    }
    final reversal = post(original.transaction.reversal(newId, at ?? DateTime.now()));
    original._reversedBy = reversal;
    emit(EntryReversed(original, reversal));
    return reversal;
  }

  /// Balances computed from the journal alone, independent of the accounts.
  Balances balances() {
    final result = <AccountId, Money>{};
    for (final entry in _entries) {
      for (final Posting(:account, :amount) in entry.transaction.postings) {
        result.update(account, (m) => m + amount, ifAbsent: () => amount);
      }
    }
    return result;
  }

  /// Posts every transaction from [source] as it arrives.
  Future<List<JournalEntry>> postAll(Stream<Transaction> source) async {
    final posted = <JournalEntry>[];
    await for (final transaction in source) {
      posted.add(post(transaction));
    }
    return posted;
  }

  /// Entries grouped by calendar month, oldest first.
  SplayTreeMap<DateTime, List<JournalEntry>> byMonth() {
    final months = SplayTreeMap<DateTime, List<JournalEntry>>();
    for (final entry in _entries) {
      final month = DateTime(entry.date.year, entry.date.month);
      months.putIfAbsent(month, () => []).add(entry);
    }
    return months;
  }

  /// Checks that every account in [currency] equals its opening balance
  /// plus what the journal posted to it; returns one line per mismatch.
  List<String> reconcile(Currency currency, {Balances openings = const {}}) {
    final posted = balances();
    Money expectedFor(Account account) =>
        (openings[account.id] ?? Money.zero(currency)) +
        (posted[account.id] ?? Money.zero(currency));
    return [
      for (final account in accounts.all())
        if (account.currency == currency && expectedFor(account) != account.balance)
          '${account.key}: journal ${expectedFor(account)}, account ${account.balance}',
    ];
  }
}
