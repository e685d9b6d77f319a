/// The ledger facade: one object that owns accounts, journal and hooks.
library;

import 'dart:math' as math show Random;

import 'accounts.dart';
import 'annotations.dart';
import 'codec.dart';
import 'currency.dart';
import 'errors.dart';
import 'ids.dart';
import 'journal.dart';
import 'money.dart';
import 'rates.dart' deferred as fx;
import 'transactions.dart';
import 'typedefs.dart';

/// Source of the current time; replace it in tests.
interface class Clock {
  const Clock();

  DateTime now() => DateTime.now();
}

/// A set of books in one reporting currency.
class Ledger {
  Ledger._(this.name, this.currency, this.accounts, this.clock, this._hooks)
      : journal = Journal(accounts, onPosted: (transaction) {
          for (final hook in _hooks) {
            hook(transaction);
          }
        }) {
    _instances++;
  }

  /// Creates an empty ledger with the standard cash and equity accounts.
  factory Ledger(String name, {Currency currency = defaultCurrency, Clock? clock}) {
    final ledger = Ledger._(name, currency, ChartOfAccounts(), clock ?? const Clock(), []);
    ledger.accounts
      ..save(AssetAccount.cash(currency: currency))
      ..save(RetainedEarnings(currency))
      ..save(EquityAccount(
        id: const AccountId('equity:opening'),
        name: 'Opening balances',
        currency: currency,
      ));
    return ledger;
  }

  /// Rebuilds a ledger from a snapshot, re-posting its transactions.
  factory Ledger.fromSnapshot(LedgerSnapshot snapshot, {Clock? clock}) {
    final currency = snapshot.accounts.isEmpty
        ? defaultCurrency
        : snapshot.accounts.first.currency;
    final ledger = Ledger._(snapshot.name, currency, ChartOfAccounts(), clock ?? const Clock(), []);
    // Snapshots store closing balances; take the journal back out of them
    // so that re-posting the transactions lands on the same figures.
    final posted = <AccountId, Money>{};
    for (final transaction in snapshot.transactions) {
      for (final Posting(:account, :amount) in transaction.postings) {
        posted.update(account, (sum) => sum + amount, ifAbsent: () => amount);
      }
    }
    for (final account in snapshot.accounts) {
      if (posted[account.id] case final delta?) account.applyDelta(-delta);
    }
    ledger.accounts.saveAll(snapshot.accounts);
    for (final transaction in snapshot.transactions) {
      ledger.journal.post(transaction);
    }
    return ledger;
  }

  static const defaultCurrency = Currency.usd;
  static int _instances = 0;

  /// How many ledgers this process created.
  static int get instances => _instances;

  final String name;
  final Currency currency;
  final ChartOfAccounts accounts;
  final Journal journal;
  final Clock clock;
  final List<PostingCallback> _hooks;

  late final DateTime openedAt = clock.now();

  String? _title;
  String get title => _title ?? name;
  set title(String? value) => _title = value?.trim();

  void addHook(PostingCallback hook) => _hooks.add(hook);

  /// Opens a new account of [type] under a derived id.
  @Audited(reason: 'chart change')
  Account open(AccountType type, String name, {Money? opening, String? under}) {
    final id = AccountId.of([type.prefix, ...?under?.split(':'), name]);
    if (accounts.contains(id.value)) {
      throw ValidationException('account ${id.value} already exists', field: 'id');
    }
    final account = Account.open(type, id: id, name: name, currency: currency);
    accounts.save(account);
    if (opening != null && !opening.isZero) {
      record(Transaction.transfer(
        id: TransactionId.next(),
        from: const AccountId('equity:opening'),
        to: id,
        amount: opening,
        date: clock.now(),
        description: 'Opening balance of $name',
      ));
    }
    return account;
  }

  @sensitive
  JournalEntry record(Transaction transaction) => journal.post(transaction);

  JournalEntry transfer(AccountId from, AccountId to, Money amount, {String? memo}) =>
      record(Transaction.transfer(
        id: TransactionId.next(),
        from: from,
        to: to,
        amount: amount,
        date: clock.now(),
        description: memo ?? 'Transfer',
      ));

  Money balanceOf(AccountId id) => accounts.byId(id).balance;

  Map<AccountType, Money> summary() => {
        for (final type in AccountType.values) type: accounts.totalFor(type, currency),
      };

  /// Net worth: assets minus liabilities (liabilities carry negative balances).
  Money get netWorth =>
      accounts.totalFor(AccountType.asset, currency) +
      accounts.totalFor(AccountType.liability, currency);

  List<String> describe({bool includeEmpty = false}) => [
        'Ledger $title (${currency.code})',
        for (final account in accounts.sorted)
          if (includeEmpty || !account.balance.isZero)
            '  ${account.key.padRight(32)} ${account.balance}',
        if (journal.isNotEmpty) ...[
          '',
          'Entries: ${journal.length}',
        ],
      ];

  /// Converts [amount] into the ledger currency, loading rates on first use.
  Future<Money> convert(Money amount) async {
    if (amount.currency == currency) return amount;
    await fx.loadLibrary();
    return fx.ExchangeRates.defaults().convert(amount, currency);
  }

  /// A random sample of entries, used by spot-check audits.
  List<JournalEntry> sample(int count, {int? seed}) {
    final random = math.Random(seed);
    final entries = journal.toList()..shuffle(random);
    return entries.take(count).toList();
  }

  LedgerSnapshot snapshot() => LedgerSnapshot(
        name: name,
        accounts: accounts.sorted,
        transactions: [for (final entry in journal) entry.transaction],
      );

  /// Waits until [count] more entries have been posted.
  Future<List<JournalEvent>> nextEvents(int count) =>
      journal.events.take(count).toList();

  @override
  String toString() => 'Ledger($name, ${accounts.length} accounts)';
}
