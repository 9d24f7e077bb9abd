//! GBIF following every version: `packageId` as GBIF reads a version from it.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{self, catalogue, TempDir};

fn objects() -> Vec<Value> {
    let text = std::fs::read_to_string(common::sample_fixture()).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A dataset file in TOML: `extra` lines after a title and licence.
fn dataset_file(dir: &TempDir, name: &str, extra: &str) -> PathBuf {
    let path = dir.path(name);
    std::fs::write(
        &path,
        format!(
            "title = \"Insects\"\nlicense = \"CC-BY-4.0\"\ninstitution_code = \"UMMZ\"\n{extra}"
        ),
    )
    .unwrap();
    path
}

/// Runs `build` of `objects` into `NAME.bin`, after `previous` where given,
/// as a publisher would (nothing allowed by default); its output.
fn build(
    dir: &TempDir,
    name: &str,
    objects: &[Value],
    previous: Option<&str>,
    extra: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    let fixture = dir.path(&format!("{name}.json"));
    std::fs::write(&fixture, Value::Array(objects.to_vec()).to_string()).unwrap();
    let out = dir.path(&format!("{name}.bin"));
    let mut args = vec![
        "build".to_string(),
        fixture.to_string_lossy().into_owned(),
        "-o".to_string(),
        out.to_string_lossy().into_owned(),
        "--public-url".to_string(),
        "https://specimens.example.org".to_string(),
    ];
    if let Some(previous) = previous {
        args.extend([
            "--previous".to_string(),
            dir.path(previous).to_string_lossy().into_owned(),
        ]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let _ = env;
    catalogue(&args)
}

fn built(o: &std::process::Output) -> String {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The `packageId` of version `n`'s kept eml.xml beside `snapshot`.
fn package_id(snapshot: &Path, n: u64) -> String {
    let dir = catalogue::snapshot::kept::path(snapshot);
    let eml = std::fs::read_to_string(
        catalogue::snapshot::kept::folder(&dir, n).join(catalogue::snapshot::kept::EML),
    )
    .unwrap();
    let at = eml.find("packageId=\"").expect("a packageId") + "packageId=\"".len();
    eml[at..].split('"').next().unwrap().to_string()
}

/// Whether `s` is a UUID of version 4 (its variant RFC 4122's).
fn is_v4(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
        && b[14] == b'4'
        && b"89ab".contains(&b[19])
}

fn specimen(objects: &mut [Value], pk: i64) -> &mut Value {
    objects
        .iter_mut()
        .find(|o| o["model"] == "specimens.specimenrecord" && o["pk"] == pk)
        .unwrap()
}

#[test]
fn package_ids_are_a_v4_uuid_kept_and_a_release_stepping_minor_then_major_at_a_new_doi() {
    let dir = TempDir::new("package");
    let first = dataset_file(&dir, "d1.toml", "");
    let config = |p: &PathBuf| {
        vec![
            "--dataset-config".to_string(),
            p.to_string_lossy().into_owned(),
        ]
    };
    let args = config(&first);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut v = objects();
    built(&build(&dir, "v1", &v, None, &args, &[]));
    let one = package_id(&dir.path("v1.bin"), 1);
    let (uuid, release) = one.split_once("/v").unwrap();
    assert!(is_v4(uuid), "{one}");
    assert_eq!(release, "1.0");
    // A title changed: the UUID stays (kept in the history), a minor step.
    let renamed = dataset_file(&dir, "d2.toml", "");
    std::fs::write(
        &renamed,
        std::fs::read_to_string(&renamed)
            .unwrap()
            .replace("Insects", "Insects of the museum"),
    )
    .unwrap();
    let args = config(&renamed);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    specimen(&mut v, 2)["fields"]["notes"] = json!("Re-mounted.");
    built(&build(&dir, "v2", &v, Some("v1.bin"), &args, &[]));
    assert_eq!(package_id(&dir.path("v2.bin"), 2), format!("{uuid}/v1.1"));
    // A new DOI: a major step.
    let doi = dataset_file(&dir, "d3.toml", "doi = \"10.15468/abc\"\n");
    std::fs::write(
        &doi,
        std::fs::read_to_string(&doi)
            .unwrap()
            .replace("Insects", "Insects of the museum"),
    )
    .unwrap();
    let args = config(&doi);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    built(&build(&dir, "v3", &v, Some("v2.bin"), &args, &[]));
    assert_eq!(package_id(&dir.path("v3.bin"), 3), format!("{uuid}/v2.0"));
    specimen(&mut v, 3)["fields"]["notes"] = json!("Relabelled.");
    built(&build(&dir, "v4", &v, Some("v3.bin"), &args, &[]));
    assert_eq!(package_id(&dir.path("v4.bin"), 4), format!("{uuid}/v2.1"));
    // The dataset file's own version 4 UUID is the one said.
    let own = dataset_file(
        &dir,
        "d5.toml",
        "id = \"6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c\"\n",
    );
    let args = config(&own);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    built(&build(&dir, "own", &v, None, &args, &[]));
    assert_eq!(
        package_id(&dir.path("own.bin"), 1),
        "6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c/v1.0"
    );
}
