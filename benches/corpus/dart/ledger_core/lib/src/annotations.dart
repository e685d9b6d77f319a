/// Metadata annotations understood by the ledger's audit tooling.
library;

/// How much scrutiny an audited member deserves.
enum AuditLevel { low, normal, high }

/// Marks a member whose invocations must be written to the audit log.
///
/// ```dart
/// @Audited()
/// void post(Transaction t) { ... }
/// ```
class Audited {
  const Audited({this.reason = '', this.level = AuditLevel.normal});

  /// Why the member is audited.
  final String reason;

  /// How much scrutiny it deserves.
  final AuditLevel level;

  @override
  String toString() => 'Audited(${level.name}${reason.isEmpty ? '' : ': $reason'})';
}

/// Marks an API that may still change between minor releases.
class Experimental {
  const Experimental(this.since);

  /// The release that introduced the API.
  final String since;
}

/// Shorthand for `@Audited()`.
const audited = Audited();

/// Shorthand for members that touch balances.
const sensitive = Audited(reason: 'touches balances', level: AuditLevel.high);
