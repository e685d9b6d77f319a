/// Serialisation of ledgers to JSON, and a compact text codec for money.
library;

import 'dart:convert';

import 'accounts.dart';
import 'currency.dart';
import 'errors.dart';
import 'ids.dart';
import 'money.dart';
import 'transactions.dart';
import 'typedefs.dart';

/// Everything needed to rebuild a ledger.
final class LedgerSnapshot {
  const LedgerSnapshot({
    required this.name,
    required this.accounts,
    required this.transactions,
    this.version = currentVersion,
  });

  static const currentVersion = 2;

  final String name;
  final List<Account> accounts;
  final List<Transaction> transactions;
  final int version;

  Json toJson() => {
        'version': version,
        'name': name,
        'accounts': [for (final a in accounts) a.toJson()],
        'transactions': [for (final t in transactions) t.toJson()],
      };

  String encode({bool pretty = false}) => pretty
      ? const JsonEncoder.withIndent('  ').convert(toJson())
      : jsonEncode(toJson());

  /// Reads a snapshot written by [encode] (or by version 1 of the format).
  static LedgerSnapshot decode(String source) {
    final decoded = jsonDecode(source);
    return switch (decoded) {
      {
        'version': int version,
        'name': String name,
        'accounts': List accounts,
        'transactions': List transactions,
      }
          when version <= currentVersion =>
        LedgerSnapshot(
          name: name,
          version: version,
          accounts: [for (final a in accounts) accountFromJson(a as Json)],
          transactions: [for (final t in transactions) Transaction.fromJson(t as Json)],
        ),
      {'version': int version} =>
        throw ValidationException('unsupported snapshot version $version', field: 'version'),
      _ => throw ValidationException('not a ledger snapshot'),
    };
  }

  /// A short, stable fingerprint of the encoded snapshot.
  String checksum() {
    var hash = 17;
    for (final byte in utf8.encode(encode())) {
      hash = (hash * 31 + byte) & 0x3fffffff;
    }
    return base64Url.encode(utf8.encode(hash.toRadixString(16))).replaceAll('=', '');
  }
}

/// Rebuilds an account from the shape written by [Account.toJson].
Account accountFromJson(Json json) {
  final type = AccountType.values.byName(json['type'] as String);
  final currency = Currency.parse(json['currency'] as String);
  final balance = json['balance'];
  final account = Account.open(
    type,
    id: AccountId(json['id'] as String),
    name: json['name'] as String,
    currency: currency,
    opening: balance is Map<String, Object?> ? Money.fromJson(balance) : null,
  );
  account.description = json['description'] as String?;
  if (json['tags'] case final List<Object?> tags) {
    account.tags.addAll(tags.whereType<String>());
  }
  return account;
}

/// Encodes money as `"<minor> <CODE>"`, e.g. `"-1250 USD"`.
class MoneyCodec extends Codec<Money, String> {
  const MoneyCodec();

  @override
  Converter<Money, String> get encoder => const _MoneyEncoder();

  @override
  Converter<String, Money> get decoder => const _MoneyDecoder();
}

class _MoneyEncoder extends Converter<Money, String> {
  const _MoneyEncoder();

  @override
  String convert(Money input) => '${input.minor} ${input.currency.code}';
}

class _MoneyDecoder extends Converter<String, Money> {
  const _MoneyDecoder();

  @override
  Money convert(String input) {
    final parts = input.trim().split(RegExp(r'\s+'));
    if (parts case [final minor, final code]) {
      final value = int.tryParse(minor);
      if (value != null) return Money(value, Currency.parse(code));
    }
    throw MoneyFormatException(input);
  }
}

/// A codec instance for callers that prefer a top-level constant.
const moneyCodec = MoneyCodec();
