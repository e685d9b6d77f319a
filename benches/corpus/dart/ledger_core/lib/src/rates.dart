/// Exchange rates. Loaded lazily by the ledger facade.
library;

import 'currency.dart';
import 'errors.dart';
import 'money.dart';

/// A table of rates relative to one base currency.
final class ExchangeRates {
  ExchangeRates(this.baseCurrency, Map<Currency, double> rates)
      : _rates = Map.unmodifiable({...rates, baseCurrency: 1.0});

  /// A small built-in table, good enough for previews.
  factory ExchangeRates.defaults() => ExchangeRates(Currency.usd, const {
        Currency.eur: 0.92,
        Currency.gbp: 0.79,
        Currency.jpy: 151.2,
        Currency.chf: 0.88,
        Currency.btc: 0.000015,
      });

  final Currency baseCurrency;
  final Map<Currency, double> _rates;

  Iterable<Currency> get supported => _rates.keys;

  /// How many units of [to] one unit of [from] buys.
  double rate(Currency from, Currency to) {
    final fromRate = _rates[from];
    final toRate = _rates[to];
    if (fromRate == null || toRate == null) {
      throw ValidationException('no rate for ${from.code}/${to.code}', field: 'currency');
    }
    return toRate / fromRate;
  }

  Money convert(Money amount, Currency to) => amount.currency == to
      ? amount
      : Money.major(amount.major * rate(amount.currency, to), to);

  /// A copy with [currency] set to [value] units per base unit.
  ExchangeRates withRate(Currency currency, double value) =>
      ExchangeRates(baseCurrency, {..._rates, currency: value});
}

/// The date of the built-in rate table.
String rateTableVersion() => '2024-03-01';
