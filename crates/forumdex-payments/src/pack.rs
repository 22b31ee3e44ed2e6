//! The packs of credits offered for top-up (setting `credit_packs`): `CREDITS:PRICE
//! CURRENCY` each, priced in a currency's hundredths.

use std::fmt;
use std::str::FromStr;

/// A pack of credits for sale: `CREDITS:PRICE CURRENCY`, e.g. `1000:10.00 USD`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditPack {
    /// Credits it adds.
    pub credits: u64,
    /// Its price in the currency's minor unit (cents).
    pub amount_cents: u64,
    /// ISO 4217 code, lower case (`usd`).
    pub currency: String,
}

/// An amount in a currency's minor unit for people: `10.00 USD`.
pub fn format_money(cents: u64, currency: &str) -> String {
    format!(
        "{}.{:02} {}",
        cents / 100,
        cents % 100,
        currency.to_uppercase()
    )
}

/// Currencies whose minor unit is not a hundredth (Stripe counts JPY in yen, KWD in
/// thousandths): packs in them are refused rather than priced 100 times off.
const NOT_CENTS: &[&str] = &[
    "bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv",
    "xaf", "xof", "xpf", "bhd", "jod", "kwd", "omr", "tnd",
];

impl CreditPack {
    /// The price for people: `10.00 USD`.
    pub fn price(&self) -> String {
        format_money(self.amount_cents, &self.currency)
    }

    /// Parses a comma-separated list of packs (`1000:10.00 USD, 10000:90.00 USD`).
    pub fn parse_list(text: &str) -> Result<Vec<Self>, PackParseError> {
        text.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(str::parse)
            .collect()
    }
}

impl fmt::Display for CreditPack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.credits, self.price())
    }
}

/// A credit pack that does not read `CREDITS:PRICE CURRENCY` (a currency counted in
/// hundredths).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid credit pack {0:?}: expected CREDITS:PRICE CURRENCY, e.g. \"1000:10.00 USD\", in a currency counted in hundredths"
)]
pub struct PackParseError(pub String);

impl FromStr for CreditPack {
    type Err = PackParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || PackParseError(s.to_owned());
        let (credits, price) = s.trim().split_once(':').ok_or_else(bad)?;
        let credits: u64 = credits.trim().parse().map_err(|_| bad())?;
        let (amount, currency) = price.trim().split_once(' ').ok_or_else(bad)?;
        let currency = currency.trim();
        if credits == 0
            || currency.len() != 3
            || !currency.bytes().all(|b| b.is_ascii_alphabetic())
            || NOT_CENTS.contains(&currency.to_lowercase().as_str())
        {
            return Err(bad());
        }
        let (whole, cents) = match amount.split_once('.') {
            Some((whole, cents)) if cents.len() == 2 => (whole, cents),
            Some(_) => return Err(bad()),
            None => (amount, "00"),
        };
        let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        if !digits(whole) || !digits(cents) {
            return Err(bad());
        }
        let amount_cents = whole
            .parse::<u64>()
            .ok()
            .and_then(|w| w.checked_mul(100))
            .and_then(|w| w.checked_add(cents.parse().ok()?))
            .ok_or_else(bad)?;
        if amount_cents == 0 {
            return Err(bad());
        }
        Ok(Self {
            credits,
            amount_cents,
            currency: currency.to_lowercase(),
        })
    }
}

/// The packs offered when the operator names none.
pub const DEFAULT_CREDIT_PACKS: &str = "1000:10.00 USD, 10000:90.00 USD, 100000:800.00 USD";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_parse_and_print() {
        let packs = CreditPack::parse_list(DEFAULT_CREDIT_PACKS).unwrap();
        assert_eq!(packs.len(), 3);
        assert_eq!(packs[0].credits, 1000);
        assert_eq!(packs[0].amount_cents, 1000);
        assert_eq!(packs[0].currency, "usd");
        assert_eq!(packs[1].price(), "90.00 USD");
        assert_eq!("500:5 EUR".parse::<CreditPack>().unwrap().amount_cents, 500);
        for bad in [
            "",
            "1000",
            "0:1.00 USD",
            "10:1.0 USD",
            "10:-1.00 USD",
            "10:1.00 US",
            "x:1 USD",
            "10:0.00 USD",
            "10:1000 JPY",
            "10:1.000 KWD",
        ] {
            assert!(bad.parse::<CreditPack>().is_err(), "{bad}");
        }
    }
}
