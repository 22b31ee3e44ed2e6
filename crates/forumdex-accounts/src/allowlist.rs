//! IP restrictions of a key: individual IPv4/IPv6 addresses and CIDR ranges.
//!
//! Entries are normalised when parsed: an address becomes a `/32` or `/128` network, an
//! IPv4-mapped IPv6 entry (`::ffff:10.0.0.1`, `::ffff:10.0.0.0/104`) becomes the IPv4 one
//! (`10.0.0.1/32`, `10.0.0.0/8`). A CIDR with host bits set (`10.0.0.5/8`) is rejected with
//! a message naming the network the operator probably meant, rather than silently widened.
//! The address being checked is canonicalised the same way, so a client seen as
//! `::ffff:10.0.0.1` matches `10.0.0.0/8`.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use ipnet::{IpNet, Ipv4Net};
use serde::{Deserialize, Serialize};

/// One normalised allowlist entry (always a network; a single address is `/32` or `/128`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AllowEntry(IpNet);

impl AllowEntry {
    /// Parses an address or a CIDR and normalises it (see the module docs).
    pub fn parse(s: &str) -> Result<Self, AllowEntryError> {
        let text = s.trim();
        let net = if text.contains('/') {
            let net = IpNet::from_str(text).map_err(|_| AllowEntryError::Syntax(s.to_owned()))?;
            if net.addr() != net.network() {
                return Err(AllowEntryError::HostBits {
                    given: s.to_owned(),
                    network: canonical_net(net.trunc()).to_string(),
                });
            }
            net
        } else {
            let addr = IpAddr::from_str(text).map_err(|_| AllowEntryError::Syntax(s.to_owned()))?;
            IpNet::from(addr)
        };
        Ok(Self(canonical_net(net)))
    }

    /// The normalised network.
    pub fn net(&self) -> IpNet {
        self.0
    }

    /// Whether `ip` (canonicalised: IPv4-mapped IPv6 becomes IPv4) lies in this entry.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.0, ip.to_canonical()) {
            (IpNet::V4(net), IpAddr::V4(v4)) => net.contains(&v4),
            (IpNet::V6(net), IpAddr::V6(v6)) => net.contains(&v6),
            // Only a wide IPv6 range (prefix < 96, e.g. `::/0`) can hold the mapped form.
            (IpNet::V6(net), IpAddr::V4(v4)) => net.contains(&v4.to_ipv6_mapped()),
            (IpNet::V4(_), IpAddr::V6(_)) => false,
        }
    }
}

/// Turns an IPv4-mapped IPv6 network (`::ffff:0:0/96` or narrower) into the IPv4 one.
fn canonical_net(net: IpNet) -> IpNet {
    if let IpNet::V6(v6) = net
        && v6.prefix_len() >= 96
        && let Some(v4) = v6.network().to_ipv4_mapped()
        && let Ok(v4net) = Ipv4Net::new(v4, v6.prefix_len() - 96)
    {
        return IpNet::V4(v4net);
    }
    net
}

impl fmt::Display for AllowEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for AllowEntry {
    type Err = AllowEntryError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl TryFrom<String> for AllowEntry {
    type Error = AllowEntryError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<AllowEntry> for String {
    fn from(entry: AllowEntry) -> Self {
        entry.to_string()
    }
}

/// Why a string is not an allowlist entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AllowEntryError {
    /// Neither an IP address nor a CIDR.
    #[error("invalid ip address or cidr {0:?}")]
    Syntax(String),
    /// A CIDR whose address has bits set below the prefix.
    #[error("cidr {given:?} has host bits set; did you mean {network}?")]
    HostBits {
        /// What was given.
        given: String,
        /// The network with the host bits cleared.
        network: String,
    },
}

/// The IP restrictions of a key, in the order entries were added, without duplicates.
/// An empty list allows every address.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Allowlist(Vec<AllowEntry>);

impl Allowlist {
    /// An empty list (every address allowed).
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a list, dropping duplicates (the first occurrence keeps its place).
    pub fn from_entries(entries: impl IntoIterator<Item = AllowEntry>) -> Self {
        let mut list = Self::new();
        for entry in entries {
            list.add(entry);
        }
        list
    }

    /// Parses every string with [`AllowEntry::parse`]; fails on the first bad one.
    pub fn parse_all<S: AsRef<str>>(items: &[S]) -> Result<Self, AllowEntryError> {
        let entries = items
            .iter()
            .map(|s| AllowEntry::parse(s.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self::from_entries(entries))
    }

    /// Whether a request from `ip` may use the key: always when the list is empty.
    pub fn allows(&self, ip: IpAddr) -> bool {
        self.0.is_empty() || self.0.iter().any(|entry| entry.contains(ip))
    }

    /// Adds `entry` unless present; returns whether it was added.
    pub fn add(&mut self, entry: AllowEntry) -> bool {
        if self.0.contains(&entry) {
            return false;
        }
        self.0.push(entry);
        true
    }

    /// Removes `entry` if present; returns whether it was there.
    pub fn remove(&mut self, entry: &AllowEntry) -> bool {
        let before = self.0.len();
        self.0.retain(|e| e != entry);
        self.0.len() != before
    }

    /// The entries, in order.
    pub fn entries(&self) -> &[AllowEntry] {
        &self.0
    }

    /// Whether the list is empty (every address allowed).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries as normalised strings (`10.0.0.0/8`), as printed in JSON.
    pub fn to_strings(&self) -> Vec<String> {
        self.0.iter().map(ToString::to_string).collect()
    }
}
