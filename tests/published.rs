//! Nothing published is lost, stale or mistaken: `sync` against a SQLite
//! database publishes a version only when what is published changed, never
//! takes a snapshot it cannot read for "nothing published", publishes a
//! restored record at the next tick, and says what stands in the way on
//! `/api/v2/publishing/` and in `/metrics`.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{self, Server, TempDir};
use crate::database::{checksum_at, next_checksum, specimens, Db, Sqlite};
use catalogue::serve::Settings;

/// `sync --once` of `db` into `snapshot`.
fn once(db: &Sqlite, snapshot: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
        .args(["sync", "--once", "--from-db", &db.url(), "--snapshot"])
        .arg(snapshot)
        .env("RUST_LOG", "off")
        .output()
        .unwrap()
}

/// The snapshot's version and what each version changed.
fn versions(snapshot: &Path) -> Vec<(u64, usize)> {
    let (_, c) = catalogue::snapshot::read(snapshot).unwrap();
    let changed = |v: &catalogue::model::history::Version| {
        (v.changes.iter())
            .map(|c| c.added.len() + c.modified.len() + c.deleted.len())
            .sum()
    };
    c.history
        .versions
        .iter()
        .map(|v| (v.number, changed(v)))
        .collect()
}

/// What changes only in what is held back publishes no version: a bad edit
/// alone, and another bad value of the same record, leave the snapshot as
/// it was; a good edit beside them is a version, its one change.
#[test]
fn a_change_only_in_what_is_held_back_is_no_version() {
    let dir = TempDir::new("published-empty");
    let db = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    assert_eq!(once(&db, &snapshot).status.code(), Some(0));
    let first = checksum_at(&snapshot).unwrap();
    let stamp = db.stamp("2024-05-01T12:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET usi = 'UMMZ-000001', date_modified = {stamp} \
         WHERE id = 8;"
    ));
    assert_eq!(once(&db, &snapshot).status.code(), Some(1));
    assert_eq!(
        checksum_at(&snapshot).unwrap(),
        first,
        "a version of no change"
    );
    let again = db.stamp("2024-05-01T12:30:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET usi = 'UMMZ-000002', date_modified = {again} \
         WHERE id = 8; \
         UPDATE specimens_specimenrecord SET notes = 'A good edit.', date_modified = {again} \
         WHERE id = 7;"
    ));
    assert_eq!(once(&db, &snapshot).status.code(), Some(1));
    let second = checksum_at(&snapshot).unwrap();
    assert_ne!(second, first);
    let third = db.stamp("2024-05-01T13:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET usi = 'UMMZ-000003', date_modified = {third} \
         WHERE id = 8;"
    ));
    assert_eq!(once(&db, &snapshot).status.code(), Some(1));
    assert_eq!(
        checksum_at(&snapshot).unwrap(),
        second,
        "a version of no change"
    );
    assert_eq!(versions(&snapshot), [(1, 0), (2, 1)]);
    assert_eq!(specimens(&snapshot)[6].notes, "A good edit.");
    assert_eq!(specimens(&snapshot)[7].usi, "UMMZ-000008");
}

/// Flips a byte in the middle of the file at `path`.
fn damage(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0xff;
    std::fs::write(path, bytes).unwrap();
}

/// A snapshot that does not read, while a record is held back: the tick
/// fails saying so and writes nothing (the record is not published as
/// deleted), and a server of the snapshot says it on /api/v2/publishing/
/// and in /metrics, uncached.
#[test]
fn a_damaged_snapshot_is_never_taken_for_nothing_published() {
    let dir = TempDir::new("published-damaged");
    let db = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    assert_eq!(once(&db, &snapshot).status.code(), Some(0));
    let settings = Settings {
        sync_status: Some(catalogue::snapshot::status::path(&snapshot)),
        ..Settings::default()
    };
    let server = Server::start(&snapshot, settings);
    let report = server.get("/api/v2/publishing/");
    assert_eq!(report.header("cache-control"), Some("no-cache"));
    assert_eq!(report.json()["problems"], serde_json::json!([]));
    let page = server.send("GET", "/publishing/", &[("accept", "text/html")]);
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    damage(&snapshot);
    let damaged = std::fs::read(&snapshot).unwrap();
    let stamp = db.stamp("2024-05-01T12:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET usi = 'UMMZ-000001', date_modified = {stamp} \
         WHERE id = 8;"
    ));
    let out = once(&db, &snapshot);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("the tick failed") && said.contains("publish them as deleted"),
        "{said}"
    );
    assert!(
        std::fs::read(&snapshot).unwrap() == damaged,
        "the file was written"
    );
    assert!(catalogue::snapshot::kept::waiting(&snapshot).is_empty());
    let report = server.json("/api/v2/publishing/", 200);
    let kinds: Vec<&str> = (report["problems"].as_array().unwrap().iter())
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"damaged-snapshot") && kinds.contains(&"failed-tick"),
        "{report}"
    );
    assert_eq!(report["failed_ticks"], 1);
    assert_eq!(report["problems"][0]["found_by"], "sync");
    assert_eq!(server.metric("catalogue_sync_failed_ticks_total"), 1);
    let metrics = server.get("/metrics").text();
    assert!(
        metrics.contains("catalogue_publishing_problem{kind=\"damaged-snapshot\"} 1"),
        "{metrics}"
    );
}

