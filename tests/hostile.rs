//! What an attacker (or a confused client) sends, answered cleanly: nothing
//! panics, nothing reaches the routes that cannot be routed, and the server goes
//! on serving.

use crate::common;

use common::{request, Server};
use serde_json::json;

fn raw(s: &Server, head: &str) -> common::Reply {
    request(s.addr, &format!("{head}\r\nConnection: close\r\n\r\n"))
}

#[test]
fn targets_that_are_not_paths_are_refused_before_routing() {
    let s = Server::sample();
    for _ in 0..5 {
        let r = raw(
            &s,
            "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443",
        );
        assert_eq!(r.status, 400);
        assert_eq!(
            r.json(),
            json!({"message": "the request target must be a path (origin form), like /api/v2/orders/"})
        );
    }
    let r = raw(&s, "GET example.org:443 HTTP/1.1\r\nHost: t");
    assert_eq!(r.status, 400);
    let r = raw(&s, "GET * HTTP/1.1\r\nHost: t");
    assert_eq!(
        r.json(),
        json!({"message": "the request target * is only for OPTIONS"})
    );
    assert_eq!(raw(&s, "OPTIONS * HTTP/1.1\r\nHost: t").status, 204);
    // Absolute form is a path too.
    assert_eq!(
        raw(&s, "GET http://t/api/v2/orders/ HTTP/1.1\r\nHost: t").status,
        200
    );
    // And the server is still there.
    assert_eq!(s.get("/healthz").status, 200);
}

#[test]
fn http_1_1_needs_exactly_one_host() {
    let s = Server::sample();
    let message = json!({"message": "an HTTP/1.1 request needs exactly one Host header"});
    let r = raw(&s, "GET /api/v2/orders/ HTTP/1.1");
    assert_eq!((r.status, r.json()), (400, message.clone()));
    let r = raw(&s, "GET /api/v2/orders/ HTTP/1.1\r\nHost: a\r\nHost: b");
    assert_eq!((r.status, r.json()), (400, message));
    // HTTP/1.0 may leave it out.
    assert_eq!(raw(&s, "GET /api/v2/orders/ HTTP/1.0").status, 200);
}

/// A refusal before routing is an answer like every other: CORS, nosniff, the
/// connection closed after it, and counted.
#[test]
fn refusals_before_routing_carry_every_answers_headers() {
    let s = Server::sample();
    let counted = |s: &Server| -> u64 {
        s.get("/metrics")
            .text()
            .lines()
            .find_map(|l| {
                l.strip_prefix("catalogue_requests_total{route=\"other\",status=\"400\"} ")
            })
            .map_or(0, |n| n.trim().parse().unwrap())
    };
    let before = counted(&s);
    let r = raw(&s, "GET /api/v2/orders/ HTTP/1.1\r\nHost: evil.example/x?");
    assert_eq!(r.status, 400);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(r.header("connection"), Some("close"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("cache-control"), None);
    assert_eq!(counted(&s), before + 1);
}

#[test]
fn record_ids_are_canonical_decimal() {
    let s = Server::sample();
    assert_eq!(s.json("/api/v2/orders/1/", 200)["id"], 1);
    for id in ["01", "+1", "1.0", "00", "-1", "1%20", "%31"] {
        s.assert_error(
            &format!("/api/v2/orders/{id}/"),
            404,
            "No Order matches the given query.",
        );
    }
}

#[test]
fn the_open_files_limit_is_raised_to_the_hard_limit() {
    let addr = common::free_addr();
    // A soft limit of 64 (the hard one as it is): the server takes all it may have.
    let script = format!(
        "ulimit -Sn 64 && exec '{}' serve --no-watch --snapshot '{}' --addr {addr}",
        env!("CARGO_BIN_EXE_catalogue"),
        common::sample_snapshot().display()
    );
    let child = std::process::Command::new("sh")
        .args(["-c", &script])
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while common::try_request(
        addr.parse().unwrap(),
        "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    )
    .is_none()
    {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "the server did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: a plain signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    let line = log
        .lines()
        .find(|l| l.contains("open files limit"))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(line.contains("was=64"), "{line}");
    let mut hard = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct given.
    assert_eq!(
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut hard) },
        0
    );
    assert!(line.contains(&format!("now={}", hard.rlim_max)), "{line}");
}

/// Out of descriptors (a hard limit of 128, 300 idle connections open), a new
/// client is still answered at once: the connections idle longest close to make
/// room, rather than every client waiting for them to time out (30 s).
#[test]
fn out_of_descriptors_the_idlest_connections_make_room() {
    let addr = common::free_addr();
    let script = format!(
        "ulimit -n 128 && exec '{}' serve --no-watch --drain 0 --snapshot '{}' --addr {addr}",
        env!("CARGO_BIN_EXE_catalogue"),
        common::sample_snapshot().display()
    );
    let mut child = std::process::Command::new("sh")
        .args(["-c", &script])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let health = "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    let start = std::time::Instant::now();
    while common::try_request(addr.parse().unwrap(), health).is_none() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "the server did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let idle: Vec<std::net::TcpStream> = (0..300)
        .map(|_| std::net::TcpStream::connect(&addr).unwrap())
        .collect();
    // Let the server take what it can of them.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let asked = std::time::Instant::now();
    let mut probe = std::net::TcpStream::connect(&addr).unwrap();
    probe
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    std::io::Write::write_all(&mut probe, health.as_bytes()).unwrap();
    let mut answer = String::new();
    let read = std::io::Read::read_to_string(&mut probe, &mut answer);
    let took = asked.elapsed();
    drop(idle);
    let _ = child.kill();
    let _ = child.wait();
    assert!(read.is_ok(), "no answer within 5 s: {read:?}");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        took < std::time::Duration::from_secs(1),
        "answered after {took:?}"
    );
}

