/// Strongly typed identifiers, built on extension types so that they cost
/// nothing at run time.
library;

/// Identifier of an account, a colon-separated path such as
/// `assets:bank:checking`.
extension type const AccountId(String value) {
  /// Builds an id from path segments.
  AccountId.of(List<String> segments)
      : this(segments.map((s) => s.trim().toLowerCase()).join(separator));

  /// Separates the segments of an account path.
  static const separator = ':';

  static final RegExp _valid = RegExp(r'^[a-z0-9_-]+(:[a-z0-9_-]+)*$');

  List<String> get segments => value.split(separator);

  String get root => segments.first;

  String get leaf => segments.last;

  int get depth => segments.length;

  bool get isValid => _valid.hasMatch(value);

  /// The enclosing account, or `null` for a top-level account.
  AccountId? get parent {
    final index = value.lastIndexOf(separator);
    return index < 0 ? null : AccountId(value.substring(0, index));
  }

  AccountId child(String name) =>
      AccountId('$value$separator${name.toLowerCase()}');

  bool isDescendantOf(AccountId other) =>
      value.startsWith('${other.value}$separator');
}

/// Identifier of a transaction; a positive sequence number.
extension type const TransactionId(int value) implements int {
  static int _counter = 0;

  /// Hands out the next free id.
  factory TransactionId.next() => TransactionId(++_counter);

  /// Makes [TransactionId.next] continue after [last].
  static void resetCounter([int last = 0]) => _counter = last;

  String get display => 'TX-${value.toString().padLeft(6, '0')}';

  TransactionId get successor => TransactionId(value + 1);
}

/// A percentage, stored as a fraction (`Percent(12.5).fraction == 0.125`).
extension type Percent._(double fraction) {
  Percent(num percent) : fraction = percent / 100;

  const Percent.ofFraction(this.fraction);

  static const zero = Percent.ofFraction(0);

  double get asPercent => fraction * 100;

  /// Applies the percentage to an amount in minor units, rounding half up.
  int applyTo(int minor) => (minor * fraction).round();

  Percent operator +(Percent other) => Percent._(fraction + other.fraction);

  String get label => '${asPercent.toStringAsFixed(2)}%';
}
