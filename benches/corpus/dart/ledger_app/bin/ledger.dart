/// Entry point of the `ledger` command.
library;

import 'dart:io';

import 'package:args/command_runner.dart' show UsageException;
import 'package:ledger_app/commands.dart';
import 'package:ledger_app/formatting.dart' as fmt;
import 'package:ledger_app/service.dart';
import 'package:ledger_core/ledger_core.dart' show LedgerException, LedgerStateError, describeFailure;

/// Exit codes, following `sysexits.h` where one fits.
abstract final class ExitCode {
  static const ok = 0;
  static const usage = 64;
  static const data = 65;
  static const software = 70;
  static const io = 74;
}

/// Finds the ledger file: `--file`, then `$LEDGER_FILE`, then `./ledger.json`.
String ledgerPath(List<String> arguments) {
  for (var i = 0; i < arguments.length; i++) {
    final argument = arguments[i];
    if (argument.startsWith('--file=')) return argument.substring('--file='.length);
    if (argument == '--file' && i + 1 < arguments.length) return arguments[i + 1];
  }
  return Platform.environment['LEDGER_FILE'] ?? 'ledger.json';
}

Future<void> main(List<String> arguments) async {
  fmt.Ansi.enabled = stdout.hasTerminal && !Platform.environment.containsKey('NO_COLOR');
  final service = LedgerService(path: ledgerPath(arguments));
  final subscription = service.log((line) => stderr.writeln(fmt.Ansi.dim(line)));
  final runner = buildRunner(service);
  try {
    exitCode = await runner.run(arguments) ?? ExitCode.ok;
  } on UsageException catch (error) {
    stderr
      ..writeln(error.message)
      ..writeln()
      ..writeln(error.usage);
    exitCode = ExitCode.usage;
  } on LedgerException catch (error) {
    stderr.writeln(fmt.Ansi.red(describeFailure(error)));
    exitCode = ExitCode.data;
  } on LedgerStateError catch (error) {
    stderr.writeln('internal error: ${error.message}');
    exitCode = ExitCode.software;
  } on FileSystemException catch (error) {
    stderr.writeln('${error.path ?? 'file'}: ${error.message}');
    exitCode = ExitCode.io;
  } finally {
    await subscription.cancel();
    await service.closeEvents();
  }
}
