//! Where clients reach this server: the start of every absolute link it writes
//! (media URLs, label codes). The operator's `--public-url` when given; else the
//! request's own address, `http://<Host>`, which a proxy named by
//! `--trusted-proxy` may correct with `X-Forwarded-Proto` and `X-Forwarded-Host`
//! (it terminates TLS, or listens on another port). Those two headers are
//! removed from every other peer's request before anything reads it, so no
//! client can choose what the links of an answer, or of a replayed one, say.

use std::net::IpAddr;

use warp::http::{header, HeaderMap, HeaderName};

use super::guard::is_host;

pub const X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
pub const X_FORWARDED_HOST: HeaderName = HeaderName::from_static("x-forwarded-host");
pub const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// The public base of every link: `http(s)://host[:port]` and perhaps a path,
/// without a trailing `/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicUrl(String);

impl PublicUrl {
    /// `https://specimens.example.org` (or with a path the proxy serves the
    /// API under); a trailing `/` is dropped.
    pub fn parse(url: &str) -> Result<PublicUrl, String> {
        let example = "like https://specimens.example.org or http://192.0.2.7:8080";
        let rest = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))
            .ok_or_else(|| {
                format!("{url:?} does not start with http:// or https://: write it {example}")
            })?;
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if !is_host(host.as_bytes()) {
            return Err(format!(
                "{url:?}: {host:?} is not a host with an optional port: write it {example}"
            ));
        }
        if path.contains(['?', '#']) || path.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(format!(
                "{url:?}: a public URL is a scheme, a host and perhaps a path, without a query, fragment or spaces"
            ));
        }
        Ok(PublicUrl(url.trim_end_matches('/').to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The peers whose `X-Forwarded-Proto` and `X-Forwarded-Host` are believed:
/// addresses or networks (`127.0.0.1`, `10.0.0.0/8`, `::1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<(IpAddr, u8)>);

impl TrustedProxies {
    /// One address or network, as `--trusted-proxy` takes it (repeated or
    /// comma-separated).
    pub fn parse_one(text: &str) -> Result<(IpAddr, u8), String> {
        let (addr, bits) = match text.split_once('/') {
            Some((addr, bits)) => (addr, Some(bits)),
            None => (text, None),
        };
        let addr: IpAddr = addr.trim().parse().map_err(|_| {
            format!("{text:?} is not an IP address or network, like 127.0.0.1, 10.0.0.0/8 or ::1 (names are not looked up)")
        })?;
        let most = if addr.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            None => most,
            Some(b) => b
                .parse::<u8>()
                .ok()
                .filter(|b| *b <= most)
                .ok_or_else(|| format!("{text:?}: the prefix length after / is 0 to {most}"))?,
        };
        Ok((addr.to_canonical(), bits))
    }

    pub fn new(networks: Vec<(IpAddr, u8)>) -> TrustedProxies {
        TrustedProxies(networks)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a peer is one of them (an IPv4 peer seen as `::ffff:a.b.c.d`
    /// counts as its IPv4 address).
    pub fn contains(&self, peer: IpAddr) -> bool {
        let peer = peer.to_canonical();
        self.0.iter().any(|&(net, bits)| match (net, peer) {
            (IpAddr::V4(n), IpAddr::V4(p)) => {
                prefix(u32::from(n).into(), u32::from(p).into(), 32, bits)
            }
            (IpAddr::V6(n), IpAddr::V6(p)) => prefix(u128::from(n), u128::from(p), 128, bits),
            _ => false,
        })
    }
}

/// Whether the first `bits` of two `width`-bit numbers agree.
fn prefix(net: u128, peer: u128, width: u8, bits: u8) -> bool {
    bits == 0 || (net ^ peer) >> (width - bits) == 0
}

/// The address a request comes from: its peer's, or, from a trusted proxy,
/// the nearest address in `X-Forwarded-For` that is not a trusted proxy's
/// (each proxy appends the address it was asked by, so what is further left
/// is only the client's word). What the streams' share of one address counts.
/// An address that does not read as one ends the walk at the last that did.
pub fn client(peer: IpAddr, headers: &HeaderMap, trusted: &TrustedProxies) -> IpAddr {
    let mut client = peer.to_canonical();
    if !trusted.contains(client) {
        return client;
    }
    for value in headers.get_all(X_FORWARDED_FOR).iter().rev() {
        let Ok(text) = value.to_str() else {
            return client;
        };
        for hop in text.rsplit(',') {
            let Ok(addr) = hop.trim().parse::<IpAddr>() else {
                return client;
            };
            client = addr.to_canonical();
            if !trusted.contains(client) {
                return client;
            }
        }
    }
    client
}

/// Forgets what a peer that is not a trusted proxy says of the address it
/// asked: answers (and the memo's keys) then never depend on it.
pub fn forget_forwarded(headers: &mut HeaderMap) {
    headers.remove(X_FORWARDED_PROTO);
    headers.remove(X_FORWARDED_HOST);
}

/// Where this server's links start for a request: the public URL, else
/// `<scheme>://<host>` from the request (the scheme `http` unless a trusted
/// proxy said `https`; the host its `X-Forwarded-Host`, else `Host`). `None`
/// when the request names no host: links are then written from the root.
pub fn origin(public: Option<&PublicUrl>, headers: &HeaderMap) -> Option<String> {
    if let Some(url) = public {
        return Some(url.as_str().to_string());
    }
    // The first value is what the client asked the first proxy.
    let first = |name: HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .map(str::trim)
    };
    let scheme = match first(X_FORWARDED_PROTO) {
        Some(s) if s.eq_ignore_ascii_case("https") => "https",
        _ => "http",
    };
    let host = first(X_FORWARDED_HOST)
        .filter(|h| is_host(h.as_bytes()))
        .or_else(|| headers.get(header::HOST).and_then(|h| h.to_str().ok()))?;
    Some([scheme, "://", host].concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    #[test]
    fn the_client_is_the_nearest_address_a_trusted_proxy_did_not_add() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let proxies = TrustedProxies::new(vec![(ip("127.0.0.1"), 32), (ip("10.0.0.0"), 8)]);
        let forwarded = |v: &[&str]| {
            let pairs: Vec<(&str, &str)> = v.iter().map(|v| ("x-forwarded-for", *v)).collect();
            headers(&pairs)
        };
        let from = |peer: &str, h: &HeaderMap| client(ip(peer), h, &proxies);
        // Not a proxy: its own address, whatever it says.
        let said = forwarded(&["198.51.100.9"]);
        assert_eq!(from("192.0.2.1", &said), ip("192.0.2.1"));
        assert_eq!(from("::ffff:192.0.2.1", &said), ip("192.0.2.1"));
        // A proxy that says nothing, and one that forwards.
        assert_eq!(from("127.0.0.1", &HeaderMap::new()), ip("127.0.0.1"));
        assert_eq!(from("127.0.0.1", &said), ip("198.51.100.9"));
        // Through two proxies, with what the client claimed on the left; and
        // the same hops over two lines.
        let chain = forwarded(&["203.0.113.5, 198.51.100.9, 10.1.2.3"]);
        assert_eq!(from("127.0.0.1", &chain), ip("198.51.100.9"));
        let lines = forwarded(&["203.0.113.5", "198.51.100.9, 10.1.2.3"]);
        assert_eq!(from("127.0.0.1", &lines), ip("198.51.100.9"));
        // What does not read as an address ends the walk where it was.
        let garbled = forwarded(&["198.51.100.9, nonsense, 10.1.2.3"]);
        assert_eq!(from("127.0.0.1", &garbled), ip("10.1.2.3"));
        assert_eq!(
            from("127.0.0.1", &forwarded(&["[::1]:80"])),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn a_public_url_is_a_scheme_a_host_and_a_path() {
        assert_eq!(
            PublicUrl::parse("https://x.org/").unwrap().as_str(),
            "https://x.org"
        );
        assert_eq!(
            PublicUrl::parse("http://x.org:8080/collection")
                .unwrap()
                .as_str(),
            "http://x.org:8080/collection"
        );
        for bad in [
            "x.org",
            "ftp://x.org",
            "https://",
            "https://a b",
            "https://x.org/?q",
            "https://u@x.org",
        ] {
            assert!(PublicUrl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn proxies_are_addresses_or_networks() {
        let parse = |t: &str| TrustedProxies::parse_one(t);
        let trusted = TrustedProxies::new(vec![
            parse("10.0.0.0/8").unwrap(),
            parse("127.0.0.1").unwrap(),
            parse("fd00::/8").unwrap(),
        ]);
        for yes in ["10.200.1.2", "127.0.0.1", "::ffff:127.0.0.1", "fd12::1"] {
            assert!(trusted.contains(yes.parse().unwrap()), "{yes}");
        }
        for no in ["11.0.0.1", "127.0.0.2", "::1", "fe80::1"] {
            assert!(!trusted.contains(no.parse().unwrap()), "{no}");
        }
        assert!(TrustedProxies::new(vec![parse("0.0.0.0/0").unwrap()])
            .contains("1.2.3.4".parse().unwrap()));
        assert!(parse("localhost").is_err());
        assert!(parse("10.0.0.0/33").is_err());
    }

    #[test]
    fn the_origin_is_the_public_url_else_the_request_as_a_proxy_corrects_it() {
        let public = PublicUrl::parse("https://x.org").unwrap();
        let h = headers(&[("host", "127.0.0.1:8080"), ("x-forwarded-proto", "https")]);
        assert_eq!(origin(Some(&public), &h).as_deref(), Some("https://x.org"));
        assert_eq!(origin(None, &h).as_deref(), Some("https://127.0.0.1:8080"));
        let h = headers(&[
            ("host", "127.0.0.1:8080"),
            ("x-forwarded-proto", "https, http"),
            ("x-forwarded-host", "specimens.example.org"),
        ]);
        assert_eq!(
            origin(None, &h).as_deref(),
            Some("https://specimens.example.org")
        );
        // A forwarded host that is not one is not taken; another scheme is http.
        let h = headers(&[
            ("host", "h"),
            ("x-forwarded-proto", "gopher"),
            ("x-forwarded-host", "evil.example/x?"),
        ]);
        assert_eq!(origin(None, &h).as_deref(), Some("http://h"));
        let mut h = headers(&[("host", "h"), ("x-forwarded-proto", "https")]);
        forget_forwarded(&mut h);
        assert_eq!(origin(None, &h).as_deref(), Some("http://h"));
        assert_eq!(origin(None, &HeaderMap::new()), None);
    }
}
