//! Requests refused before any routing, with the API's JSON error: a target that
//! is not a path (`CONNECT host:port`, or `*` with another method than OPTIONS),
//! and an HTTP/1.1 request without exactly one `Host` (RFC 9112 §3.2). warp assumes
//! a path on every request, so these must never reach it.

use warp::http::{header, HeaderValue, Method, Request, StatusCode, Version};
use warp::reply::Reply;

use super::response::Response;

/// The refusal of a request that must not be routed, or `None` to route it.
pub fn refusal<B>(req: &Request<B>) -> Option<Response> {
    let uri = req.uri();
    let asterisk = uri.path_and_query().is_some_and(|p| p.as_str() == "*");
    let path = uri.path_and_query().is_some() && uri.path().starts_with('/');
    let message = if asterisk && req.method() != Method::OPTIONS {
        "the request target * is only for OPTIONS"
    } else if !path && !asterisk {
        "the request target must be a path (origin form), like /api/v2/orders/"
    } else if req.version() == Version::HTTP_11
        && req.headers().get_all(header::HOST).iter().count() != 1
    {
        "an HTTP/1.1 request needs exactly one Host header"
    } else {
        return None;
    };
    let body = format!("{{\"message\":\"{message}\"}}");
    let mut response = warp::reply::with_status(body, StatusCode::BAD_REQUEST).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    Some(response)
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
        ] {
            let r = refusal(&request(method, target, hosts)).expect(target);
            assert_eq!(r.status(), 400, "{method} {target} {hosts:?}");
        }
    }
}
