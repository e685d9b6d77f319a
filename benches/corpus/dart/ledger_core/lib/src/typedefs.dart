/// Shared type aliases for the ledger core.
library;

import 'ids.dart';
import 'money.dart';
import 'transactions.dart';

/// A JSON object as produced by `jsonDecode`.
typedef Json = Map<String, Object?>;

/// Balances keyed by account.
typedef Balances = Map<AccountId, Money>;

/// A generic predicate.
typedef Predicate<T> = bool Function(T value);

/// Invoked whenever a transaction has been posted to the journal.
typedef PostingCallback = void Function(Transaction transaction);

/// Converts one value into another.
typedef Mapper<S, T> = T Function(S source);

/// Loads something asynchronously from a named source.
typedef AsyncLoader<T> = Future<T> Function(String source);

/// A closed interval of money values.
typedef MoneyRange = ({Money low, Money high});

/// Old-style function type alias, kept for plug-ins written before 2.0.
typedef void LegacyListener(String event);
