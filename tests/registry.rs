//! GBIF following every version: `packageId` as GBIF reads a version from it,
//! what `build` refuses as GBIF would, `gbif register` and the crawl asked
//! after each version, against a stand-in of GBIF's registry on loopback that
//! answers as its web services do (201 and the new key as a JSON string for a
//! dataset created, 204 for one updated, the endpoint's key for one added, 204
//! for a crawl asked, 401 without an account) and records what it is sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::common::{self, catalogue_refusing, TempDir};

/// The dataset key the stand-in gives a dataset it creates.
const KEY: &str = "7c1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c";
const ORGANIZATION: &str = "0a1b2c3d-0000-4000-8000-000000000001";
const INSTALLATION: &str = "0a1b2c3d-0000-4000-8000-000000000002";
/// `user:secret` in base 64.
const AUTH: &str = "Basic dXNlcjpzZWNyZXQ=";

/// One request the stand-in was sent.
#[derive(Clone, Debug)]
struct Sent {
    method: String,
    path: String,
    auth: Option<String>,
    body: String,
}

/// A stand-in of GBIF's registry API at `http://127.0.0.1:PORT/v1/`.
struct Registry {
    api: String,
    sent: Arc<Mutex<Vec<Sent>>>,
}

impl Registry {
    /// Answers every request as GBIF's registry does, the first
    /// `crawl_failures` crawl requests with 503.
    fn start(crawl_failures: usize) -> Registry {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let api = format!("http://{}/v1/", listener.local_addr().unwrap());
        let sent = Arc::new(Mutex::new(Vec::<Sent>::new()));
        let record = sent.clone();
        std::thread::spawn(move || {
            let mut failures = crawl_failures;
            let mut endpoints: Vec<Value> = Vec::new();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    continue;
                }
                let mut parts = line.split_whitespace();
                let method = parts.next().unwrap_or_default().to_string();
                let path = parts.next().unwrap_or_default().to_string();
                let (mut length, mut auth) = (0, None);
                loop {
                    let mut header = String::new();
                    reader.read_line(&mut header).unwrap();
                    let header = header.trim_end();
                    if header.is_empty() {
                        break;
                    }
                    let (name, value) = header.split_once(':').unwrap();
                    match name.to_ascii_lowercase().as_str() {
                        "content-length" => length = value.trim().parse().unwrap(),
                        "authorization" => auth = Some(value.trim().to_string()),
                        _ => {}
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let body = String::from_utf8(body).unwrap();
                record.lock().unwrap().push(Sent {
                    method: method.clone(),
                    path: path.clone(),
                    auth: auth.clone(),
                    body: body.clone(),
                });
                let dataset = path
                    .strip_prefix("/v1/dataset/")
                    .map(|rest| rest.split('/').collect::<Vec<_>>());
                let (status, answer) = match (method.as_str(), dataset.as_deref()) {
                    ("GET", Some([_, "endpoint"])) => {
                        (200, Value::Array(endpoints.clone()).to_string())
                    }
                    _ if auth.as_deref() != Some(AUTH) => (401, String::new()),
                    ("POST", None) if path == "/v1/dataset" => (201, format!("\"{KEY}\"")),
                    ("PUT", Some([_])) => (204, String::new()),
                    ("POST", Some([_, "endpoint"])) => {
                        let mut e: Value = serde_json::from_str(&body).unwrap();
                        let key = endpoints.len() as i64 + 100;
                        e["key"] = json!(key);
                        endpoints.push(e);
                        (200, key.to_string())
                    }
                    ("DELETE", Some([_, "endpoint", n])) => {
                        endpoints.retain(|e| e["key"].as_i64() != n.parse().ok());
                        (204, String::new())
                    }
                    ("POST", Some([_, "crawl"])) if failures > 0 => {
                        failures -= 1;
                        (503, String::new())
                    }
                    ("POST", Some([_, "crawl"])) => (204, String::new()),
                    _ => (404, String::new()),
                };
                let reason = match status {
                    200 => "OK",
                    201 => "Created",
                    204 => "No Content",
                    401 => "Unauthorized",
                    503 => "Service Unavailable",
                    _ => "Not Found",
                };
                let head = match status {
                    204 => format!("HTTP/1.1 {status} {reason}\r\nConnection: close\r\n\r\n"),
                    _ => format!(
                        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n\
                         Content-Length: {}\r\nConnection: close\r\n\r\n",
                        answer.len()
                    ),
                };
                let _ = stream.write_all(head.as_bytes());
                if status != 204 {
                    let _ = stream.write_all(answer.as_bytes());
                }
            }
        });
        Registry { api, sent }
    }

