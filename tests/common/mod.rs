//! Test harness: a real server on an ephemeral loopback port, and a raw HTTP/1.1
//! client that sends exactly what a test asks for.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use catalogue::serve::{self, Settings, State};
use catalogue::view::View;

/// The bundled sample snapshot.
pub fn sample_snapshot() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshot/collection.bin")
}

pub fn sample_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshot/collection.json")
}

/// The bundled sample as the service stored it before 0.16 (typed image
/// models, featured flags on insect images, no tags or site).
pub fn typed_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sample-0.10.json")
}

/// A server running on its own runtime until dropped.
pub struct Server {
    pub addr: SocketAddr,
    pub state: Arc<State>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Serves the bundled sample.
    pub fn sample() -> Server {
        Server::start(&sample_snapshot(), Settings::default())
    }

    pub fn start(snapshot: &Path, settings: Settings) -> Server {
        let view = View::load(snapshot).expect("the snapshot loads");
        let state = catalogue::serve::state(view, settings);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let s = state.clone();
        let thread = std::thread::spawn(move || {
            runtime.block_on(serve::serve(listener, s, async {
                let _ = stopped.await;
            }));
        });
        Server {
            addr,
            state,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    pub fn get(&self, path: &str) -> Reply {
        self.send("GET", path, &[])
    }

    /// A counter of `/metrics` without labels.
    pub fn metric(&self, name: &str) -> u64 {
        self.get("/metrics")
            .text()
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("{name} in /metrics"))
            .trim()
            .parse()
            .unwrap()
    }

    /// Sends a request with extra headers (`Host: t` unless they name a host).
    pub fn send(&self, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut raw = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            raw.push_str("Host: t\r\n");
        }
        for (k, v) in headers {
            raw.push_str(&format!("{k}: {v}\r\n"));
        }
        raw.push_str("\r\n");
        request(self.addr, &raw)
    }

    /// POSTs `body` as `content_type` to `path`.
    pub fn post(&self, path: &str, content_type: &str, body: &str) -> Reply {
        let raw = format!(
            "POST {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        request(self.addr, &raw)
    }

    /// Asks the server to stop (it finishes requests in flight) without waiting.
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// GET, asserting the status, and parsing the body as JSON.
    pub fn json(&self, path: &str, status: u16) -> serde_json::Value {
        let r = self.get(path);
        assert_eq!(r.status, status, "{path}: {}", r.text());
        assert_eq!(r.header("content-type"), Some("application/json"), "{path}");
        r.json()
    }
}

impl Server {
    /// The ids of a list's items, checking that `total_count` agrees (unpaged).
    pub fn ids_of(&self, path: &str) -> Vec<i64> {
        let body = self.json(path, 200);
        let got = ids(&body);
        assert_eq!(body["meta"]["total_count"], got.len(), "{path}");
        got
    }

    /// Asserts an error answer: this status and exactly this message.
    pub fn assert_error(&self, path: &str, status: u16, message: &str) {
        let body = self.json(path, status);
        assert_eq!(body, serde_json::json!({ "message": message }), "{path}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A parsed response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// A keep-alive HTTP/1.1 client: many requests on one connection.
pub struct Client {
    reader: std::io::BufReader<TcpStream>,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        Client {
            reader: std::io::BufReader::new(stream),
        }
    }

    /// Sends a GET and reads one response (which must carry a Content-Length).
    pub fn get(&mut self, path: &str) -> std::io::Result<Reply> {
        use std::io::BufRead;
        let request = format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n");
        self.reader.get_mut().write_all(request.as_bytes())?;
        let mut head = Vec::new();
        loop {
            let mut line = Vec::new();
            if self.reader.read_until(b'\n', &mut line)? == 0 {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "connection closed",
                ));
            }
            head.extend_from_slice(&line);
            if line == b"\r\n" {
                break;
            }
        }
        let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
        let len: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body)?;
        head.extend_from_slice(&body);
        Ok(parse_response(&head))
    }
}

/// Sends raw bytes and reads the whole response (the request asks to close).
pub fn request(addr: SocketAddr, raw: &str) -> Reply {
    try_request(addr, raw).expect("the server answers")
}

/// Like `request`, but `None` when the server cannot be reached.
pub fn try_request(addr: SocketAddr, raw: &str) -> Option<Reply> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    stream.write_all(raw.as_bytes()).ok()?;
    let mut data = Vec::new();
    stream.read_to_end(&mut data).ok()?;
    Some(parse_response_to(&data, !raw.starts_with("HEAD ")))
}

fn parse_response(data: &[u8]) -> Reply {
    parse_response_to(data, true)
}

