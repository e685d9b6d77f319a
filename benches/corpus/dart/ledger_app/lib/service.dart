/// The service layer between the command line and the ledger.
library;

import 'dart:async';
import 'dart:convert';
import 'dart:io';

import 'package:ledger_core/ledger_core.dart';
import 'package:ledger_core/src/rates.dart' as rates;
import 'package:ledger_core/src/typedefs.dart' show LegacyListener;

import 'domain.dart';
import 'importers/importer.dart';

/// Something the service did, for progress output and logs.
sealed class ServiceEvent {
  const ServiceEvent(this.at);

  final DateTime at;
}

final class LedgerLoaded extends ServiceEvent {
  const LedgerLoaded(super.at, {required this.accounts, required this.entries});

  final int accounts;
  final int entries;
}

final class LedgerSaved extends ServiceEvent {
  const LedgerSaved(super.at, this.path, this.checksum);

  final String path;
  final String checksum;
}

final class ImportFinished extends ServiceEvent {
  const ImportFinished(super.at, this.result, {required this.posted});

  final ImportResult result;
  final int posted;
}

/// Loads, mutates and saves one ledger file.
class LedgerService with Observable<ServiceEvent> {
  LedgerService({required this.path, Clock? clock, this.budgets})
      : clock = clock ?? const Clock();

  /// Where the ledger is stored, as JSON.
  final String path;
  final Clock clock;
  final BudgetBook? budgets;

  Ledger? _ledger;
  bool _dirty = false;
  final List<LegacyListener> _legacy = [];

  /// The current ledger, created on first use.
  Ledger get ledger => _ledger ??= _fresh();

  bool get isDirty => _dirty;

  Ledger _fresh() {
    final ledger = Ledger('books', clock: clock)..title = 'My books';
    ledger.accounts.saveAll(starterChart(ledger.currency));
    ledger.addHook((_) => _dirty = true);
    return ledger;
  }

  /// Registers a pre-2.0 style listener; it receives event type names.
  void addLegacyListener(LegacyListener listener) => _legacy.add(listener);

  @override
  void emit(ServiceEvent event) {
    super.emit(event);
    for (final listener in _legacy) {
      listener(event.runtimeType.toString());
    }
  }

  /// Reads the ledger file, if there is one.
  Future<Ledger> load() async {
    final file = File(path);
    if (!await file.exists()) return ledger;
    final text = await file.readAsString();
    final loaded = Ledger.fromSnapshot(LedgerSnapshot.decode(text), clock: clock);
    loaded.addHook((_) => _dirty = true);
    _ledger = loaded;
    _dirty = false;
    budgets?.applyTo(loaded.accounts);
    emit(LedgerLoaded(clock.now(), accounts: loaded.accounts.length, entries: loaded.journal.length));
    return loaded;
  }

  /// Writes the ledger atomically: to a temporary file, then renamed.
  Future<void> save({bool force = false}) async {
    if (!_dirty && !force) return;
    final snapshot = ledger.snapshot();
    final temporary = File('$path.tmp');
    await temporary.writeAsString(snapshot.encode(pretty: true), flush: true);
    await temporary.rename(path);
    _dirty = false;
    emit(LedgerSaved(clock.now(), path, snapshot.checksum()));
  }

  /// Runs [importer] over [source] and posts what it produced.
  Future<ImportResult> importStatement(
    StatementImporter importer,
    String source, {
    bool dryRun = false,
  }) async {
    final result = importer.run(source);
    var posted = 0;
    if (!dryRun) {
      for (final transaction in result.transactions) {
        try {
          ledger.record(transaction);
          posted++;
        } on LedgerException catch (error) {
          result.errors.add(ImportException(0, describeFailure(error), cause: error));
        }
      }
    }
    emit(ImportFinished(clock.now(), result, posted: posted));
    return result;
  }

  /// Reads a statement file, decoding it as UTF-8 or Latin-1.
  static Future<String> readStatement(String file) async {
    final bytes = await File(file).readAsBytes();
    try {
      return utf8.decode(bytes);
    } on FormatException {
      return latin1.decode(bytes);
    }
  }

  /// Net worth converted into [currency] at the built-in rates.
  Money netWorthIn(Currency currency) {
    final table = rates.ExchangeRates.defaults();
    return table.convert(ledger.netWorth, currency);
  }

  /// A line per journal event, for `--follow` output.
  Stream<String> follow() async* {
    await for (final event in ledger.journal.events) {
      yield describeEvent(event);
    }
  }

  /// Writes a line for every service event to [sink] until cancelled.
  StreamSubscription<ServiceEvent> log(void Function(String line) sink) =>
      events.listen((event) => sink(switch (event) {
            LedgerLoaded(:final accounts, :final entries) =>
              'loaded $accounts accounts, $entries entries',
            LedgerSaved(:final path, :final checksum) => 'saved $path ($checksum)',
            ImportFinished(:final result, :final posted) => '$result, $posted posted',
          }));

  /// Budgets that were exceeded, keyed by category.
  Map<AccountId, Money> overruns() => budgets?.overruns(ledger) ?? const {};

  /// Posts a transfer and returns its entry.
  JournalEntry transfer(String from, String to, String amount, {String? memo}) {
    final money = amount.toMoney(ledger.currency);
    final source = _resolve(from);
    final target = _resolve(to);
    return ledger.transfer(source.id, target.id, money, memo: memo);
  }

  Account _resolve(String nameOrId) =>
      ledger.accounts.byName(nameOrId) ??
      ledger.accounts.find(nameOrId) ??
      ledger.accounts.byId(nameOrId.toAccountId());

  Future<void> close() async {
    await save();
    await closeEvents();
  }
}
