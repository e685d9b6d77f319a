import 'dart:async';

import 'package:ledger_app/domain.dart';
import 'package:ledger_app/service.dart';
import 'package:ledger_core/ledger_core.dart';
import 'package:test/test.dart';

const checking = AccountId('assets:bank:checking');
const savings = AccountId('assets:bank:savings');
const card = AccountId('liabilities:card');
const sales = AccountId('income:sales');

Money usd(num amount) => Money.major(amount, Currency.usd);

void main() {
  late FixedClock clock;
  late Ledger ledger;

  setUp(() {
    TransactionId.resetCounter();
    clock = FixedClock.epoch();
    ledger = Ledger('test', clock: clock);
    ledger.accounts.saveAll(starterChart(Currency.usd));
  });

  group('journal', () {
    test('posting moves balances on both sides', () {
      ledger.transfer(const AccountId('equity:opening'), checking, usd(100));
      expect(ledger.balanceOf(checking), usd(100));
      expect(ledger.balanceOf(const AccountId('equity:opening')), usd(-100));
      expect(ledger.journal, hasLength(1));
      expect(ledger.journal.first.transaction.status, TransactionStatus.cleared);
    });

    test('unbalanced transactions are refused', () {
      final lopsided = Transaction(
        id: TransactionId.next(),
        kind: TransactionKind.adjustment,
        date: clock.now(),
        postings: [Posting(account: checking, amount: usd(5))],
      );
      expect(() => ledger.record(lopsided), throwsA(isA<UnbalancedTransactionException>()));
      expect(ledger.balanceOf(checking), Money.usdZero);
    });

    test('a failing leg rolls back the others', () {
      final tooMuch = Transaction.transfer(
        id: TransactionId.next(),
        from: card,
        to: checking,
        amount: usd(6000),
        date: clock.now(),
      );
      expect(
        () => ledger.record(tooMuch),
        throwsA(isA<InsufficientFundsException>()
            .having((e) => e.shortfall, 'shortfall', usd(1000))),
      );
      expect(ledger.balanceOf(checking), Money.usdZero);
      expect(ledger.journal, isEmpty);
    });

    test('reversal restores balances and links entries', () {
      final entry = ledger.transfer(checking, savings, usd(40));
      final reversal = ledger.journal.reverse(entry.transaction.id, newId: TransactionId.next());
      expect(ledger.balanceOf(savings), Money.usdZero);
      expect(entry.reversedBy, same(reversal));
      expect(() => ledger.journal.reverse(entry.transaction.id, newId: TransactionId.next()),
          throwsA(isA<LedgerStateError>()));
    });

    test('queries filter by account, kind and text', () {
      ledger
        ..transfer(checking, savings, usd(10), memo: 'Weekly savings')
        ..record(Transaction.simple(
          TransactionKind.deposit,
          id: TransactionId.next(),
          account: checking,
          counter: sales,
          amount: usd(900),
          date: DateTime(2024, 2, 2),
          description: 'Invoice 17',
        ));
      final bySavings = ledger.journal.query(const JournalQuery(account: savings));
      expect(bySavings.map((e) => e.transaction.description), ['Weekly savings']);
      final deposits = ledger.journal.query(const JournalQuery(kinds: {TransactionKind.deposit}));
      expect(deposits, hasLength(1));
      expect(ledger.journal.query(const JournalQuery(text: 'INVOICE')), hasLength(1));
      expect(ledger.journal.countByKind(), {TransactionKind.transfer: 1, TransactionKind.deposit: 1});
      expect(ledger.journal.span?.$2, DateTime(2024, 2, 2));
      expect(ledger.journal.reconcile(Currency.usd), isEmpty);
    });

    test('events are observable', () async {
      final events = <String>[];
      ledger.journal.addListener((event) => events.add(describeEvent(event)));
      final next = ledger.nextEvents(1);
      ledger.transfer(checking, savings, usd(1));
      expect(await next, hasLength(1));
      expect(events.single, startsWith('posted #1'));
    });
  });

  group('accounts', () {
    test('sealed family is described exhaustively', () {
      final descriptions = ledger.accounts.sorted.map(describeAccount).toSet();
      expect(descriptions, containsAll(['asset held at First Bank', 'income', 'expense']));
    });

    test('expense budgets', () {
      final budgets = BudgetBook([Budget(category: const AccountId('expenses:rent'), monthly: usd(1000))]);
      expect(budgets.applyTo(ledger.accounts), 1);
      ledger.transfer(checking, const AccountId('expenses:rent'), usd(1200));
      final rent = ledger.accounts.byId(const AccountId('expenses:rent')) as ExpenseAccount;
      expect(rent.overBudget, isTrue);
      expect(budgets.overruns(ledger), {const AccountId('expenses:rent'): usd(200)});
    });

    test('envelopes combine overdraft guard and audit trail', () {
      final groceries = Envelope('Groceries', usd(50), overdraft: usd(10))
        ..spend(usd(45))
        ..spend(usd(12));
      expect(groceries.balance, usd(-7));
      expect(groceries.available, usd(3));
      expect(groceries.trail.map((r) => r.delta), [usd(-45), usd(-12)]);
      expect(() => groceries.spend(usd(5)), throwsA(isA<InsufficientFundsException>()));
      expect(groceries.trail, hasLength(2));
    });

    test('closing requires a zero balance', () {
      final savingsAccount = ledger.accounts.byId(savings);
      savingsAccount.close();
      expect(savingsAccount.isClosed, isTrue);
      expect(() => ledger.transfer(checking, savings, usd(1)), throwsA(isA<AccountClosedException>()));
    });
  });

  group('async', () {
    test('posting queue serialises posts', () async {
      final queue = PostingQueue(ledger.journal);
      final template = RecurringTemplate(
        kind: TransactionKind.transfer,
        account: savings,
        counter: checking,
        amount: usd(25),
        description: 'Standing order',
      );
      final entries = await queue.enqueueAll(template.occurrences(DateTime(2024), months: 3));
      expect(entries.map((e) => e.sequence), [1, 2, 3]);
      expect(ledger.balanceOf(savings), usd(75));
    });

    test('running balance follows the stream', () async {
      final transactions = [
        for (final amount in [10, 20, -5])
          Transaction.transfer(
            id: TransactionId.next(),
            from: sales,
            to: checking,
            amount: usd(amount),
            date: clock.now(),
          ),
      ];
      final history = await balanceHistory(transactions, checking, Currency.usd);
      expect(history, [usd(10), usd(30), usd(25)]);
      final doubled = await concatStreams([replay(transactions), replay(transactions)]).length;
      expect(doubled, 6);
    });

    test('retry gives up on ledger exceptions at once', () async {
      var calls = 0;
      Future<int> flaky() async {
        calls++;
        if (calls < 2) throw TimeoutException('slow bank');
        return calls;
      }

      expect(await retry(flaky), 2);
      calls = 0;
      await expectLater(
        retry<int>(() async {
          calls++;
          throw ValidationException('never');
        }),
        throwsA(isA<ValidationException>()),
      );
      expect(calls, 1);
    });
  });

  group('service and snapshots', () {
    test('snapshot round trip keeps balances', () {
      ledger.transfer(checking, savings, usd(12.34));
      final text = ledger.snapshot().encode();
      final restored = Ledger.fromSnapshot(LedgerSnapshot.decode(text));
      expect(restored.balanceOf(savings), usd(12.34));
      expect(restored.journal, hasLength(1));
      expect(LedgerSnapshot.decode(text).checksum(), ledger.snapshot().checksum());
    });

    test('service transfers by account name', () {
      final service = LedgerService(path: 'unused.json', clock: clock);
      final entry = service.transfer('Checking', 'Savings', '15.00', memo: 'test');
      expect(entry.transaction.description, 'test');
      expect(service.isDirty, isTrue);
      expect(service.netWorthIn(Currency.eur).currency, Currency.eur);
    });

    test('unknown snapshot versions are rejected', () {
      expect(() => LedgerSnapshot.decode('{"version": 99}'),
          throwsA(isA<ValidationException>().having((e) => e.field, 'field', 'version')));
    });
  });
}
