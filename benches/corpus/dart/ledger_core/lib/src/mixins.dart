/// Reusable behaviour mixed into accounts, journals and repositories.
library;

import 'dart:async';

import 'annotations.dart';
import 'errors.dart';
import 'money.dart';

/// Something that owns a running balance.
abstract class BalanceHolder {
  BalanceHolder(Money opening) : _balance = opening;

  Money _balance;

  Money get balance => _balance;

  /// The key under which audit records are filed.
  String get holderKey;

  /// Adds [delta] to the balance.
  @sensitive
  void applyDelta(Money delta) {
    _balance = _balance + delta;
  }
}

/// Refuses deltas that would take the balance below `-overdraftLimit`.
mixin OverdraftGuard on BalanceHolder {
  Money get overdraftLimit;

  /// What can still be drawn before the guard trips.
  Money get available => balance + overdraftLimit;

  @override
  void applyDelta(Money delta) {
    final next = balance + delta;
    if (next < -overdraftLimit) {
      throw InsufficientFundsException(
        accountKey: holderKey,
        shortfall: -(next + overdraftLimit),
      );
    }
    super.applyDelta(delta);
  }
}

/// One balance change recorded by [AuditTrail].
final class AuditRecord {
  const AuditRecord(this.key, this.before, this.after, this.at);

  final String key;
  final Money before;
  final Money after;
  final DateTime at;

  Money get delta => after - before;

  @override
  String toString() => '${at.toIso8601String()} $key $before -> $after';
}

/// Records every balance change.
mixin AuditTrail on BalanceHolder {
  final List<AuditRecord> _trail = [];

  List<AuditRecord> get trail => List.unmodifiable(_trail);

  @override
  void applyDelta(Money delta) {
    final before = balance;
    super.applyDelta(delta);
    _trail.add(AuditRecord(holderKey, before, balance, DateTime.now()));
  }

  void clearTrail() => _trail.clear();
}

/// Creation and modification times; usable as a mixin or a superclass.
mixin class Timestamped {
  DateTime? _created;
  DateTime? _updated;

  DateTime get createdAt => _created ??= DateTime.now();

  DateTime get updatedAt => _updated ?? createdAt;

  void touch([DateTime? at]) {
    final now = at ?? DateTime.now();
    _created ??= now;
    _updated = now;
  }
}

/// Publishes events to synchronous listeners and to a broadcast stream.
mixin Observable<E> {
  final StreamController<E> _events = StreamController<E>.broadcast(sync: true);
  final List<void Function(E event)> _listeners = [];

  Stream<E> get events => _events.stream;

  void addListener(void Function(E event) listener) => _listeners.add(listener);

  bool removeListener(void Function(E event) listener) =>
      _listeners.remove(listener);

  void emit(E event) {
    for (final listener in List.of(_listeners)) {
      listener(event);
    }
    if (!_events.isClosed) _events.add(event);
  }

  Future<void> closeEvents() => _events.close();
}
