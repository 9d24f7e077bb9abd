//! Nothing published is lost, stale or mistaken: `sync` against a SQLite
//! database publishes a version only when what is published changed, never
//! takes a snapshot it cannot read for "nothing published", publishes a
//! restored record at the next tick, and says what stands in the way on
//! `/api/v2/publishing/` and in `/metrics`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::TempDir;
use crate::database::{next_checksum, specimens, Db, Sqlite};

/// A record put back with its old id and its old `date_modified` (a
/// restore) is published at the next tick, whatever its date.
#[test]
fn a_restored_record_is_published_at_the_next_tick() {
    let dir = TempDir::new("published-restored");
    let db = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    let mut sync = Command::new(env!("CARGO_BIN_EXE_catalogue"))
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