#[test]
fn a_stopping_server_says_connection_close_and_is_not_ready() {
    let s = Server::sample();
    let mut client = common::Client::connect(s.addr);
    let before = client.get("/api/v2/orders/").unwrap();
    assert_eq!(before.header("connection"), None);
    assert_eq!(s.json("/readyz", 200)["status"], "ready");
    // What the server does once told to stop (SIGTERM sets it): the next answer on
    // a keep-alive connection says it is the last.
    s.state
        .draining
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let after = client.get("/api/v2/orders/").unwrap();
    assert_eq!(after.status, 200);
    assert_eq!(after.header("connection"), Some("close"));
    assert_eq!(after.body, before.body);
    let ready = s.get("/readyz");
    assert_eq!(
        (ready.status, ready.json()),
        (503, json!({"status": "draining"}))
    );
}

#[test]
fn revalidation_and_head_do_not_make_the_answer() {
    let s = Server::sample();
    let worked = || s.state.work.ran(catalogue::serve::work::Task::Answer);
    let path = "/api/v2/specimen-records/?sort=-notes,usi&search=a&limit=100000";
    let get = s.send("GET", path, &[("Accept-Encoding", "gzip")]);
    assert_eq!((get.status, worked()), (200, 1));
    let tag = get.header("etag").unwrap().to_string();
    // The tag names the request and the coding it takes, known before any work.
    let again = s.send(
        "GET",
        path,
        &[("Accept-Encoding", "gzip"), ("If-None-Match", &tag)],
    );
    assert_eq!((again.status, worked()), (304, 1));
    assert_eq!(again.header("etag"), Some(tag.as_str()));
    assert!(again.body.is_empty());
    // Another coding is another representation.
    let identity = s.send("GET", path, &[("If-None-Match", &tag)]);
    assert_eq!((identity.status, worked()), (200, 2));
    // HEAD of an answer that costs work: its headers, without making it (so
    // without a length).
    let head = s.send("HEAD", path, &[]);
    assert_eq!((head.status, worked()), (200, 2));
    assert_eq!(head.header("etag"), identity.header("etag"));
    assert_eq!(head.header("content-type"), Some("application/json"));
    assert_eq!(head.header("content-length"), None);
    // A cheap answer's HEAD still says its length.
    let plain = s.send("HEAD", "/api/v2/orders/", &[]);
    assert_eq!(
        plain.header("content-length"),
        s.get("/api/v2/orders/").header("content-length")
    );
}

