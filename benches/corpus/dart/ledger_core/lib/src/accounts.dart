/// The chart of accounts: a sealed family of account kinds.
library;

import 'dart:collection';

import 'annotations.dart';
import 'currency.dart';
import 'entity.dart';
import 'errors.dart';
import 'ids.dart';
import 'mixins.dart';
import 'money.dart';
import 'typedefs.dart';

/// The five classic account types of double-entry bookkeeping.
enum AccountType {
  asset(debitNormal: true, prefix: 'assets'),
  liability(debitNormal: false, prefix: 'liabilities'),
  equity(debitNormal: false, prefix: 'equity'),
  income(debitNormal: false, prefix: 'income'),
  expense(debitNormal: true, prefix: 'expenses');

  const AccountType({required this.debitNormal, required this.prefix});

  /// Whether a debit increases the account.
  final bool debitNormal;

  /// The root segment of account ids of this type.
  final String prefix;

  /// Infers the type from the root segment of [id].
  static AccountType? forId(AccountId id) {
    for (final type in values) {
      if (type.prefix == id.root) return type;
    }
    return null;
  }
}

/// An account in the ledger.
sealed class Account extends BalanceHolder
    implements Entity, Comparable<Account> {
  Account({
    required this.id,
    required this.name,
    required this.currency,
    Money? opening,
    Set<String>? tags,
  })  : tags = {...?tags},
        super(opening ?? Money.zero(currency));

  /// Opens an account of the given [type].
  factory Account.open(
    AccountType type, {
    required AccountId id,
    required String name,
    Currency currency = Currency.usd,
    Money? opening,
  }) =>
      switch (type) {
        AccountType.asset =>
          AssetAccount(id: id, name: name, currency: currency, opening: opening),
        AccountType.liability => LiabilityAccount(
            id: id,
            name: name,
            currency: currency,
            opening: opening,
            creditLimit: Money.zero(currency),
          ),
        AccountType.equity =>
          EquityAccount(id: id, name: name, currency: currency, opening: opening),
        AccountType.income =>
          IncomeAccount(id: id, name: name, currency: currency, opening: opening),
        AccountType.expense =>
          ExpenseAccount(id: id, name: name, currency: currency, opening: opening),
      };

  final AccountId id;
  final String name;
  final Currency currency;
  final Set<String> tags;
  String? description;
  bool _closed = false;

  AccountType get type;

  @override
  String get key => id.value;

  @override
  String get holderKey => key;

  bool get isClosed => _closed;

  /// The balance with the sign flipped for credit-normal accounts.
  Money get normalBalance => type.debitNormal ? balance : -balance;

  @override
  @Audited(reason: 'balance mutation', level: AuditLevel.high)
  void applyDelta(Money delta) {
    if (_closed) throw AccountClosedException(key);
    if (delta.currency != currency) {
      throw CurrencyMismatchException(currency, delta.currency);
    }
    super.applyDelta(delta);
  }

  void close() {
    if (!balance.isZero) {
      throw LedgerStateError('cannot close $key with balance $balance');
    }
    _closed = true;
  }

  @override
  int compareTo(Account other) => id.value.compareTo(other.id.value);

  Json toJson() => {
        'id': key,
        'name': name,
        'type': type.name,
        'currency': currency.code,
        'balance': balance.toJson(),
        if (tags.isNotEmpty) 'tags': [...tags],
        if (description case final text?) 'description': text,
        if (_closed) 'closed': true,
      };

  @override
  String toString() => '${type.name} $name ($balance)';
}

/// Tag helpers for accounts that are categorised by users.
mixin Taggable {
  Set<String> get tags;

  bool hasTag(String tag) => tags.contains(tag.toLowerCase());

  void addTag(String tag) => tags.add(tag.toLowerCase());

  @override
  String toString() =>
      tags.isEmpty ? super.toString() : '${super.toString()} #${tags.join(' #')}';
}

final class AssetAccount extends Account with AuditTrail {
  AssetAccount({
    required super.id,
    required super.name,
    required super.currency,
    super.opening,
    super.tags,
    this.institution,
  });

  /// The petty-cash account every ledger starts with.
  AssetAccount.cash({Currency currency = Currency.usd})
      : this(id: const AccountId('assets:cash'), name: 'Cash', currency: currency);

  /// The bank holding the account, if any.
  final String? institution;

  @override
  AccountType get type => AccountType.asset;
}

final class LiabilityAccount extends Account with OverdraftGuard {
  LiabilityAccount({
    required super.id,
    required super.name,
    required super.currency,
    super.opening,
    required this.creditLimit,
  });

  final Money creditLimit;

  @override
  Money get overdraftLimit => creditLimit;

  @override
  AccountType get type => AccountType.liability;
}

base class EquityAccount extends Account {
  EquityAccount({
    required super.id,
    required super.name,
    required super.currency,
    super.opening,
    this.owner,
  });

  final String? owner;

  @override
  AccountType get type => AccountType.equity;
}

final class RetainedEarnings extends EquityAccount {
  RetainedEarnings(Currency currency)
      : super(
          id: const AccountId('equity:retained'),
          name: 'Retained earnings',
          currency: currency,
        );
}

class IncomeAccount extends Account with Taggable {
  IncomeAccount({
    required super.id,
    required super.name,
    required super.currency,
    super.opening,
    super.tags,
  });

  @override
  AccountType get type => AccountType.income;
}

interface class ExpenseAccount extends Account with Taggable {
  ExpenseAccount({
    required super.id,
    required super.name,
    required super.currency,
    super.opening,
    super.tags,
    this.budget,
  });

  /// The monthly budget, if one was set.
  Money? budget;

  bool get overBudget => switch (budget) {
        null => false,
        final Money limit => balance > limit,
      };

  @override
  AccountType get type => AccountType.expense;
}

/// All accounts of a ledger, indexed by id and by name.
class ChartOfAccounts extends InMemoryRepository<Account> {
  ChartOfAccounts([Iterable<Account> seed = const []]) : super(seed);

  final SplayTreeMap<String, AccountId> _byName = SplayTreeMap<String, AccountId>();

  @override
  void save(Account entity) {
    super.save(entity);
    _byName[entity.name.toLowerCase()] = entity.id;
  }

  @override
  @Audited()
  Account? remove(String key) {
    final removed = super.remove(key);
    if (removed != null) _byName.remove(removed.name.toLowerCase());
    return removed;
  }

  Account? byName(String name) {
    final id = _byName[name.toLowerCase()];
    return id == null ? null : find(id.value);
  }

  Account byId(AccountId id) => require(id.value);

  Iterable<A> ofType<A extends Account>() => all().whereType<A>();

  Iterable<Account> childrenOf(AccountId parent) =>
      all().where((account) => account.id.isDescendantOf(parent));

  Money totalFor(AccountType type, Currency currency) => all()
      .where((a) => a.type == type && a.currency == currency)
      .fold(Money.zero(currency), (sum, a) => sum + a.balance);

  /// All accounts in id order.
  UnmodifiableListView<Account> get sorted =>
      UnmodifiableListView(all().toList()..sort());

  /// Names in alphabetical order, courtesy of the splay tree.
  Iterable<String> get names => _byName.keys;
}
