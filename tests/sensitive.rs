//! Sensitive places (`[[sensitive]]` rules in the dataset file): the sample
//! built with a species on a 0.1° grid and a genus withheld, its covered
//! specimens' precise points, locality names, county and photographs' GPS
//! searched for on every surface that shows places (the routes' own list is
//! `serve::routes::sensitive::SURFACES`), and the same build with
//! `--precise` (the curators' internal server) finding them all.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use catalogue::serve::Settings;
use serde_json::Value;

use crate::common::{catalogue, sample_fixture, Server, TempDir};

const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// What the covered specimens' precise places say, none of which the public
/// snapshot may hold: gps 1's point (UMMZ-000002, Danaus plexippus), the
/// localities of UMMZ-000001, -000002 and -000006, and the GPS block planted
/// in UMMZ-000001's photograph.
const PRECISE: &[&str] = &[
    "42.298611",
    "-83.663889",
    "Matthaei",
    "2 km NE",
    "Ann Arbor",
    "Audubon Park",
    "New Orleans",
    "Ramsey Canyon",
    "Hereford",
];

/// The GPS text planted in the photographs' EXIF and XMP.
const PHOTO_GPS: &str = "GPSLatitude 42.298611";

const RULES: &str = r#"title = "Sensitive sample"

[[sensitive]]
taxon = "Danaus plexippus"
coordinates = "0.1"

[[sensitive]]
taxon = "Cicindela"
coordinates = "withhold"
"#;

/// A JPEG whose EXIF and XMP say where it was taken.
fn jpeg_with_gps() -> Vec<u8> {
    let mut b = vec![0xFF, 0xD8];
    let mut segment = |marker: u8, body: &[u8]| {
        b.extend_from_slice(&[0xFF, marker]);
        b.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
        b.extend_from_slice(body);
    };
    segment(0xE0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    segment(
        0xE1,
        format!("Exif\0\0MM\0*\0\0\0\x08 {PHOTO_GPS} N").as_bytes(),
    );
    segment(
        0xE1,
        format!("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta {PHOTO_GPS}/>").as_bytes(),
    );
    b.extend_from_slice(&[0xFF, 0xDA, 0, 2, 0x11, 0x22, 0xFF, 0xD9]);
    b
}

/// The sample with image 5 no longer at gps 1 and locality 1 (so only
/// covered records refer to them), written to `dir`.
fn fixture(dir: &TempDir) -> PathBuf {
    let text = std::fs::read_to_string(sample_fixture()).unwrap();
    let mut objects: Value = serde_json::from_str(&text).unwrap();
    for o in objects.as_array_mut().unwrap() {
        if o["model"] == "images.customimage" && o["pk"] == 5 {
            o["fields"]["gps"] = Value::Null;
            o["fields"]["locality"] = Value::Null;
        }
    }
    let path = dir.path("fixture.json");
    std::fs::write(&path, serde_json::to_vec(&objects).unwrap()).unwrap();
    path
}

fn build(dir: &TempDir, fixture: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = dir.path(name);
    let config = dir.path("dataset.toml");
    std::fs::write(&config, RULES).unwrap();
    let mut args = vec![
        "build",
        fixture.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--dataset-config",
        config.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let done = catalogue(&args);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    out
}

/// Photographs with GPS in their EXIF, at the paths the sample names.
fn media(dir: &TempDir) -> PathBuf {
    let media = dir.path("media");
    for file in [
        "original_images/ummz-000001-dorsal.jpg",
        "images/ummz-000001-dorsal.max-600x600.jpg",
        "original_images/caterpillar.jpg",
    ] {
        let path = media.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, jpeg_with_gps()).unwrap();
    }
    media
}

fn serve(snapshot: &Path, media: &Path) -> Server {
    Server::start(
        snapshot,
        Settings {
            media_dir: Some(media.to_path_buf()),
            ..Settings::default()
        },
    )
}

/// Every surface that shows a place, as text: each body (an archive's
/// files unzipped).
fn surfaces(s: &Server) -> Vec<(String, String)> {
    let asked = [
        "/api/v2/specimen-records/?limit=100",
        "/api/v2/specimen-record-images/?limit=100",
        "/api/v2/insect-images/?limit=100",
        "/api/v2/specimen-records/2/",
        "/api/v2/nested-counties/?limit=100",
        "/api/v2/specimen-records/?fields=id,usi,gps,locality,county&limit=100",
        "/api/v2/specimen-records/?format=csv",
        "/api/v2/specimen-records/?format=ndjson",
        "/api/v2/specimen-records/?format=geojson",
        "/api/v2/localities/?limit=100",
        "/api/v2/nested-localities/?limit=100",
        "/api/v2/gps-coordinates/?limit=100",
        "/api/v2/nested-gps-coordinates/?limit=100",
        "/api/v2/gps-coordinates/?format=geojson",
        "/api/v2/images/?limit=100",
        "/api/v2/images/3/",
        "/gbif/v1/occurrence/search?limit=300&facet=locality&facet=county",
        "/gbif/v1/occurrence/2",
        "/gbif/v1/occurrence/1",
        "/api/v2/suggest/?q=Matthaei",
        "/api/v2/suggest/?q=Audubon",
        "/api/v2/suggest/?q=Hereford",
        "/api/v2/specimen-records/checklist/?format=json&locality=Matthaei",
        "/api/v2/specimen-records/checklist/?format=csv",
        "/api/v2/specimen-records/labels/?kind=data&format=csv",
        "/api/v2/changes/?since=1999-01-01&limit=10000",
    ];
    let mut out: Vec<(String, String)> = asked
        .iter()
        .map(|path| {
            let r = s.get(path);
            assert_eq!(r.status, 200, "{path}: {}", r.text());
            (path.to_string(), r.text())
        })
        .collect();
    for path in [
        "/api/v2/specimen-records/2/",
        "/api/v2/specimen-records/1/",
        "/api/v2/specimen-records/?limit=100",
        "/api/v2/localities/",
    ] {
        let r = s.send("GET", path, &[("Accept", BROWSER)]);
        assert_eq!(r.status, 200, "{path}");
        out.push((format!("{path} (page)"), r.text()));
    }
    let zip = s.get("/dwca.zip");
    assert_eq!(zip.status, 200);
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip.body.clone())).unwrap();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        let name = file.name().map(|n| n.to_string()).unwrap_or_default();
        out.push((format!("/dwca.zip {name}"), text));
    }
    out
}

