//! HTTP behaviour: caching, compression, methods, CORS, limits, operations, shutdown.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use catalogue::serve::Settings;
use common::{sample_snapshot, Server};

fn gunzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(b)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn unbrotli(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(b, 4096)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// `If-Modified-Since` answers 304 wherever `Last-Modified` is said, by RFC
/// 9110's rules: the date itself or a later one is unmodified, an earlier
/// one is a full answer, and `If-None-Match` decides whenever it is sent.
#[test]
fn if_modified_since_answers_304_where_last_modified_is_said() {
    let s = Server::sample();
    for path in ["/dwca.zip", "/eml.xml", "/api/v2/people/?limit=2"] {
        let first = s.get(path);
        assert_eq!(first.status, 200, "{path}");
        let modified = first.header("last-modified").expect(path).to_string();
        let tag = first.header("etag").expect(path).to_string();
        let older = "Sat, 01 Jan 2000 00:00:00 GMT";
        let later = "Fri, 31 Dec 9999 23:59:59 GMT";
        for method in ["GET", "HEAD"] {
            let ask = |headers: &[(&str, &str)]| {
                let r = s.send(method, path, headers);
                (r.status, r.body.len(), r.header("etag").map(String::from))
            };
            let cached = (304, 0, Some(tag.clone()));
            assert_eq!(
                ask(&[("If-Modified-Since", &modified)]),
                cached,
                "{method} {path}"
            );
            assert_eq!(
                ask(&[("If-Modified-Since", later)]),
                cached,
                "{method} {path}"
            );
            // RFC 850's form of the same date, as old clients send it.
            let old_form = chrono::DateTime::parse_from_rfc2822(&modified)
                .unwrap()
                .format("%A, %d-%b-%y %H:%M:%S GMT")
                .to_string();
            assert_eq!(
                ask(&[("If-Modified-Since", &old_form)]),
                cached,
                "{method} {path}"
            );
            let full = match method {
                "GET" => first.body.len(),
                _ => 0,
            };
            let whole = (200, full, Some(tag.clone()));
            assert_eq!(
                ask(&[("If-Modified-Since", older)]),
                whole,
                "{method} {path}"
            );
            assert_eq!(
                ask(&[("If-Modified-Since", "not a date")]),
                whole,
                "{method} {path}"
            );
            // If-None-Match decides, whatever the date says.
            let other = [
                ("If-None-Match", "\"other\""),
                ("If-Modified-Since", modified.as_str()),
            ];
            assert_eq!(ask(&other), whole, "{method} {path}");
            let named = [
                ("If-None-Match", tag.as_str()),
                ("If-Modified-Since", older),
            ];
            assert_eq!(ask(&named), cached, "{method} {path}");
        }
        // A 304 says the validators, and is not kept to be replayed: the next
        // plain GET has the whole answer.
        let cached = s.send("GET", path, &[("If-Modified-Since", &modified)]);
        assert_eq!(cached.header("last-modified"), Some(modified.as_str()));
        assert_eq!(s.get(path).body.len(), first.body.len(), "{path}");
    }
    // A plain GET replayed from the memo does not answer a conditional one.
    let path = "/api/v2/people/?limit=2";
    s.get(path);
    let modified = s.get(path).header("last-modified").unwrap().to_string();
    assert_eq!(
        s.send("GET", path, &[("If-Modified-Since", &modified)])
            .status,
        304
    );
}

#[test]
fn etag_round_trip_gives_304_without_a_body() {
    let s = Server::sample();
    let first = s.get("/api/v2/people/?limit=2");
    assert_eq!(first.status, 200);
    let tag = first.header("etag").unwrap().to_string();
    assert!(
        tag.starts_with('"') && tag.ends_with('"') && !tag.starts_with("W/"),
        "strong: {tag}"
    );
    assert_eq!(first.header("cache-control"), Some("public, max-age=60"));
    assert!(first.header("last-modified").unwrap().ends_with(" GMT"));
    assert_eq!(first.header("vary"), Some("Accept, Accept-Encoding"));
    let again = s.send("GET", "/api/v2/people/?limit=2", &[("If-None-Match", &tag)]);
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(tag.as_str()));
    assert_eq!(again.header("cache-control"), Some("public, max-age=60"));
    // A list of tags, a weak form of the tag, and `*` match too.
    for inm in [format!("\"x\", {tag}"), format!("W/{tag}"), "*".to_string()] {
        assert_eq!(
            s.send("GET", "/api/v2/people/?limit=2", &[("If-None-Match", &inm)])
                .status,
            304
        );
    }
    // Another tag, another request: a full answer.
    assert_eq!(
        s.send(
            "GET",
            "/api/v2/people/?limit=2",
            &[("If-None-Match", "\"nope\"")]
        )
        .status,
        200
    );
    let other = s.get("/api/v2/people/?limit=3");
    assert_ne!(other.header("etag"), Some(tag.as_str()));
    // Errors carry no validator.
    assert_eq!(s.get("/api/v2/people/?limit=x").header("etag"), None);
}

