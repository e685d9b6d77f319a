/// The `ledger` sub-commands.
library;

import 'dart:async';

import 'package:args/args.dart';
import 'package:args/command_runner.dart';
import 'package:ledger_core/ledger_core.dart' hide Predicate;
import 'package:ledger_core/src/journal.dart' as journal show JournalQuery;

import 'formatting.dart';
import 'importers/csv_importer.dart';
import 'importers/importer.dart';
import 'importers/json_importer.dart';
import 'reports/balance_report.dart';
import 'reports/cashflow_report.dart';
import 'reports/report.dart';
import 'service.dart';

/// Reports selectable with `ledger report <name>`.
final Map<String, ReportFactory> reportRegistry = {
  'balance': (options) => BalanceReport(showDescriptions: options['describe'] == true),
  'mix': (_) => const AssetMixReport(),
  'cashflow': (options) => CashflowReport(
        (options['account'] as String? ?? 'assets:bank:checking').toAccountId(),
        months: int.tryParse('${options['months']}'),
      ),
  'large': (options) => LargeTransactionsReport(
        (options['threshold'] as String? ?? '1000').toMoney(),
      ),
};

/// Base of all commands: gives typed access to the service and options.
abstract class LedgerCommand extends Command<int> {
  LedgerCommand(this.service);

  final LedgerService service;

  ArgResults get options => argResults!;

  bool get verbose => globalResults?['verbose'] == true;

  /// Where output goes; replaced in tests.
  static void Function(String line) out = print;

  void info(String line) {
    if (verbose) out(Ansi.dim(line));
  }

  @override
  Future<int> run() async {
    await service.load();
    try {
      return await execute();
    } finally {
      await service.save();
    }
  }

  /// The command proper; returns the exit code.
  FutureOr<int> execute();
}

class BalanceCommand extends LedgerCommand {
  BalanceCommand(super.service) {
    argParser
      ..addFlag('all', abbr: 'a', help: 'Include accounts with a zero balance.')
      ..addOption('type', help: 'Only accounts of this type.', allowed: [
        for (final type in AccountType.values) type.name,
      ]);
  }

  @override
  String get name => 'balance';

  @override
  String get description => 'Show account balances.';

  @override
  List<String> get aliases => const ['bal'];

  @override
  int execute() {
    final includeAll = options['all'] as bool;
    final type = switch (options['type']) {
      final String name => AccountType.values.byName(name),
      _ => null,
    };
    final accounts = service.ledger.accounts.sorted
        .where((a) => type == null || a.type == type)
        .where((a) => includeAll || !a.balance.isZero)
        .toList();
    final table = TableFormatter<Account>([
      Column('Account', (a) => a.key),
      Column('Name', (a) => a.name, maxWidth: 24),
      Column.money('Balance', (a) => a.balance),
    ]);
    out(table.render(accounts));
    info('${accounts.length} of ${service.ledger.accounts.length} accounts');
    return 0;
  }
}

class TransferCommand extends LedgerCommand {
  TransferCommand(super.service) {
    argParser
      ..addOption('from', abbr: 'f', mandatory: true, help: 'Source account.')
      ..addOption('to', abbr: 't', mandatory: true, help: 'Target account.')
      ..addOption('memo', abbr: 'm', help: 'Description of the transfer.');
  }

  @override
  final String name = 'transfer';

  @override
  final String description = 'Move money between two accounts.';

  @override
  String get invocation => 'ledger transfer --from <account> --to <account> <amount>';

  @override
  int execute() {
    final rest = options.rest;
    if (rest.length != 1) usageException('Give exactly one amount.');
    final entry = service.transfer(
      options['from'] as String,
      options['to'] as String,
      rest.single,
      memo: options['memo'] as String?,
    );
    out('Posted ${entry.transaction.id.display}: ${entry.transaction.total}');
    return 0;
  }
}

class ImportCommand extends LedgerCommand {
  ImportCommand(super.service) {
    argParser
      ..addOption('format', allowed: ['csv', 'json'], help: 'Defaults to the file extension.')
      ..addOption('account', defaultsTo: 'assets:bank:checking')
      ..addMultiOption('route', help: 'Route lines: "text=account", repeatable.')
      ..addFlag('dry-run', negatable: false, help: 'Parse but do not post.')
      ..addFlag('day-first', negatable: false);
  }

