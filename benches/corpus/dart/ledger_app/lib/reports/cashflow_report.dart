/// Month-by-month cash flow.
library;

import 'package:ledger_core/ledger_core.dart';

import '../formatting.dart' show formatShare;
import 'report.dart';

/// Inflows and outflows of one month.
typedef MonthFlow = ({DateTime month, Money inflow, Money outflow});

/// How the entries of one month break down.
extension on List<JournalEntry> {
  MonthFlow flowFor(DateTime month, AccountId account, Currency currency) {
    var inflow = Money.zero(currency);
    var outflow = Money.zero(currency);
    for (final entry in this) {
      final amount = entry.transaction.amountFor(account);
      if (amount == null) continue;
      if (amount.isPositive) {
        inflow += amount;
      } else {
        outflow += amount.abs();
      }
    }
    return (month: month, inflow: inflow, outflow: outflow);
  }
}

/// Cash in and out of one asset account, per month, with a running total.
class CashflowReport extends Report {
  const CashflowReport(this.account, {this.months}) : super('Cash flow');

  final AccountId account;

  /// Only the last [months] months, when set.
  final int? months;

  List<MonthFlow> flows(Ledger ledger) {
    final grouped = ledger.journal.byMonth();
    final all = [
      for (final MapEntry(key: month, value: entries) in grouped.entries)
        entries.flowFor(month, account, ledger.currency),
    ];
    final limit = months;
    return limit == null || all.length <= limit ? all : all.sublist(all.length - limit);
  }

  @override
  List<ReportRow> build(Ledger ledger, ReportOptions options) {
    final currency = ledger.currency;
    final rows = <ReportRow>[];
    var running = Money.zero(currency);
    for (final (:month, :inflow, :outflow) in flows(ledger)) {
      if (options.from case final from? when month.isBefore(from.startOfMonth)) continue;
      if (options.to case final to? when !month.isBefore(to)) break;
      running += inflow - outflow;
      rows
        ..add(HeadingRow(month.isoDate.substring(0, 7), level: 2))
        ..add(AmountRow('In', inflow, depth: 1))
        ..add(AmountRow('Out', -outflow, depth: 1))
        ..add(AmountRow('Running', running, depth: 1, emphasis: true));
    }
    if (rows.isEmpty) return const [NoteRow('No movements.')];
    return [...rows, const SeparatorRow(), ..._kinds(ledger)];
  }

  Iterable<ReportRow> _kinds(Ledger ledger) sync* {
    final counts = ledger.journal.countByKind();
    final total = counts.values.fold(0, (int a, b) => a + b);
    if (total == 0) return;
    final ordered = counts.entries.toList()..sort((a, b) => b.value.compareTo(a.value));
    for (final MapEntry(key: kind, value: count) in ordered) {
      yield BarRow('${kind.label} (${formatShare(count / total)})', count / total);
    }
  }
}

/// Transactions above a threshold, with their size bucket.
class LargeTransactionsReport extends Report {
  const LargeTransactionsReport(this.threshold) : super('Large transactions');

  final Money threshold;

  @override
  List<ReportRow> build(Ledger ledger, ReportOptions options) {
    final query = JournalQuery(minimum: threshold, from: options.from, to: options.to);
    final hits = ledger.journal.query(query).toList();
    return [
      if (hits.isEmpty) NoteRow('Nothing above $threshold.'),
      for (final entry in hits)
        AmountRow(
          '${entry.date.isoDate} ${entry.transaction.description.truncate(28)} '
          '[${sizeBucket(entry.transaction.total)}]',
          entry.transaction.total,
        ),
    ];
  }
}
