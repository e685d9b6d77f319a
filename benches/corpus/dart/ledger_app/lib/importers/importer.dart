/// The importer framework: statement lines in, balanced transactions out.
library;

import 'package:ledger_core/ledger_core.dart';

/// A problem with one line of an imported statement.
class ImportException implements Exception {
  ImportException(this.line, this.message, {this.cause});

  final int line;
  final String message;
  final Object? cause;

  @override
  String toString() => 'line $line: $message${cause == null ? '' : ' ($cause)'}';
}

/// One line of a bank statement, before categorisation.
final class StatementLine {
  const StatementLine({
    required this.lineNumber,
    required this.date,
    required this.text,
    required this.amount,
    this.reference,
  });

  final int lineNumber;
  final DateTime date;
  final String text;
  final Money amount;
  final String? reference;

  @override
  String toString() => '$lineNumber: ${date.isoDate} $text $amount';
}

/// What an import produced.
final class ImportResult {
  ImportResult(this.format, {List<Transaction>? transactions, List<ImportException>? errors})
      : transactions = transactions ?? [],
        errors = errors ?? [];

  final String format;
  final List<Transaction> transactions;
  final List<ImportException> errors;

  bool get ok => errors.isEmpty;

  int get count => transactions.length;

  Money total(Currency currency) =>
      transactions.map((t) => t.total).where((m) => m.currency == currency).sum(currency);

  @override
  String toString() => '$format import: $count transactions, ${errors.length} errors';
}

/// Decides which account the other side of a statement line goes to.
typedef CategoryRule = AccountId? Function(StatementLine line);

/// Base of all statement importers.
///
/// Subclasses parse the raw text; this class turns lines into balanced
/// transactions between [account] and a category (or [suspense]).
abstract base class StatementImporter {
  StatementImporter({
    required this.account,
    required this.suspense,
    this.currency = Currency.usd,
    List<CategoryRule> rules = const [],
  }) : _rules = [...rules];

  final AccountId account;
  final AccountId suspense;
  final Currency currency;
  final List<CategoryRule> _rules;

  /// A short name such as `csv`.
  String get format;

  /// Parses [source] into statement lines, lazily.
  Iterable<StatementLine> parse(String source);

  void addRule(CategoryRule rule) => _rules.add(rule);

  /// Adds a rule that sends lines containing [needle] to [category].
  void route(String needle, AccountId category) => addRule(
        (line) => line.text.toLowerCase().contains(needle.toLowerCase()) ? category : null,
      );

  AccountId categorise(StatementLine line) {
    for (final rule in _rules) {
      final category = rule(line);
      if (category != null) return category;
    }
    return suspense;
  }

  Transaction toTransaction(StatementLine line) {
    final kind = guessKind(line.text, line.amount);
    return Transaction(
      id: TransactionId.next(),
      kind: kind,
      date: line.date,
      description: line.text.titleCase,
      postings: [
        Posting(account: account, amount: line.amount, memo: line.reference),
        Posting(account: categorise(line), amount: -line.amount),
      ],
    );
  }

  /// Parses [source] and converts every line it can.
  ImportResult run(String source) {
    final result = ImportResult(format);
    try {
      for (final line in parse(source)) {
        try {
          result.transactions.add(toTransaction(line));
        } on LedgerException catch (error) {
          result.errors.add(ImportException(line.lineNumber, describeFailure(error), cause: error));
        }
      }
    } on ImportException catch (error) {
      result.errors.add(error);
    } on FormatException catch (error) {
      result.errors.add(ImportException(error.offset ?? 0, error.message, cause: error));
    }
    return result;
  }

  /// Loads the statement with [loader] and runs the import.
  Future<ImportResult> runFrom(AsyncLoader<String> loader, String source) async =>
      run(await loader(source));
}
