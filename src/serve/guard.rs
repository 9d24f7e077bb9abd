//! Requests refused before any routing, with the API's JSON error: a target that
//! is not a path (`CONNECT host:port`, or `*` with another method than OPTIONS),
//! an HTTP/1.1 request without exactly one `Host` (RFC 9112 §3.2), and a `Host`
//! that is not a host (media URLs are built from it: `evil.example/x?`,
//! `user:pw@evil.example`, an empty one, or 8 KB of it would be written into every
//! URL of the answer). warp assumes a path on every request, so these must never
//! reach it.

use warp::http::{header, Method, Request, Version};

/// Why a request must not be routed, or `None` to route it. Its answer goes
/// through the same `finish` as every other (`router::refusal`).
pub fn refusal<B>(req: &Request<B>) -> Option<&'static str> {
    let uri = req.uri();
    let asterisk = uri.path_and_query().is_some_and(|p| p.as_str() == "*");
    let path = uri.path_and_query().is_some() && uri.path().starts_with('/');
    let reason = if asterisk && req.method() != Method::OPTIONS {
        "the request target * is only for OPTIONS"
    } else if !path && !asterisk {
        "the request target must be a path (origin form), like /api/v2/orders/"
    } else if req.version() == Version::HTTP_11
        && req.headers().get_all(header::HOST).iter().count() != 1
    {
        "an HTTP/1.1 request needs exactly one Host header"
    } else if req
        .headers()
        .get_all(header::HOST)
        .iter()
        .any(|h| !is_host(h.as_bytes()))
    {
        "the Host header must be a host name or IP address, with a port if any \
         (host[:port], at most 255 bytes)"
    } else {
        return None;
    };
    Some(reason)
}

/// The longest Host taken: a DNS name's limit.
const MAX_HOST: usize = 255;

/// Whether a Host value is `host[:port]` (RFC 3986): a reg-name (unreserved
/// characters, sub-delimiters, percent-encodings) or an IP literal in brackets,
/// then an optional port of up to five digits.
pub(super) fn is_host(value: &[u8]) -> bool {
    if value.is_empty() || value.len() > MAX_HOST {
        return false;
    }
    let (host, port) = match value.iter().rposition(|&b| b == b':') {
        // A colon inside brackets belongs to an IPv6 literal.
        Some(i) if !value[i..].contains(&b']') => (&value[..i], Some(&value[i + 1..])),
        _ => (value, None),
    };
    let port_ok = port.is_none_or(|p| {
        (1..=5).contains(&p.len())
            && p.iter().all(u8::is_ascii_digit)
            && std::str::from_utf8(p)
                .ok()
                .and_then(|p| p.parse::<u32>().ok())
                .is_some_and(|n| n <= 65535)
    });
    let host_ok = match host {
        [b'[', inner @ .., b']'] => {
            !inner.is_empty()
                && inner
                    .iter()
                    .all(|b| b.is_ascii_hexdigit() || matches!(b, b':' | b'.'))
        }
        _ => !host.is_empty() && reg_name(host),
    };
    port_ok && host_ok
}

/// RFC 3986's reg-name: unreserved, percent-encoded and sub-delimiter characters.
fn reg_name(host: &[u8]) -> bool {
    let mut i = 0;
    while i < host.len() {
        match host[i] {
            b'%' => {
                let hex = host.get(i + 1..i + 3);
                if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                    return false;
                }
                i += 3;
                continue;
            }
            b if b.is_ascii_alphanumeric() => {}
            b'-' | b'.' | b'_' | b'~' => {}
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, target: &str, hosts: &[&str]) -> Request<()> {
        let mut r = Request::builder().method(method).uri(target);
        for h in hosts {
            r = r.header("host", *h);
        }
        r.body(()).unwrap()
    }

    #[test]
    fn refuses_what_warp_cannot_route() {
        assert!(refusal(&request("GET", "/api/v2/orders/", &["t"])).is_none());
        assert!(refusal(&request("OPTIONS", "*", &["t"])).is_none());
        assert!(refusal(&request("GET", "http://t/api/v2/orders/", &["t"])).is_none());
        for (method, target, hosts) in [
            ("CONNECT", "example.org:443", &["t"][..]),
            ("GET", "example.org:443", &["t"]),
            ("GET", "*", &["t"]),
            ("GET", "/api/v2/orders/", &[]),
            ("GET", "/api/v2/orders/", &["a", "b"]),
            ("GET", "/api/v2/orders/", &["evil.example/x?"]),
            ("GET", "/api/v2/orders/", &["user:pw@evil.example"]),
            ("GET", "/api/v2/orders/", &[""]),
            ("GET", "/api/v2/orders/", &["t:"]),
            ("GET", "/api/v2/orders/", &["t:99999"]),
            ("GET", "/api/v2/orders/", &["[::1"]),
        ] {
            let r = refusal(&request(method, target, hosts));
            assert!(r.is_some(), "{method} {target} {hosts:?}");
        }
    }

    #[test]
    fn a_host_is_host_and_port() {
        for good in [
            "t",
            "127.0.0.1:8080",
            "catalogue.example.org",
            "[::1]:8080",
            "[2001:db8::1]",
            "xn--caf-dma.example",
            "a%41b",
            "my_host-1.local",
        ] {
            assert!(is_host(good.as_bytes()), "{good}");
        }
        let long = "a".repeat(256);
        for bad in [
            "",
            "evil.example/x?",
            "user:pw@evil.example",
            "a b",
            "t:",
            "t:80:80",
            "t:-1",
            "[]",
            "[::1]x",
            "a%4",
            long.as_str(),
        ] {
            assert!(!is_host(bad.as_bytes()), "{bad}");
        }
        assert!(is_host("a".repeat(255).as_bytes()));
    }
}
