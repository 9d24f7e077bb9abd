//! Hot reload under load: renames, junk and slow in-place writes while keep-alive
//! clients keep asking; every request must succeed and junk is never served.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use catalogue::serve::reload::Reloader;
use catalogue::serve::Settings;
use common::{sample_snapshot, Client, Server, TempDir};

/// A snapshot file's bytes, with its prepared tables, as `build` writes them.
fn snapshot_bytes(collection: &catalogue::model::records::Collection, created: i64) -> Vec<u8> {
    let prepared = catalogue::view::prepared::encode(collection);
    catalogue::snapshot::encode(collection, created, &prepared)
        .unwrap()
        .1
}

/// The sample with its last `drop` specimens removed, as snapshot bytes.
fn variant(drop: usize) -> Vec<u8> {
    let (_, mut collection) = catalogue::snapshot::read(&sample_snapshot()).unwrap();
    let n = collection.specimen_records.len();
    collection.specimen_records.truncate(n - drop);
    snapshot_bytes(&collection, 0)
}

fn served_count(server: &Server) -> u64 {
    server.json("/api/v2/specimen-records/?limit=0", 200)["meta"]["total_count"]
        .as_u64()
        .unwrap()
}

/// Waits up to `limit` for the server to serve `count` specimens; returns how long it took.
/// Waits until the server serves `count` specimens; `limit` bounds the wait (a
/// test that hangs), not the speed, which `benches/` measures.
fn served_within(server: &Server, count: u64, limit: Duration) -> Duration {
    let start = Instant::now();
    while start.elapsed() < limit {
        if served_count(server) == count {
            return start.elapsed();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!(
        "{count} specimens not served within {limit:?} (serving {})",
        served_count(server)
    );
}

/// A copy of the sample served from a temporary directory, with a reloader.
fn served_copy(tag: &str, watch: bool) -> (TempDir, std::path::PathBuf, Server, Reloader) {
    let dir = TempDir::new(tag);
    let path = dir.path("collection.bin");
    std::fs::copy(sample_snapshot(), &path).unwrap();
    let server = Server::start(&path, Settings::default());
    let reloader = Reloader::start(server.state.clone(), &path, watch).unwrap();
    (dir, path, server, reloader)
}

fn rename_over(dir: &TempDir, path: &Path, bytes: &[u8]) {
    let tmp = dir.path(".incoming");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn swaps_under_load_without_failing_a_request() {
    let (dir, path, server, _reloader) = served_copy("reload", true);

    // Keep-alive clients, bounded in time, each checking every answer.
    let stop = Arc::new(AtomicBool::new(false));
    let requests = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(Mutex::new(Vec::new()));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (stop, requests, failures, addr) = (
                stop.clone(),
                requests.clone(),
                failures.clone(),
                server.addr,
            );
            std::thread::spawn(move || {
                let mut client = Client::connect(addr);
                let deadline = Instant::now() + Duration::from_secs(30);
                while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
                    match client.get("/api/v2/specimen-records/?limit=2") {
                        Ok(r) if r.status == 200 => {
                            let total = r.json()["meta"]["total_count"].as_u64();
                            if !matches!(total, Some(6..=8)) {
                                failures
                                    .lock()
                                    .unwrap()
                                    .push(format!("unexpected total {total:?}"));
                            }
                        }
                        Ok(r) => failures.lock().unwrap().push(format!(
                            "status {}: {}",
                            r.status,
                            r.text()
                        )),
                        Err(e) => failures
                            .lock()
                            .unwrap()
                            .push(format!("request failed: {e}")),
                    }
                    requests.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(served_count(&server), 8);

    // (1) A new snapshot renamed over the file.
    rename_over(&dir, &path, &variant(1));
    let took = served_within(&server, 7, Duration::from_secs(30));
    eprintln!("rename served after {took:?}");

    // (2) Junk renamed over it: refused, counted, the good view kept.
    let failed_before = server.state.metrics.failed_reloads.load(Ordering::Relaxed);
    rename_over(&dir, &path, b"this is not a snapshot at all");
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(served_count(&server), 7);
    assert_eq!(
        server.state.metrics.failed_reloads.load(Ordering::Relaxed),
        failed_before + 1
    );

    // (3) A valid snapshot rewritten in place, in two halves with a pause.
    let next = variant(2);
    let (first, rest) = next.split_at(next.len() / 2);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    file.write_all(first).unwrap();
    file.sync_all().unwrap();
    // Past the watcher's quiet time, so the half file is read; well within the
    // grace a short file gets (reload::GRACE), on however busy a machine.
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(served_count(&server), 7, "half a file is never served");
    file.write_all(rest).unwrap();
    file.sync_all().unwrap();
    drop(file);
    let took = served_within(&server, 6, Duration::from_secs(30));
    eprintln!("in-place write served after {took:?}");

    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().unwrap();
    }
    let failures = failures.lock().unwrap();
    assert!(
        failures.is_empty(),
        "{} failed requests, first: {}",
        failures.len(),
        failures[0]
    );
    let n = requests.load(Ordering::Relaxed);
    assert!(n > 100, "the load loop ran ({n} requests)");
    eprintln!("{n} requests, none failed");
    // The half-written file was waited for, not counted as a failure.
    assert_eq!(
        server.state.metrics.failed_reloads.load(Ordering::Relaxed),
        failed_before + 1
    );
    // Counted just after the swap the clients saw: waited for, then exact.
    counted_within(
        &server,
        "catalogue_reloads_total",
        2,
        Duration::from_secs(5),
    );
    assert_eq!(server.state.metrics.reloads.load(Ordering::Relaxed), 2);
}

#[test]
fn without_watching_only_a_forced_reload_swaps() {
    let (dir, path, server, reloader) = served_copy("nowatch", false);
    rename_over(&dir, &path, &variant(3));
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(served_count(&server), 8);
    reloader.force();
    served_within(&server, 5, Duration::from_secs(30));
    // Forcing again with the same file keeps the view.
    reloader.force();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(server.state.metrics.reloads.load(Ordering::Relaxed), 1);
}

#[test]
fn a_file_that_stays_truncated_fails_after_the_grace_period() {
    let (dir, path, server, _reloader) = served_copy("short", true);
    let bytes = variant(1);
    rename_over(&dir, &path, &bytes[..bytes.len() - 7]);
    let start = Instant::now();
    while server.state.metrics.failed_reloads.load(Ordering::Relaxed) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the truncated file is reported"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(served_count(&server), 8);
}

#[test]
fn sighup_reloads_the_running_binary() {
    let dir = TempDir::new("hup");
    let path = dir.path("collection.bin");
    std::fs::copy(sample_snapshot(), &path).unwrap();
    let addr = common::free_addr();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
        .args([
            "serve",
            "--no-watch",
            "--snapshot",
            path.to_str().unwrap(),
            "--addr",
            &addr,
        ])
        .env("RUST_LOG", "warn")
        .spawn()
        .unwrap();
    let count = || -> Option<u64> {
        let raw = "GET /api/v2/specimen-records/?limit=0 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
        let r = common::try_request(addr.parse().unwrap(), raw)?;
        r.json()["meta"]["total_count"].as_u64()
    };
    let start = Instant::now();
    while count() != Some(8) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the server starts"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    rename_over(&dir, &path, &variant(2));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(count(), Some(8), "--no-watch ignores the change");
    let status = std::process::Command::new("kill")
        .args(["-HUP", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let start = Instant::now();
    while count() != Some(6) {
        assert!(start.elapsed() < Duration::from_secs(30), "SIGHUP reloads");
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = std::process::Command::new("kill")
        .arg(child.id().to_string())
        .status();
    let exit = child.wait().unwrap();
    assert!(exit.success(), "SIGTERM stops the server cleanly: {exit:?}");
}

/// Waits for the failed-reload count to pass `before`.
fn refused_after(server: &Server, before: u64) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.state.metrics.failed_reloads.load(Ordering::Relaxed) == before {
        assert!(Instant::now() < deadline, "the file was never refused");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_fifo_or_a_device_at_the_path_is_refused_without_blocking_the_reloads() {
    let (dir, path, server, reloader) = served_copy("reload-special", true);
    let total = served_count(&server);
    // A FIFO renamed onto the path: opening it for reading would wait for a writer.
    let fifo = dir.path(".fifo");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a plain libc call on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let before = server.state.metrics.failed_reloads.load(Ordering::Relaxed);
    std::fs::rename(&fifo, &path).unwrap();
    refused_after(&server, before);
    // A link to an endless device: refused without reading it.
    let before = server.state.metrics.failed_reloads.load(Ordering::Relaxed);
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    reloader.force();
    refused_after(&server, before);
    assert_eq!(served_count(&server), total);
    // The reload thread is still there: a good file is served.
    std::fs::remove_file(&path).unwrap();
    rename_over(&dir, &path, &variant(1));
    served_within(&server, total - 1, Duration::from_secs(10));
}

#[test]
fn a_file_larger_or_smaller_than_its_header_says_is_refused_by_its_size() {
    let dir = TempDir::new("sizes");
    let path = dir.path("collection.bin");
    let mut bytes = variant(0);
    bytes.extend_from_slice(&[0; 10]);
    std::fs::write(&path, &bytes).unwrap();
    let e = catalogue::snapshot::read(&path).unwrap_err().to_string();
    assert!(e.contains("the header announces"), "{e}");
    std::fs::create_dir(dir.path("dir.bin")).unwrap();
    let e = catalogue::snapshot::read(&dir.path("dir.bin"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("is a directory, not a snapshot file"), "{e}");
}

/// Waits up to `limit` for a counter to reach `want`.
fn counted_within(server: &Server, name: &str, want: u64, limit: Duration) {
    let start = Instant::now();
    while server.metric(name) < want {
        assert!(
            start.elapsed() < limit,
            "{name} not {want} within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_file_holding_the_served_collection_builds_nothing() {
    let (dir, path, server, reloader) = served_copy("unchanged", false);
    let unchanged = "catalogue_unchanged_reloads_total";
    assert_eq!(server.metric(unchanged), 0);
    // The same bytes written again (what `touch` or a copy does).
    std::fs::write(&path, std::fs::read(&path).unwrap()).unwrap();
    reloader.force();
    counted_within(&server, unchanged, 1, Duration::from_secs(10));
    // The same collection built again: another creation time in the header,
    // the same checksum.
    let (_, collection) = catalogue::snapshot::read(&path).unwrap();
    rename_over(&dir, &path, &snapshot_bytes(&collection, 7));
    reloader.force();
    counted_within(&server, unchanged, 2, Duration::from_secs(10));
    assert_eq!(server.metric("catalogue_reloads_total"), 0);
    // Another collection is built and swapped in, as ever.
    rename_over(&dir, &path, &variant(1));
    reloader.force();
    counted_within(
        &server,
        "catalogue_reloads_total",
        1,
        Duration::from_secs(10),
    );
    assert_eq!(server.metric(unchanged), 2);
}

/// A file damaged where its header still names the served collection (a
/// byte changed in place, or a damaged copy renamed onto the path): when the
/// file changes its every piece is checked, the damage counted (and logged as
/// an ERROR naming the piece), and the view kept; `inspect` names the piece.
/// The sound file renamed back is checked and found sound.
#[test]
fn a_damaged_file_is_found_when_it_changes_and_the_view_kept() {
    use catalogue::snapshot::{Part, Pieces, HEADER_LEN};
    use std::os::unix::fs::FileExt as _;
    let (dir, path, server, _reloader) = served_copy("damaged", true);
    let damaged = "catalogue_damaged_snapshots_total";
    let page = "/api/v2/specimen-records/?limit=3";
    let before = server.get(page).body;
    let sound = std::fs::read(&path).unwrap();
    let pieces = Pieces::open(&path).unwrap().expect("format 9");
    let middle = |part: Part| {
        let first = &pieces.contents.pieces(part)[0];
        (
            first.index,
            HEADER_LEN + (first.offset + first.len / 2) as usize,
        )
    };
    let inspected = |path: &Path| {
        let out = common::catalogue(&["inspect", path.to_str().unwrap()]);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // A byte of the records (which the server never reads) changed in place.
    let (index, at) = middle(Part::Records);
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.write_all_at(&[sound[at] ^ 0xff], at as u64).unwrap();
    drop(file);
    counted_within(&server, damaged, 1, Duration::from_secs(10));
    let said = inspected(&path);
    assert!(
        said.contains(&format!("piece {index} (the records, ")),
        "{said}"
    );
    // A copy with a byte of the prepared tables changed, renamed onto the path.
    let (index, at) = middle(Part::Prepared);
    let mut copy = sound.clone();
    copy[at] ^= 0xff;
    rename_over(&dir, &path, &copy);
    counted_within(&server, damaged, 2, Duration::from_secs(10));
    let said = inspected(&path);
    assert!(
        said.contains(&format!("piece {index} (the prepared tables, ")),
        "{said}"
    );
    // The sound file again: checked, and not counted.
    let unchanged = server.metric("catalogue_unchanged_reloads_total");
    rename_over(&dir, &path, &sound);
    counted_within(
        &server,
        "catalogue_unchanged_reloads_total",
        unchanged + 1,
        Duration::from_secs(10),
    );
    assert_eq!(server.metric(damaged), 2);
    assert_eq!(server.metric("catalogue_reload_failures_total"), 0);
    assert_eq!(server.metric("catalogue_reloads_total"), 0);
    assert_eq!(server.get(page).body, before);
}

/// A watching server started with a dataset file follows it: an edit is
/// served (`/eml.xml` with the new title) once the file changes, the rest of
/// the view as it was; a file that does not read changes nothing.
#[test]
fn a_watching_server_says_what_its_dataset_file_says_now() {
    use catalogue::model::dataset::{Dataset, Told};
    let dir = TempDir::new("redescribed");
    let path = dir.path("collection.bin");
    std::fs::copy(sample_snapshot(), &path).unwrap();
    let file = dir.path("dataset.toml");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshot/dataset.toml");
    let text = std::fs::read_to_string(example).unwrap();
    std::fs::write(&file, &text).unwrap();
    let settings = Settings {
        dataset: Told {
            file: Some(Dataset::from_file(&file).unwrap()),
            values: Vec::new(),
        },
        dataset_file: Some(file.clone()),
        ..Settings::default()
    };
    let server = Server::start(&path, settings);
    let reloader = Reloader::start(server.state.clone(), &path, true).unwrap();
    let title = |t: &str| format!(">{t}</title>");
    assert!(server
        .get("/eml.xml")
        .text()
        .contains(&title("Insects of the catalogue sample")));
    let page = "/api/v2/specimen-records/?limit=3";
    let before = server.get(page).body;
    let retitled = text.replace("Insects of the catalogue sample", "Insects, retitled");
    assert_ne!(retitled, text);
    std::fs::write(&file, &retitled).unwrap();
    counted_within(
        &server,
        "catalogue_reloads_total",
        1,
        Duration::from_secs(30),
    );
    let eml = server.get("/eml.xml").text();
    assert!(eml.contains(&title("Insects, retitled")), "{eml}");
    assert_eq!(server.get(page).body, before);
    // A file that does not read: nothing swapped, the title read last stands.
    // Seen once the server has opened the file written (after the write's
    // own close), and a reload asked after that is done: the reload thread
    // takes one thing at a time, so the bad file's was over by then.
    let (seen, opened) = std::sync::mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |e: notify::Result<notify::Event>| {
        let _ = seen.send(e.map(|e| e.kind));
    })
    .unwrap();
    notify::Watcher::watch(&mut watcher, &file, notify::RecursiveMode::NonRecursive).unwrap();
    std::fs::write(&file, "title = ").unwrap();
    let (mut written, deadline) = (false, Instant::now() + Duration::from_secs(30));
    loop {
        use notify::event::{AccessKind, AccessMode, EventKind};
        let left = deadline.saturating_duration_since(Instant::now());
        match opened
            .recv_timeout(left)
            .expect("the server reads the file within 30 s")
        {
            Ok(EventKind::Access(AccessKind::Close(AccessMode::Write))) => written = true,
            Ok(EventKind::Access(AccessKind::Open(_))) if written => break,
            _ => {}
        }
    }
    drop(watcher);
    reloader.force();
    counted_within(
        &server,
        "catalogue_unchanged_reloads_total",
        1,
        Duration::from_secs(30),
    );
    assert_eq!(server.metric("catalogue_reloads_total"), 1);
    assert!(server
        .get("/eml.xml")
        .text()
        .contains(&title("Insects, retitled")));
    // An empty file (valid TOML, every key optional), and one cut before
    // its occurrenceID rule (valid TOML too), as a writer in place leaves
    // them for a moment: refused, said on the publishing report, and the
    // occurrenceIDs stay what the whole file makes them.
    let occurrence = "/api/v2/specimen-records/?limit=2&format=csv&columns=dwc";
    let occurrence_ids = |server: &Server| -> Vec<String> {
        let csv = server.get(occurrence).text();
        (csv.lines())
            .map(|l| l.split(',').next().unwrap().to_string())
            .collect()
    };
    let ids = occurrence_ids(&server);
    assert!(ids[1].starts_with("urn:catalog:UMMZ:Insects:"), "{ids:?}");
    let refused = |server: &Server| {
        let report = server.json("/api/v2/publishing/", 200);
        let problems = report["problems"].as_array().unwrap().clone();
        let refused = problems
            .iter()
            .find(|p| p["kind"] == "refused-dataset-file");
        refused.map(|p| p["problem"].as_str().unwrap().to_string())
    };
    std::fs::write(&file, "").unwrap();
    let started = std::time::Instant::now();
    while refused(&server).is_none_or(|r| !r.contains("names no title")) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{:?}",
            refused(&server)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let cut = retitled
        .split("occurrence_id")
        .next()
        .unwrap()
        .replace("Insects, retitled", "Cut");
    std::fs::write(&file, &cut).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    std::fs::write(&file, retitled.replace("Insects, retitled", "Whole again")).unwrap();
    counted_within(
        &server,
        "catalogue_reloads_total",
        2,
        Duration::from_secs(30),
    );
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(server.metric("catalogue_reloads_total"), 2);
    assert!(server
        .get("/eml.xml")
        .text()
        .contains(&title("Whole again")));
    assert_eq!(occurrence_ids(&server), ids);
    assert_eq!(refused(&server), None);
}

/// Whether `path` is answered 200 (not 304) to a revalidation with the
/// `ETag`, then with the `Last-Modified`, of `before`.
fn answered_anew(server: &Server, path: &str, before: &common::Reply) {
    let tag = before.header("etag").expect("a tag").to_string();
    let date = before.header("last-modified").expect("a date").to_string();
    let by_tag = server.send("GET", path, &[("if-none-match", &tag)]);
    assert_eq!(by_tag.status, 200, "{path}: the old tag {tag}");
    assert_ne!(by_tag.header("etag"), Some(&tag[..]));
    let by_date = server.send("GET", path, &[("if-modified-since", &date)]);
    assert_eq!(by_date.status, 200, "{path}: the old date {date}");
    let now = by_date.header("last-modified").unwrap();
    let seconds = |d: &str| catalogue::encoding::time::parse_http_date(d).unwrap();
    assert!(seconds(now) > seconds(&date), "{now} after {date}");
    // The new validators revalidate.
    let again = server.send(
        "GET",
        path,
        &[("if-none-match", by_tag.header("etag").unwrap())],
    );
    assert_eq!(again.status, 304);
    assert_eq!(
        server
            .send("GET", path, &[("if-modified-since", now)])
            .status,
        304
    );
}

/// A new description moves every validator of the answers it changes: from
/// a followed dataset file (which the snapshot's checksum does not cover),
/// and from a snapshot rebuilt with only its description changed (even one
/// stamped with the same creation time).
#[test]
fn a_new_description_is_not_answered_not_modified() {
    use catalogue::model::dataset::{Dataset, Told};
    let dir = TempDir::new("revalidated");
    let path = dir.path("collection.bin");
    std::fs::copy(sample_snapshot(), &path).unwrap();
    let file = dir.path("dataset.toml");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshot/dataset.toml");
    let text = std::fs::read_to_string(example).unwrap();
    std::fs::write(&file, &text).unwrap();
    let settings = Settings {
        dataset: Told {
            file: Some(Dataset::from_file(&file).unwrap()),
            values: Vec::new(),
        },
        dataset_file: Some(file.clone()),
        ..Settings::default()
    };
    let server = Server::start(&path, settings);
    let _reloader = Reloader::start(server.state.clone(), &path, true).unwrap();
    let paths = ["/eml.xml", "/api/v2/specimen-records/?limit=3"];
    let before: Vec<_> = paths.iter().map(|p| server.get(p)).collect();
    std::fs::write(
        &file,
        text.replace("Insects of the catalogue sample", "Insects, retitled"),
    )
    .unwrap();
    counted_within(
        &server,
        "catalogue_reloads_total",
        1,
        Duration::from_secs(30),
    );
    for (path, before) in paths.iter().zip(&before) {
        answered_anew(&server, path, before);
    }
    // A snapshot rebuilt with its description alone changed, as old as the
    // one served.
    let before: Vec<_> = paths.iter().map(|p| server.get(p)).collect();
    let (header, mut collection) = catalogue::snapshot::read(&sample_snapshot()).unwrap();
    collection.dataset.description = "Described anew.".into();
    rename_over(&dir, &path, &snapshot_bytes(&collection, header.created_at));
    counted_within(
        &server,
        "catalogue_reloads_total",
        2,
        Duration::from_secs(30),
    );
    for (path, before) in paths.iter().zip(&before) {
        answered_anew(&server, path, before);
    }
}

/// A form whose body is still arriving holds no view: the view a reload
/// replaced is freed while the body trickles in, and the form, once whole,
/// is answered from the new one.
#[test]
fn a_form_arriving_slowly_holds_no_view_across_a_reload() {
    use std::io::Read;
    let (dir, path, server, reloader) = served_copy("slow-form", false);
    let old_view = Arc::downgrade(&server.state.current());
    let form = b"limit=1&offset=0";
    let mut slow = std::net::TcpStream::connect(server.addr).unwrap();
    let head = format!(
        "POST /gbif/v1/occurrence/search HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n",
        form.len()
    );
    slow.write_all(head.as_bytes()).unwrap();
    slow.write_all(&form[..3]).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    rename_over(&dir, &path, &variant(1));
    reloader.force();
    counted_within(
        &server,
        "catalogue_reloads_total",
        1,
        Duration::from_secs(30),
    );
    let freed = Instant::now();
    while old_view.upgrade().is_some() {
        assert!(
            freed.elapsed() < Duration::from_secs(10),
            "the replaced view is held while a form arrives"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    slow.write_all(&form[3..]).unwrap();
    let mut answer = String::new();
    slow.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    let total = server.json("/gbif/v1/occurrence/search?limit=0", 200)["count"].clone();
    assert!(answer.contains(&format!("\"count\":{total}")), "{answer}");
}

#[test]
fn a_slow_reader_neither_delays_a_swap_nor_keeps_the_old_view() {
    use std::io::Read;
    let dir = TempDir::new("slow-swap");
    let path = dir.path("collection.bin");
    let generated = common::generated(&dir, 4000);
    std::fs::copy(&generated, &path).unwrap();
    let settings = Settings {
        view_hold: Duration::from_millis(300),
        ..Settings::default()
    };
    let server = Server::start(&path, settings);
    let reloader = Reloader::start(server.state.clone(), &path, false).unwrap();
    let checksum = |s: &Server| s.json("/readyz", 200)["checksum"].clone();
    let before = checksum(&server);
    let old_view = Arc::downgrade(&server.state.current());

    // Over 8 MiB of sorted items: streamed, a chunk at a time, from the view
    // the request loaded.
    let mut slow = std::net::TcpStream::connect(server.addr).unwrap();
    slow.write_all(
        b"GET /api/v2/specimen-records/?limit=100000&sort=id HTTP/1.1\r\nHost: t\r\n\r\n",
    )
    .unwrap();
    let mut got = vec![0; 64 * 1024];
    let n = slow.read(&mut got).unwrap();
    got.truncate(n);
    // Its length is said up front: the items' lengths and media URLs are
    // counted when they are chosen.
    let head_end = got.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&got[..head_end]).to_lowercase();
    let length: usize = (head.lines())
        .find_map(|l| l.strip_prefix("content-length: "))
        .expect("a length")
        .parse()
        .unwrap();

    // Another collection: served at once, whatever the slow reader holds.
    let (_, mut collection) = catalogue::snapshot::read(&generated).unwrap();
    collection.countries[0].name.push_str(" (renamed)");
    let swapped = Instant::now();
    rename_over(&dir, &path, &snapshot_bytes(&collection, 0));
    reloader.force();
    while checksum(&server) == before {
        assert!(
            swapped.elapsed() < Duration::from_secs(30),
            "the new collection is never served"
        );
        std::thread::sleep(Duration::from_millis(10));
    }

    // Read slowly past the hold, then take the rest: the body is cut before
    // its last chunk, so the client knows it is incomplete.
    while swapped.elapsed() < Duration::from_millis(1500) {
        let mut buf = [0; 16 * 1024];
        match slow.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut rest = Vec::new();
    let _ = slow.read_to_end(&mut rest);
    got.extend_from_slice(&rest);
    assert!(got.len() > 64 * 1024, "{} bytes", got.len());
    assert!(
        got.len() - head_end < length,
        "the whole {length}-byte answer arrived: nothing was cut"
    );
    // With its last reader gone, the replaced view is freed.
    let freed = Instant::now();
    while old_view.upgrade().is_some() {
        assert!(
            freed.elapsed() < Duration::from_secs(30),
            "the old view is still held"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(server.get("/healthz").status, 200);
}

/// A reload keeps the served view's rendered segments whose bytes did not
/// change (the specimens' first 16,384 here) instead of holding them twice,
/// and every page, shared or rendered anew, reads as a fresh load of the file.
#[test]
fn a_reload_shares_unchanged_segments_and_serves_them_alike() {
    let dir = TempDir::new("shared");
    let first = common::generated(&dir, 20_000);
    let path = dir.path("served.bin");
    std::fs::rename(&first, &path).unwrap();
    let server = Server::start(&path, Settings::default());
    let reloader = Reloader::start(server.state.clone(), &path, false).unwrap();
    let (_, mut collection) = catalogue::snapshot::read(&path).unwrap();
    collection.specimen_records.pop();
    rename_over(&dir, &path, &snapshot_bytes(&collection, 0));
    reloader.force();
    served_within(&server, 19_999, Duration::from_secs(60));
    // Of the bytes the lists hold (items made of fragments hold only their
    // own: the fragments are other lists' items).
    let phases = server.state.current().view.phases;
    assert!(
        phases.shared_bytes > phases.own_bytes / 2,
        "shared {} of {} bytes",
        phases.shared_bytes,
        phases.own_bytes
    );
    let fresh = Server::start(&path, Settings::default());
    for offset in [0, 16_380, 19_990] {
        let page = format!("/api/v2/specimen-records/?limit=10&offset={offset}");
        let (a, b) = (server.get(&page), fresh.get(&page));
        assert_eq!((a.status, b.status), (200, 200));
        assert_eq!(a.body, b.body, "{page}");
    }
}

/// A reload keeps the served view's columns that did not change, with the
/// groups, sort orders and search words built from them, and builds the rest
/// again: every filter, sort, search and facet then answers as a fresh load of
/// the file, the changed values included.
#[test]
fn a_reload_keeps_unchanged_columns_and_answers_questions_as_a_fresh_load() {
    let (dir, path, server, reloader) = served_copy("kept", false);
    // The served view's orders and words built, as its preparation would.
    for asked in ["?sort=-notes,usi&limit=3", "?search=a&limit=3"] {
        server.json(&format!("/api/v2/specimen-records/{asked}"), 200);
    }
    let (_, mut collection) = catalogue::snapshot::read(&path).unwrap();
    collection.orders[0].name.push_str("zz");
    let renamed = collection.orders[0].name.to_lowercase();
    collection.specimen_records[3].notes = "Beaten from zebrawood".into();
    rename_over(&dir, &path, &snapshot_bytes(&collection, 0));
    reloader.force();
    counted_within(
        &server,
        "catalogue_reloads_total",
        1,
        Duration::from_secs(30),
    );
    let phases = server.state.current().view.phases;
    assert!(phases.columns_shared_bytes > 0, "no column shared");
    let fresh = Server::start(&path, Settings::default());
    assert_eq!(fresh.state.current().view.phases.columns_shared_bytes, 0);
    let found = server.json("/api/v2/specimen-records/?search=zebrawood&limit=0", 200);
    assert_eq!(found["meta"]["total_count"], 1);
    let asked = [
        "specimen-records/?search=zebrawood".to_string(),
        "specimen-records/?sort=-notes,usi&limit=5".into(),
        "specimen-records/?search=a&sort=usi&limit=5".into(),
        format!("specimen-records/?order={renamed}&limit=5"),
        "specimen-records/?sex=female&limit=0&facet=order,family,year,collector".into(),
        "orders/?sort=-name".into(),
        format!("orders/?search={renamed}"),
    ];
    for asked in asked {
        let page = format!("/api/v2/{asked}");
        let (a, b) = (server.get(&page), fresh.get(&page));
        assert_eq!((a.status, b.status), (200, 200), "{page}");
        assert_eq!(a.body, b.body, "{page}");
    }
    let renamed = server.json(&format!("/api/v2/orders/?search={renamed}"), 200);
    assert_eq!(renamed["meta"]["total_count"], 1);
}

/// While a reload renders, the old collection is served by an interim view
/// that holds the old lists and columns but only the indexes the new view
/// keeps too (so the rest is free before the new lists are written): its
/// answers are the old view's, and a question builds the index it lacks.
#[test]
fn a_reload_serves_the_old_collection_meanwhile_from_an_interim_view() {
    use catalogue::model::Model;
    let (dir, path, server, _reloader) = served_copy("interim", false);
    let served = server.state.current();
    catalogue::query::prepare(&served.view, || true);
    let (orders, words) = served.view.table(Model::SpecimenRecord).prepared_bytes();
    assert!(orders > 0 && words > 0);
    let (_, mut collection) = catalogue::snapshot::read(&path).unwrap();
    collection.specimen_records[3].notes = "Beaten from zebrawood".into();
    let next = dir.path("next.bin");
    std::fs::write(&next, snapshot_bytes(&collection, 0)).unwrap();
    let mut decoded = catalogue::view::View::decode(&next).unwrap();
    decoded.share_unchanged(&served.view);
    let interim = served.view.interim(&decoded);
    // The notes' order and the table's words are gone; the other orders stay.
    let (kept, no_words) = interim.table(Model::SpecimenRecord).prepared_bytes();
    assert!(kept > 0 && kept < orders, "{kept} of {orders}");
    assert_eq!(no_words, 0);
    let asked = [
        "specimen-records/?limit=5&offset=2",
        "specimen-records/?sort=-notes,usi&limit=5",
        "specimen-records/?search=a&sort=usi&limit=5",
        "specimen-records/?sex=female&limit=0&facet=order,family,year,collector",
        "nested-species/?limit=3",
    ];
    let before: Vec<_> = asked
        .iter()
        .map(|a| server.get(&format!("/api/v2/{a}")).body)
        .collect();
    drop(served);
    let replaced = server.state.make_way(interim);
    // Its preparation, if still running, stops now that it is retired.
    let waiting = Instant::now();
    while Arc::strong_count(&replaced) > 1 {
        assert!(
            waiting.elapsed() < Duration::from_secs(10),
            "the old view is held elsewhere"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    for (asked, before) in asked.iter().zip(before) {
        let page = format!("/api/v2/{asked}");
        let reply = server.get(&page);
        assert_eq!(reply.status, 200, "{page}");
        assert_eq!(reply.body, before, "{page}");
    }
    let found = server.json("/api/v2/specimen-records/?search=zebrawood&limit=0", 200);
    assert_eq!(found["meta"]["total_count"], 0, "the old collection, still");
}

/// After a person was added: the lists whose items show a person (the
/// specimens', the people's) were rendered again, none of their bytes kept
/// unrendered, and the places' lists (no person in them, nor in what they
/// embed) were kept whole, unrendered.
fn assert_people_readers_rendered_again(view: &catalogue::view::View) {
    use catalogue::model::{Endpoint, Model};
    let lists = |models: &[Model]| {
        let shapes = models.iter().flat_map(|&model| {
            [false, true].map(|nested| (model, view.list(Endpoint { model, nested })))
        });
        shapes.collect::<Vec<_>>()
    };
    for (model, list) in lists(&[Model::SpecimenRecord, Model::Person]) {
        assert!(list.byte_len() > 0, "{model:?}");
        assert_eq!(list.unrendered_bytes(), 0, "{model:?}: kept unrendered");
    }
    let places = [
        Model::Country,
        Model::State,
        Model::County,
        Model::Locality,
        Model::Gps,
        Model::CollectingTrip,
    ];
    for (model, list) in lists(&places) {
        assert!(list.byte_len() > 0, "{model:?}");
        assert_eq!(list.unrendered_bytes(), list.own_bytes(), "{model:?}");
    }
}

/// A reload after a few specimens' fields were edited, and nothing else:
/// every segment of every list without those specimens is kept from the
/// served view (nothing its items read changed), theirs are rendered again,
/// and every page of every list, plain and nested, reads as a fresh load.
/// Then records other items embed are edited (a person, a locality, a
/// species): the items embedding them are rendered again too.
#[test]
fn a_reload_after_edits_serves_every_list_as_a_fresh_load() {
    let dir = TempDir::new("edited");
    let first = common::generated(&dir, 3_000);
    let path = dir.path("served.bin");
    std::fs::rename(&first, &path).unwrap();
    let server = Server::start(&path, Settings::default());
    let reloader = Reloader::start(server.state.clone(), &path, false).unwrap();
    let (_, mut collection) = catalogue::snapshot::read(&path).unwrap();
    let someone = collection.people[0].id;
    type Edit = Box<dyn Fn(&mut catalogue::model::records::Collection)>;
    // Each round's edits.
    let rounds: [Edit; 3] = [
        Box::new(move |c| {
            let edited = &mut c.specimen_records;
            edited[5].notes = "Swept from sedges".into();
            edited[1_500].collector = vec![someone];
            edited[1_500].sex = "a sex no specimen had".into();
            edited[2_999].year = None;
        }),
        // A person added, whom one specimen names: every list reading
        // people is rendered again (the people's records differ), and every
        // list reading none is kept unrendered.
        Box::new(move |c| {
            let mut added = c.people[0].clone();
            added.id = c.people.iter().map(|p| p.id).max().unwrap() + 1;
            c.specimen_records[7].determiner = Some(added.id);
            c.people.push(added);
        }),
        // That person renamed, and the locality and the species the fewest
        // specimens show (one at least): the specimens showing them are
        // rendered again, the rest kept.
        Box::new(|c| {
            c.people.last_mut().unwrap().last_name = "Renamed".into();
            let fewest = |ids: Vec<i64>, shown: &dyn Fn(i64) -> usize| {
                ids.into_iter()
                    .map(|id| (shown(id), id))
                    .filter(|&(n, _)| n > 0)
                    .min()
                    .expect("one is shown")
                    .1
            };
            let specimens = &c.specimen_records;
            let locality = fewest(c.localities.iter().map(|l| l.id).collect(), &|id| {
                specimens.iter().filter(|s| s.locality == Some(id)).count()
            });
            let species = fewest(c.species.iter().map(|s| s.id).collect(), &|id| {
                specimens.iter().filter(|s| s.species == Some(id)).count()
            });
            let l = c.localities.iter_mut().find(|l| l.id == locality).unwrap();
            l.name = Some("A locality renamed".into());
            c.species.iter_mut().find(|s| s.id == species).unwrap().name = "renamedus".into();
        }),
    ];
    // The least part of the rendered bytes kept unrendered, where a round
    // keeps any, and the least part shared (kept, or rendered to the same bytes).
    let kept = [Some((0.9, 0.9)), None, Some((0.7, 0.7))];
    for (round, edit) in rounds.iter().enumerate() {
        edit(&mut collection);
        rename_over(&dir, &path, &snapshot_bytes(&collection, 0));
        reloader.force();
        counted_within(
            &server,
            "catalogue_reloads_total",
            round as u64 + 1,
            Duration::from_secs(60),
        );
        let served = server.state.current();
        let phases = served.view.phases;
        eprintln!(
            "round {round}: unrendered {}, shared {} of {} bytes",
            phases.unrendered_bytes, phases.shared_bytes, phases.own_bytes
        );
        match kept[round] {
            Some((unrendered, shared)) => {
                // Of the bytes the lists hold, as [`a_reload_shares_unchanged_segments_and_serves_them_alike`].
                let part = |bytes: usize| bytes as f64 / phases.own_bytes as f64;
                assert!(part(phases.unrendered_bytes) >= unrendered, "round {round}");
                assert!(part(phases.shared_bytes) >= shared, "round {round}");
            }
            None => assert_people_readers_rendered_again(&served.view),
        }
        let fresh = Server::start(&path, Settings::default());
        let lists = fresh.json("/api/v2/", 200)["lists"].clone();
        let lists = lists.as_object().expect("the lists");
        assert!(lists.len() > 20, "{lists:?}");
        for path in lists.values().map(|p| p.as_str().unwrap()) {
            let total = fresh.json(&format!("{path}?limit=0"), 200)["meta"]["total_count"]
                .as_u64()
                .unwrap();
            for offset in (0..total.max(1)).step_by(1_000) {
                let page = format!("{path}?limit=1000&offset={offset}");
                let (a, b) = (server.get(&page), fresh.get(&page));
                assert_eq!((a.status, b.status), (200, 200), "{page}");
                assert!(a.body == b.body, "round {round}: {page}");
            }
        }
    }
    let found = server.json("/api/v2/specimen-records/?search=sedges&limit=0", 200);
    assert_eq!(found["meta"]["total_count"], 1);
}