    fn sent(&self) -> Vec<Sent> {
        self.sent.lock().unwrap().clone()
    }

    /// The requests sent, as `METHOD path`.
    fn asked(&self) -> Vec<String> {
        self.sent()
            .iter()
            .map(|s| format!("{} {}", s.method, s.path))
            .collect()
    }
}

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
    catalogue_refusing(&args, env)
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

#[test]
fn a_crawl_failing_every_try_is_shown_on_the_publishing_report_and_in_metrics() {
    let dir = TempDir::new("crawl-failed");
    let gbif = Registry::start(usize::MAX);
    let file = registered_file(&dir, &gbif.api, Some(KEY));
    let config = file.to_string_lossy().into_owned();
    let args = ["--dataset-config", config.as_str()];
    let mut v = objects();
    built(&build(&dir, "v", &v, None, &args, &ACCOUNT));
    specimen(&mut v, 2)["fields"]["notes"] = json!("Re-mounted.");
    let o = build(&dir, "v", &v, Some("v.bin"), &args, &ACCOUNT);
    built(&o);
    let crawl = format!("POST /v1/dataset/{KEY}/crawl");
    assert_eq!(
        gbif.asked(),
        [crawl.clone(), crawl.clone(), crawl],
        "3 tries"
    );
    let snapshot = dir.path("v.bin");
    let settings = catalogue::serve::Settings {
        sync_status: Some(catalogue::snapshot::status::path(&snapshot)),
        ..catalogue::serve::Settings::default()
    };
    let server = common::Server::start(&snapshot, settings);
    let metrics = server.get("/metrics").text();
    assert!(
        metrics.contains("catalogue_publishing_problem{kind=\"failed-gbif-crawl\"} 1"),
        "{metrics}"
    );
    let report = server.get("/api/v2/publishing/").text();
    assert!(report.contains("failed-gbif-crawl"), "{report}");
    assert!(
        report.contains("GBIF was not asked to crawl version 2"),
        "{report}"
    );
    assert!(!report.contains("secret"));
}

#[test]
fn eml_is_2_2_0_and_carries_the_five_keys_gbif_shows() {
    let dir = TempDir::new("eml220");
    let file = dataset_file(
        &dir,
        "d.toml",
        "introduction = \"Why.\"\ngetting_started = \"How.\"\nacknowledgements = \"Thanks.\"\n\
         bibliography = [\"A (2020). B.\", \"C (2021). D.\"]\nspecimen_preservation_method = \"pinned\"\n",
    );
    let config = file.to_string_lossy().into_owned();
    built(&build(
        &dir,
        "v",
        &objects(),
        None,
        &["--dataset-config", &config],
        &[],
    ));
    let eml = std::fs::read_to_string(
        catalogue::snapshot::kept::folder(&catalogue::snapshot::kept::path(&dir.path("v.bin")), 1)
            .join(catalogue::snapshot::kept::EML),
    )
    .unwrap();
    for said in [
        "xmlns:eml=\"https://eml.ecoinformatics.org/eml-2.2.0\"",
        "eml-gbif-profile/1.3/eml.xsd",
        "<introduction>\n      <para>Why.</para>\n    </introduction>\n    <gettingStarted>\n      <para>How.</para>\n    </gettingStarted>\n    <acknowledgements>\n      <para>Thanks.</para>\n    </acknowledgements>",
        "<bibliography>\n          <citation>A (2020). B.</citation>\n          <citation>C (2021). D.</citation>\n        </bibliography>",
        "<specimenPreservationMethod>pinned</specimenPreservationMethod>\n      </gbif>",
    ] {
        assert!(eml.contains(said), "{said} in {eml}");
    }
    // A JSON file says them too.
    let json = dir.path("d.json");
    std::fs::write(
        &json,
        r#"{"license": "CC0-1.0", "bibliography": ["E (2022). F."], "introduction": "Why."}"#,
    )
    .unwrap();
    let config = json.to_string_lossy().into_owned();
    built(&build(
        &dir,
        "j",
        &objects(),
        None,
        &["--dataset-config", &config],
        &[],
    ));
}

