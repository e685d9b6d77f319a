// Plain assertion-style checks of ledger_core's value types; run with
// `dart test/money_test.dart`.
import 'package:ledger_core/ledger_core.dart';

var _failures = 0;
var _checks = 0;

void check(bool condition, String description) {
  _checks++;
  if (!condition) {
    _failures++;
    print('FAIL: $description');
  }
}

void expectEqual<T>(T actual, T expected, [String? what]) =>
    check(actual == expected, '${what ?? 'value'}: expected $expected, got $actual');

void expectThrows<E extends Object>(void Function() body, String description) {
  try {
    body();
    check(false, '$description: nothing thrown');
  } on E {
    check(true, description);
  } catch (error) {
    check(false, '$description: threw ${error.runtimeType} instead of $E');
  }
}

void moneyArithmetic() {
  const ten = Money(1000, Currency.usd);
  final three = Money.major(3, Currency.usd);
  expectEqual(ten + three, const Money(1300, Currency.usd), 'sum');
  expectEqual(ten - three, Money.major(7, Currency.usd), 'difference');
  expectEqual(-ten, const Money(-1000, Currency.usd), 'negation');
  expectEqual(ten * 1.5, const Money(1500, Currency.usd), 'scaling');
  expectEqual(ten ~/ 3, const Money(333, Currency.usd), 'division');
  check(three < ten && ten >= three, 'ordering');
  check(ten.compareTo(three) > 0, 'compareTo');
  expectEqual(Money.max(ten, three), ten, 'max');
  expectEqual({ten, const Money(1000, Currency.usd)}.length, 1, 'hashCode');
  expectThrows<CurrencyMismatchException>(
    () => ten + const Money(1, Currency.eur),
    'mixing currencies',
  );
}

void allocation() {
  final shares = const Money(100, Currency.usd).allocate([1, 1, 1]);
  expectEqual(shares.map((m) => m.minor).toList().toString(), '[34, 33, 33]', 'allocate');
  expectEqual(shares.sum(Currency.usd), const Money(100, Currency.usd), 'allocate sum');
  expectThrows<ValidationException>(() => Money.usdZero.allocate(const []), 'empty ratios');
}

void parsingAndFormatting() {
  expectEqual(Money.parse('12.5'), const Money(1250, Currency.usd), 'parse');
  expectEqual('-3 EUR'.toMoney(), const Money(-300, Currency.eur), 'parse with code');
  expectEqual('1,200.00 USD'.toMoney(), Money.major(1200, Currency.usd), 'parse grouped');
  expectEqual(Money.parse('500', fallback: Currency.jpy).toString(), '¥500', 'yen');
  expectThrows<MoneyFormatException>(() => Money.parse('twelve'), 'bad amount');
  expectEqual(const Money(123456789, Currency.usd).toString(), r'$1,234,567.89', 'grouping');
  expectEqual(const Money(-2500, Currency.gbp).accounting, '(£25.00)', 'accounting');
  expectEqual(Money.major(1234567, Currency.eur).compact, '€1.2M', 'compact');
  expectEqual(Currency.tryParse('chf'), Currency.chf, 'currency lookup');
  expectEqual(Currency.tryParse('xyz'), null, 'unknown currency');
  final round = Money.fromJson(const Money(42, Currency.btc).toJson());
  expectEqual(round, const Money(42, Currency.btc), 'json round trip');
  expectEqual(moneyCodec.decode(moneyCodec.encode(round)), round, 'codec round trip');
}

void identifiers() {
  final id = 'Assets/Bank/Checking'.toAccountId();
  expectEqual(id, const AccountId('assets:bank:checking'), 'toAccountId');
  expectEqual(id.depth, 3, 'depth');
  expectEqual(id.parent, const AccountId('assets:bank'), 'parent');
  check(id.isDescendantOf(const AccountId('assets')), 'descendant');
  expectEqual(AccountType.forId(id), AccountType.asset, 'type from id');
  TransactionId.resetCounter(41);
  final next = TransactionId.next();
  expectEqual(next.display, 'TX-000042', 'display');
  check(next < next.successor, 'ids are ints');
  final tax = Percent(12.5);
  expectEqual(tax.applyTo(1000), 125, 'percent');
  expectEqual((tax + Percent(2.5)).label, '15.00%', 'percent sum');
}

void patterns() {
  expectEqual(sizeBucket(const Money(-1, Currency.usd)), 'outflow', 'bucket');
  expectEqual(sizeBucket(const Money(250000, Currency.usd)), 'medium', 'bucket');
  final (prefix, number) = parseReference('INV-2024-0017');
  expectEqual(prefix, 'INV', 'reference prefix');
  expectEqual(number, 20240017, 'reference number');
  expectEqual(parseReference('X').$2, 0, 'bare reference');
  final range = rangeOf([for (final m in [5, -2, 9]) Money(m, Currency.usd)]);
  expectEqual(range?.low, const Money(-2, Currency.usd), 'range low');
  expectEqual(describeRange((low: Money.usdZero, high: Money.usdZero)), r'exactly $0.00', 'range');
  expectEqual(guessKind('Monthly account fee', const Money(-500, Currency.usd)),
      TransactionKind.fee, 'guess fee');
  expectEqual(guessKind('ACME payroll', const Money(250000, Currency.usd)),
      TransactionKind.deposit, 'guess deposit');
  final row = readRow({'date': '2024-02-01', 'text': 'Coffee', 'amount': -3.5}, Currency.usd);
  expectEqual(row?.amount, const Money(-350, Currency.usd), 'row from map');
  expectEqual(readRow(const {}, Currency.usd), null, 'empty row');
}

void extensions() {
  expectEqual('hello wide world'.titleCase, 'Hello Wide World', 'titleCase');
  expectEqual('abcdefgh'.truncate(5), 'abcd…', 'truncate');
  check('   '.isBlank, 'isBlank');
  String? missing;
  check(missing.isNullOrBlank, 'null is blank');
  expectEqual(missing.orDefault('n/a'), 'n/a', 'orDefault');
  final chunks = [1, 2, 3, 4, 5].chunked(2).toList();
  expectEqual(chunks.length, 3, 'chunked');
  final groups = ['apple', 'avocado', 'banana'].groupBy((s) => s[0]);
  expectEqual(groups['a']?.length, 2, 'groupBy');
  expectEqual(['bb', 'a', 'ccc'].sortedBy((s) => s.length).first, 'a', 'sortedBy');
  expectEqual(DateTime(2024, 3, 17).startOfMonth, DateTime(2024, 3), 'startOfMonth');
}

void main() {
  final suites = <String, void Function()>{
    'money arithmetic': moneyArithmetic,
    'allocation': allocation,
    'parsing and formatting': parsingAndFormatting,
    'identifiers': identifiers,
    'patterns': patterns,
    'extensions': extensions,
  };
  suites.forEach((name, suite) {
    final before = _failures;
    suite();
    print('${_failures == before ? 'ok  ' : 'FAIL'} $name');
  });
  print('$_checks checks, $_failures failures');
  assert(_failures == 0, '$_failures checks failed');
}
