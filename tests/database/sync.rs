//! `sync` keeping a snapshot in step with the database, on both engines: what
//! it reads again, what it holds back, what it keeps beside the snapshot, and
//! how it stops.

use super::*;

/// The payload checksum of the snapshot at `path`, once it reads.
pub(crate) fn checksum_at(path: &Path) -> Option<String> {
    catalogue::snapshot::read(path)
        .ok()
        .map(|(h, _)| h.checksum_hex())
}

/// Waits (up to 30 s) for the snapshot's checksum to be something other than `old`.
pub(crate) fn next_checksum(path: &Path, old: Option<&str>) -> String {
    let started = Instant::now();
    loop {
        if let Some(c) = checksum_at(path).filter(|c| Some(c.as_str()) != old) {
            return c;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no new snapshot at {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub(crate) fn specimens(path: &Path) -> Vec<catalogue::model::records::SpecimenRecord> {
    catalogue::snapshot::read(path).unwrap().1.specimen_records
}

/// `catalogue sync` against a database that changes, goes away and comes back.
fn follow(db: &mut dyn Db, dir: &TempDir) {
    let snapshot = dir.path("synced.bin");
    let log = dir.path("sync.log");
    // Each snapshot carries the dataset's description it was given.
    let dataset = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshot/dataset.toml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
        .args([
            "sync",
            "--from-db",
            &db.url(),
            "--snapshot",
            snapshot.to_str().unwrap(),
            "--every",
            "200ms",
            "--dataset-config",
            dataset.to_str().unwrap(),
        ])
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let built = dir.path("described.bin");
    let original = built_checksum(
        &[
            "build",
            common::sample_fixture().to_str().unwrap(),
            "-o",
            built.to_str().unwrap(),
            "--dataset-config",
            dataset.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(next_checksum(&snapshot, None), original);
    let described = catalogue::snapshot::read(&snapshot).unwrap().1.dataset;
    assert_eq!(described.title, "Insects of the catalogue sample");

    // Insert: a specimen with a collector.
    let stamp = db.stamp("2024-05-01T12:00:00.250000Z");
    db.exec(&format!(
        "INSERT INTO specimens_specimenrecord (id, date_created, date_modified, usi, sex, stage, \
         preparation, month, method, weather, temperature, time_of_day, habitat, notes, order_id) \
         VALUES (9, {stamp}, {stamp}, 'UMMZ-000009', 'female', 'adult', 'pinned', 'May', 'Net', '', \
         '', '', '', 'new', 1); \
         INSERT INTO specimens_specimenrecord_collector (specimenrecord_id, person_id) VALUES (9, 2);"
    ));
    let inserted = next_checksum(&snapshot, Some(&original));
    let s = specimens(&snapshot);
    assert_eq!(s.len(), 9);
    assert_eq!(
        (s[8].usi.as_str(), &s[8].collector[..]),
        ("UMMZ-000009", &[2][..])
    );

    // An update that bypasses Django (no new date_modified) does not move the
    // change marker: five ticks later the database has not been read again.
    db.exec("UPDATE specimens_specimenrecord SET notes = 'Re-mounted.' WHERE id = 9;");
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(checksum_at(&snapshot).as_deref(), Some(inserted.as_str()));
    // An update as Django saves it moves the marker: both updates are read.
    let later = db.stamp("2024-05-02T08:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET date_modified = {later}, sex = 'male' WHERE id = 9;"
    ));
    let updated = next_checksum(&snapshot, Some(&inserted));
    let s = specimens(&snapshot);
    assert_eq!(
        (s[8].notes.as_str(), s[8].sex.as_str()),
        ("Re-mounted.", "male")
    );

    // Delete: back to the collection the fixture holds, record for record, as
    // version 4: the insert, the update and the delete each a version.
    db.exec(
        "DELETE FROM specimens_specimenrecord_collector WHERE specimenrecord_id = 9; \
         DELETE FROM specimens_specimenrecord WHERE id = 9;",
    );
    let deleted = next_checksum(&snapshot, Some(&updated));
    let (mut now, mut then) = (
        catalogue::snapshot::read(&snapshot).unwrap().1,
        catalogue::snapshot::read(&built).unwrap().1,
    );
    let history = std::mem::take(&mut now.history);
    then.history = Default::default();
    assert!(now == then, "the collection differs from its fixture's");
    assert_eq!(history.current(), 4);
    let changes = history.since(1).unwrap();
    assert!(changes.is_empty(), "{changes:?}");
    let last = &history.versions[3].changes;
    assert_eq!(
        (last[0].model.as_str(), &last[0].deleted[..]),
        ("specimens.specimenrecord", &[9][..])
    );
    // The edits read named it by its catalogue number, kept beside its id.
    assert_eq!(last[0].deleted_catalog_numbers, ["UMMZ-000009"]);

    // An edit that fails validation: the record is held back, served as it
    // was published; once the edit is mended (as the admin saves it, with a
    // new date_modified) it is read and published, and the log says nothing
    // is held back any more.
    let published = specimens(&snapshot)[0].temperature.clone();
    let bad = db.stamp("2024-05-03T08:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET temperature = 'warm', date_modified = {bad} \
         WHERE id = 1;"
    ));
    said_within(
        &log,
        "held back: specimens.specimenrecord pk=1 temperature: ",
    );
    assert_eq!(specimens(&snapshot)[0].temperature, published);
    let held = checksum_at(&snapshot).unwrap();
    let fixed = db.stamp("2024-05-03T09:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET temperature = '', date_modified = {fixed} WHERE id = 1;"
    ));
    let mended = next_checksum(&snapshot, Some(&held));
    assert_ne!(mended, deleted);

    // The database goes away: the file stays as it was, tick after tick.
    let before = std::fs::read(&snapshot).unwrap();
    db.go_away();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(std::fs::read(&snapshot).unwrap() == before);
    // ... and comes back: changes flow again.
    db.come_back();
    let back = db.stamp("2024-05-04T08:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET notes = 'After the outage.', date_modified = {back} \
         WHERE id = 1;"
    ));
    next_checksum(&snapshot, Some(&mended));
    assert_eq!(specimens(&snapshot)[0].notes, "After the outage.");

    // SIGTERM: a clean stop.
    run("kill", &["-TERM", &child.id().to_string()]);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "sync did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    let log = std::fs::read_to_string(&log).unwrap();
    for line in [
        "changes=specimens.specimenrecord +1 ~0 -0",
        "changes=specimens.specimenrecord +0 ~1 -0",
        "changes=specimens.specimenrecord +0 ~0 -1",
        "left as it was",
        "1 record(s) held back",
        "held back: specimens.specimenrecord pk=1 temperature: ",
        "edit it in the service's admin",
        "nothing is held back any more",
        "the database reads again",
        "sync stopped",
    ] {
        assert!(log.contains(line), "{line:?} in\n{log}");
    }
    // Every replacement was whole: no temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Waits (up to 30 s) for the log at `path` to say `line`.
pub(crate) fn said_within(path: &Path, line: &str) {
    let started = Instant::now();
    loop {
        let log = std::fs::read_to_string(path).unwrap_or_default();
        if log.contains(line) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{line:?} not in\n{log}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A bad record is held back and the rest published: `sync` every 200 ms;
/// a duplicate USI planted in one specimen and a good edit in another, the
/// good edit is served within two ticks, the bad record as it was; fixed,
/// it is published and nothing is held any more. The same for a species
/// deleted while a specimen names it: the deletion is held back.
fn hold_back_what_is_wrong(db: &dyn Db, dir: &TempDir) {
    let snapshot = dir.path("synced.bin");
    let log = dir.path("sync.log");
    let _sync = Syncing::logging(&db.url(), &snapshot, &log);
    let first = next_checksum(&snapshot, None);
    let before = specimens(&snapshot);
    let within_two_ticks = Duration::from_millis(2 * 200 + 1500);

    // Specimen 2 given specimen 1's USI; specimen 3 edited well: one
    // transaction, so that no tick reads one without the other.
    let stamp = db.stamp("2024-05-01T12:00:00Z");
    db.exec(&format!(
        "BEGIN; UPDATE specimens_specimenrecord SET usi = 'UMMZ-000001', date_modified = {stamp} \
         WHERE id = 2; \
         UPDATE specimens_specimenrecord SET notes = 'A good edit.', date_modified = {stamp} \
         WHERE id = 3; COMMIT;"
    ));
    let planted = Instant::now();
    let second = next_checksum(&snapshot, Some(&first));
    let took = planted.elapsed();
    assert!(took < within_two_ticks, "published after {took:?}");
    let now = specimens(&snapshot);
    assert_eq!(now[2].notes, "A good edit.");
    assert_eq!(now[1], before[1], "the bad record is served as it was");
    said_within(
        &log,
        "held back: specimens.specimenrecord pk=2 usi: \"UMMZ-000001\" is the usi of \
         specimens.specimenrecord pk=1 too (served as it was last published)",
    );
    // The held edit is no change of the version published; the snapshot
    // says what it holds back, since this version.
    let (_, collection) = catalogue::snapshot::read(&snapshot).unwrap();
    let since = collection.history.current();
    assert_eq!(
        collection.held,
        [catalogue::model::held::Holding {
            model: "specimens.specimenrecord".into(),
            id: 2,
            field: "usi".into(),
            problem: "\"UMMZ-000001\" is the usi of specimens.specimenrecord pk=1 too".into(),
            kept: "published".into(),
            since,
        }]
    );
    let changes = &collection.history.versions.last().unwrap().changes;
    let modified: Vec<(&str, &[i64])> = (changes.iter())
        .map(|c| (c.model.as_str(), &c.modified[..]))
        .collect();
    assert_eq!(modified, [("specimens.specimenrecord", &[3][..])]);

    // Listed where people look, the record served as it was.
    let server = common::Server::start(&snapshot, catalogue::serve::Settings::default());
    let report = server.json("/api/v2/publishing/", 200);
    assert_eq!(report["total_count"], 1, "{report}");
    assert_eq!(
        report["held"],
        serde_json::json!([{
            "list": "specimen-records",
            "id": 2,
            "url": "/api/v2/specimen-records/2/",
            "field": "usi",
            "problem": "\"UMMZ-000001\" is the usi of specimens.specimenrecord pk=1 too",
            "kept": "published",
            "since_version": since,
        }])
    );
    assert_eq!(
        server.json("/api/v2/specimen-records/2/", 200)["usi"],
        "UMMZ-000002"
    );
    assert_eq!(server.metric("catalogue_held_back_records"), 1);
    let page = server
        .send("GET", "/publishing/", &[("accept", "text/html")])
        .text();
    assert!(
        page.contains("href=\"/api/v2/specimen-records/2/\"") && page.contains("is the usi of"),
        "{page}"
    );
    drop(server);

    // Another record edited while one is held back: published as an edit
    // is, the edited record and the one held alone checked, digested and
    // encoded again, the held one still served as it was.
    let edited = db.stamp("2024-05-01T12:30:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET notes = 'Edited beside a held record.', \
         date_modified = {edited} WHERE id = 4;"
    ));
    let second = next_checksum(&snapshot, Some(&second));
    let now = specimens(&snapshot);
    assert_eq!(now[3].notes, "Edited beside a held record.");
    assert_eq!(
        now[1], before[1],
        "the bad record is still served as it was"
    );
    said_within(&log, "records=edited(2 records)");

    // Fixed: published, and nothing is held back.
    let fixed = db.stamp("2024-05-01T13:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET usi = 'UMMZ-000102', date_modified = {fixed} \
         WHERE id = 2;"
    ));
    let third = next_checksum(&snapshot, Some(&second));
    assert_eq!(specimens(&snapshot)[1].usi, "UMMZ-000102");
    assert_eq!(catalogue::snapshot::read(&snapshot).unwrap().1.held, []);
    let server = common::Server::start(&snapshot, catalogue::serve::Settings::default());
    let report = server.json("/api/v2/publishing/", 200);
    assert_eq!(
        (report["total_count"].clone(), report["held"].clone()),
        (0.into(), serde_json::json!([]))
    );
    assert_eq!(
        server.json("/api/v2/specimen-records/2/", 200)["usi"],
        "UMMZ-000102"
    );
    drop(server);
    said_within(&log, "nothing is held back any more");

    // Species 4, which specimen 4 names, deleted (the service's schema
    // enforces no such reference where the deletion bypasses it), and
    // specimen 5 edited well: the deletion is held back.
    let unchecked = match db.url().starts_with("postgres") {
        true => "SET session_replication_role = replica; ",
        false => "PRAGMA foreign_keys = OFF; ",
    };
    let stamp = db.stamp("2024-05-02T12:00:00Z");
    db.exec(&format!(
        "{unchecked}BEGIN; DELETE FROM taxonomy_species WHERE id = 4; \
         UPDATE specimens_specimenrecord SET notes = 'Another good edit.', \
         date_modified = {stamp} WHERE id = 5; COMMIT;"
    ));
    let planted = Instant::now();
    let fourth = next_checksum(&snapshot, Some(&third));
    let took = planted.elapsed();
    assert!(took < within_two_ticks, "published after {took:?}");
    let (_, collection) = catalogue::snapshot::read(&snapshot).unwrap();
    assert_eq!(collection.specimen_records[4].notes, "Another good edit.");
    assert!(
        collection.species.iter().any(|s| s.id == 4),
        "species 4 is served"
    );
    let held: Vec<(&str, i64, &str)> = (collection.held.iter())
        .map(|h| (h.model.as_str(), h.id, h.kept.as_str()))
        .collect();
    assert_eq!(held, [("taxonomy.species", 4, "deletion-held")]);
    let server = common::Server::start(&snapshot, catalogue::serve::Settings::default());
    let report = server.json("/api/v2/publishing/", 200);
    let listed = &report["held"][0];
    assert_eq!(
        (
            &listed["list"],
            &listed["id"],
            &listed["kept"],
            &listed["field"]
        ),
        (
            &"species".into(),
            &4.into(),
            &"deletion-held".into(),
            &"pk".into()
        ),
        "{report}"
    );
    assert!(listed["problem"]
        .as_str()
        .unwrap()
        .contains("refers to taxonomy.species pk=4"));
    assert_eq!(server.json("/api/v2/species/4/", 200)["id"], 4);
    drop(server);
    said_within(
        &log,
        "held back: taxonomy.species pk=4 pk: specimens.specimenrecord pk=4 species: \
         refers to taxonomy.species pk=4, which does not exist (still served, though deleted",
    );
    let said = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        said.matches("nothing is held back any more").count(),
        1,
        "{said}"
    );

    // Fixed: the specimen names no species, and the deletion is published.
    let fixed = db.stamp("2024-05-02T13:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET species_id = NULL, date_modified = {fixed} \
         WHERE id = 4;"
    ));
    next_checksum(&snapshot, Some(&fourth));
    let (_, collection) = catalogue::snapshot::read(&snapshot).unwrap();
    assert!(collection.species.iter().all(|s| s.id != 4));
    assert_eq!(collection.specimen_records[3].species, None);
    let changes = &collection.history.versions.last().unwrap().changes;
    let species = changes
        .iter()
        .find(|c| c.model == "taxonomy.species")
        .unwrap();
    assert_eq!(species.deleted, [4]);
    let server = common::Server::start(&snapshot, catalogue::serve::Settings::default());
    assert_eq!(server.json("/api/v2/publishing/", 200)["total_count"], 0);
    drop(server);
    std::thread::sleep(Duration::from_millis(500));
    let said = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        said.matches("nothing is held back any more").count(),
        2,
        "{said}"
    );
    // Once per change of what is held, not every tick.
    assert_eq!(
        said.matches("held back: specimens.specimenrecord pk=2")
            .count(),
        1,
        "{said}"
    );
}

