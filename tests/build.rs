//! `catalogue build`: every validation rule has a fixture that fails it, and a failed
//! build writes nothing; without `--refuse-invalid` an invalid record is held
//! back and the rest written.

use crate::common;

use common::{catalogue, names_in, writes_in, TempDir};
use serde_json::{json, Value};

const T: &str = "2024-05-01T10:00:00.123Z";

/// A small valid collection; tests break one thing at a time.
fn base() -> Vec<Value> {
    let obj = |model: &str, pk: i64, fields: Value| {
        let mut f = fields;
        f["date_created"] = json!(T);
        f["date_modified"] = json!(T);
        json!({"model": model, "pk": pk, "fields": f})
    };
    vec![
        obj(
            "taxonomy.order",
            1,
            json!({"name": "Lepidoptera", "common_name": null, "authority": "L."}),
        ),
        obj(
            "taxonomy.family",
            1,
            json!({"name": "Nymphalidae", "common_name": null, "authority": "R.", "order": 1}),
        ),
        obj(
            "taxonomy.family",
            2,
            json!({"name": "Pieridae", "common_name": null, "authority": "S.", "order": 1}),
        ),
        obj(
            "taxonomy.subfamily",
            1,
            json!({"name": "Danainae", "common_name": null, "authority": "B.", "family": 1}),
        ),
        obj(
            "geography.country",
            1,
            json!({"name": "Canada", "abbr": "CAN"}),
        ),
        obj(
            "geography.state",
            1,
            json!({"name": "Ontario", "abbr": "ON", "country": 1}),
        ),
        obj("geography.county", 1, json!({"name": "Essex", "state": 1})),
        obj(
            "geography.locality",
            1,
            json!({"name": "Point Pelee", "range": null, "town": null, "country": null, "state": null, "county": 1}),
        ),
        obj(
            "geography.collectingtrip",
            1,
            json!({"name": "Spring 2020", "start_date": "2020-05-01", "end_date": "2020-05-09", "notes": "", "states": [1]}),
        ),
        obj(
            "specimens.person",
            1,
            json!({"first_name": "Ada", "middle_initial": null, "last_name": "Quinn", "suffix": null}),
        ),
        obj(
            "specimens.specimenrecord",
            1,
            json!({
            "usi": "ABC-000001", "order": 1, "family": 1, "subfamily": 1, "tribe": null, "genus": null,
            "species": null, "subspecies": null, "determiner": null, "determined_year": null, "sex": "male",
            "stage": "adult", "preparer": 1, "preparation": "spread", "preparation_date": null,
            "labels_printed": null, "labeled": false, "photographed": true, "collecting_trip": 1,
            "country": 1, "state": 1, "county": 1, "locality": 1, "gps": null, "day": 3, "month": "May",
            "year": 2020, "method": "Net", "weather": "", "temperature": "61.5", "time_of_day": "",
            "habitat": "", "notes": "", "collector": [1]}),
        ),
    ]
}

fn set(objects: &mut [Value], model: &str, pk: i64, field: &str, value: Value) {
    let o = objects
        .iter_mut()
        .find(|o| o["model"] == model && o["pk"] == pk)
        .expect("object exists");
    o["fields"][field] = value;
}

struct Outcome {
    ok: bool,
    stdout: String,
    stderr: String,
    written: bool,
}

fn build_texts(texts: &[String]) -> Outcome {
    build_flagged(texts, &[])
}

/// Builds these fixture texts with these flags after the files.
fn build_flagged(texts: &[String], flags: &[&str]) -> Outcome {
    let dir = TempDir::new("build");
    let mut args = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let p = dir.path(&format!("in{i}.json"));
        std::fs::write(&p, t).unwrap();
        args.push(p.to_string_lossy().into_owned());
    }
    let out = dir.path("out.bin");
    let mut argv: Vec<&str> = vec!["build"];
    argv.extend(args.iter().map(String::as_str));
    argv.extend(["-o", out.to_str().unwrap()]);
    argv.extend(flags);
    let o = catalogue(&argv);
    let leftovers = std::fs::read_dir(&dir.0).unwrap().count() - texts.len();
    Outcome {
        ok: o.status.success(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        written: out.exists() || leftovers > 0,
    }
}