  @override
  String get name => 'import';

  @override
  String get description => 'Import a bank statement.';

  @override
  Future<int> execute() async {
    if (options.rest case [final file]) {
      final importer = _importerFor(file);
      for (final route in options['route'] as List<String>) {
        switch (route.split('=')) {
          case [final needle, final account] when !needle.isBlank:
            importer.route(needle, account.toAccountId());
          default:
            usageException('Bad --route "$route".');
        }
      }
      final text = await LedgerService.readStatement(file);
      final result = await service.importStatement(
        importer,
        text,
        dryRun: options['dry-run'] as bool,
      );
      out(result.toString());
      for (final error in result.errors) {
        out('  ${Ansi.red(error.toString())}');
      }
      return result.ok ? 0 : 2;
    }
    usageException('Give exactly one statement file.');
  }

  StatementImporter _importerFor(String file) {
    final account = (options['account'] as String).toAccountId();
    const suspense = AccountId('expenses:suspense');
    final format = options['format'] as String? ?? file.split('.').last.toLowerCase();
    return switch (format) {
      'csv' => CsvImporter(
          account: account,
          suspense: suspense,
          currency: service.ledger.currency,
          dayFirst: options['day-first'] as bool,
        ),
      'json' => JsonImporter(account: account, suspense: suspense, currency: service.ledger.currency),
      final other => usageException('Unknown statement format "$other".'),
    };
  }
}

class ReportCommand extends LedgerCommand {
  ReportCommand(super.service) {
    argParser
      ..addFlag('color', defaultsTo: true, help: 'Colour negative amounts.')
      ..addFlag('describe', negatable: false)
      ..addOption('account')
      ..addOption('months')
      ..addOption('threshold')
      ..addOption('width', defaultsTo: '64');
  }

  @override
  String get name => 'report';

  @override
  String get description => 'Print a report: ${reportRegistry.keys.join(', ')}.';

  @override
  int execute() {
    final which = options.rest.isEmpty ? 'balance' : options.rest.first;
    final makeReport = reportRegistry[which] ?? usageException('No report called "$which".');
    final report = makeReport({
      for (final option in ['describe', 'account', 'months', 'threshold'])
        if (options.wasParsed(option)) option: options[option],
    });
    final reportOptions = ReportOptions(
      width: int.tryParse(options['width'] as String) ?? 64,
      color: options['color'] as bool,
    );
    out(report.render(service.ledger, reportOptions));
    return 0;
  }
}

class SearchCommand extends LedgerCommand {
  SearchCommand(super.service) {
    argParser
      ..addOption('account')
      ..addMultiOption('kind', allowed: [for (final k in TransactionKind.values) k.code]);
  }

  @override
  String get name => 'search';

  @override
  String get description => 'Find journal entries.';

  @override
  int execute() {
    final kinds = (options['kind'] as List<String>).map(TransactionKind.fromCode).toSet();
    final query = journal.JournalQuery(
      account: (options['account'] as String?)?.toAccountId(),
      kinds: kinds,
      text: options.rest.isEmpty ? null : options.rest.join(' '),
    );
    var count = 0;
    for (final entry in service.ledger.journal.query(query)) {
      count++;
      out('${formatDate(entry.date)}  ${entry.transaction.id.display}  '
          '${entry.transaction.description.truncate(40).cell(40)} '
          '${formatMoney(entry.transaction.total, accounting: true)}');
    }
    info('$count entries');
    return count == 0 ? 1 : 0;
  }
}

/// The command runner with every command registered.
CommandRunner<int> buildRunner(LedgerService service) {
  final runner = CommandRunner<int>('ledger', 'Plain-text double-entry bookkeeping.')
    ..addCommand(BalanceCommand(service))
    ..addCommand(TransferCommand(service))
    ..addCommand(ImportCommand(service))
    ..addCommand(ReportCommand(service))
    ..addCommand(SearchCommand(service));
  runner.argParser
    ..addFlag('verbose', abbr: 'v', negatable: false, help: 'Say more.')
    ..addOption('file', help: 'Ledger file to use.');
  return runner;
}
