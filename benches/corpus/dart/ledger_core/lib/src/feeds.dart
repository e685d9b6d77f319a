/// Asynchronous feeds: replaying, scheduling and queueing transactions.
library;

import 'dart:async';
import 'dart:collection';

import 'annotations.dart';
import 'currency.dart';
import 'errors.dart';
import 'ids.dart';
import 'journal.dart';
import 'money.dart';
import 'transactions.dart';

/// Replays [transactions] as a stream, one every [interval].
Stream<Transaction> replay(
  Iterable<Transaction> transactions, {
  Duration interval = Duration.zero,
}) async* {
  for (final transaction in transactions) {
    await Future<void>.delayed(interval);
    yield transaction;
  }
}

/// The running balance of [account] after each transaction touching it.
Stream<Money> runningBalance(
  Stream<Transaction> source,
  AccountId account,
  Currency currency,
) async* {
  var balance = Money.zero(currency);
  await for (final transaction in source) {
    final amount = transaction.amountFor(account);
    if (amount == null || amount.currency != currency) continue;
    balance += amount;
    yield balance;
  }
}

/// Concatenates several streams, in order.
Stream<T> concatStreams<T>(Iterable<Stream<T>> streams) async* {
  for (final stream in streams) {
    yield* stream;
  }
}

/// The first day of [count] consecutive months, starting with [start]'s.
Iterable<DateTime> monthlySchedule(DateTime start, {required int count}) sync* {
  for (var i = 0; i < count; i++) {
    yield DateTime(start.year, start.month + i);
  }
}

/// Delays between retries: 100ms, 200ms, 400ms, … capped at [cap].
Iterable<Duration> backoffDelays({
  Duration first = const Duration(milliseconds: 100),
  Duration cap = const Duration(seconds: 5),
}) sync* {
  var current = first;
  while (true) {
    yield current;
    final doubled = current * 2;
    current = doubled > cap ? cap : doubled;
  }
}

/// Runs [action] until it succeeds, at most [attempts] times.
///
/// Ledger exceptions are never retried: they are deterministic.
Future<T> retry<T>(
  Future<T> Function() action, {
  int attempts = 3,
  void Function(Object error, int attempt)? onRetry,
}) async {
  final delays = backoffDelays().iterator;
  for (var attempt = 1;; attempt++) {
    try {
      return await action();
    } on LedgerException {
      rethrow;
    } on TimeoutException catch (error) {
      if (attempt >= attempts) rethrow;
      onRetry?.call(error, attempt);
    } catch (error, stackTrace) {
      if (attempt >= attempts) Error.throwWithStackTrace(error, stackTrace);
      onRetry?.call(error, attempt);
    } finally {
      delays.moveNext();
    }
    await Future<void>.delayed(delays.current);
  }
}

/// A generator of recurring transactions, e.g. rent or a salary.
final class RecurringTemplate {
  const RecurringTemplate({
    required this.kind,
    required this.account,
    required this.counter,
    required this.amount,
    required this.description,
    this.dayOfMonth = 1,
  });

  final TransactionKind kind;
  final AccountId account;
  final AccountId counter;
  final Money amount;
  final String description;
  final int dayOfMonth;

  /// One transaction per month, lazily, starting in [start]'s month.
  Iterable<Transaction> occurrences(DateTime start, {required int months}) sync* {
    for (final month in monthlySchedule(start, count: months)) {
      yield Transaction.simple(
        kind,
        id: TransactionId.next(),
        account: account,
        counter: counter,
        amount: amount,
        date: DateTime(month.year, month.month, dayOfMonth),
        description: description,
      );
    }
  }
}

/// Serialises posts to a [Journal], completing each future once posted.
@Experimental('1.3')
class PostingQueue {
  PostingQueue(this.journal, {this.timeout = const Duration(seconds: 2)});

  final Journal journal;
  final Duration timeout;
  final Queue<(Transaction, Completer<JournalEntry>)> _pending = Queue();
  bool _draining = false;

  int get pending => _pending.length;

  Future<JournalEntry> enqueue(Transaction transaction) {
    final completer = Completer<JournalEntry>();
    _pending.add((transaction, completer));
    if (!_draining) scheduleMicrotask(_drain);
    return completer.future.timeout(timeout);
  }

  /// Enqueues all [transactions] and waits for every one of them.
  Future<List<JournalEntry>> enqueueAll(Iterable<Transaction> transactions) =>
      Future.wait([for (final t in transactions) enqueue(t)]);

  void _drain() {
    _draining = true;
    try {
      while (_pending.isNotEmpty) {
        final (transaction, completer) = _pending.removeFirst();
        try {
          completer.complete(journal.post(transaction));
        } on LedgerException catch (error, stackTrace) {
          completer.completeError(error, stackTrace);
        }
      }
    } finally {
      _draining = false;
    }
  }
}

/// Collects the balances emitted by [runningBalance] into a list.
Future<List<Money>> balanceHistory(
  Iterable<Transaction> transactions,
  AccountId account,
  Currency currency,
) async {
  final history = <Money>[];
  final subscription = runningBalance(replay(transactions), account, currency)
      .listen(history.add);
  await subscription.asFuture<void>();
  return history;
}