/// Parses a response; `with_body` is false for the answer to a HEAD.
fn parse_response_to(data: &[u8], with_body: bool) -> Reply {
    let end = data
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete header block");
    let head = std::str::from_utf8(&data[..end]).unwrap();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap();
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect();
    let mut body = data[end + 4..].to_vec();
    if status == 304 || status == 204 || !with_body {
        assert!(
            body.is_empty(),
            "a {status} (or an answer to HEAD) has no body"
        );
        return Reply {
            status,
            headers,
            body,
        };
    }
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    } else if let Some((_, len)) = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
    {
        let len: usize = len.parse().unwrap();
        assert_eq!(body.len(), len, "content-length matches the body");
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&data[..line_end]).unwrap().trim(), 16)
                .unwrap();
        data = &data[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

/// Runs the `catalogue` binary. The suite's fixtures describe no licence,
/// which `build` and `sync` refuse by default: this allows it
/// (CATALOGUE_ALLOW_NO_LICENCE); [`catalogue_refusing`] runs without.
pub fn catalogue(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .args(args)
        .env("RUST_LOG", "warn")
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
        .output()
        .unwrap()
}

/// Runs the `catalogue` binary as a publisher would: nothing allowed that
/// `build` refuses by default, and `env` set.
pub fn catalogue_refusing(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .args(args)
        .env("RUST_LOG", "warn")
        .env_remove("CATALOGUE_ALLOW_NO_LICENCE")
        .env_remove("CATALOGUE_ALLOW_ID_CHURN")
        .env_remove("CATALOGUE_GBIF_USER")
        .env_remove("CATALOGUE_GBIF_PASSWORD")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// Builds the snapshot of a generated collection of `specimens` in `dir`.
pub fn generated(dir: &TempDir, specimens: usize) -> PathBuf {
    generated_with(dir, specimens, |_| {})
}

/// [`generated`], with the collection changed by `edit` before it is written.
pub fn generated_with(
    dir: &TempDir,
    specimens: usize,
    edit: impl FnOnce(&mut catalogue::model::records::Collection),
) -> PathBuf {
    let fixture = dir.path("generated.json");
    let file = std::fs::File::create(&fixture).unwrap();
    catalogue::ingest::synthetic::write(std::io::BufWriter::new(file), specimens, 42).unwrap();
    let mut checked = catalogue::ingest::from_fixtures(&[fixture]);
    assert!(checked.errors.is_empty(), "{:?}", checked.errors);
    edit(&mut checked.collection);
    let out = dir.path("generated.bin");
    catalogue::ingest::write_snapshot(&checked, &out, catalogue::view::prepared::encode).unwrap();
    out
}

/// A fresh temporary directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "catalogue-test-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The ids of a list's items.
pub fn ids(body: &serde_json::Value) -> Vec<i64> {
    body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_i64().unwrap())
        .collect()
}

/// A loopback address with a port free now, for a server a test starts itself.
pub fn free_addr() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("127.0.0.1:{port}")
}

/// The sample's checksum's first 8 hex digits and date, as files are named.
pub fn snapshot_name(s: &Server) -> String {
    let ready = s.json("/readyz", 200);
    let checksum = ready["checksum"].as_str().unwrap()[..8].to_string();
    let view = catalogue::view::View::load(&sample_snapshot()).unwrap();
    let date = chrono::DateTime::from_timestamp_micros(view.header.created_at)
        .unwrap()
        .format("%Y-%m-%d");
    format!("{date}-{checksum}")
}

/// The `Content-Disposition` of a download of `stem` asked with `query`: the
/// snapshot's name, then `q` and the first 8 hex digits of the SHA-256 of the
/// question (its pairs sorted, `format` left out; none for no question).
pub fn disposition(s: &Server, stem: &str, query: &str, extension: &str) -> String {
    let mut pairs: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("format="))
        .collect();
    pairs.sort_unstable();
    let question = match pairs.is_empty() {
        true => String::new(),
        false => {
            let digest = <sha2::Sha256 as sha2::Digest>::digest(pairs.join("&").as_bytes());
            let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
            format!("-q{hex}")
        }
    };
    format!(
        "inline; filename=\"{stem}-{}{question}.{extension}\"",
        snapshot_name(s)
    )
}

/// The files of a folder, by name.
pub fn names_in(dir: &std::path::Path) -> Vec<String> {
    let entries = std::fs::read_dir(dir).unwrap().flatten();
    entries
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Whether process `pid` has a file of `dir` open: a snapshot being written
/// there (named or not; `/proc/PID/fd` says which file each descriptor is).
pub fn writes_in(pid: u32, dir: &std::path::Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .any(|file| file.starts_with(dir))
}