#[test]
fn what_multiplies_work_is_bounded() {
    let s = Server::sample();
    // A sort key named 300 times is one key.
    let keys = vec!["notes"; 300].join(",");
    assert_eq!(
        s.ids_of(&format!("/api/v2/specimen-records/?sort={keys}")),
        s.ids_of("/api/v2/specimen-records/?sort=notes")
    );
    let keys = ["-year", "year", "usi"].repeat(100).join(",");
    assert_eq!(
        s.ids_of(&format!("/api/v2/specimen-records/?sort={keys}")),
        s.ids_of("/api/v2/specimen-records/?sort=-year,usi")
    );
    // A term given twice is searched once.
    assert_eq!(
        s.ids_of("/api/v2/specimen-records/?search=danaus+danaus+DANAUS"),
        s.ids_of("/api/v2/specimen-records/?search=danaus")
    );
    s.assert_error(
        "/api/v2/orders/?facet=name&facet_size=1001",
        400,
        "facet_size cannot be higher than 1000",
    );
    assert_eq!(
        s.json("/api/v2/orders/?facet=name&facet_size=1000", 200)["meta"]["facets"]["name"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn a_client_that_takes_nothing_is_cut_off() {
    use std::io::{Read, Write};
    let dir = common::TempDir::new("slow-reader");
    let settings = catalogue::serve::Settings {
        send_timeout: std::time::Duration::from_millis(300),
        ..Default::default()
    };
    let s = Server::start(&common::generated(&dir, 5000), settings);
    let mut stream = std::net::TcpStream::connect(s.addr).unwrap();
    // 15 MB asked for: more than the kernel's buffers hold for a client that
    // reads nothing.
    stream
        .write_all(b"GET /api/v2/specimen-records/?limit=100000 HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut got = Vec::new();
    let _ = stream.read_to_end(&mut got);
    let head_end = got.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&got[..head_end]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        got.len() - head_end < length,
        "the whole {length}-byte answer arrived: nothing was cut"
    );
    // Others are still served.
    assert_eq!(s.get("/healthz").status, 200);
}

#[test]
fn large_answers_that_cost_work_are_written_as_they_are_sent() {
    let dir = common::TempDir::new("streamed");
    // Without featured images, the specimens hold no media URL: an answer whose
    // items do is sent chunked, its length known only once its base is in.
    let snapshot = common::generated_with(&dir, 4000, |c| {
        c.orders.iter_mut().for_each(|r| r.featured_image = None);
        c.families.iter_mut().for_each(|r| r.featured_image = None);
        c.species.iter_mut().for_each(|r| r.featured_image = None);
    });
    let s = Server::start(&snapshot, Default::default());
    // Over 8 MiB: the sorted answer is streamed, the plain one is a slice.
    let plain = s.get("/api/v2/specimen-records/?limit=100000");
    let sorted = s.get("/api/v2/specimen-records/?limit=100000&sort=id");
    assert!(plain.body.len() > 8 << 20, "{} bytes", plain.body.len());
    assert_eq!(sorted.status, 200);
    assert_eq!(sorted.body, plain.body);
    assert_eq!(
        sorted.header("content-length"),
        Some(plain.body.len().to_string().as_str())
    );
    // A projected or GeoJSON answer's length is known only once made: chunked.
    let cut = s.get("/api/v2/specimen-records/?limit=100000&sort=-id&fields=-notes");
    assert_eq!(cut.header("content-length"), None);
    let body = cut.json();
    assert_eq!(body["items"].as_array().unwrap().len(), 4000);
    assert_eq!(body["items"][0]["id"], 4000);
    assert!(body["items"][0].get("notes").is_none());
    let geo = s
        .get("/api/v2/specimen-records/?limit=100000&sort=id&format=geojson")
        .json();
    let features = geo["features"].as_array().unwrap().len() as u64;
    assert_eq!(features, geo["meta"]["total_count"].as_u64().unwrap());
    assert!(features > 0);
}

/// What costs work goes to the threads for expensive answers, never the async
/// workers: counting facets (even over the whole list), sorting, a page's rows,
/// compressing a body for one response. Only slices of rendered bytes do not.
#[test]
fn what_costs_work_runs_on_the_work_threads() {
    let s = Server::sample();
    let worked = |s: &Server| s.metric("catalogue_worked_answers_total");
    let compressed = |s: &Server| s.metric("catalogue_compressed_answers_total");
    let before = worked(&s);
    assert_eq!(s.get("/api/v2/specimen-records/?limit=2").status, 200);
    assert_eq!(worked(&s), before, "a plain run is a slice");
    let r = s.json("/api/v2/specimen-records/?facet=sex&limit=2", 200);
    assert!(r["meta"]["facets"]["sex"].is_array());
    assert_eq!(worked(&s), before + 1, "facets are work");
    assert_eq!(s.get("/api/v2/specimen-records/?sort=-year").status, 200);
    assert_eq!(worked(&s), before + 2, "a sort is work");
    let page = s.send("GET", "/api/v2/orders/", &[("Accept", "text/html")]);
    assert_eq!(page.status, 200);
    assert_eq!(
        worked(&s),
        before + 3,
        "a page's rows are written on the pool"
    );
    let zipped_before = compressed(&s);
    let gzip = s.send(
        "GET",
        "/api/v2/specimen-records/?limit=10&offset=1",
        &[("Accept-Encoding", "gzip")],
    );
    assert_eq!(gzip.header("content-encoding"), Some("gzip"));
    assert_eq!(compressed(&s), zipped_before + 1, "compressed on the pool");
    assert_eq!(worked(&s), before + 3, "the slice itself was cut");
}

/// Where work runs, seen from the pool itself: with its one thread held and no
/// room to queue, whatever needs that thread is refused (503), and whatever is
/// cut from rendered bytes is answered, as are documents, on their own lane.
/// Once the thread is free, all are.
#[test]
fn what_costs_work_needs_the_pools_thread() {
    use catalogue::serve::work::Task;
    let settings = catalogue::serve::Settings {
        query_threads: 1,
        query_queue: 0,
        ..catalogue::serve::Settings::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (release, wait) = std::sync::mpsc::channel::<()>();
    let (held, holding) = std::sync::mpsc::channel::<()>();
    let work = s.state.work.clone();
    let holder = runtime.spawn(async move {
        work.run(Task::Answer, move || {
            held.send(()).unwrap();
            wait.recv().is_ok()
        })
        .await
    });
    holding.recv().unwrap();
    let costly = [
        ("/api/v2/specimen-records/?facet=sex&limit=2", &[][..]),
        ("/api/v2/specimen-records/?sort=-year", &[][..]),
        ("/api/v2/specimen-records/?search=a", &[][..]),
        ("/api/v2/specimen-records/checklist/", &[][..]),
        ("/gbif/v1/occurrence/search?year=2021", &[][..]),
        ("/api/v2/orders/", &[("Accept", "text/html")][..]),
    ];
    // Documents are laid out and written on threads of their own.
    let documents = [
        "/api/v2/specimen-records/?format=csv",
        "/api/v2/specimen-records/labels/",
        "/dwca.zip?family=Nymphalidae",
    ];
    let cheap = [
        "/api/v2/specimen-records/?limit=2",
        "/api/v2/specimen-records/1/",
        "/api/v2/",
        "/healthz",
    ];
    for (path, headers) in costly {
        let r = s.send("GET", path, headers);
        assert_eq!((path, r.status), (path, 503), "answered without the pool");
        assert_eq!(r.header("retry-after"), Some("1"), "{path}");
    }
    for path in cheap.iter().chain(&documents) {
        let r = s.get(path);
        assert_eq!((path, r.status), (path, 200), "{}", r.text());
    }
    release.send(()).unwrap();
    assert_eq!(runtime.block_on(holder).unwrap(), Some(true));
    for (path, headers) in costly {
        let r = s.send("GET", path, headers);
        assert_eq!((path, r.status), (path, 200));
    }
}

/// Streamed documents take a share of units, one address at most half of it:
/// past it a document is refused at once with 503 and Retry-After, questions
/// are answered all the while, and the share comes back once the client goes.
#[test]
fn streamed_documents_take_a_share_and_are_refused_past_it() {
    use std::io::Write;
    let dir = common::TempDir::new("stream-share");
    let settings = catalogue::serve::Settings {
        stream_share: catalogue::serve::streams::Share {
            units: 2,
            memory: 64 << 20,
        },
        ..Default::default()
    };
    let s = Server::start(&common::generated(&dir, 5000), settings);
    let download = "/api/v2/specimen-records/?format=ndjson";
    // About 15 MB asked for by a client that reads none of it: more than the
    // kernel's buffers hold, so its document stays under way.
    let mut held = std::net::TcpStream::connect(s.addr).unwrap();
    write!(held, "GET {download} HTTP/1.1\r\nHost: t\r\n\r\n").unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while s.metric("catalogue_streamed_units") == 0 {
        assert!(std::time::Instant::now() < deadline, "never admitted");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let refused = s.get(download);
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert_eq!(refused.header("retry-after"), Some("5"));
    assert!(
        refused
            .text()
            .contains("your address's documents being streamed use 1 of the 1 units"),
        "{}",
        refused.text()
    );
    // A label sheet is refused as well, once the labels it would hold are
    // counted (before they are laid out); its preview is a page, not a
    // document, and is made.
    let sheet = s.get("/api/v2/specimen-records/labels/?kind=data&limit=50");
    assert_eq!(sheet.status, 503, "{}", sheet.text());
    assert_eq!(sheet.header("retry-after"), Some("5"));
    let preview = s.get("/api/v2/specimen-records/labels/?kind=data&limit=50&format=html");
    assert_eq!(preview.status, 200);
    // Questions do not wait for documents.
    assert_eq!(
        s.get("/api/v2/specimen-records/?search=a&limit=3").status,
        200
    );
    assert_eq!(s.get("/api/v2/orders/").status, 200);
    drop(held);
    while s.metric("catalogue_streamed_units") > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the share never came back"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let whole = s.get(download);
    assert_eq!(whole.status, 200);
    assert_eq!(whole.text().lines().count(), 5000);
    assert_eq!(s.metric("catalogue_streamed_bytes_held"), 0);
}

/// Behind a trusted proxy, each client's address is what the proxy forwards:
/// one client's documents fill its half of the share, not the others'.
#[test]
fn behind_a_trusted_proxy_each_forwarded_address_has_its_own_half() {
    use std::io::Write;
    let dir = common::TempDir::new("stream-share-proxy");
    let loopback = "127.0.0.1".parse().unwrap();
    let settings = catalogue::serve::Settings {
        stream_share: catalogue::serve::streams::Share {
            units: 2,
            memory: 64 << 20,
        },
        trusted_proxies: catalogue::serve::origin::TrustedProxies::new(vec![(loopback, 32)]),
        ..Default::default()
    };
    let s = Server::start(&common::generated(&dir, 5000), settings);
    let download = "/api/v2/specimen-records/?format=ndjson";
    // About 15 MB for 192.0.2.1, which reads none of it: its document stays
    // under way, holding the one unit its address may take.
    let mut held = std::net::TcpStream::connect(s.addr).unwrap();
    write!(
        held,
        "GET {download} HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: 192.0.2.1\r\n\r\n"
    )
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while s.metric("catalogue_streamed_units") == 0 {
        assert!(std::time::Instant::now() < deadline, "never admitted");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let refused = s.send("GET", download, &[("X-Forwarded-For", "192.0.2.1")]);
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert!(refused
        .text()
        .contains("your address's documents being streamed use 1 of the 1 units"));
    // Another client through the same proxy has its own half.
    let other = s.send("GET", download, &[("X-Forwarded-For", "198.51.100.7")]);
    assert_eq!(other.status, 200, "{}", other.text());
    assert_eq!(other.text().lines().count(), 5000);
    drop(held);
}

/// A form announced longer than a form may be is refused with 413 before
/// any of it is read: a client waiting on `Expect: 100-continue` is told so
/// at once, never to go on.
#[test]
fn an_announced_oversized_form_is_refused_before_100_continue() {
    use std::io::{BufRead, Write};
    let s = Server::sample();
    let mut stream = std::net::TcpStream::connect(s.addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let head = "POST /gbif/v1/occurrence/search HTTP/1.1\r\nHost: x\r\n\
                Content-Type: application/x-www-form-urlencoded\r\n\
                Content-Length: 1000000000\r\nExpect: 100-continue\r\n\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    let mut first = String::new();
    std::io::BufReader::new(&stream)
        .read_line(&mut first)
        .expect("an answer within 5 s, without a body sent");
    assert_eq!(first.trim_end(), "HTTP/1.1 413 Payload Too Large");
}

/// Forms' bodies arriving on every connection together hold at most
/// `FORMS_HELD` bytes: past it a form is refused with 503 and `Retry-After`,
/// and what they held is given back when they go.
#[test]
fn forms_arriving_together_are_held_within_a_budget() {
    use catalogue::serve::forms::FORMS_HELD;
    use std::io::{Read, Write};
    let s = Server::sample();
    let each = 1_000_000 - 1;
    let body = format!("a={}", "b".repeat(each - 2));
    let connections = FORMS_HELD / each + 4;
    let handles: Vec<_> = (0..connections)
        .map(|_| {
            let (addr, body) = (s.addr, body.clone());
            std::thread::spawn(move || {
                let mut c = std::net::TcpStream::connect(addr).unwrap();
                c.set_read_timeout(Some(std::time::Duration::from_secs(3)))
                    .unwrap();
                let head = format!(
                    "POST /gbif/v1/occurrence/search HTTP/1.1\r\nHost: t\r\n\
                     Content-Type: application/x-www-form-urlencoded\r\n\
                     Content-Length: {}\r\n\r\n",
                    each + 1
                );
                // One byte short: the form never ends.
                let _ = c.write_all(head.as_bytes());
                let _ = c.write_all(body.as_bytes());
                let mut answer = vec![0; 4096];
                let n = c.read(&mut answer).unwrap_or(0);
                (c, String::from_utf8_lossy(&answer[..n]).into_owned())
            })
        })
        .collect();
    let answered: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let refused: Vec<&String> = (answered.iter().map(|(_, a)| a))
        .filter(|a| !a.is_empty())
        .collect();
    assert!(
        (1..=connections).contains(&refused.len()),
        "{} of {connections} refused",
        refused.len()
    );
    for answer in &refused {
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
        assert!(answer.contains("retry-after: 1\r\n"), "{answer}");
    }
    assert!(s.state.forms.held() <= FORMS_HELD);
    drop(answered);
    let started = std::time::Instant::now();
    while s.state.forms.held() > 0 {
        assert!(
            started.elapsed().as_secs() < 10,
            "the forms' bytes are still held"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let posted = s.post(
        "/gbif/v1/occurrence/search",
        "application/x-www-form-urlencoded",
        "limit=1",
    );
    assert_eq!(posted.status, 200);
}

/// A slow form of 192.0.2.1's: announcing `announced` bytes, sending `sent`
/// of them, its connection held open.
fn slow_form(s: &Server, announced: usize, sent: usize) -> std::net::TcpStream {
    use std::io::Write;
    let mut c = std::net::TcpStream::connect(s.addr).unwrap();
    let head = format!(
        "POST /gbif/v1/occurrence/search HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: 192.0.2.1\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {announced}\r\n\r\n"
    );
    let body = format!("a={}", "b".repeat(sent - 2));
    c.write_all(head.as_bytes()).unwrap();
    c.write_all(body.as_bytes()).unwrap();
    c
}

/// What a connection was answered within `wait` (nothing while its form is
/// held).
fn answered(c: &mut std::net::TcpStream, wait: std::time::Duration) -> String {
    use std::io::Read;
    c.set_read_timeout(Some(wait)).unwrap();
    let mut answer = vec![0; 4096];
    let n = c.read(&mut answer).unwrap_or(0);
    String::from_utf8_lossy(&answer[..n]).into_owned()
}

/// Another address's form, through the same trusted proxy.
fn other_form(s: &Server) -> u16 {
    let raw = "POST /gbif/v1/occurrence/search HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\
               X-Forwarded-For: 198.51.100.7\r\nContent-Type: application/x-www-form-urlencoded\r\n\
               Content-Length: 7\r\n\r\nlimit=1";
    request(s.addr, raw).status
}

/// One address holds at most half the forms' budget, and a form counts what
/// has arrived and a bounded reservation, not what it announces: 40 forms
/// announcing a megabyte and sending 10 bytes are all held, and another
/// address's form is answered; forms that send their megabytes fill their
/// address's half (503), never the other's.
#[test]
fn one_address_holding_slow_forms_leaves_the_others_theirs() {
    use catalogue::serve::forms::{FORMS_HELD, FORM_COPIES, RESERVED};
    let loopback = "127.0.0.1".parse().unwrap();
    let settings = catalogue::serve::Settings {
        trusted_proxies: catalogue::serve::origin::TrustedProxies::new(vec![(loopback, 32)]),
        ..Default::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    let megabyte = 1 << 20;
    let mut announcing: Vec<_> = (0..40).map(|_| slow_form(&s, megabyte, 10)).collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    for c in &mut announcing {
        let answer = answered(c, std::time::Duration::from_millis(10));
        assert_eq!(answer, "", "a form announcing a megabyte is held");
    }
    assert_eq!(s.state.forms.held(), 40 * RESERVED * FORM_COPIES);
    assert_eq!(other_form(&s), 200);
    // Forms one byte short of their megabyte, until the address's half is full.
    let mut sending = Vec::new();
    let most = FORMS_HELD / 2 / (megabyte * FORM_COPIES) + 2;
    let refused = loop {
        let mut c = slow_form(&s, megabyte, megabyte - 1);
        let answer = answered(&mut c, std::time::Duration::from_millis(300));
        if !answer.is_empty() {
            break answer;
        }
        sending.push(c);
        assert!(sending.len() < most, "the address's half is never full");
    };
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(refused.contains("retry-after: 1\r\n"), "{refused}");
    let mine = s.state.forms.held_by(Some("192.0.2.1".parse().unwrap()));
    assert!(mine <= FORMS_HELD / 2, "{mine}");
    assert_eq!(other_form(&s), 200);
    drop((announcing, sending));
}

/// Text a spreadsheet would run as a formula is written as text in every
/// CSV (OWASP's advice: a single quote, in a quoted cell); numbers, a
/// negative longitude among them, stay numbers.
#[test]
fn csv_cells_never_hold_a_formula() {
    let dir = common::TempDir::new("csv-formulas");
    let text = std::fs::read_to_string(common::sample_fixture()).unwrap();
    let mut objects: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let specimen = objects
        .iter_mut()
        .find(|o| o["model"] == "specimens.specimenrecord" && o["pk"] == 1)
        .unwrap();
    specimen["fields"]["notes"] = json!("=HYPERLINK(\"http://evil.example\",\"x\")");
    specimen["fields"]["weather"] = json!("@SUM(1+1)");
    specimen["fields"]["method"] = json!("-2+3+cmd|' /C calc'!A0");
    let fixture = dir.path("formulas.json");
    std::fs::write(&fixture, serde_json::Value::Array(objects).to_string()).unwrap();
    let snapshot = dir.path("formulas.bin");
    let built = common::catalogue(&[
        "build",
        fixture.to_str().unwrap(),
        "-o",
        snapshot.to_str().unwrap(),
    ]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let s = Server::start(&snapshot, Default::default());
    let csv = s.get("/api/v2/specimen-records/?format=csv").text();
    for cell in [
        "\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")\"",
        "\"'@SUM(1+1)\"",
        "\"'-2+3+cmd|' /C calc'!A0\"",
    ] {
        assert!(csv.contains(cell), "{cell} in {csv}");
    }
    for line in csv.lines() {
        for cell in line.split(',') {
            assert!(!cell.starts_with(['=', '@']), "{cell} in {line}");
        }
    }
    let gps = s.get("/api/v2/gps-coordinates/?format=csv");
    assert_eq!(gps.status, 200, "{}", gps.text());
    assert!(gps.text().contains(",-83.663889,"), "{}", gps.text());
}

/// Numbers in paths and parameters are canonical, as a record's id is (`05`
/// names nothing), and a day is one of the years 1 to 9999.
#[test]
fn numbers_in_paths_are_canonical_and_days_in_range() {
    let s = Server::sample();
    let key = s.json("/gbif/v1/occurrence/search?limit=1", 200)["results"][0]["key"]
        .as_i64()
        .unwrap();
    assert_eq!(s.get(&format!("/gbif/v1/occurrence/{key}")).status, 200);
    for path in [
        format!("/gbif/v1/occurrence/0{key}"),
        format!("/gbif/v1/occurrence/+{key}"),
        "/versions/01/dwca.zip".to_string(),
        "/versions/01/eml.xml".to_string(),
        "/versions/01/".to_string(),
    ] {
        assert_eq!(s.get(&path).status, 404, "{path}");
    }
    assert_eq!(s.get("/api/v2/citation/?version=1").status, 200);
    assert_eq!(s.get("/api/v2/changes/?since=1").status, 200);
    for query in [
        "/api/v2/citation/?version=01",
        "/api/v2/changes/?since=01",
        "/api/v2/changes/?since=+1",
        "/api/v2/citation/?accessed=-001-01-01",
        "/api/v2/citation/?accessed=0000-01-01",
        "/api/v2/citation/?accessed=+2026-01-01",
    ] {
        let r = s.get(query);
        assert_eq!(r.status, 400, "{query}: {}", r.text());
    }
    let cited = s.get("/api/v2/citation/?accessed=2026-01-02");
    assert_eq!(cited.status, 200);
    assert!(cited.text().contains("2026-01-02"), "{}", cited.text());
}

/// Files held open by answers are a budget of descriptors, half per client:
/// at a limit of 1,024, 700 connections of one address that each ask for a
/// kept archive and read none of it hold at most their half of the files'
/// share (the rest are refused with 503 and `Retry-After`), a health probe
/// is answered at once, and nothing is taken for a damaged file.
#[test]
fn idle_readers_of_a_kept_archive_leave_descriptors_for_a_health_probe() {
    use std::io::{Read, Write};
    let dir = common::TempDir::new("kept-descriptors");
    let (fixture, snapshot) = (dir.path("c.json"), dir.path("c.bin"));
    let (fixture, snapshot) = (fixture.to_str().unwrap(), snapshot.to_str().unwrap());
    let made = common::catalogue(&["generate", "--specimens", "20000", "-o", fixture]);
    assert!(made.status.success());
    let built = common::catalogue(&["build", fixture, "-o", snapshot, "--public-url", "http://t"]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let archive = dir.path("c.bin.versions/1/dwca.zip");
    let size = std::fs::metadata(&archive).unwrap().len();
    assert!(
        size > 1 << 20,
        "an archive larger than socket buffers: {size}"
    );
    // This process opens 700 connections too.
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct given.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        limit.rlim_cur = limit.rlim_max.min(8192);
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
    }
    let addr = common::free_addr();
    let log = dir.path("server.log");
    let script = format!(
        "ulimit -n 1024 && exec '{}' serve --no-watch --drain 0 --snapshot '{snapshot}' --addr {addr} 2> '{}'",
        env!("CARGO_BIN_EXE_catalogue"),
        log.display()
    );
    let mut child = std::process::Command::new("sh")
        .args(["-c", &script])
        .spawn()
        .unwrap();
    let health = "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    let start = std::time::Instant::now();
    while common::try_request(addr.parse().unwrap(), health).is_none() {
        assert!(start.elapsed().as_secs() < 30, "the server did not start");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut readers: Vec<std::net::TcpStream> = (0..700)
        .map(|_| {
            let mut c = std::net::TcpStream::connect(&addr).unwrap();
            c.write_all(b"GET /versions/1/dwca.zip HTTP/1.1\r\nHost: t\r\n\r\n")
                .unwrap();
            c
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_secs(1));
    let asked = std::time::Instant::now();
    let mut probe = std::net::TcpStream::connect(&addr).unwrap();
    probe
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    probe.write_all(health.as_bytes()).unwrap();
    let mut answer = String::new();
    let read = probe.read_to_string(&mut answer);
    let took = asked.elapsed();
    // What the readers were answered: the first line of each.
    let mut statuses = std::collections::BTreeMap::<String, usize>::new();
    for c in &mut readers {
        c.set_read_timeout(Some(std::time::Duration::from_millis(200)))
            .unwrap();
        let mut line = [0; 12];
        let status = match c.read_exact(&mut line) {
            Ok(()) => String::from_utf8_lossy(&line[9..12]).into_owned(),
            Err(_) => "none".to_string(),
        };
        *statuses.entry(status).or_default() += 1;
    }
    let metrics = common::try_request(
        addr.parse().unwrap(),
        "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    )
    .map(|r| r.text())
    .unwrap_or_default();
    let held: usize = (metrics.lines())
        .find_map(|l| l.strip_prefix("catalogue_held_files "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(usize::MAX);
    drop(readers);
    let _ = child.kill();
    let _ = child.wait();
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        read.is_ok(),
        "no health answer within 5 s: {read:?}; {statuses:?}"
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        took < std::time::Duration::from_secs(2),
        "answered after {took:?}"
    );
    assert!(
        !log.contains("manifest says"),
        "a false damage alarm: {log}"
    );
    assert_eq!(statuses.get("500"), None, "{statuses:?}");
    // A quarter of 1,024 for files, half of it for one address (a few
    // archives may have fit in the sockets' buffers whole, and let go of
    // their files).
    assert!(statuses.get("200").is_some(), "{statuses:?}");
    assert!((1..=128).contains(&held), "{held} files held: {statuses:?}");
    assert!(
        statuses.get("503").copied().unwrap_or(0) >= 500,
        "{statuses:?}"
    );
}