fn build(objects: &[Value]) -> Outcome {
    build_texts(&[Value::Array(objects.to_vec()).to_string()])
}

/// Builds refusing a collection with any invalid record (`--refuse-invalid`),
/// as builds did before records were held back.
fn refused(objects: &[Value]) -> Outcome {
    build_flagged(
        &[Value::Array(objects.to_vec()).to_string()],
        &["--refuse-invalid"],
    )
}

/// Asserts the build failed, wrote nothing, and reported `line`.
fn fails_with(outcome: Outcome, line: &str) {
    assert!(!outcome.ok, "the build should fail: {}", outcome.stdout);
    assert!(!outcome.written, "nothing is written when a build fails");
    assert!(
        outcome.stderr.contains(&format!("error: {line}")),
        "expected {line:?} in:\n{}",
        outcome.stderr
    );
}

#[test]
fn the_base_collection_builds() {
    let o = build(&base());
    assert!(o.ok, "{}", o.stderr);
    assert!(o.stdout.contains("checksum: "), "{}", o.stdout);
    // The one warning: no dataset file says what GBIF asks of the dataset.
    assert!(
        o.stdout.contains("(1 warnings, 0 objects skipped)")
            && o.stdout
                .contains("warning: the dataset's description lacks title, "),
        "{}",
        o.stdout
    );
}

#[test]
fn a_broken_reference_fails() {
    let mut o = base();
    set(&mut o, "taxonomy.family", 1, "order", json!(9));
    fails_with(
        refused(&o),
        "taxonomy.family pk=1 order: refers to taxonomy.order pk=9, which does not exist",
    );
    let mut o = base();
    set(
        &mut o,
        "specimens.specimenrecord",
        1,
        "collector",
        json!([1, 7]),
    );
    fails_with(refused(&o), "specimens.specimenrecord pk=1 collector: refers to specimens.person pk=7, which does not exist");
    let mut o = base();
    set(&mut o, "geography.collectingtrip", 1, "states", json!([4]));
    fails_with(refused(&o), "geography.collectingtrip pk=1 states: refers to geography.state pk=4, which does not exist");
}

#[test]
fn a_duplicate_pk_fails() {
    let mut o = base();
    o.push(o[0].clone());
    fails_with(refused(&o), "taxonomy.order pk=1 pk: duplicate pk");
}

#[test]
fn a_wrong_type_fails() {
    let mut o = base();
    set(&mut o, "taxonomy.order", 1, "name", json!(5));
    fails_with(
        refused(&o),
        "taxonomy.order pk=1 name: expected a string, found 5",
    );
    let mut o = base();
    set(&mut o, "specimens.specimenrecord", 1, "year", json!("2020"));
    fails_with(refused(&o), "specimens.specimenrecord pk=1 year: expected a non-negative integer or null, found \"2020\"");
    let mut o = base();
    set(
        &mut o,
        "specimens.specimenrecord",
        1,
        "labeled",
        json!("yes"),
    );
    fails_with(
        refused(&o),
        "specimens.specimenrecord pk=1 labeled: expected true, false or null, found \"yes\"",
    );
    let mut o = base();
    set(&mut o, "specimens.specimenrecord", 1, "collector", json!(1));
    fails_with(
        refused(&o),
        "specimens.specimenrecord pk=1 collector: expected a list of primary keys, found 1",
    );
    let mut o = base();
    set(&mut o, "geography.state", 1, "country", json!(null));
    fails_with(
        refused(&o),
        "geography.state pk=1 country: expected a primary key (integer), found null",
    );
    let mut o = base();
    o[0]["fields"].as_object_mut().unwrap().remove("authority");
    fails_with(refused(&o), "taxonomy.order pk=1 authority: is missing");
    let mut o = base();
    o[0]["pk"] = json!("one");
    let outcome = build(&o);
    assert!(
        outcome
            .stderr
            .contains("pk must be an integer; found \"one\""),
        "{}",
        outcome.stderr
    );
}