#[test]
fn every_citation_format_names_the_four_parties_gbif_names_in_its_order() {
    let dir = TempDir::new("cited");
    let party = |name: &str, surname: &str, role: &str| {
        format!("[[{role}]]\ngiven_name = \"{name}\"\nsurname = \"{surname}\"\n")
    };
    let extra = [
        party("Ada", "Lovelace", "creators"),
        party("Jan", "Berg", "metadata_providers"),
        party("Rosa", "Alvarez", "associated_parties") + "role = \"curator\"\n",
        party("Grace", "Hopper", "associated_parties") + "role = \"originator\"\n",
        party("Alan", "Turing", "associated_parties") + "role = \"metadataProvider\"\n",
    ]
    .concat();
    let file = dataset_file(&dir, "d.toml", &extra);
    let config = file.to_string_lossy().into_owned();
    built(&build(
        &dir,
        "v",
        &objects(),
        None,
        &["--dataset-config", &config],
        &[],
    ));
    let server = common::Server::start(&dir.path("v.bin"), catalogue::serve::Settings::default());
    for format in ["text", "bibtex", "ris", "csl", "datacite"] {
        let said = server
            .get(&format!("/api/v2/citation/?format={format}"))
            .text();
        let at: Vec<Option<usize>> = ["Lovelace", "Berg", "Hopper", "Turing"]
            .iter()
            .map(|name| said.find(name))
            .collect();
        assert!(at.iter().all(Option::is_some), "{format}: {said}");
        assert!(
            at.windows(2).all(|w| w[0] < w[1]),
            "{format}, in GBIF's order: {said}"
        );
        assert!(
            !said.contains("Alvarez"),
            "{format}: a curator is not cited: {said}"
        );
    }
}

#[test]
fn a_dataset_without_a_licence_is_refused_unless_allowed() {
    let dir = TempDir::new("licence");
    let o = build(&dir, "v1", &objects(), None, &[], &[]);
    assert!(!o.status.success());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.starts_with("error: the dataset has no licence"),
        "{said}"
    );
    assert!(said.contains("--allow-no-licence"), "{said}");
    assert!(!dir.path("v1.bin").exists(), "nothing written");
    built(&build(
        &dir,
        "v1",
        &objects(),
        None,
        &["--allow-no-licence"],
        &[],
    ));
    built(&build(
        &dir,
        "v2",
        &objects(),
        None,
        &[],
        &[("CATALOGUE_ALLOW_NO_LICENCE", "1")],
    ));
}

#[test]
fn sync_refuses_a_dataset_without_a_licence_before_reading_anything() {
    let dir = TempDir::new("sync-licence");
    let snapshot = dir.path("s.bin");
    let args = [
        "sync",
        "--from-db",
        "sqlite:///nowhere.sqlite3",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--once",
    ];
    let o = catalogue_refusing(&args, &[]);
    assert!(!o.status.success());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains("error: the dataset has no licence"), "{said}");
    assert!(!snapshot.exists());
}