#[test]
fn etags_agree_across_replicas_of_the_same_snapshot() {
    let a = Server::sample();
    let b = Server::start(&sample_snapshot(), Settings::default());
    for path in [
        "/api/v2/orders/",
        "/api/v2/specimen-records/3/",
        "/api/v2/states/?country=2",
    ] {
        let (ra, rb) = (a.get(path), b.get(path));
        assert_eq!(ra.header("etag"), rb.header("etag"), "{path}");
        assert_eq!(
            ra.header("last-modified"),
            rb.header("last-modified"),
            "{path}"
        );
    }
}

#[test]
fn gzip_and_brotli_bodies_decompress_to_the_identity_body() {
    let s = Server::sample();
    let path = "/api/v2/specimen-records/?limit=5";
    let identity = s.get(path);
    assert_eq!(identity.header("content-encoding"), None);
    let gz = s.send("GET", path, &[("Accept-Encoding", "gzip")]);
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(gunzip(&gz.body), identity.body);
    assert!(gz.body.len() * 4 < identity.body.len(), "gzip shrinks JSON");
    let br = s.send("GET", path, &[("Accept-Encoding", "gzip, deflate, br")]);
    assert_eq!(br.header("content-encoding"), Some("br"));
    assert_eq!(unbrotli(&br.body), identity.body);
    // q-values: gzip preferred, br refused, identity when nothing is acceptable.
    let q = s.send("GET", path, &[("Accept-Encoding", "br;q=0.2, gzip;q=0.9")]);
    assert_eq!(q.header("content-encoding"), Some("gzip"));
    let none = s.send("GET", path, &[("Accept-Encoding", "br;q=0, gzip;q=0")]);
    assert_eq!(none.header("content-encoding"), None);
    assert_eq!(none.body, identity.body);
    // Each representation has its own strong validator, and revalidates.
    let tags = [
        identity.header("etag"),
        gz.header("etag"),
        br.header("etag"),
    ];
    assert!(tags[0] != tags[1] && tags[1] != tags[2] && tags[0] != tags[2]);
    let tag = gz.header("etag").unwrap();
    let r = s.send(
        "GET",
        path,
        &[("Accept-Encoding", "gzip"), ("If-None-Match", tag)],
    );
    assert_eq!(r.status, 304);
    // Tiny bodies are not worth compressing.
    let small = s.send(
        "GET",
        "/api/v2/countries/?limit=1",
        &[("Accept-Encoding", "gzip")],
    );
    assert_eq!(small.header("content-encoding"), None);
}

#[test]
fn whole_lists_compressed_once_per_view_match_the_identity_body() {
    let s = Server::sample();
    let path = "/api/v2/nested-localities/";
    let before = s.send("GET", path, &[("Accept-Encoding", "br")]);
    s.state.current().precompress(1024, 8 << 20);
    assert!(s
        .state
        .current()
        .compressed_list(
            catalogue::model::Endpoint::from_segment("nested-localities").unwrap(),
            catalogue::serve::compress::Coding::Brotli
        )
        .is_some());
    let identity = s.get(path);
    for (coding, decode) in [("gzip", gunzip as fn(&[u8]) -> Vec<u8>), ("br", unbrotli)] {
        let r = s.send("GET", path, &[("Accept-Encoding", coding)]);
        assert_eq!(r.header("content-encoding"), Some(coding));
        assert_eq!(decode(&r.body), identity.body, "{coding}");
    }
    assert_eq!(unbrotli(&before.body), identity.body);
}