/// A dataset file a watching server refuses (a licence GBIF does not take)
/// is on /api/v2/publishing/ and in /metrics until it reads again.
#[test]
fn a_refused_dataset_file_is_said_where_people_look() {
    use catalogue::model::dataset::{Dataset, Told};
    let dir = TempDir::new("published-refused");
    let path = dir.path("collection.bin");
    std::fs::copy(common::sample_snapshot(), &path).unwrap();
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
    let _reloader =
        catalogue::serve::reload::Reloader::start(server.state.clone(), &path, true).unwrap();
    let problem = "catalogue_publishing_problem{kind=\"refused-dataset-file\"}";
    assert!(server
        .get("/metrics")
        .text()
        .contains(&format!("{problem} 0")));
    std::fs::write(&file, text.replace("CC-BY-4.0", "CC-BY-SA-4.0")).unwrap();
    let started = Instant::now();
    let report = loop {
        let report = server.json("/api/v2/publishing/", 200);
        if report["problems"].as_array().is_some_and(|p| !p.is_empty()) {
            break report;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{report}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let listed = &report["problems"][0];
    assert_eq!(
        (&listed["kind"], &listed["found_by"]),
        (&"refused-dataset-file".into(), &"serve".into()),
        "{report}"
    );
    assert!(
        listed["problem"].as_str().unwrap().contains("license"),
        "{report}"
    );
    assert!(server
        .get("/metrics")
        .text()
        .contains(&format!("{problem} 1")));
    let page = server
        .send("GET", "/publishing/", &[("accept", "text/html")])
        .text();
    assert!(page.contains("refused-dataset-file"), "{page}");
    // Read again, the problem is gone.
    std::fs::write(&file, &text).unwrap();
    let started = Instant::now();
    while !server
        .get("/metrics")
        .text()
        .contains(&format!("{problem} 0"))
    {
        assert!(started.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A record put back with its old id and its old `date_modified` (a
/// restore) is published at the next tick, whatever its date.
#[test]
fn a_restored_record_is_published_at_the_next_tick() {
    let dir = TempDir::new("published-restored");
    let db = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    let mut sync = Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
        .args(["sync", "--from-db", &db.url(), "--snapshot"])
        .arg(&snapshot)
        .args(["--every", "200ms", "--full-every", "1h"])
        .env("RUST_LOG", "off")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = next_checksum(&snapshot, None);
    let ids = |path: &Path| specimens(path).iter().map(|r| r.id).collect::<Vec<_>>();
    // Specimen 5: no collectors, no photographs name it.
    assert!(ids(&snapshot).contains(&5));
    // A newer edit elsewhere first: the newest stamp read is past the one
    // the restored record keeps.
    let later = db.stamp("2030-01-01T00:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET notes = 'Later.', date_modified = {later} WHERE id = 2;"
    ));
    let second = next_checksum(&snapshot, Some(&first));
    db.exec(
        "CREATE TABLE saved AS SELECT * FROM specimens_specimenrecord WHERE id = 5; \
         DELETE FROM specimens_specimenrecord WHERE id = 5;",
    );
    let third = next_checksum(&snapshot, Some(&second));
    assert!(!ids(&snapshot).contains(&5));
    db.exec("INSERT INTO specimens_specimenrecord SELECT * FROM saved;");
    let restored = Instant::now();
    next_checksum(&snapshot, Some(&third));
    let took = restored.elapsed();
    assert!(ids(&snapshot).contains(&5));
    assert!(took < Duration::from_secs(10), "published after {took:?}");
    let _ = sync.kill();
    let _ = sync.wait();
}