fn leaks(surfaces: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (path, body) in surfaces {
        for precise in PRECISE {
            if body.contains(precise) {
                found.push(format!("{precise} on {path}"));
            }
        }
    }
    found
}

fn dwca_row(s: &Server, usi: &str) -> Vec<(String, String)> {
    let zip = s.get("/dwca.zip");
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip.body.clone())).unwrap();
    let mut text = String::new();
    (archive.by_name("occurrence.txt").unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let row = lines
        .find(|l| l.split('\t').nth(1) == Some(usi))
        .unwrap_or_else(|| panic!("{usi} in occurrence.txt"));
    head.iter()
        .zip(row.split('\t'))
        .map(|(h, v)| (h.to_string(), v.to_string()))
        .collect()
}

fn term<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    &row.iter().find(|(h, _)| h == name).unwrap().1
}

#[test]
fn no_surface_pairs_a_covered_specimen_with_its_precise_place() {
    let dir = TempDir::new("sensitive");
    let fixture = fixture(&dir);
    let public = build(&dir, &fixture, "public.bin", &[]);
    let precise = build(&dir, &fixture, "precise.bin", &["--precise"]);
    let media = media(&dir);

    // The curators' server (built with --precise) shows every precise value:
    // the search below can find them.
    let internal = serve(&precise, &media);
    let all: String = surfaces(&internal).into_iter().map(|(_, b)| b).collect();
    for p in PRECISE {
        assert!(all.contains(p), "{p} is on the internal server");
    }
    let photo = internal.get("/media/original_images/ummz-000001-dorsal.jpg");
    assert_eq!(photo.body, jpeg_with_gps());
    drop(internal);

    let s = serve(&public, &media);
    assert_eq!(leaks(&surfaces(&s)), Vec::<String>::new());
    // The snapshot file itself holds none of them.
    let bytes = std::fs::read(&public).unwrap();
    for p in PRECISE {
        let found = bytes.windows(p.len()).any(|w| w == p.as_bytes());
        assert!(!found, "{p} is in the public snapshot file");
    }

    // A covered specimen refers to generalised records, never a precise one
    // by id (ids from 2^52).
    for id in [1, 2, 4, 6] {
        let item = s.json(&format!("/api/v2/specimen-records/{id}/"), 200);
        let locality = item["locality"]["id"].as_i64().unwrap();
        assert!(locality >= 1 << 52, "{id}: locality {locality}");
        if let Some(gps) = item["gps"]["id"].as_i64() {
            assert!(gps >= 1 << 52, "{id}: gps {gps}");
        }
    }
    for path in ["/api/v2/gps-coordinates/1/", "/api/v2/localities/1/"] {
        assert_eq!(s.get(path).status, 404, "{path}");
    }
    // The grid: UMMZ-000002 at the centre of its 0.1° cell, and its uncertainty.
    let occurrence = s.json("/gbif/v1/occurrence/2", 200);
    assert_eq!(occurrence["decimalLatitude"], 42.25);
    assert_eq!(occurrence["decimalLongitude"], -83.65);
    assert_eq!(occurrence["coordinateUncertaintyInMeters"], 6942);
    assert!(occurrence.get("locality").is_none());
    assert!(occurrence["dataGeneralizations"]
        .as_str()
        .unwrap()
        .contains("0.1° grid"));
    let item = s.json("/api/v2/specimen-records/2/", 200);
    assert_eq!(item["gps"]["latitude"], "42.25");
    assert_eq!(item["gps"]["longitude"], "-83.65");
    assert_eq!(item["gps"]["elevation"], "");
    // A search narrower than the cell does not find it; one around the
    // centre does.
    let count = |path: &str| s.json(path, 200)["count"].as_u64().unwrap();
    assert_eq!(
        count("/gbif/v1/occurrence/search?decimalLatitude=42.29,42.30"),
        0
    );
    assert_eq!(
        count("/gbif/v1/occurrence/search?decimalLatitude=42.2,42.3&catalogNumber=UMMZ-000002"),
        1
    );
    let polygon = "POLYGON((-83.67 42.29,-83.66 42.29,-83.66 42.30,-83.67 42.30,-83.67 42.29))";
    assert_eq!(
        count(&format!("/gbif/v1/occurrence/search?geometry={polygon}").replace(' ', "%20")),
        0
    );
    let listed = s.json("/api/v2/specimen-records/?gps_lat=42.2986", 200);
    assert_eq!(listed["meta"]["total_count"], 0);
    // Withheld: UMMZ-000004 (Cicindela) has no point and no county; its state
    // and country stay.
    let withheld = s.json("/gbif/v1/occurrence/4", 200);
    assert!(withheld.get("decimalLatitude").is_none());
    assert!(withheld.get("county").is_none(), "{withheld}");
    assert_eq!(withheld["stateProvince"], "Michigan");
    assert!(withheld["informationWithheld"]
        .as_str()
        .unwrap()
        .contains("county"));
    let item = s.json("/api/v2/specimen-records/4/", 200);
    assert_eq!(item["county"], Value::Null);
    assert_eq!(item["gps"], Value::Null);
    // The archive says what was done.
    let row = dwca_row(&s, "UMMZ-000002");
    assert_eq!(term(&row, "decimalLatitude"), "42.25");
    assert_eq!(term(&row, "coordinateUncertaintyInMeters"), "6942");
    assert!(term(&row, "dataGeneralizations").contains("0.1°"));
    assert!(!term(&row, "informationWithheld").is_empty());
    let row = dwca_row(&s, "UMMZ-000004");
    assert_eq!(term(&row, "county"), "");
    assert!(term(&row, "informationWithheld").contains("withheld"));
    // Records outside the rules are as they were.
    let row = dwca_row(&s, "UMMZ-000005");
    assert_eq!(term(&row, "dataGeneralizations"), "");
    assert_eq!(term(&row, "decimalLatitude"), "10.3");
    let page = s.send("GET", "/api/v2/specimen-records/2/", &[("Accept", BROWSER)]);
    assert!(page
        .text()
        .contains("is given only as the centre of a 0.1° grid cell"));
    // Its map draws the cell, not a pin.
    let text = page.text();
    assert!(
        text.contains("Within the 0.1° grid cell centred on 42.25, -83.65."),
        "{text}"
    );
    assert!(
        text.contains("Polygon") && !text.contains("data-lat"),
        "{text}"
    );

    // Photographs: a covered specimen's are served without their GPS (its
    // renditions too); another's as they are.
    for path in [
        "/media/original_images/ummz-000001-dorsal.jpg",
        "/media/images/ummz-000001-dorsal.max-600x600.jpg",
    ] {
        let r = s.get(path);
        assert_eq!(r.status, 200, "{path}");
        let text = String::from_utf8_lossy(&r.body).into_owned();
        assert!(
            !text.contains("GPS") && !text.contains("42.298611"),
            "{path}"
        );
        assert!(r
            .body
            .ends_with(&[0xFF, 0xDA, 0, 2, 0x11, 0x22, 0xFF, 0xD9]));
        assert_eq!(r.header("content-length"), Some(&*r.body.len().to_string()));
    }
    let other = s.get("/media/original_images/caterpillar.jpg");
    assert_eq!(other.body, jpeg_with_gps());
    // The same through a question's photographs as a zip (`format=zip`).
    let zipped = s.get("/api/v2/specimen-records/?format=zip");
    assert_eq!(zipped.status, 200);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(zipped.body)).unwrap();
    let mut covered = 0;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let name = entry.name().unwrap().to_string();
        let mut body = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut body).unwrap();
        if name.starts_with("UMMZ-000001-") {
            covered += 1;
            let text = String::from_utf8_lossy(&body).into_owned();
            assert!(
                !text.contains("GPS") && !text.contains("42.298611"),
                "{name}"
            );
            assert!(
                body.ends_with(&[0xFF, 0xDA, 0, 2, 0x11, 0x22, 0xFF, 0xD9]),
                "{name}"
            );
        }
    }
    assert!(covered > 0, "no covered photograph in the zip");
}

