part of 'journal.dart';

/// A transaction as recorded in the [Journal].
final class JournalEntry implements Comparable<JournalEntry> {
  JournalEntry._(this.sequence, this.transaction, this.postedAt);

  /// Position in the journal, starting at 1.
  final int sequence;
  final Transaction transaction;
  final DateTime postedAt;
  JournalEntry? _reversedBy;

  JournalEntry? get reversedBy => _reversedBy;

  bool get isReversed => _reversedBy != null;

  DateTime get date => transaction.date;

  TransactionKind get kind => transaction.kind;

  @override
  int compareTo(JournalEntry other) => sequence.compareTo(other.sequence);

  @override
  String toString() =>
      '#$sequence ${transaction.id.display} ${transaction.description}';
}

/// Something that happened to the journal.
sealed class JournalEvent {
  const JournalEvent();

  JournalEntry get entry;
}

final class EntryPosted extends JournalEvent {
  const EntryPosted(this.entry);

  @override
  final JournalEntry entry;
}

final class EntryReversed extends JournalEvent {
  const EntryReversed(this.entry, this.reversal);

  @override
  final JournalEntry entry;

  final JournalEntry reversal;
}

/// A log line for [event].
String describeEvent(JournalEvent event) => switch (event) {
      EntryPosted(:final entry) => 'posted $entry',
      EntryReversed(:final entry, :final reversal) =>
        'reversed $entry by #${reversal.sequence}',
    };