#[test]
fn an_unparsable_date_or_timestamp_fails() {
    let mut o = base();
    set(
        &mut o,
        "geography.collectingtrip",
        1,
        "start_date",
        json!("2020-02-30"),
    );
    fails_with(
        refused(&o),
        "geography.collectingtrip pk=1 start_date: \"2020-02-30\" is not a date (YYYY-MM-DD)",
    );
    let mut o = base();
    set(
        &mut o,
        "specimens.specimenrecord",
        1,
        "preparation_date",
        json!("May 2020"),
    );
    fails_with(
        refused(&o),
        "specimens.specimenrecord pk=1 preparation_date: \"May 2020\" is not a date (YYYY-MM-DD)",
    );
    let mut o = base();
    set(
        &mut o,
        "specimens.person",
        1,
        "date_modified",
        json!("2024-05-01 25:00"),
    );
    fails_with(
        refused(&o),
        "specimens.person pk=1 date_modified: \"2024-05-01 25:00\" is not a timestamp",
    );
}

#[test]
fn a_locality_needs_exactly_one_region() {
    let mut o = base();
    set(&mut o, "geography.locality", 1, "county", json!(null));
    fails_with(refused(&o), "geography.locality pk=1 country/state/county: a locality needs exactly one of country, state, county; this one has 0");
    let mut o = base();
    set(&mut o, "geography.locality", 1, "state", json!(1));
    fails_with(refused(&o), "geography.locality pk=1 country/state/county: a locality needs exactly one of country, state, county; this one has 2");
}

#[test]
fn a_temperature_that_is_not_a_number_fails() {
    let mut o = base();
    set(
        &mut o,
        "specimens.specimenrecord",
        1,
        "temperature",
        json!("warm"),
    );
    fails_with(
        refused(&o),
        "specimens.specimenrecord pk=1 temperature: \"warm\" is not a number",
    );
}

#[test]
fn a_snapshot_or_a_binary_file_given_as_a_dump_is_named_for_what_it_is() {
    let dir = TempDir::new("build-snapshot");
    let out = dir.path("out.bin");
    let snapshot = "snapshot/collection.bin";
    let o = catalogue(&["build", snapshot, "-o", out.to_str().unwrap()]);
    assert!(!o.status.success() && !out.exists());
    let said = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        said.contains(&format!(
            "error: {snapshot}: is a catalogue snapshot, not a fixture dump: `build` reads \
             what `manage.py dumpdata` writes. `catalogue inspect {snapshot}` shows the \
             snapshot; `catalogue serve --snapshot {snapshot}` serves it\n"
        )),
        "{said}"
    );
    let binary = dir.path("db.sqlite3");
    std::fs::write(&binary, b"SQLite format 3\0\xff\xfe").unwrap();
    let o = catalogue(&[
        "build",
        binary.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        said.contains(
            ": is not UTF-8 text: `build` reads the JSON `manage.py dumpdata` \
                       writes (a database is read with --from-db)\n"
        ),
        "{said}"
    );
}

#[test]
fn json_that_does_not_parse_fails() {
    let outcome = build_texts(&["[{\"model\": \"taxonomy.order\", \"pk\": 1,".to_string()]);
    assert!(!outcome.ok && !outcome.written);
    assert!(
        outcome
            .stderr
            .contains("not a JSON array of fixture objects: EOF while parsing"),
        "{}",
        outcome.stderr
    );
    let outcome = build_texts(&["{\"model\": \"taxonomy.order\"}".to_string()]);
    assert!(!outcome.ok && !outcome.written);
    assert!(
        outcome
            .stderr
            .contains("not a JSON array of fixture objects"),
        "{}",
        outcome.stderr
    );
}

#[test]
fn every_problem_is_reported_not_only_the_first() {
    let mut o = base();
    set(&mut o, "taxonomy.family", 1, "order", json!(9));
    set(
        &mut o,
        "specimens.specimenrecord",
        1,
        "temperature",
        json!("n/a"),
    );
    let outcome = refused(&o);
    assert!(outcome.stderr.contains("taxonomy.family pk=1 order"));
    assert!(outcome
        .stderr
        .contains("specimens.specimenrecord pk=1 temperature"));
    assert!(
        outcome.stderr.contains("2 error(s); nothing was written"),
        "{}",
        outcome.stderr
    );
}

