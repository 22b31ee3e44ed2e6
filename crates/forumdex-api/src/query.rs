//! Strict query strings, shared by every endpoint: each parameter must be known to the
//! endpoint, given once, and not empty. One clear message per rule.

use crate::error::ApiError;

/// The decoded parameters of one request.
#[derive(Debug, Default)]
pub struct QueryParams {
    pairs: Vec<(String, String)>,
}

impl QueryParams {
    /// Decodes `raw` and checks it against the endpoint's `allowed` parameter names.
    pub fn parse(raw: Option<&str>, allowed: &[&str]) -> Result<Self, ApiError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (name, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            if !allowed.contains(&name.as_ref()) {
                let known = if allowed.is_empty() {
                    "this endpoint takes no query parameters".to_owned()
                } else {
                    format!("known parameters: {}", allowed.join(", "))
                };
                return Err(ApiError::BadRequest(format!(
                    "unknown query parameter {:?} ({known})",
                    truncate(&name)
                )));
            }
            if pairs.iter().any(|(n, _)| *n == name) {
                return Err(ApiError::BadRequest(format!(
                    "query parameter {name:?} is repeated"
                )));
            }
            if value.is_empty() {
                return Err(ApiError::BadRequest(format!(
                    "query parameter {name:?} is empty"
                )));
            }
            pairs.push((name.into_owned(), value.into_owned()));
        }
        Ok(Self { pairs })
    }

    /// The value of `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether no parameter was given.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

/// Bounds client text quoted back in error messages.
pub fn truncate(text: &str) -> String {
    const MAX: usize = 64;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(raw: &str) -> String {
        QueryParams::parse(Some(raw), &["limit", "order"])
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn unknown_repeated_and_empty_parameters_are_refused() {
        assert!(err("foo=1").contains("unknown query parameter \"foo\""));
        assert!(err("limit=1&limit=2").contains("repeated"));
        assert!(err("limit=").contains("empty"));
        assert!(err("limit").contains("empty"));
        let ok = QueryParams::parse(Some("limit=5&order=desc"), &["limit", "order"]).unwrap();
        assert_eq!(ok.get("limit"), Some("5"));
        assert_eq!(ok.get("cursor"), None);
        assert!(QueryParams::parse(None, &[]).unwrap().is_empty());
        assert!(
            QueryParams::parse(Some("x=1"), &[])
                .unwrap_err()
                .to_string()
                .contains("takes no query")
        );
    }
}
