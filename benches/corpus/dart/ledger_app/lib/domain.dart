/// Application-specific account kinds, budgets and clocks, built on the
/// types of `ledger_core`.
library;

import 'package:ledger_core/ledger_core.dart';
import 'package:ledger_core/src/annotations.dart' as meta;

/// Equity belonging to one partner, who is entitled to [share] of profit.
base class PartnerEquity extends EquityAccount {
  PartnerEquity({
    required super.id,
    required super.name,
    required super.currency,
    required String partner,
    required this.share,
  }) : super(owner: partner);

  final Percent share;

  Money profitShare(Money profit) => profit.percent(share);

  @override
  String toString() => '${super.toString()} [${share.label}]';
}

/// Income from one client; tagged so that reports can group it.
class ClientIncome extends IncomeAccount {
  ClientIncome({
    required super.id,
    required super.name,
    required super.currency,
    required this.client,
    this.hourlyRate,
  }) : super(tags: {'client', client.toLowerCase()});

  final String client;
  final Money? hourlyRate;

  /// What [hours] of work should have been billed at the hourly rate.
  Money? expectedFor(double hours) {
    final rate = hourlyRate;
    return rate == null ? null : rate * hours;
  }
}

/// A spending envelope: a budgeted pot that may dip slightly below zero.
class Envelope extends BalanceHolder with OverdraftGuard, AuditTrail implements Entity {
  Envelope(this.name, Money allowance, {Money? overdraft})
      : overdraftLimit = overdraft ?? Money.zero(allowance.currency),
        super(allowance);

  final String name;

  @override
  final Money overdraftLimit;

  @override
  String get holderKey => 'envelope:${name.toLowerCase()}';

  @override
  String get key => holderKey;

  @meta.Audited(reason: 'envelope spend')
  void spend(Money amount) => applyDelta(-amount.abs());

  void refill(Money amount) => applyDelta(amount.abs());
}

/// A monthly budget for an expense category.
final class Budget implements Entity, Describable {
  const Budget({required this.category, required this.monthly, this.rollover = false});

  final AccountId category;
  final Money monthly;

  /// Whether unspent money carries over into the next month.
  final bool rollover;

  @override
  String get key => category.value;

  Money remaining(Money spent) => monthly - spent;

  @override
  String describe() =>
      '${category.leaf.titleCase}: $monthly a month${rollover ? ' (rolls over)' : ''}';
}

/// All budgets of a ledger, with timestamps of the last change.
class BudgetBook extends InMemoryRepository<Budget> with Timestamped {
  BudgetBook([super.seed = const []]);

  @override
  void save(Budget entity) {
    super.save(entity);
    touch();
  }

  /// Categories whose expense account has spent more than its budget.
  Map<AccountId, Money> overruns(Ledger ledger) => {
        for (final budget in all())
          if (ledger.accounts.find(budget.key) case final Account account
              when account.balance > budget.monthly)
            budget.category: account.balance - budget.monthly,
      };

  /// Copies each budget onto its expense account, when one exists.
  int applyTo(ChartOfAccounts chart) {
    var applied = 0;
    for (final expense in chart.ofType<ExpenseAccount>()) {
      final budget = find(expense.key);
      if (budget == null) continue;
      expense.budget = budget.monthly;
      applied++;
    }
    return applied;
  }
}

/// A clock that only moves when told to.
class FixedClock implements Clock {
  FixedClock(this._now);

  FixedClock.epoch() : this(DateTime.utc(2024, 1, 1));

  DateTime _now;

  @override
  DateTime now() => _now;

  void advance(Duration by) => _now = _now.add(by);

  set current(DateTime value) => _now = value;
}

/// The chart of accounts a new small business starts with.
List<Account> starterChart(Currency currency) => [
      AssetAccount(
        id: const AccountId('assets:bank:checking'),
        name: 'Checking',
        currency: currency,
        institution: 'First Bank',
      ),
      AssetAccount(id: const AccountId('assets:bank:savings'), name: 'Savings', currency: currency),
      LiabilityAccount(
        id: const AccountId('liabilities:card'),
        name: 'Credit card',
        currency: currency,
        creditLimit: Money.major(5000, currency),
      ),
      IncomeAccount(id: const AccountId('income:sales'), name: 'Sales', currency: currency),
      ClientIncome(
        id: const AccountId('income:clients:acme'),
        name: 'ACME consulting',
        currency: currency,
        client: 'ACME',
        hourlyRate: Money.major(120, currency),
      ),
      ExpenseAccount(id: const AccountId('expenses:rent'), name: 'Rent', currency: currency),
      ExpenseAccount(
        id: const AccountId('expenses:software'),
        name: 'Software',
        currency: currency,
        tags: {'subscriptions'},
      ),
      ExpenseAccount(id: const AccountId('expenses:fees'), name: 'Bank fees', currency: currency),
      ExpenseAccount(id: const AccountId('expenses:suspense'), name: 'Uncategorised', currency: currency),
    ];