#[test]
fn sync_holds_back_what_is_wrong_on_sqlite() {
    let dir = TempDir::new("db-held-sqlite");
    let sqlite = Sqlite::create(&dir);
    hold_back_what_is_wrong(&sqlite, &dir);
}

/// `sync --once`: one tick, exit 0 when every record read is published, 1
/// when one is held back (published all the same), one line on stderr; each
/// version published kept beside the snapshot.
#[test]
fn sync_once_says_whether_anything_is_held_back() {
    let dir = TempDir::new("db-sync-once");
    let sqlite = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    let once = || {
        Command::new(env!("CARGO_BIN_EXE_catalogue"))
            .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
            .args(["sync", "--once", "--from-db", &sqlite.url(), "--snapshot"])
            .arg(&snapshot)
            .env("RUST_LOG", "off")
            .output()
            .unwrap()
    };
    let out = once();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.ends_with(": every record read is published\n"),
        "{said}"
    );
    let first = checksum_at(&snapshot).unwrap();
    // Each version published is kept beside the snapshot, the first as it was.
    let kept = catalogue::snapshot::kept::path(&snapshot);
    assert_eq!(catalogue::snapshot::kept::numbers(&kept), [1]);
    let archive_1 = std::fs::read(kept.join("1").join("dwca.zip")).unwrap();
    let stamp = sqlite.stamp("2024-05-01T12:00:00Z");
    sqlite.exec(&format!(
        "UPDATE specimens_specimenrecord SET usi = 'UMMZ-000001', date_modified = {stamp} \
         WHERE id = 8; \
         UPDATE specimens_specimenrecord SET notes = 'Once.', date_modified = {stamp} WHERE id = 7;"
    ));
    let out = once();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(": 1 record(s) held back, the rest published"),
        "{said}"
    );
    assert_eq!(said.lines().count(), 1, "{said}");
    assert_ne!(checksum_at(&snapshot).unwrap(), first);
    assert_eq!(catalogue::snapshot::kept::numbers(&kept), [1, 2]);
    assert_eq!(
        std::fs::read(kept.join("1").join("dwca.zip")).unwrap(),
        archive_1
    );
    let manifest = catalogue::snapshot::kept::manifest(&kept, 2).unwrap();
    assert_eq!(manifest.checksum, checksum_at(&snapshot).unwrap());
    let s = specimens(&snapshot);
    assert_eq!(
        (s[6].notes.as_str(), s[7].usi.as_str()),
        ("Once.", "UMMZ-000008")
    );
}