#[test]
fn a_version_changing_most_occurrence_ids_is_refused_and_the_old_snapshot_stays() {
    let dir = TempDir::new("churn");
    let file = dataset_file(&dir, "d.toml", "");
    let config = file.to_string_lossy().into_owned();
    let args = ["--dataset-config", config.as_str()];
    let v = objects();
    built(&build(&dir, "v", &v, None, &args, &[]));
    let before = std::fs::read(dir.path("v.bin")).unwrap();
    // Every catalogue number changed: every occurrenceID.
    let mut renumbered = v.clone();
    let mut n = 0;
    for o in renumbered
        .iter_mut()
        .filter(|o| o["model"] == "specimens.specimenrecord")
    {
        n += 1;
        o["fields"]["usi"] = json!(format!("NEW-{n:06}"));
    }
    let o = build(&dir, "v", &renumbered, Some("v.bin"), &args, &[]);
    assert!(!o.status.success());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.starts_with(&format!(
            "error: version 2: {n} of the {n} occurrenceIDs published before are gone (such as "
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "and {n} are new (such as urn:catalog:UMMZ::NEW-000001)"
        )),
        "{said}"
    );
    assert_eq!(
        std::fs::read(dir.path("v.bin")).unwrap(),
        before,
        "the old snapshot stays"
    );
    // Told to, it publishes.
    let mut allowed = args.to_vec();
    allowed.push("--allow-id-churn");
    let out = built(&build(&dir, "v", &renumbered, Some("v.bin"), &allowed, &[]));
    assert!(out.contains("version 2:"), "{out}");
}

/// A dataset file registered with the stand-in at `api`, `dataset` its key
/// where given.
fn registered_file(dir: &TempDir, api: &str, dataset: Option<&str>) -> PathBuf {
    let key = dataset.map_or(String::new(), |k| format!("dataset = \"{k}\"\n"));
    dataset_file(
        dir,
        "d.toml",
        &format!(
            "description = \"Pinned insects.\"\ndoi = \"10.15468/abc\"\n[gbif]\napi = \"{api}\"\n\
             publishing_organization = \"{ORGANIZATION}\"\ninstallation = \"{INSTALLATION}\"\n{key}"
        ),
    )
}

const ACCOUNT: [(&str, &str); 2] = [
    ("CATALOGUE_GBIF_USER", "user"),
    ("CATALOGUE_GBIF_PASSWORD", "secret"),
];