#[test]
fn head_answers_like_get_without_a_body() {
    let s = Server::sample();
    let get = s.get("/api/v2/counties/");
    let head = s.send("HEAD", "/api/v2/counties/", &[]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    for h in [
        "content-length",
        "content-type",
        "etag",
        "cache-control",
        "last-modified",
    ] {
        assert_eq!(head.header(h), get.header(h), "{h}");
    }
}

#[test]
fn other_methods_are_405_and_options_answers_preflight() {
    let s = Server::sample();
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        // A record takes no form (a list does: tests/many.rs).
        let r = s.send(method, "/api/v2/orders/1/", &[("Content-Length", "0")]);
        assert_eq!(r.status, 405, "{method}");
        assert_eq!(r.header("allow"), Some("GET, HEAD, OPTIONS"));
        assert!(r.json()["message"].as_str().unwrap().contains("read-only"));
        assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    }
    let r = s.send(
        "OPTIONS",
        "/api/v2/orders/1/",
        &[
            ("Origin", "https://example.org"),
            ("Access-Control-Request-Method", "GET"),
            ("Access-Control-Request-Headers", "if-none-match"),
        ],
    );
    assert_eq!(r.status, 204);
    assert!(r.body.is_empty());
    assert_eq!(r.header("allow"), Some("GET, HEAD, OPTIONS"));
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert_eq!(
        r.header("access-control-allow-methods"),
        Some("GET, HEAD, OPTIONS")
    );
    assert_eq!(
        r.header("access-control-allow-headers"),
        Some("if-none-match")
    );
    assert!(r.header("access-control-max-age").is_some());
}

#[test]
fn every_answer_carries_cors_and_a_list_narrows_it() {
    let s = Server::sample();
    for path in [
        "/api/v2/orders/",
        "/nope",
        "/api/v2/orders/?limit=x",
        "/api/v2/orders",
        "/healthz",
    ] {
        let r = s.get(path);
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{path}");
        assert_eq!(
            r.header("access-control-expose-headers"),
            Some(
                "ETag, Last-Modified, X-Ignored-Parameters, X-Repeated-Parameters, X-Label-Overflow, X-Label-Warning, Content-Disposition"
            ),
            "{path}"
        );
        // What a request may send is said on the preflight, where browsers read it.
        for preflight_only in [
            "access-control-allow-methods",
            "access-control-allow-headers",
            "access-control-max-age",
        ] {
            assert_eq!(r.header(preflight_only), None, "{path} {preflight_only}");
        }
    }
    let settings = Settings {
        cors_origins: vec!["https://a.example".into(), "https://b.example".into()],
        ..Settings::default()
    };
    let narrow = Server::start(&sample_snapshot(), settings);
    let r = narrow.send("GET", "/api/v2/orders/", &[("Origin", "https://b.example")]);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://b.example")
    );
    let vary: Vec<&str> = r
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("vary"))
        .flat_map(|(_, v)| v.split(", "))
        .collect();
    assert!(
        vary.contains(&"Origin") && vary.contains(&"Accept-Encoding"),
        "{vary:?}"
    );
    let r = narrow.send(
        "GET",
        "/api/v2/orders/",
        &[("Origin", "https://evil.example")],
    );
    assert_eq!(r.header("access-control-allow-origin"), None);
    assert_eq!(r.status, 200);
}

