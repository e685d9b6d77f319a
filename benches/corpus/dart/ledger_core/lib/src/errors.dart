/// Exceptions thrown by the ledger core.
library;

import 'currency.dart';
import 'money.dart';

/// Base of every recoverable ledger failure.
sealed class LedgerException implements Exception {
  LedgerException(this.message);

  final String message;

  /// A short machine-readable category.
  String get kind;

  @override
  String toString() => 'LedgerException($kind): $message';
}

final class MoneyFormatException extends LedgerException {
  MoneyFormatException(this.input) : super('cannot parse "$input" as money');

  final String input;

  @override
  String get kind => 'format';
}

final class CurrencyMismatchException extends LedgerException {
  CurrencyMismatchException(this.expected, this.actual)
      : super('expected ${expected.code}, got ${actual.code}');

  final Currency expected;
  final Currency actual;

  @override
  String get kind => 'currency';
}

final class InsufficientFundsException extends LedgerException {
  InsufficientFundsException({required this.accountKey, required this.shortfall})
      : super('account $accountKey is short by $shortfall');

  final String accountKey;
  final Money shortfall;

  @override
  String get kind => 'funds';
}

final class NotFoundException extends LedgerException {
  NotFoundException(this.type, this.key) : super('$type "$key" not found');

  final Type type;
  final String key;

  @override
  String get kind => 'not-found';
}

final class ValidationException extends LedgerException {
  ValidationException(super.message, {this.field});

  /// The offending field, when known.
  final String? field;

  @override
  String get kind => field == null ? 'invalid' : 'invalid:$field';
}

final class UnbalancedTransactionException extends LedgerException {
  UnbalancedTransactionException(this.transactionId, this.imbalance)
      : super('transaction $transactionId is off by $imbalance');

  final int transactionId;
  final Money imbalance;

  @override
  String get kind => 'unbalanced';
}

final class AccountClosedException extends LedgerException {
  AccountClosedException(this.accountKey) : super('account $accountKey is closed');

  final String accountKey;

  @override
  String get kind => 'closed';
}

/// A programming error: the ledger was used in a way it forbids.
class LedgerStateError extends StateError {
  LedgerStateError(super.message);
}

/// A one-line, user-facing explanation of [error].
String describeFailure(LedgerException error) => switch (error) {
      MoneyFormatException(:final input) => 'Not an amount: "$input".',
      CurrencyMismatchException(:final expected, :final actual) =>
        'Mixed currencies: ${actual.code} where ${expected.code} was expected.',
      InsufficientFundsException(:final accountKey, :final shortfall) =>
        'Not enough money in $accountKey (short $shortfall).',
      NotFoundException(:final type, :final key) => 'No $type called "$key".',
      ValidationException(field: final String field, :final message) =>
        'Invalid $field: $message.',
      ValidationException(:final message) => 'Invalid input: $message.',
      UnbalancedTransactionException(:final imbalance) =>
        'Transaction does not balance ($imbalance).',
      AccountClosedException(:final accountKey) => '$accountKey is closed.',
    };
