/// The balance sheet.
library;

import 'package:ledger_core/ledger_core.dart';

import '../domain.dart';
import 'report.dart';

/// Assets, liabilities and equity at the current date.
class BalanceReport extends Report {
  const BalanceReport({this.showDescriptions = false}) : super('Balance sheet');

  /// Whether each account gets a one-line description under it.
  final bool showDescriptions;

  @override
  List<ReportRow> build(Ledger ledger, ReportOptions options) {
    final currency = ledger.currency;
    final sections = <(String, AccountType)>[
      ('Assets', AccountType.asset),
      ('Liabilities', AccountType.liability),
      ('Equity', AccountType.equity),
    ];
    return [
      for (final (label, type) in sections) ...[
        HeadingRow(label, level: 2),
        for (final account in ledger.accounts.sorted)
          if (account.type == type && (options.includeEmpty || !account.balance.isZero)) ...[
            AmountRow(account.name, account.normalBalance, depth: account.id.depth - 1),
            if (showDescriptions) NoteRow('    ${describeAccount(account)}'),
          ],
        AmountRow('Total ${label.toLowerCase()}', _total(ledger, type), emphasis: true),
        const SeparatorRow(),
      ],
      AmountRow('Net worth', ledger.netWorth, emphasis: true),
      ..._partners(ledger, currency),
    ];
  }

  Money _total(Ledger ledger, AccountType type) {
    final raw = ledger.accounts.totalFor(type, ledger.currency);
    return type.debitNormal ? raw : -raw;
  }

  Iterable<ReportRow> _partners(Ledger ledger, Currency currency) sync* {
    final partners = ledger.accounts.ofType<PartnerEquity>().toList();
    if (partners.isEmpty) return;
    yield const SeparatorRow();
    yield const HeadingRow('Profit allocation', level: 2);
    final profit = -ledger.accounts.totalFor(AccountType.income, currency) -
        ledger.accounts.totalFor(AccountType.expense, currency);
    for (final partner in partners) {
      yield AmountRow('${partner.owner ?? partner.name} (${partner.share.label})',
          partner.profitShare(profit),
          depth: 1);
    }
  }
}

/// Accounts ranked by their share of total assets.
class AssetMixReport extends Report {
  const AssetMixReport() : super('Asset mix');

  @override
  List<ReportRow> build(Ledger ledger, ReportOptions options) {
    final assets = ledger.accounts.ofType<AssetAccount>();
    final shares = sharesOf(assets, ledger.currency);
    if (shares.isEmpty) return const [NoteRow('No assets yet.')];
    return [
      for (final (account, share) in shares) BarRow(account.name, share),
      NoteRow('Largest holding: ${shares.first.$1.name}'),
    ];
  }
}
