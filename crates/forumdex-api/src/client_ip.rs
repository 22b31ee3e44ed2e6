//! The client address: the socket peer, or, when the peer is a trusted proxy, the first
//! untrusted address of `X-Forwarded-For` read right to left. IPv4-mapped IPv6 addresses
//! are canonicalized to IPv4 everywhere.

use std::net::IpAddr;

use axum::http::HeaderMap;
use ipnet::IpNet;

/// Who sent the request, as the allowlist and the logs see it.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted_proxies: &[IpNet]) -> IpAddr {
    let trusted = |ip: IpAddr| trusted_proxies.iter().any(|net| net.contains(&ip));
    let mut client = peer.to_canonical();
    if !trusted(client) {
        return client;
    }
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .collect();
    for hop in hops.iter().rev() {
        match hop.parse::<IpAddr>() {
            Ok(ip) => {
                client = ip.to_canonical();
                if !trusted(client) {
                    return client;
                }
            }
            // A hop that is no address: believe nothing left of it.
            Err(_) => return client,
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xff(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", value.parse().unwrap());
        headers
    }

    #[test]
    fn forwarding_headers_are_believed_only_from_trusted_proxies() {
        let proxies: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let peer: IpAddr = "203.0.113.9".parse().unwrap();
        assert_eq!(
            client_ip(peer, &xff("1.2.3.4"), &proxies),
            peer,
            "untrusted peer: header ignored"
        );
        let proxy: IpAddr = "10.0.0.2".parse().unwrap();
        assert_eq!(
            client_ip(proxy, &xff("6.6.6.6, 1.2.3.4, 10.0.0.1"), &proxies),
            "1.2.3.4".parse::<IpAddr>().unwrap()
        );
        assert_eq!(client_ip(proxy, &HeaderMap::new(), &proxies), proxy);
        assert_eq!(
            client_ip(proxy, &xff("garbage, 10.0.0.7"), &proxies),
            "10.0.0.7".parse::<IpAddr>().unwrap()
        );
        let mapped: IpAddr = "::ffff:10.0.0.2".parse().unwrap();
        assert_eq!(
            client_ip(mapped, &xff("::ffff:1.2.3.4"), &proxies),
            "1.2.3.4".parse::<IpAddr>().unwrap()
        );
    }
}