#[test]
fn register_creates_the_dataset_and_its_endpoints_with_basic_auth_and_prints_the_key() {
    let dir = TempDir::new("register");
    let gbif = Registry::start(0);
    let file = registered_file(&dir, &gbif.api, None);
    let snapshot = common::sample_snapshot();
    let args = [
        "gbif",
        "register",
        "--dataset-config",
        file.to_str().unwrap(),
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--public-url",
        "https://specimens.example.org",
    ];
    let o = catalogue_refusing(&args, &ACCOUNT);
    let out = built(&o);
    assert!(out.contains(&format!("its key is {KEY}")), "{out}");
    assert!(out.contains(&format!("dataset = \"{KEY}\"")), "{out}");
    assert_eq!(
        gbif.asked(),
        [
            "POST /v1/dataset".to_string(),
            format!("GET /v1/dataset/{KEY}/endpoint"),
            format!("POST /v1/dataset/{KEY}/endpoint"),
            format!("POST /v1/dataset/{KEY}/endpoint"),
        ]
    );
    let sent = gbif.sent();
    assert!(sent
        .iter()
        .filter(|s| s.method != "GET")
        .all(|s| s.auth.as_deref() == Some(AUTH)));
    let dataset: Value = serde_json::from_str(&sent[0].body).unwrap();
    assert_eq!(
        dataset,
        json!({
            "publishingOrganizationKey": ORGANIZATION,
            "installationKey": INSTALLATION,
            "type": "OCCURRENCE",
            "title": "Insects",
            "language": "eng",
            "description": "Pinned insects.",
            "license": "http://creativecommons.org/licenses/by/4.0/legalcode",
            "doi": "10.15468/abc",
        })
    );
    let endpoint = |i: usize| serde_json::from_str::<Value>(&sent[i].body).unwrap();
    assert_eq!(
        endpoint(2),
        json!({"type": "DWC_ARCHIVE", "url": "https://specimens.example.org/dwca.zip"})
    );
    assert_eq!(
        endpoint(3),
        json!({"type": "EML", "url": "https://specimens.example.org/eml.xml"})
    );
    // The password is said nowhere.
    let all = format!("{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(!all.contains("secret"), "{all}");

    // Registered, it updates: PUT with the key, the endpoints moved to the new address.
    let file = registered_file(&dir, &gbif.api, Some(KEY));
    let args = [
        "gbif",
        "register",
        "--dataset-config",
        file.to_str().unwrap(),
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--public-url",
        "https://moved.example.org",
    ];
    let out = built(&catalogue_refusing(&args, &ACCOUNT));
    assert!(out.contains(&format!("updated the dataset {KEY}")), "{out}");
    let asked = gbif.asked();
    assert_eq!(
        asked[4..],
        [
            format!("PUT /v1/dataset/{KEY}"),
            format!("GET /v1/dataset/{KEY}/endpoint"),
            format!("DELETE /v1/dataset/{KEY}/endpoint/100"),
            format!("DELETE /v1/dataset/{KEY}/endpoint/101"),
            format!("POST /v1/dataset/{KEY}/endpoint"),
            format!("POST /v1/dataset/{KEY}/endpoint"),
        ]
    );
    let put: Value = serde_json::from_str(&gbif.sent()[4].body).unwrap();
    assert_eq!(put["key"], KEY);

    // Without the account: refused before anything is sent.
    let o = catalogue_refusing(&args, &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("CATALOGUE_GBIF_USER is not set"));
    assert_eq!(gbif.asked().len(), 10);
}

#[test]
fn a_version_published_asks_for_a_crawl_retried_and_a_refused_one_asks_nothing() {
    let dir = TempDir::new("crawl");
    // The first crawl request answered 503: asked again.
    let gbif = Registry::start(1);
    let file = registered_file(&dir, &gbif.api, Some(KEY));
    let config = file.to_string_lossy().into_owned();
    let args = ["--dataset-config", config.as_str()];
    let mut v = objects();
    built(&build(&dir, "v", &v, None, &args, &ACCOUNT));
    assert!(
        gbif.asked().is_empty(),
        "a first build is registered, not crawled"
    );
    specimen(&mut v, 2)["fields"]["notes"] = json!("Re-mounted.");
    built(&build(&dir, "v", &v, Some("v.bin"), &args, &ACCOUNT));
    let crawl = format!("POST /v1/dataset/{KEY}/crawl");
    assert_eq!(gbif.asked(), [crawl.clone(), crawl.clone()]);
    assert!(gbif.sent().iter().all(|s| s.auth.as_deref() == Some(AUTH)));
    let kept = std::fs::read_to_string(dir.path("v.bin.gbif-crawl")).unwrap();
    let kept: Value = serde_json::from_str(&kept).unwrap();
    assert_eq!(
        (
            kept["dataset"].as_str(),
            kept["version"].as_u64(),
            kept["tries"].as_u64(),
            kept["asked"].as_bool()
        ),
        (Some(KEY), Some(2), Some(2), Some(true))
    );
    // Nothing changed: no version, no crawl.
    built(&build(&dir, "v", &v, Some("v.bin"), &args, &ACCOUNT));
    assert_eq!(gbif.asked().len(), 2);
    // Refused (every occurrenceID changed): nothing asked.
    for o in v
        .iter_mut()
        .filter(|o| o["model"] == "specimens.specimenrecord")
    {
        o["fields"]["usi"] = json!(format!("X{}", o["pk"]));
    }
    let o = build(&dir, "v", &v, Some("v.bin"), &args, &ACCOUNT);
    assert!(!o.status.success());
    assert_eq!(gbif.asked().len(), 2);
}
