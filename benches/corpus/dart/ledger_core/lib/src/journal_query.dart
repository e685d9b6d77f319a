part of 'journal.dart';

/// A filter over journal entries; every field that is set must match.
final class JournalQuery {
  const JournalQuery({
    this.account,
    this.kinds = const {},
    this.from,
    this.to,
    this.minimum,
    this.text,
  });

  final AccountId? account;
  final Set<TransactionKind> kinds;
  final DateTime? from;
  final DateTime? to;
  final Money? minimum;
  final String? text;

  bool matches(JournalEntry entry) {
    final t = entry.transaction;
    if (account case final id? when !t.touches(id)) return false;
    if (kinds.isNotEmpty && !kinds.contains(t.kind)) return false;
    if (from != null && t.date.isBefore(from!)) return false;
    if (to case final end? when !t.date.isBefore(end)) return false;
    if (minimum case final floor?
        when t.total.currency == floor.currency && t.total < floor) {
      return false;
    }
    if (text?.toLowerCase() case final needle?
        when !t.description.toLowerCase().contains(needle)) {
      return false;
    }
    return true;
  }

  JournalQuery copyWith({
    AccountId? account,
    Set<TransactionKind>? kinds,
    DateTime? from,
    DateTime? to,
    Money? minimum,
    String? text,
  }) =>
      JournalQuery(
        account: account ?? this.account,
        kinds: kinds ?? this.kinds,
        from: from ?? this.from,
        to: to ?? this.to,
        minimum: minimum ?? this.minimum,
        text: text ?? this.text,
      );
}

/// Read-only views over a [Journal].
extension JournalQueries on Journal {
  Iterable<JournalEntry> query(JournalQuery q) => where(q.matches);

  /// Total debits plus credits seen by [account].
  Money turnover(AccountId account, Currency currency) {
    var sum = Money.zero(currency);
    for (final entry in this) {
      final amount = entry.transaction.amountFor(account);
      if (amount != null && amount.currency == currency) sum += amount.abs();
    }
    return sum;
  }

  Map<TransactionKind, int> countByKind() {
    final counts = <TransactionKind, int>{};
    for (final entry in this) {
      counts.update(entry.kind, (c) => c + 1, ifAbsent: () => 1);
    }
    return counts;
  }

  /// First and last transaction date, or `null` for an empty journal.
  (DateTime first, DateTime last)? get span {
    if (isEmpty) return null;
    final dates = map((e) => e.date).toList()..sort();
    return (dates.first, dates.last);
  }

  /// Entries dated in `[from, to)`, lazily.
  Iterable<JournalEntry> between(DateTime from, DateTime to) sync* {
    for (final entry in this) {
      if (!entry.date.isBefore(from) && entry.date.isBefore(to)) yield entry;
    }
  }

  JournalEntry? get latest => isEmpty ? null : last;
}