#[test]
fn a_failed_build_leaves_an_existing_snapshot_alone() {
    let dir = TempDir::new("keep");
    let out = dir.path("keep.bin");
    std::fs::write(&out, b"previous").unwrap();
    let input = dir.path("bad.json");
    std::fs::write(&input, "[").unwrap();
    let o = catalogue(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), b"previous");
}

#[test]
fn tolerated_inconsistencies_are_warnings() {
    let mut o = base();
    set(
        &mut o,
        "specimens.specimenrecord",
        1,
        "usi",
        json!("ABC-12"),
    );
    set(&mut o, "specimens.specimenrecord", 1, "family", json!(2));
    set(&mut o, "specimens.specimenrecord", 1, "month", json!(""));
    set(&mut o, "specimens.specimenrecord", 1, "sex", json!("M"));
    let outcome = build(&o);
    assert!(outcome.ok, "{}", outcome.stderr);
    let out = &outcome.stdout;
    for line in [
        "warning: specimens.specimenrecord pk=1 usi: \"ABC-12\" is not of the form <prefix>-<six digits>",
        "warning: specimens.specimenrecord pk=1 subfamily: taxonomy.subfamily pk=1 belongs to family pk=1, not to the specimen's family pk=2",
        "warning: specimens.specimenrecord pk=1 day: a day without a month",
        "warning: specimens.specimenrecord pk=1 sex: \"M\" is not one of the choices (male, female, unknown)",
    ] {
        assert!(out.contains(line), "expected {line:?} in:\n{out}");
    }
    // And the dataset's description, which no file gave.
    assert!(out.contains("(5 warnings, 0 objects skipped)"), "{out}");
}

#[test]
fn other_models_are_skipped_and_counted_and_files_merge() {
    let objects = base();
    // Specimens first, what they refer to in a later file, plus objects of other apps.
    let (specimens, rest): (Vec<Value>, Vec<Value>) = objects
        .into_iter()
        .partition(|o| o["model"] == "specimens.specimenrecord");
    let mut rest = rest;
    rest.push(json!({"model": "wagtailcore.revision", "pk": 3, "fields": {"object_id": "3"}}));
    rest.push(json!({"model": "wagtailcore.revision", "pk": 4, "fields": {"object_id": "4"}}));
    rest.push(json!({"model": "auth.user", "pk": 1, "fields": {"username": "admin"}}));
    let outcome = build_texts(&[
        Value::Array(specimens).to_string(),
        Value::Array(rest).to_string(),
    ]);
    assert!(outcome.ok, "{}", outcome.stderr);
    assert!(
        outcome
            .stdout
            .contains("skipped 2 object(s) of wagtailcore.revision"),
        "{}",
        outcome.stdout
    );
    assert!(
        outcome.stdout.contains("skipped 1 object(s) of auth.user"),
        "{}",
        outcome.stdout
    );
    assert!(
        outcome.stdout.contains("3 objects skipped"),
        "{}",
        outcome.stdout
    );
}

#[test]
fn the_same_records_in_any_order_give_the_same_checksum() {
    let checksum = |o: &Outcome| {
        o.stdout
            .rsplit("checksum: ")
            .next()
            .unwrap()
            .trim()
            .to_string()
    };
    let forward = build(&base());
    let mut reversed = base();
    reversed.reverse();
    let backward = build(&reversed);
    assert_eq!(checksum(&forward), checksum(&backward));
}

#[test]
fn a_duplicate_usi_fails_naming_both_specimens() {
    let mut o = base();
    let mut second = o.last().unwrap().clone();
    second["pk"] = json!(2);
    o.push(second);
    fails_with(
        refused(&o),
        "specimens.specimenrecord pk=2 usi: \"ABC-000001\" is the usi of specimens.specimenrecord pk=1 too",
    );
}

#[test]
fn the_led_methods_are_choices() {
    for method in ["LED light", "LED light sheet"] {
        let mut o = base();
        set(
            &mut o,
            "specimens.specimenrecord",
            1,
            "method",
            json!(method),
        );
        let outcome = build(&o);
        assert!(outcome.ok, "{}", outcome.stderr);
        assert!(!outcome.stdout.contains("method"), "{}", outcome.stdout);
    }
}