#[test]
fn an_empty_rule_list_writes_the_same_snapshot_and_a_bad_rule_writes_none() {
    let dir = TempDir::new("sensitive-empty");
    let fixture = sample_fixture();
    let checksum = |config: Option<&str>| {
        let out = dir.path("out.bin");
        let mut args = vec![
            "build",
            fixture.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        let path = dir.path("d.toml");
        if let Some(text) = config {
            std::fs::write(&path, text).unwrap();
            args.extend(["--dataset-config", path.to_str().unwrap()]);
        }
        let done = catalogue(&args);
        let said = String::from_utf8_lossy(&done.stdout).into_owned()
            + &String::from_utf8_lossy(&done.stderr);
        let _ = std::fs::remove_file(&out);
        (done.status.success(), said)
    };
    let line = |said: &str| {
        said.lines()
            .find(|l| l.contains("checksum: "))
            .map(|l| l.split("checksum: ").nth(1).unwrap().to_string())
    };
    let (ok, plain) = checksum(Some("title = \"T\"\n"));
    assert!(ok, "{plain}");
    let (ok, empty) = checksum(Some("title = \"T\"\nsensitive = []\n"));
    assert!(ok, "{empty}");
    assert_eq!(line(&plain), line(&empty));
    assert!(line(&plain).is_some());
    let (ok, ruled) = checksum(Some(RULES));
    assert!(
        ok && ruled.contains("sensitive places: 4 specimen record(s)"),
        "{ruled}"
    );
    assert_ne!(line(&ruled), line(&plain));
    let (ok, said) = checksum(Some(
        "[[sensitive]]\ntaxon = \"Danaus plexipus\"\ncoordinates = \"0.1\"\n",
    ));
    assert!(!ok);
    assert!(
        said.contains(
            "sensitive[0] (Danaus plexipus): no taxon of the collection has this scientific name"
        ),
        "{said}"
    );
    let (ok, said) = checksum(Some(
        "[[sensitive]]\ntaxon = \"Danaus\"\ncoordinates = \"0.2\"\n",
    ));
    assert!(!ok);
    assert!(
        said.contains("sensitive[0] (Danaus): coordinates \"0.2\""),
        "{said}"
    );
}

/// A rule added later reaches back: version 1, built without rules and
/// kept, is withdrawn (410 naming why, its files emptied) when version 2
/// is built with them; version 2's archive is served.
#[test]
fn a_rule_added_later_withdraws_the_versions_kept_before_it() {
    let dir = TempDir::new("sensitive-kept");
    let fixture = fixture(&dir);
    let out = dir.path("collection.bin");
    let plain = dir.path("plain.toml");
    std::fs::write(&plain, "title = \"Sensitive sample\"\n").unwrap();
    let ruled = dir.path("ruled.toml");
    std::fs::write(&ruled, RULES).unwrap();
    let build = |config: &Path, previous: bool| {
        let (f, o, c) = (
            fixture.to_str().unwrap(),
            out.to_str().unwrap(),
            config.to_str().unwrap(),
        );
        let mut args = vec![
            "build",
            f,
            "-o",
            o,
            "--dataset-config",
            c,
            "--public-url",
            "http://t",
        ];
        if previous {
            args.extend(["--previous", o]);
        }
        let done = catalogue(&args);
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
    };
    build(&plain, false);
    let versions = catalogue::snapshot::kept::path(&out);
    let archive = catalogue::snapshot::kept::folder(&versions, 1).join("dwca.zip");
    let before = std::fs::read(&archive).unwrap();
    assert!(before.len() > 1000);
    build(&ruled, true);
    let s = Server::start(
        &out,
        Settings {
            versions_dir: Some(versions.clone()),
            ..Settings::default()
        },
    );
    assert_eq!(
        s.json("/api/v2/versions/", 200)["items"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let gone = s.get("/versions/1/dwca.zip");
    assert_eq!(gone.status, 410, "{}", gone.text());
    assert!(
        gone.text()
            .contains("withdrawn: made before version 2's sensitive places' rules"),
        "{}",
        gone.text()
    );
    assert_eq!(s.get("/versions/1/eml.xml").status, 410);
    assert_eq!(std::fs::read(&archive).unwrap(), b"");
    let current = s.get("/versions/2/dwca.zip");
    assert_eq!(current.status, 200);
    let body = String::from_utf8_lossy(&current.body).into_owned();
    assert!(!body.is_empty());
    // The same rules again keep what was kept under them.
    drop(s);
    build(&ruled, true);
    let m = catalogue::snapshot::kept::manifest(&versions, 2).unwrap();
    assert!(m.withdrawn.is_empty() && !m.places.is_empty());
}

/// The routes' list of how each treats sensitive records names the media
/// files as stripped, and every route that shows records as following the
/// snapshot (checked against the table by `serve::routes`' own test).
#[test]
fn the_routes_say_how_they_treat_sensitive_records() {
    use catalogue::serve::sensitive::{Treats, SURFACES};
    let of = |name: &str| SURFACES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t);
    assert_eq!(of("/media"), Some(Treats::MediaStripped));
    assert_eq!(of("/api/v2/{list}"), Some(Treats::Snapshot));
    assert_eq!(of("/versions/{id}/dwca.zip"), Some(Treats::KeptFiles));
}

/// The snapshot file's bytes hold none of [`PRECISE`] but the sample's own
/// uncovered image 5 (at gps 1 and locality 1 in the database): what is
/// searched for here is what only covered records had.
fn precise_in(path: &Path, only: &[&str]) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap();
    (only.iter())
        .filter(|p| bytes.windows(p.len()).any(|w| w == p.as_bytes()))
        .map(|p| p.to_string())
        .collect()
}

/// `sync` applies the rules to every version it publishes, the edits it
/// reads between whole reads included (they apply to the collection read,
/// which keeps the precise places): a covered specimen edited stays
/// generalised, an uncovered one is published as edited.
#[test]
fn sync_publishes_every_version_generalised() {
    use crate::database::{next_checksum, specimens, Db, Sqlite};
    let dir = TempDir::new("sensitive-sync");
    let db = Sqlite::create(&dir);
    let rules = dir.path("dataset.toml");
    std::fs::write(&rules, RULES).unwrap();
    let snapshot = dir.path("synced.bin");
    let mut sync = std::process::Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
        .args(["sync", "--from-db", &db.url(), "--snapshot"])
        .arg(&snapshot)
        .arg("--dataset-config")
        .arg(&rules)
        .args(["--every", "200ms", "--full-every", "1h"])
        .env("RUST_LOG", "off")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Only covered records refer to these (image 5, at gps 1, is not
    // covered, so gps 1's point stays).
    let hidden = ["Audubon Park", "New Orleans", "Ramsey Canyon", "Hereford"];
    let first = next_checksum(&snapshot, None);
    assert_eq!(precise_in(&snapshot, &hidden), Vec::<String>::new());
    let later = db.stamp("2030-01-01T00:00:00Z");
    db.exec(&format!(
        "UPDATE specimens_specimenrecord SET notes = 'Edited.', date_modified = {later} WHERE id IN (5, 6);"
    ));
    next_checksum(&snapshot, Some(&first));
    let _ = sync.kill();
    let _ = sync.wait();
    assert_eq!(precise_in(&snapshot, &hidden), Vec::<String>::new());
    let records = specimens(&snapshot);
    let of = |id: i64| records.iter().find(|r| r.id == id).unwrap();
    assert_eq!(of(5).notes, "Edited.");
    assert_eq!(of(5).locality, Some(5));
    assert_eq!(of(6).notes, "Edited.");
    assert!(of(6).locality.unwrap() >= 1 << 52, "{:?}", of(6).locality);
    assert!(of(2).gps.unwrap() >= 1 << 52);
}
