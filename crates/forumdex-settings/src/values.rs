//! The value shapes settings share: secrets, lists given as text or TOML lists, and URLs.

use anyhow::bail;
use ipnet::IpNet;
use serde::{Deserialize, Deserializer};

/// A secret setting: its `Debug` output never shows it.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// The secret itself, for the one place that uses it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The items of `"a, b"` (environment and flags) or `["a", "b"]` (TOML), trimmed, blanks
/// dropped.
pub(crate) fn text_items<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Items {
        Text(String),
        List(Vec<String>),
    }
    let items = match Items::deserialize(deserializer)? {
        Items::Text(text) => text.split(',').map(str::to_owned).collect(),
        Items::List(list) => list,
    };
    Ok(items
        .iter()
        .map(|item| item.trim())
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect())
}

/// Addresses or CIDRs, as [`text_items`].
pub(crate) fn nets<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<IpNet>, D::Error> {
    text_items(deserializer)?
        .iter()
        .map(|item| parse_net(item).map_err(serde::de::Error::custom))
        .collect()
}

/// An address (as a /32 or /128) or a CIDR.
fn parse_net(text: &str) -> Result<IpNet, String> {
    text.parse::<IpNet>()
        .map(|net| net.trunc())
        .or_else(|_| text.parse::<std::net::IpAddr>().map(IpNet::from))
        .map_err(|_| format!("{text:?} is not an IP address or CIDR"))
}

/// `value` (or the default when empty) as an http(s) URL without a trailing slash.
pub(crate) fn url_or(
    value: &str,
    default: impl FnOnce() -> String,
    name: &str,
) -> anyhow::Result<String> {
    let url = if value.is_empty() {
        default()
    } else {
        value.to_owned()
    };
    let url = url.trim_end_matches('/').to_owned();
    let valid = (url.starts_with("http://") || url.starts_with("https://"))
        && url.len() > "https://".len()
        && !url.chars().any(|c| c.is_whitespace() || c.is_control());
    if !valid {
        bail!("{name} must be an http:// or https:// URL, got {url:?}");
    }
    Ok(url)
}

/// A size in bytes: a whole number of bytes, or a number with a binary unit (`512MiB`,
/// `1.5GiB`, `2 GiB`; `KiB`, `MiB`, `GiB`, `TiB`, or `K`, `M`, `G`, `T` for the same).
pub(crate) fn byte_size<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Size {
        Bytes(u64),
        Text(String),
    }
    match Size::deserialize(deserializer)? {
        Size::Bytes(bytes) => Ok(bytes),
        Size::Text(text) => parse_byte_size(&text).map_err(serde::de::Error::custom),
    }
}

/// `text` as [`byte_size`] reads it.
pub(crate) fn parse_byte_size(text: &str) -> Result<u64, String> {
    let invalid = || {
        format!(
            "{text:?} is not a size: give bytes, or a number with KiB, MiB, GiB or TiB (1.5GiB)"
        )
    };
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        "t" | "tib" => 40,
        _ => return Err(invalid()),
    };
    let value: f64 = number.parse().map_err(|_| invalid())?;
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes >= u64::MAX as f64 || bytes.fract() != 0.0 {
        return Err(invalid());
    }
    Ok(bytes as u64)
}