/// An image of today's model (`image_type` and every kind's columns).
fn image(pk: i64, kind: &str) -> Value {
    json!({"model": "images.customimage", "pk": pk, "fields": {
        "date_created": T, "date_modified": T, "collection": 1, "title": format!("Image {pk}"),
        "file": format!("original_images/i{pk}.jpg"), "description": "", "width": 10, "height": 10,
        "created_at": T, "uploaded_by_user": null, "focal_point_x": null, "focal_point_y": null,
        "focal_point_width": null, "focal_point_height": null, "file_size": null, "file_hash": "",
        "alt_text": "", "date": "2020-01-01", "notes": "", "image_type": kind, "collecting_trip": null,
        "country": null, "state": null, "county": null, "locality": null, "gps": null,
        "specimen_record": null, "position": "", "species": null, "species_page": null,
        "sex": "unknown", "stage": "adult", "status": "wild", "scientific_name": "", "common_name": "",
        "plant_species_page": [], "habitat_species_page": []}})
}

#[test]
fn a_featured_image_must_exist_and_be_featured_once_per_table() {
    let mut o = base();
    set(&mut o, "taxonomy.order", 1, "featured_image", json!(9));
    fails_with(
        refused(&o),
        "taxonomy.order pk=1 featured_image: refers to images.customimage pk=9, which does not exist",
    );
    let mut o = base();
    o.push(image(9, "insect"));
    set(&mut o, "taxonomy.family", 1, "featured_image", json!(9));
    set(&mut o, "taxonomy.family", 2, "featured_image", json!(9));
    fails_with(
        refused(&o),
        "taxonomy.family pk=2 featured_image: images.customimage pk=9 is featured by taxonomy.family pk=1 already",
    );
    // An order and a family may feature the same image.
    let mut o = base();
    o.push(image(9, "insect"));
    set(&mut o, "taxonomy.order", 1, "featured_image", json!(9));
    set(&mut o, "taxonomy.family", 1, "featured_image", json!(9));
    let outcome = build(&o);
    assert!(outcome.ok, "{}", outcome.stderr);
}

#[test]
fn images_of_an_unknown_kind_or_shape_fail() {
    let mut o = base();
    o.push(image(9, "fossil"));
    fails_with(
        refused(&o),
        "images.customimage pk=9 image_type: \"fossil\" is not one of the kinds (specimen, insect, plant, habitat)",
    );
    // Wagtail's image alone, neither today's model nor the typed tables beside it.
    let mut o = base();
    let mut bare = image(9, "insect");
    bare["fields"].as_object_mut().unwrap().remove("image_type");
    o.push(bare.clone());
    fails_with(
        refused(&o),
        "images.customimage pk=9 image_type: is missing; a dump from before the service's 0.16 needs its typed image models too",
    );
    // Both shapes at once.
    let mut o = base();
    o.push(image(9, "insect"));
    o.push(json!({"model": "images.habitatimage", "pk": 9, "fields": {"species_page": []}}));
    fails_with(
        refused(&o),
        "images: the source holds both images with an image_type",
    );
}

/// What `build` says when the input holds no collection records at all.
const EMPTY: &str = "warning: no collection records were found, so the snapshot would publish an \
     empty collection; the catalogue reads the Django apps taxonomy, geography, specimens, \
     images, wagtailcore, pages, taggit, contenttypes (python manage.py dumpdata taxonomy geography \
     specimens > dump.json)\n";