/// The dataset file caught truncated by a writer in place (an empty file
/// reads as TOML): `sync --once` publishes no version, and the
/// occurrenceIDs stay what the whole file makes them; the file written
/// again is published.
#[test]
fn sync_once_publishes_nothing_from_a_truncated_dataset_file() {
    let dir = TempDir::new("db-sync-truncated");
    let sqlite = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    let file = dir.path("dataset.toml");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshot/dataset.toml");
    let text = std::fs::read_to_string(example).unwrap();
    std::fs::write(&file, &text).unwrap();
    let once = || {
        Command::new(env!("CARGO_BIN_EXE_catalogue"))
            .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
            .args(["sync", "--once", "--from-db", &sqlite.url(), "--snapshot"])
            .arg(&snapshot)
            .arg("--dataset-config")
            .arg(&file)
            .env("RUST_LOG", "off")
            .output()
            .unwrap()
    };
    let out = once();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let first = checksum_at(&snapshot).unwrap();
    let rule = "urn:catalog:{institution_code}:{collection_code}:{catalog_number}";
    let described = |snapshot: &Path| {
        let (_, c) = catalogue::snapshot::read(snapshot).unwrap();
        (
            c.history.current(),
            c.dataset.occurrence_id,
            c.dataset.title,
        )
    };
    assert_eq!(described(&snapshot).1, rule);
    let occurrence_ids = || {
        let server = common::Server::start(&snapshot, catalogue::serve::Settings::default());
        let csv = server
            .get("/api/v2/specimen-records/?format=csv&columns=dwc")
            .text();
        let ids: Vec<String> = (csv.lines().skip(1))
            .map(|l| l.split(',').next().unwrap().to_string())
            .collect();
        ids
    };
    let ids = occurrence_ids();
    assert!(ids[0].starts_with("urn:catalog:UMMZ:Insects:"), "{ids:?}");
    // Truncated, as a writer in place leaves it for a moment.
    std::fs::write(&file, "").unwrap();
    let out = once();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("names no title"), "{said}");
    assert_eq!(checksum_at(&snapshot).unwrap(), first);
    assert_eq!(described(&snapshot).0, 1);
    assert_eq!(occurrence_ids(), ids);
    let kept = catalogue::snapshot::kept::path(&snapshot);
    assert_eq!(catalogue::snapshot::kept::numbers(&kept), [1]);
    // Written whole again, retitled: version 2, the same occurrenceIDs.
    let retitled = text.replace("Insects of the catalogue sample", "Insects, retitled");
    std::fs::write(&file, &retitled).unwrap();
    let out = once();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        described(&snapshot),
        (2, rule.to_string(), "Insects, retitled".to_string())
    );
    assert_eq!(occurrence_ids(), ids);
    assert_eq!(catalogue::snapshot::kept::numbers(&kept), [1, 2]);
}