#[test]
fn oversized_requests_are_refused_and_the_server_keeps_serving() {
    let s = Server::sample();
    let long_uri = format!("/api/v2/orders/?search={}", "a".repeat(9000));
    let r = common::request(
        s.addr,
        &format!("GET {long_uri} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"),
    );
    assert_eq!(r.status, 431, "long request line");
    let big_header = format!(
        "GET /api/v2/orders/ HTTP/1.1\r\nHost: t\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
        "b".repeat(9000)
    );
    assert_eq!(
        common::request(s.addr, &big_header).status,
        431,
        "big header"
    );
    let many: String = (0..200).map(|i| format!("X-H{i}: v\r\n")).collect();
    let r = common::request(
        s.addr,
        &format!("GET /api/v2/orders/ HTTP/1.1\r\nHost: t\r\n{many}Connection: close\r\n\r\n"),
    );
    assert_eq!(r.status, 431, "many headers");
    // Garbage is not a request, and does not hurt the next one.
    let garbage = common::request(s.addr, "\u{1}\u{2}garbage\r\n\r\n");
    assert_eq!(garbage.status, 400);
    assert_eq!(s.get("/api/v2/orders/").status, 200);
}

#[test]
fn idle_connections_are_closed() {
    let settings = Settings {
        idle_timeout: Duration::from_millis(500),
        ..Settings::default()
    };
    let s = Server::start(&sample_snapshot(), settings);
    let mut stream = TcpStream::connect(s.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut buf = [0u8; 64];
    // Closed (a read of nothing), not left open until the read times out.
    assert_eq!(
        stream.read(&mut buf).map_err(|e| e.kind()),
        Ok(0),
        "the server closed the silent connection"
    );
    // A keep-alive connection that goes quiet is closed too.
    let mut client = common::Client::connect(s.addr);
    assert_eq!(client.get("/api/v2/orders/").unwrap().status, 200);
    std::thread::sleep(Duration::from_millis(900));
    assert!(
        client.get("/api/v2/orders/").is_err(),
        "the idle keep-alive connection was closed"
    );
}

#[test]
fn health_readiness_and_metrics() {
    let s = Server::sample();
    assert_eq!(s.json("/healthz", 200), serde_json::json!({"status": "ok"}));
    let ready = s.json("/readyz", 200);
    assert_eq!(ready["status"], "ready");
    let (header, collection) = catalogue::snapshot::read(&sample_snapshot()).unwrap();
    assert_eq!(ready["checksum"], header.checksum_hex());
    s.get("/api/v2/orders/");
    s.get("/api/v2/orders/");
    s.get("/api/v2/orders/?limit=bad");
    s.get("/api/v2/people/1/");
    let r = s.get("/metrics");
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/plain"));
    let text = r.text();
    for line in [
        "catalogue_requests_total{route=\"/api/v2/orders/\",status=\"200\"} 2",
        "catalogue_requests_total{route=\"/api/v2/orders/\",status=\"400\"} 1",
        "catalogue_requests_total{route=\"/api/v2/people/{id}/\",status=\"200\"} 1",
        "catalogue_reloads_total 0",
        "catalogue_reload_failures_total 0",
        "catalogue_snapshot_records{model=\"specimens.specimenrecord\"} 8",
        &format!(
            "catalogue_snapshot_info{{checksum=\"{}\",format_version=\"12\"}} 1",
            header.checksum_hex()
        ),
        "# TYPE catalogue_request_duration_seconds histogram",
        "catalogue_request_duration_seconds_count ",
        "catalogue_response_bytes_total ",
        "catalogue_snapshot_loaded_at_seconds ",
        "catalogue_damaged_snapshots_total 0",
        &format!(
            "catalogue_snapshot_version {}",
            collection.history.current()
        ),
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    // The snapshot's age: since it was built, to the second.
    let age: i64 = s.metric("catalogue_snapshot_age_seconds") as i64;
    let built = (chrono::Utc::now().timestamp_micros() - header.created_at) / 1_000_000;
    assert!((built - age).abs() <= 2, "age {age} s, built {built} s ago");
}

#[test]
fn shutdown_finishes_the_request_in_flight() {
    let dir = common::TempDir::new("drain");
    let bin = common::generated(&dir, 400);
    let mut s = Server::start(&bin, Settings::default());
    let mut stream = TcpStream::connect(s.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // Ask for a large body and read only its first bytes: the answer is in flight.
    stream
        .write_all(b"GET /api/v2/specimen-records/?limit=1000 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut first = [0u8; 1024];
    stream.read_exact(&mut first).unwrap();
    s.stop();
    std::thread::sleep(Duration::from_millis(200));
    // New connections are refused once the listener is closed...
    let refused = (0..20).any(|_| {
        std::thread::sleep(Duration::from_millis(25));
        TcpStream::connect(s.addr).is_err()
    });
    assert!(refused, "the listener is closed during shutdown");
    // ...while the request in flight completes.
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).unwrap();
    let mut all = first.to_vec();
    all.extend(rest);
    let end = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let body: serde_json::Value = serde_json::from_slice(&all[end..]).unwrap();
    assert_eq!(body["items"].as_array().unwrap().len(), 400);
}

#[test]
fn a_stopping_server_is_a_lame_duck_for_its_drain_period() {
    let settings = Settings {
        drain: Duration::from_millis(1500),
        ..Settings::default()
    };
    let mut s = Server::start(&sample_snapshot(), settings);
    // A keep-alive connection that has had one answer and sits idle, as a
    // balancer's upstream connection does.
    let mut idle = TcpStream::connect(s.addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let ask = b"GET /api/v2/orders/1/ HTTP/1.1\r\nHost: t\r\n\r\n";
    idle.write_all(ask).unwrap();
    let mut buffer = [0u8; 8192];
    let n = idle.read(&mut buffer).unwrap();
    let first = String::from_utf8_lossy(&buffer[..n]).to_string();
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    assert!(
        !first.to_ascii_lowercase().contains("connection: close"),
        "{first}"
    );
    assert_eq!(s.get("/readyz").status, 200);

    s.stop();
    std::thread::sleep(Duration::from_millis(200));
    // Still listening: readiness fails at once, data is still answered, and each
    // answer closes its connection.
    assert_eq!(s.get("/readyz").status, 503);
    let fresh = s.get("/api/v2/orders/1/");
    assert_eq!(fresh.status, 200);
    assert_eq!(fresh.header("connection"), Some("close"));
    // A request on the idle connection is answered, not cut, and closes it.
    idle.write_all(ask).unwrap();
    let mut rest = Vec::new();
    idle.read_to_end(&mut rest).unwrap();
    let second = String::from_utf8_lossy(&rest).to_string();
    assert!(second.starts_with("HTTP/1.1 200"), "{second}");
    assert!(
        second.to_ascii_lowercase().contains("connection: close"),
        "{second}"
    );
    // After the drain period the listener closes.
    std::thread::sleep(Duration::from_millis(1800));
    assert!(
        TcpStream::connect(s.addr).is_err(),
        "the listener closes after the drain period"
    );
}

#[test]
fn probe_exits_zero_only_on_a_200() {
    let mut s = Server::sample();
    let addr = s.addr.to_string();
    let healthy = common::catalogue(&["probe", "--addr", &addr]);
    assert!(healthy.status.success(), "{healthy:?}");
    let missing = common::catalogue(&["probe", "--addr", &addr, "--path", "/nope"]);
    assert!(!missing.status.success());
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr),
        format!("error: {addr}/nope: HTTP/1.1 404\n")
    );
    s.stop();
    std::thread::sleep(Duration::from_millis(300));
    let stopped = common::catalogue(&["probe", "--addr", &addr]);
    assert!(!stopped.status.success());
}

#[test]
fn if_none_match_is_read_from_every_header_line() {
    let s = Server::sample();
    let tag = s
        .get("/api/v2/countries/")
        .header("etag")
        .unwrap()
        .to_string();
    let r = s.send(
        "GET",
        "/api/v2/countries/",
        &[("If-None-Match", "\"other\""), ("If-None-Match", &tag)],
    );
    assert_eq!(r.status, 304);
    let r = s.send(
        "GET",
        "/api/v2/countries/",
        &[
            ("If-None-Match", "\"other\""),
            ("If-None-Match", "\"another\""),
        ],
    );
    assert_eq!(r.status, 200);
}