#[test]
fn a_dump_of_other_apps_warns_and_fails_only_when_strict() {
    let other = json!([
        {"model": "auth.user", "pk": 1, "fields": {"username": "admin"}},
        {"model": "blog.post", "pk": 1, "fields": {"title": "Hello"}},
    ])
    .to_string();
    for input in [other, "[]".to_string()] {
        let outcome = build_texts(std::slice::from_ref(&input));
        assert!(outcome.ok, "{}", outcome.stderr);
        assert!(outcome.written);
        assert!(outcome.stdout.contains(EMPTY), "{}", outcome.stdout);
        assert!(
            outcome.stdout.contains(" (2 warnings, "),
            "{}",
            outcome.stdout
        );
        let strict = build_flagged(std::slice::from_ref(&input), &["--strict"]);
        assert!(!strict.ok && !strict.written, "{}", strict.stdout);
        assert!(strict.stdout.contains(EMPTY), "{}", strict.stdout);
        assert!(
            strict
                .stderr
                .starts_with("error: --strict and 2 warning(s); nothing was written to "),
            "{}",
            strict.stderr
        );
    }
    // A collection described by a dataset file builds under --strict as
    // without it, and says nothing of apps.
    let dataset = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshot/dataset.toml");
    let strict = build_flagged(
        &[Value::Array(base()).to_string()],
        &["--strict", "--dataset-config", dataset.to_str().unwrap()],
    );
    assert!(strict.ok && strict.written, "{}", strict.stderr);
    assert!(
        !strict.stdout.contains("no collection records"),
        "{}",
        strict.stdout
    );
}

