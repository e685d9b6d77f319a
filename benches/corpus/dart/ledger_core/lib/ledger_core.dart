/// Double-entry bookkeeping primitives: money, accounts, transactions,
/// a journal, and the [Ledger] facade that ties them together.
///
/// Import this library rather than the files under `src/`; those are
/// implementation details and may change without notice.
library ledger_core;

export 'src/accounts.dart';
export 'src/annotations.dart' show AuditLevel, Audited, Experimental, audited, sensitive;
export 'src/classify.dart';
export 'src/codec.dart' show LedgerSnapshot, MoneyCodec, accountFromJson, moneyCodec;
export 'src/currency.dart';
export 'src/entity.dart';
export 'src/errors.dart';
export 'src/extensions.dart';
export 'src/feeds.dart' hide backoffDelays;
export 'src/ids.dart';
export 'src/journal.dart';
export 'src/ledger.dart';
export 'src/mixins.dart'
    show AuditRecord, AuditTrail, BalanceHolder, Observable, OverdraftGuard, Timestamped;
export 'src/money.dart';
export 'src/rates.dart' show ExchangeRates;
export 'src/transactions.dart';
export 'src/typedefs.dart' hide LegacyListener;

/// The version of this package, kept in sync with `pubspec.yaml`.
const String ledgerCoreVersion = '1.4.0';
