//! Allowlist entries: parsing, normalisation and matching.

use std::net::IpAddr;

use forumdex_accounts::{AllowEntry, AllowEntryError, Allowlist};

fn ip(s: &str) -> IpAddr {
    s.parse().expect("valid ip")
}

fn norm(s: &str) -> String {
    AllowEntry::parse(s).expect("valid entry").to_string()
}

#[test]
fn entries_are_normalised() {
    assert_eq!(norm("10.0.0.1"), "10.0.0.1/32");
    assert_eq!(norm(" 10.0.0.0/8 "), "10.0.0.0/8");
    assert_eq!(norm("2001:db8::1"), "2001:db8::1/128");
    assert_eq!(norm("2001:DB8::/32"), "2001:db8::/32");
    assert_eq!(norm("::ffff:10.0.0.1"), "10.0.0.1/32");
    assert_eq!(norm("::ffff:10.0.0.0/104"), "10.0.0.0/8");
    assert_eq!(norm("::ffff:0:0/96"), "0.0.0.0/0");
    assert_eq!(norm("::/0"), "::/0");
}

#[test]
fn bad_entries_are_refused() {
    for bad in [
        "",
        "10.0.0",
        "10.0.0.256",
        "10.0.0.0/33",
        "host.example",
        "10.0.0.0/",
        "::g",
    ] {
        assert!(
            matches!(AllowEntry::parse(bad), Err(AllowEntryError::Syntax(_))),
            "{bad:?}"
        );
    }
    let err = AllowEntry::parse("10.0.0.5/8").expect_err("host bits");
    assert!(matches!(&err, AllowEntryError::HostBits { network, .. } if network == "10.0.0.0/8"));
    assert!(err.to_string().contains("10.0.0.0/8"));
    assert!(matches!(
        AllowEntry::parse("2001:db8::1/32"),
        Err(AllowEntryError::HostBits { .. })
    ));
}

#[test]
fn empty_list_allows_everything() {
    let list = Allowlist::new();
    assert!(list.allows(ip("203.0.113.9")));
    assert!(list.allows(ip("2001:db8::1")));
}

#[test]
fn addresses_and_cidrs_match() {
    let list =
        Allowlist::parse_all(&["198.51.100.7", "10.0.0.0/8", "2001:db8::/32"]).expect("valid");
    assert!(list.allows(ip("198.51.100.7")));
    assert!(!list.allows(ip("198.51.100.8")));
    assert!(list.allows(ip("10.255.0.1")));
    assert!(!list.allows(ip("11.0.0.1")));
    assert!(list.allows(ip("2001:db8:1::5")));
    assert!(!list.allows(ip("2001:db9::5")));
}

#[test]
fn ipv4_mapped_ipv6_matches_on_both_sides() {
    // Entry written as IPv4, client seen as IPv4-mapped IPv6.
    let v4 = Allowlist::parse_all(&["10.0.0.0/8", "192.0.2.1"]).expect("valid");
    assert!(v4.allows(ip("::ffff:10.1.2.3")));
    assert!(v4.allows(ip("::ffff:192.0.2.1")));
    assert!(!v4.allows(ip("::ffff:192.0.2.2")));

    // Entry written as IPv4-mapped IPv6, client seen as IPv4 or mapped.
    let mapped = Allowlist::parse_all(&["::ffff:192.0.2.1", "::ffff:10.0.0.0/104"]).expect("valid");
    assert!(mapped.allows(ip("192.0.2.1")));
    assert!(mapped.allows(ip("::ffff:192.0.2.1")));
    assert!(mapped.allows(ip("10.9.9.9")));
    assert!(!mapped.allows(ip("192.0.2.2")));

    // A wide IPv6 range holds the mapped addresses too.
    let everything_v6 = Allowlist::parse_all(&["::/0"]).expect("valid");
    assert!(everything_v6.allows(ip("10.0.0.1")));
    // An IPv4 entry never matches a genuine IPv6 address.
    assert!(!v4.allows(ip("2001:db8::a00:1")));
}

#[test]
fn add_and_remove_are_idempotent() {
    let mut list = Allowlist::new();
    let entry = AllowEntry::parse("10.0.0.1").expect("valid");
    let same = AllowEntry::parse("::ffff:10.0.0.1").expect("valid");
    assert!(list.add(entry));
    assert!(!list.add(same));
    assert_eq!(list.to_strings(), vec!["10.0.0.1/32"]);
    assert!(list.remove(&same));
    assert!(!list.remove(&entry));
    assert!(list.is_empty());
}

#[test]
fn serializes_as_strings() {
    let list = Allowlist::parse_all(&["10.0.0.0/8", "::1"]).expect("valid");
    let json = serde_json::to_string(&list).expect("json");
    assert_eq!(json, r#"["10.0.0.0/8","::1/128"]"#);
    let back: Allowlist = serde_json::from_str(&json).expect("parse back");
    assert_eq!(back, list);
}