/// A history beside the snapshot that is not a regular file (a FIFO) is
/// refused at once: `sync --once` ends in an error, with or without the
/// snapshot beside it, rather than waiting for a writer for ever.
#[test]
fn sync_once_refuses_a_history_that_is_a_fifo() {
    let dir = TempDir::new("db-sync-fifo");
    let sqlite = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    let once = || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_catalogue"))
            .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
            .args(["sync", "--once", "--from-db", &sqlite.url(), "--snapshot"])
            .arg(&snapshot)
            .env("RUST_LOG", "off")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(30) {
                let _ = child.kill();
                panic!("sync --once hangs on a FIFO history");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().unwrap()
    };
    assert_eq!(once().status.code(), Some(0));
    let history = catalogue::snapshot::beside::path(&snapshot);
    std::fs::remove_file(&history).unwrap();
    let fifo = std::ffi::CString::new(history.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let before = checksum_at(&snapshot);
    // Beside the snapshot, then without it.
    for expected in [before, None] {
        let out = once();
        let said = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{said}");
        assert!(said.contains("not a regular file"), "{said}");
        assert_eq!(checksum_at(&snapshot), expected);
        let _ = std::fs::remove_file(&snapshot);
    }
}

/// An edit the change marker cannot see is read by the periodic full read.
#[test]
fn sync_reads_everything_every_full_interval() {
    let dir = TempDir::new("db-sync-full");
    let sqlite = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    let _sync = Syncing::start(
        &sqlite.url(),
        &snapshot,
        &["--every", "200ms", "--full-every", "1s"],
    );
    let original = next_checksum(&snapshot, None);
    sqlite.exec("UPDATE specimens_specimenrecord SET notes = 'Unstamped.' WHERE id = 1;");
    let edited = next_checksum(&snapshot, Some(&original));
    assert_eq!(specimens(&snapshot)[0].notes, "Unstamped.");
    // Its version is kept after it is published, off the ticks' thread.
    let kept = catalogue::snapshot::kept::path(&snapshot);
    let started = Instant::now();
    while catalogue::snapshot::kept::manifest(&kept, 2).map(|m| m.checksum) != Some(edited.clone())
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "version 2 is not kept"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(catalogue::snapshot::kept::numbers(&kept), [1, 2]);
}

/// A quiet `catalogue sync` of `url` into `snapshot`, stopped when dropped
/// (a failed assertion included).
struct Syncing(std::process::Child);

impl Syncing {
    /// A sync every 200 ms, logging at info into `log`.
    fn logging(url: &str, snapshot: &Path, log: &Path) -> Syncing {
        let child = Command::new(env!("CARGO_BIN_EXE_catalogue"))
            .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
            .args(["sync", "--from-db", url, "--snapshot"])
            .arg(snapshot)
            .args(["--every", "200ms"])
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap();
        Syncing(child)
    }

    fn start(url: &str, snapshot: &Path, flags: &[&str]) -> Syncing {
        let child = Command::new(env!("CARGO_BIN_EXE_catalogue"))
            .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
            .args(["sync", "--from-db", url, "--snapshot"])
            .arg(snapshot)
            .args(flags)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Syncing(child)
    }
}

impl Drop for Syncing {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `sync` keeps each snapshot's history beside it: started again without
/// the snapshot, it continues the numbering from there; started beside a
/// snapshot that does not read and no history, it refuses, saying how to
/// restore, and leaves the file alone.
#[test]
fn sync_continues_the_history_kept_beside_a_lost_snapshot() {
    let dir = TempDir::new("db-sync-kept");
    let sqlite = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    let version = || {
        catalogue::snapshot::read(&snapshot)
            .unwrap()
            .1
            .history
            .current()
    };
    let kept_within = |want: u64| {
        let started = Instant::now();
        loop {
            let kept = catalogue::snapshot::beside::read(&snapshot).unwrap();
            if kept.is_some_and(|k| k.history.current() == want) {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "version {want} not kept"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let sync = Syncing::start(&sqlite.url(), &snapshot, &["--every", "200ms"]);
    let first = next_checksum(&snapshot, None);
    let later = sqlite.stamp("2024-05-02T08:00:00Z");
    sqlite.exec(&format!(
        "UPDATE specimens_specimenrecord SET notes = 'Kept.', date_modified = {later} WHERE id = 1;"
    ));
    next_checksum(&snapshot, Some(&first));
    assert_eq!(version(), 2);
    kept_within(2);
    drop(sync);
    // The snapshot lost: the next is version 3.
    std::fs::remove_file(&snapshot).unwrap();
    let sync = Syncing::start(&sqlite.url(), &snapshot, &["--every", "200ms"]);
    next_checksum(&snapshot, None);
    assert_eq!(version(), 3);
    kept_within(3);
    drop(sync);
    // A snapshot that does not read, and no history beside it.
    std::fs::remove_file(catalogue::snapshot::beside::path(&snapshot)).unwrap();
    std::fs::write(&snapshot, b"not a snapshot").unwrap();
    let mut refused = Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
        .args(["sync", "--from-db", &sqlite.url(), "--snapshot"])
        .arg(&snapshot)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while refused.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = refused.kill();
            panic!("sync started over a snapshot it cannot read");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = refused.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        said.contains("no history is kept beside it") && said.contains("docs/operations.md"),
        "{said}"
    );
    assert_eq!(std::fs::read(&snapshot).unwrap(), b"not a snapshot");
}

/// `sync` follows its dataset file: an edit of it is published within two
/// ticks as a version whose changes name the dataset and whose `eml.xml` says
/// the new title; a file that no longer reads publishes nothing, and the
/// description read last stands.
#[test]
fn sync_publishes_an_edit_of_its_dataset_file() {
    let dir = TempDir::new("db-sync-dataset");
    let sqlite = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    let file = dir.path("dataset.toml");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshot/dataset.toml");
    let text = std::fs::read_to_string(example).unwrap();
    std::fs::write(&file, &text).unwrap();
    let dataset = file.to_str().unwrap();
    let _sync = Syncing::start(
        &sqlite.url(),
        &snapshot,
        &["--every", "500ms", "--dataset-config", dataset],
    );
    let first = next_checksum(&snapshot, None);
    let retitled = text.replace(
        "title = \"Insects of the catalogue sample\"",
        "title = \"Insects of the catalogue, retitled\"",
    );
    assert_ne!(retitled, text);
    std::fs::write(&file, &retitled).unwrap();
    let edited = Instant::now();
    let second = next_checksum(&snapshot, Some(&first));
    let took = edited.elapsed();
    assert!(
        took < Duration::from_millis(2 * 500 + 1500),
        "published after {took:?}"
    );
    let (_, collection) = catalogue::snapshot::read(&snapshot).unwrap();
    assert_eq!(
        collection.dataset.title,
        "Insects of the catalogue, retitled"
    );
    assert_eq!(collection.history.current(), 2);
    let changes = &collection.history.versions.last().unwrap().changes;
    let named: Vec<(&str, &[i64])> = (changes.iter())
        .map(|c| (c.model.as_str(), &c.modified[..]))
        .collect();
    assert_eq!(named, [("dataset", &[0][..])]);
    let server = common::Server::start(&snapshot, catalogue::serve::Settings::default());
    let eml = server.get("/eml.xml").text();
    assert!(
        eml.contains(">Insects of the catalogue, retitled</title>"),
        "{eml}"
    );
    let feed = server.json("/api/v2/changes/?since=1", 200);
    assert_eq!(
        feed["items"],
        serde_json::json!([{"list": "dataset", "id": 0, "change": "modified"}])
    );
    // A file that does not read: nothing published.
    std::fs::write(&file, "title = ").unwrap();
    std::thread::sleep(Duration::from_millis(2000));
    assert_eq!(checksum_at(&snapshot).as_deref(), Some(second.as_str()));
    // Nor does an empty one (valid TOML), as a writer in place leaves it.
    std::fs::write(&file, "").unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(checksum_at(&snapshot).as_deref(), Some(second.as_str()));
}

/// `sync` killed while it writes a snapshot (as a crash would), again and
/// again, leaves no temporary file beside it; started again, its next tick
/// publishes and leaves none either.
#[test]
fn sync_killed_while_it_writes_leaves_no_temporary_file() {
    let dir = TempDir::new("db-sync-killed");
    let fixture = dir.path("generated.json");
    let made = catalogue(&[
        "generate",
        "--specimens",
        "20000",
        "--seed",
        "5",
        "-o",
        fixture.to_str().unwrap(),
    ]);
    assert!(made.status.success());
    let db = dir.path("generated.sqlite3");
    let loaded = Command::new("python3")
        .arg("benches/fixture_to_sqlite.py")
        .args([fixture.to_str().unwrap(), db.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    assert!(
        loaded.status.success(),
        "{}",
        String::from_utf8_lossy(&loaded.stderr)
    );
    let sqlite = Sqlite { path: db };
    let url = sqlite.url();
    let out = dir.path("out");
    std::fs::create_dir(&out).unwrap();
    let snapshot = out.join("synced.bin");
    // The snapshot, its history, its versions' folder (what a killed sync
    // left waiting there is kept by the next) and its status.
    let kept = [
        "synced.bin",
        "synced.bin.history",
        "synced.bin.versions",
        "synced.bin.status.json",
    ];
    let left = || -> Vec<String> {
        let names = common::names_in(&out);
        names
            .into_iter()
            .filter(|n| !kept.contains(&n.as_str()))
            .collect()
    };
    let mut killed = 0;
    for round in 0..6 {
        let mut sync = Syncing::start(&url, &snapshot, &["--every", "200ms"]);
        if round > 0 {
            // An edit, so that this round writes.
            let stamp = sqlite.stamp(&format!("2024-06-0{round}T08:00:00Z"));
            sqlite.exec(&format!(
                "UPDATE specimens_specimenrecord SET notes = 'round {round}', \
                 date_modified = {stamp} WHERE id = 1;"
            ));
        }
        let started = Instant::now();
        while !common::writes_in(sync.0.id(), &out) {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "round {round}: sync never wrote"
            );
            std::thread::sleep(Duration::from_micros(200));
        }
        std::thread::sleep(Duration::from_millis(round as u64));
        if sync.0.try_wait().unwrap().is_none() {
            killed += 1;
        }
        drop(sync);
        assert!(left().is_empty(), "round {round}: {:?}", left());
    }
    assert!(
        killed >= 3,
        "only {killed} syncs were killed while they wrote"
    );
    let before = checksum_at(&snapshot);
    let _sync = Syncing::start(&url, &snapshot, &["--every", "200ms"]);
    let stamp = sqlite.stamp("2024-07-01T08:00:00Z");
    sqlite.exec(&format!(
        "UPDATE specimens_specimenrecord SET notes = 'after', date_modified = {stamp} WHERE id = 1;"
    ));
    next_checksum(&snapshot, before.as_deref());
    assert!(left().is_empty(), "{:?}", left());
}

/// A commit to a SQLite database wakes an idle `sync` at once: the edit is
/// published long before the next tick of a minute's interval.
#[test]
fn a_sqlite_commit_wakes_an_idle_sync() {
    let dir = TempDir::new("db-sync-woken");
    let sqlite = Sqlite::create(&dir);
    let snapshot = dir.path("synced.bin");
    let _sync = Syncing::start(&sqlite.url(), &snapshot, &["--every", "60s"]);
    let original = next_checksum(&snapshot, None);
    // The first tick over, the sync sleeps its minute.
    std::thread::sleep(Duration::from_millis(500));
    let later = sqlite.stamp("2024-05-02T08:00:00Z");
    sqlite.exec(&format!(
        "UPDATE specimens_specimenrecord SET notes = 'Woken.', date_modified = {later} \
         WHERE id = 1;"
    ));
    let committed = Instant::now();
    next_checksum(&snapshot, Some(&original));
    let took = committed.elapsed();
    assert!(took < Duration::from_secs(20), "published after {took:?}");
    assert_eq!(specimens(&snapshot)[0].notes, "Woken.");
}

/// A generated collection's fixture, bigger and more varied than the sample.
fn generated(dir: &TempDir) -> PathBuf {
    let fixture = dir.path("generated.json");
    let out = catalogue(
        &["generate", "--specimens", "300", "--seed", "7", "-o"]
            .into_iter()
            .chain([fixture.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    fixture
}

/// A small deterministic generator of choices (a linear congruential one).
struct Choices(u64);

impl Choices {
    /// A number below `n`.
    fn below(&mut self, n: i64) -> i64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as i64
    }
}

/// The collection of a snapshot, without its history (which a whole read
/// by `build` does not have).
/// The prepared tables a snapshot holds, as bytes.
fn prepared(path: &Path) -> Vec<u8> {
    let (header, bytes) = catalogue::snapshot::read_bytes(path).unwrap();
    let sections = catalogue::snapshot::sections(path, &header, &bytes).unwrap();
    sections.prepared.expect("prepared tables").to_vec()
}

fn records(path: &Path) -> catalogue::model::records::Collection {
    let mut c = catalogue::snapshot::read(path).unwrap().1;
    c.history = Default::default();
    c
}

/// A table, one of its text columns, and the value round `r` writes in it.
type Edit = (&'static str, &'static str, fn(i64) -> String);

/// `sync` reading only what changed gives, after every round of random
/// edits, inserts and deletes (each round one transaction, stamped as
/// Django stamps), the collection a whole read of the database gives, and
/// it did read only what changed.
fn changed_equals_whole(db: &dyn Db, dir: &TempDir) {
    let snapshot = dir.path("synced.bin");
    let log = dir.path("sync.log");
    let sync = Syncing::logging(&db.url(), &snapshot, &log);
    let mut checksum = next_checksum(&snapshot, None);
    // A text column of each model read row by row, and a value for round `r`.
    let edits: [Edit; 13] = [
        ("taxonomy_order", "authority", |r| format!("'Round {r}'")),
        ("taxonomy_family", "authority", |r| format!("'Round {r}'")),
        ("taxonomy_subfamily", "authority", |r| {
            format!("'Round {r}'")
        }),
        ("taxonomy_tribe", "authority", |r| format!("'Round {r}'")),
        ("taxonomy_genus", "authority", |r| format!("'Round {r}'")),
        ("taxonomy_species", "authority", |r| format!("'Round {r}'")),
        ("taxonomy_subspecies", "authority", |r| {
            format!("'Round {r}'")
        }),
        ("geography_state", "abbr", |r| format!("'S{r}'")),
        ("geography_county", "name", |r| format!("'County {r}'")),
        ("geography_locality", "town", |r| format!("'Town {r}'")),
        ("geography_gps", "elevation", |r| format!("'{}'", r * 10)),
        ("specimens_person", "suffix", |r| format!("'R{r}'")),
        ("specimens_specimenrecord", "notes", |r| {
            format!("'Round {r}'")
        }),
    ];
    let mut choices = Choices(7);
    let rounds = 8;
    for r in 1..=rounds {
        // The last rounds edit specimens only: their rows are made again in
        // place (`prepared::Preparer`), and must come out as a whole build.
        let only_specimens = r > 6;
        let stamp = db.stamp(&format!("2031-01-0{r}T08:00:00.5Z"));
        let mut sql = String::from("BEGIN;\n");
        // Edits: a few rows of every model, as Django saves them.
        let edited = edits
            .iter()
            .filter(|(table, ..)| !only_specimens || *table == "specimens_specimenrecord");
        for (table, column, value) in edited {
            for _ in 0..3 {
                let id = 1 + choices.below(5);
                sql += &format!(
                    "UPDATE {table} SET {column} = {}, date_modified = {stamp} WHERE id = {id};\n",
                    value(r)
                );
            }
        }
        // Inserts: a person, a county, a trip with a state, a point, and a
        // specimen collected by the new person on the trip.
        let new = 90_000 + r;
        if !only_specimens {
            sql += &format!(
            "INSERT INTO specimens_person (id, date_created, date_modified, first_name, last_name) \
             VALUES ({new}, {stamp}, {stamp}, 'New', 'Person {r}');\n\
             INSERT INTO geography_county (id, date_created, date_modified, name, state_id) \
             VALUES ({new}, {stamp}, {stamp}, 'New County {r}', 1);\n\
             INSERT INTO geography_collectingtrip (id, date_created, date_modified, name, \
             start_date, end_date, notes) VALUES ({new}, {stamp}, {stamp}, 'Trip {r}', \
             '2020-06-01', '2020-06-0{r}', '');\n\
             INSERT INTO geography_collectingtrip_states (collectingtrip_id, state_id) \
             VALUES ({new}, 1);\n\
             INSERT INTO geography_gps (id, date_created, date_modified, latitude, longitude, \
             elevation, locality_id) VALUES ({new}, {stamp}, {stamp}, '45.5', '-84.25', '200', 1);\n\
             INSERT INTO specimens_specimenrecord (id, date_created, date_modified, usi, sex, \
             stage, preparation, month, method, weather, temperature, time_of_day, habitat, \
             notes, order_id, collecting_trip_id) VALUES ({new}, {stamp}, {stamp}, \
             'NEW-{new}', 'female', 'adult', 'pinned', 'June', 'Net', '', '', '', '', '', 1, \
             {new});\n\
             INSERT INTO specimens_specimenrecord_collector (specimenrecord_id, person_id) \
             VALUES ({new}, {new});\n"
        );
            // Deletes: what the round before inserted, links first.
        }
        if r > 1 && !only_specimens {
            let old = new - 1;
            sql += &format!(
                "DELETE FROM specimens_specimenrecord_collector WHERE specimenrecord_id = {old};\n\
                 DELETE FROM specimens_specimenrecord WHERE id = {old};\n\
                 DELETE FROM geography_collectingtrip_states WHERE collectingtrip_id = {old};\n\
                 DELETE FROM geography_collectingtrip WHERE id = {old};\n\
                 DELETE FROM geography_gps WHERE id = {old};\n\
                 DELETE FROM geography_county WHERE id = {old};\n\
                 DELETE FROM specimens_person WHERE id = {old};\n"
            );
        }
        // A collector added to a specimen without saving the specimen (the
        // link table moves alone), and one taken away.
        let specimen = 1 + choices.below(300);
        sql += &format!(
            "INSERT INTO specimens_specimenrecord_collector (specimenrecord_id, person_id) \
             VALUES ({specimen}, {});\n\
             DELETE FROM specimens_specimenrecord_collector WHERE id = \
             (SELECT MIN(id) FROM specimens_specimenrecord_collector);\n\
             COMMIT;",
            1 + choices.below(5)
        );
        db.exec(&sql);
        checksum = next_checksum(&snapshot, Some(&checksum));
        let whole = dir.path("whole.bin");
        built_checksum(
            &[
                "build",
                "--from-db",
                &db.url(),
                "-o",
                whole.to_str().unwrap(),
            ],
            &[],
        );
        assert!(
            prepared(&snapshot) == prepared(&whole),
            "round {r}: the prepared tables differ"
        );
        let (changed, whole) = (records(&snapshot), records(&whole));
        assert_eq!(changed.counts(), whole.counts(), "round {r}");
        assert!(
            changed == whole,
            "round {r}: the collection read by changes differs"
        );
        let new = 90_000 + r.min(6);
        let new_specimen = changed.specimen_records.iter().find(|s| s.id == new);
        assert_eq!(
            new_specimen.map(|s| &s.collector[..]),
            Some(&[new][..]),
            "round {r}"
        );
    }
    drop(sync);
    let log = std::fs::read_to_string(&log).unwrap();
    let changed = log
        .lines()
        .filter(|l| l.contains("snapshot replaced") && l.contains("read=changed("))
        .count();
    assert_eq!(changed, rounds as usize, "{log}");
    // The rounds of specimen edits alone remade the tables in place.
    let remade = log.lines().filter(|l| l.contains("tables=remade(")).count();
    assert_eq!(remade, 2, "{log}");
}

#[test]
fn sync_reading_what_changed_equals_a_whole_read_on_sqlite() {
    let dir = TempDir::new("db-changed-sqlite");
    let fixture = generated(&dir);
    let sqlite = Sqlite::with(&dir, Version::Today, &fixture);
    changed_equals_whole(&sqlite, &dir);
}

#[test]
fn sync_follows_a_sqlite_database() {
    let dir = TempDir::new("db-sync-sqlite");
    let mut sqlite = Sqlite::create(&dir);
    follow(&mut sqlite, &dir);
}

/// `benches/fixture_to_sqlite.py`, as the README has a new user run it twice:
/// it says what it wrote, refuses to load into a database that exists, and
/// replaces it with `--force`.
#[test]
fn fixture_to_sqlite_says_what_it_wrote_and_keeps_an_existing_database() {
    let dir = TempDir::new("db-fixture-to-sqlite");
    let db = dir.path("sample.sqlite3");
    let load = |extra: &[&str]| {
        Command::new("python3")
            .arg("benches/fixture_to_sqlite.py")
            .args(["snapshot/collection.json", db.to_str().unwrap()])
            .args(extra)
            .output()
            .expect("python3 runs")
    };
    let wrote = format!(
        "wrote {}: 144 rows in 28 tables, laid out as tests/database/sqlite.sql; read it \
         with catalogue build --from-db sqlite:///{} -o collection.bin\n",
        db.display(),
        db.canonicalize().unwrap_or(db.clone()).display()
    );
    let first = load(&[]);
    assert!(first.status.success());
    assert_eq!(String::from_utf8_lossy(&first.stdout), wrote);
    let again = load(&[]);
    assert!(!again.status.success());
    assert_eq!(
        String::from_utf8_lossy(&again.stderr),
        format!(
            "{} exists already: give a new path, or --force to replace it\n",
            db.display()
        )
    );
    let forced = load(&["--force"]);
    assert!(forced.status.success());
    assert_eq!(String::from_utf8_lossy(&forced.stdout), wrote);
}

needs_postgres! {
    #[test]
    fn sync_reading_what_changed_equals_a_whole_read_on_postgres() {
        let dir = TempDir::new("db-changed-pg");
        let fixture = generated(&dir);
        let pg = Postgres::with("sync_reading_what_changed_equals_a_whole_read_on_postgres", Version::Today, &fixture);
        changed_equals_whole(&pg, &dir);
    }

    #[test]
    fn sync_holds_back_what_is_wrong_on_postgres() {
        let dir = TempDir::new("db-held-pg");
        let pg = Postgres::create("sync_holds_back_what_is_wrong_on_postgres");
        hold_back_what_is_wrong(&pg, &dir);
    }

    #[test]
    fn sync_follows_a_postgres_database() {
        let dir = TempDir::new("db-sync-pg");
        let mut pg = Postgres::create("sync_follows_a_postgres_database");
        follow(&mut pg, &dir);
    }
}
