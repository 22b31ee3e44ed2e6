//! Language codes: `xx` or `xx-YY` (corpus-format.md and api-contract.md), lowercase
//! language first, uppercase region second.

use std::fmt;

/// A valid language code (`^[a-z]{2}(?:-[A-Z]{2})?$`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LangCode(String);

impl LangCode {
    /// Parses `^[a-z]{2}(?:-[A-Z]{2})?$`.
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        let base_ok = bytes.len() >= 2 && bytes[..2].iter().all(u8::is_ascii_lowercase);
        let region_ok = match bytes.len() {
            2 => true,
            5 => bytes[2] == b'-' && bytes[3..].iter().all(u8::is_ascii_uppercase),
            _ => false,
        };
        (base_ok && region_ok).then(|| Self(text.to_owned()))
    }

    /// The code as given (`pt-BR`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The language without its region (`pt-BR` -> `pt`).
    pub fn base(&self) -> &str {
        &self.0[..2]
    }
}

impl fmt::Display for LangCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_codes() {
        for ok in ["en", "pt-BR"] {
            assert_eq!(
                LangCode::parse(ok).map(|c| c.to_string()),
                Some(ok.to_owned())
            );
        }
        assert_eq!(LangCode::parse("pt-BR").unwrap().base(), "pt");
        for bad in [
            "", "e", "EN", "eng", "en-us", "en_US", "en-USA", "pt-br", "pt-BRA", "zh-",
        ] {
            assert!(LangCode::parse(bad).is_none(), "{bad}");
        }
    }
}
