// Assertion-style checks of the statement importers and report rendering.
import 'package:ledger_app/domain.dart';
import 'package:ledger_app/formatting.dart';
import 'package:ledger_app/importers/csv_importer.dart';
import 'package:ledger_app/importers/importer.dart';
import 'package:ledger_app/importers/json_importer.dart';
import 'package:ledger_app/reports/balance_report.dart';
import 'package:ledger_app/reports/cashflow_report.dart';
import 'package:ledger_app/reports/report.dart';
import 'package:ledger_core/ledger_core.dart';

final _log = <String>[];

void verify(String name, bool Function() body) {
  try {
    _log.add('${body() ? 'ok' : 'FAIL'} $name');
  } catch (error, stack) {
    _log.add('ERROR $name: $error\n$stack');
  }
}

const checking = AccountId('assets:bank:checking');
const suspense = AccountId('expenses:suspense');

const csvStatement = '''
Date,Description,Amount,Reference
2024-01-03,"ACME Corp, payroll",2500.00,PAY-0001
2024-01-05,Rent January,-1200.00,
01/09/2024,Monthly account fee,-5.00,FEE-0009
# comment lines are ignored
2024-01-12,"Transfer to savings",-300.00,TRF-0012
''';

const jsonStatement = '''
{"account": "assets/bank/checking",
 "lines": [
   {"date": "2024-02-01", "text": "Interest", "amount": 1.25},
   {"date": "2024-02-03", "text": "Coffee beans", "amount": "-14.90", "reference": 77},
   {}
 ]}
''';

Ledger sampleLedger() {
  final clock = FixedClock.epoch();
  final ledger = Ledger('test', clock: clock);
  ledger.accounts.saveAll(starterChart(ledger.currency));
  ledger.accounts.save(PartnerEquity(
    id: const AccountId('equity:partner:ana'),
    name: 'Ana',
    currency: ledger.currency,
    partner: 'Ana',
    share: Percent(60),
  ));
  return ledger;
}

void csvImports() {
  final importer = CsvImporter(account: checking, suspense: suspense)
    ..route('rent', const AccountId('expenses:rent'))
    ..route('fee', const AccountId('expenses:fees'));
  final lines = importer.parse(csvStatement).toList();
  verify('csv line count', () => lines.length == 4);
  verify('csv quoted field', () => lines.first.text == 'ACME Corp, payroll');
  verify('csv slashed date', () => lines[2].date == DateTime(2024, 1, 9));
  verify('csv empty reference', () => lines[1].reference == null);
  final result = importer.run(csvStatement);
  verify('csv result ok', () => result.ok && result.count == 4);
  verify('csv routing', () {
    final rent = result.transactions[1];
    return rent.touches(const AccountId('expenses:rent')) && rent.isBalanced;
  });
  verify('csv kinds', () => [
        for (final t in result.transactions) t.kind,
      ].join(',') == 'TransactionKind.deposit,TransactionKind.withdrawal,'
          'TransactionKind.fee,TransactionKind.transfer');
  verify('csv bad field count', () {
    final bad = importer.run('2024-01-01,only two');
    return !bad.ok && bad.errors.single.line == 1;
  });
  verify('csv split', () => importer.splitFields('a,"b ""c""",d').length == 3);
  verify('csv by reference', () {
    final ordered = importer.byReference(lines);
    return ordered.last.reference == 'TRF-0012';
  });
}

void jsonImports() {
  final importer = JsonImporter(account: checking, suspense: suspense);
  final lines = importer.parse(jsonStatement).toList();
  verify('json skips empty rows', () => lines.length == 2);
  verify('json string amounts', () => lines[1].amount == const Money(-1490, Currency.usd));
  verify('json reference', () => lines[1].reference == '77');
  verify('json account', () => JsonImporter.accountOf(jsonStatement) == checking);
  final StatementImporter strict = JsonImporter(account: checking, suspense: suspense, strict: true);
  final result = strict.run('[{"date": "2024-01-01", "text": "x", "amount": 1, "colour": "red"}]');
  verify('json strict', () => result.errors.single.message.contains('colour'));
}

void reports() {
  final ledger = sampleLedger();
  final chart = ledger.accounts;
  ledger.record(Transaction.simple(
    TransactionKind.deposit,
    id: TransactionId.next(),
    account: checking,
    counter: const AccountId('income:sales'),
    amount: Money.major(1000, ledger.currency),
    date: DateTime(2024, 1, 10),
  ));
  ledger.transfer(checking, const AccountId('assets:bank:savings'), Money.major(250, ledger.currency));
  Ansi.enabled = false;
  final balance = const BalanceReport().render(ledger);
  verify('balance heading', () => balance.startsWith('BALANCE SHEET'));
  verify('balance net worth', () => balance.contains(r'$1,000.00'));
  verify('profit allocation', () => balance.contains('Ana (60.00%)'));
  final mix = const AssetMixReport().build(ledger, const ReportOptions());
  verify('asset mix bars', () => mix.whereType<BarRow>().length == 2);
  final flow = CashflowReport(checking).flows(ledger);
  verify('cash flow months', () => flow.length == 1 && flow.single.inflow.minor == 100000);
  final rows = [
    for (final row in const LargeTransactionsReport(Money(50000, Currency.usd))
        .build(ledger, const ReportOptions()))
      renderRow(row, const ReportOptions(width: 72)),
  ];
  verify('large transactions', () => rows.length == 1 && rows.single.contains('[medium]'));
  verify('chart untouched', () => chart.length == 13);
}

void main() {
  csvImports();
  jsonImports();
  reports();
  _log.forEach(print);
  final failed = _log.where((line) => !line.startsWith('ok')).length;
  print(failed == 0 ? 'all ${_log.length} passed' : '$failed of ${_log.length} failed');
}