/// A build killed while it writes its snapshot (as a crash would), at
/// moments through the write, leaves no temporary file beside it; the next
/// build writes the snapshot and leaves none either.
#[test]
fn a_build_killed_while_it_writes_leaves_no_temporary_file() {
    let dir = TempDir::new("killed");
    let fixture = dir.path("generated.json");
    let fixture = fixture.to_str().unwrap();
    let made = catalogue(&[
        "generate",
        "--specimens",
        "5000",
        "--seed",
        "3",
        "-o",
        fixture,
    ]);
    assert!(made.status.success());
    let out_dir = dir.path("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("collection.bin");
    let mut killed = 0;
    for delay_ms in [0, 0, 1, 2, 5, 10, 20] {
        let mut build = std::process::Command::new(env!("CARGO_BIN_EXE_catalogue"))
            .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
            .args(["build", fixture, "-o", out.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while !writes_in(build.id(), &out_dir) && build.try_wait().unwrap().is_none() {
            assert!(started.elapsed().as_secs() < 120, "the build never wrote");
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        if build.try_wait().unwrap().is_none() {
            build.kill().unwrap();
            killed += 1;
        }
        build.wait().unwrap();
        // The versions kept beside it (a folder written whole within it).
        let left: Vec<String> = names_in(&out_dir)
            .into_iter()
            .filter(|n| n != "collection.bin" && n != "collection.bin.versions")
            .collect();
        assert!(left.is_empty(), "killed after {delay_ms} ms: {left:?}");
    }
    assert!(
        killed >= 3,
        "only {killed} builds were killed while they wrote"
    );
    let built = catalogue(&["build", fixture, "-o", out.to_str().unwrap()]);
    assert!(built.status.success());
    let sorted = |dir: &std::path::Path| {
        let mut names = names_in(dir);
        names.sort();
        names
    };
    assert_eq!(
        sorted(&out_dir),
        ["collection.bin", "collection.bin.versions"]
    );
    // What a killed build left of a version is gone: version 1, whole.
    let versions = out_dir.join("collection.bin.versions");
    assert_eq!(sorted(&versions), ["1"]);
    assert_eq!(
        sorted(&versions.join("1")),
        ["dwca.zip", "eml.xml", "manifest.json"]
    );
}

/// A dataset file is a regular file of at most a megabyte, read without
/// waiting on it; what refuses it names the file and never quotes it (a
/// link to another file given by mistake stays unsaid).
#[test]
fn a_dataset_file_that_is_no_description_is_refused_without_quoting_it() {
    let dir = TempDir::new("dataset-refused");
    let out = dir.path("x.bin");
    let refused = |dataset: &std::path::Path| {
        let started = std::time::Instant::now();
        let o = catalogue(&[
            "build",
            common::sample_fixture().to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--dataset-config",
            dataset.to_str().unwrap(),
        ]);
        assert!(started.elapsed().as_secs() < 20, "waited on {dataset:?}");
        assert!(!o.status.success());
        assert!(!out.exists());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let fifo = dir.path("dataset.toml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let said = refused(&fifo);
    assert!(said.contains("is not a regular file"), "{said}");
    assert!(said.contains(fifo.to_str().unwrap()), "{said}");
    // Another file's secrets, through a link named like a dataset file.
    let secret = dir.path("shadow");
    std::fs::write(&secret, "root:$6$s3cr3tsalt$hash:19000:0:99999:7:::\n").unwrap();
    let link = dir.path("linked.toml");
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    let said = refused(&link);
    assert!(
        said.contains("is not valid TOML") && said.contains("at line 1"),
        "{said}"
    );
    assert!(!said.contains("s3cr3t") && !said.contains("root"), "{said}");
    let json = dir.path("linked.json");
    std::os::unix::fs::symlink(&secret, &json).unwrap();
    let said = refused(&json);
    assert!(!said.contains("s3cr3t") && !said.contains("root"), "{said}");
    // Larger than a description.
    let large = dir.path("large.toml");
    let title = format!("title = \"{}\"\n", "a".repeat(2 << 20));
    std::fs::write(&large, title).unwrap();
    let said = refused(&large);
    assert!(said.contains("more than 1048576 bytes"), "{said}");
}

/// Without `--refuse-invalid` an invalid record is held back and the rest
/// written: left out where there is no previous snapshot, kept as the
/// previous snapshot has it with `--previous`, the build saying which. A
/// problem of no record still refuses.
#[test]
fn build_holds_back_an_invalid_record_and_writes_the_rest() {
    let dir = TempDir::new("build-held");
    let write = |name: &str, objects: &[Value]| {
        let p = dir.path(name);
        std::fs::write(&p, Value::Array(objects.to_vec()).to_string()).unwrap();
        p.to_str().unwrap().to_string()
    };
    let built = |input: &str, out: &str, flags: &[&str]| {
        let out = dir.path(out);
        let mut argv = vec!["build", input, "-o", out.to_str().unwrap()];
        argv.extend(flags);
        let o = catalogue(&argv);
        let said = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{said}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        (said, catalogue::snapshot::read(&out).unwrap().1)
    };
    let (_, before) = built(&write("before.json", &base()), "before.bin", &[]);
    let mut o = base();
    set(
        &mut o,
        "specimens.specimenrecord",
        1,
        "temperature",
        json!("n/a"),
    );
    set(
        &mut o,
        "taxonomy.order",
        1,
        "name",
        json!("Lepidoptera (edited)"),
    );
    let bad = write("bad.json", &o);
    // No previous snapshot: the specimen is left out.
    let (said, c) = built(&bad, "new.bin", &[]);
    assert!(
        said.contains(
            "held back: specimens.specimenrecord pk=1 temperature: \"n/a\" is not a number"
        ) && said.contains("(not served: it was never published)\n"),
        "{said}"
    );
    assert!(
        said.contains(", 1 record(s) held back), checksum: "),
        "{said}"
    );
    assert!(c.specimen_records.is_empty());
    let held: Vec<(&str, i64, &str, u64)> = (c.held.iter())
        .map(|h| (h.model.as_str(), h.id, h.kept.as_str(), h.since))
        .collect();
    assert_eq!(held, [("specimens.specimenrecord", 1, "left-out", 1)]);
    assert_eq!(c.orders[0].name, "Lepidoptera (edited)");
    // With --previous: kept as it was, the edit of the order published.
    let previous = dir.path("before.bin");
    let (said, c) = built(
        &bad,
        "next.bin",
        &["--previous", previous.to_str().unwrap()],
    );
    assert!(
        said.contains("(served as it was last published)\n"),
        "{said}"
    );
    assert_eq!(c.specimen_records, before.specimen_records);
    assert_eq!((c.held[0].kept.as_str(), c.held[0].since), ("published", 2));
    assert_eq!(c.orders[0].name, "Lepidoptera (edited)");
    let changes = &c.history.versions.last().unwrap().changes;
    let models: Vec<&str> = changes.iter().map(|c| c.model.as_str()).collect();
    assert_eq!(models, ["taxonomy.order"]);
    // --refuse-invalid, and --strict, refuse as before.
    for flag in ["--refuse-invalid", "--strict"] {
        let out = dir.path("refused.bin");
        let o = catalogue(&["build", &bad, "-o", out.to_str().unwrap(), flag]);
        assert!(!o.status.success() && !out.exists(), "{flag}");
    }
}
