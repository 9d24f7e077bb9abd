//! Literal answers: whole bodies of the bundled sample (`snapshot/collection.bin`,
//! built from `snapshot/collection.json` with `snapshot/dataset.toml`), written
//! once under `tests/golden/`, read by eye, and compared byte for byte with
//! what the server answers on a loopback port.
//!
//! An intended change of an answer writes them again:
//! `CATALOGUE_BLESS=1 cargo test --test integration golden::`, and the
//! commit shows their diff for review.

use std::path::PathBuf;

use crate::common::Server;

/// An answer kept: its file under `tests/golden/`, the request's path, the
/// `Accept` it sends, and the content type expected.
struct Golden {
    file: &'static str,
    path: &'static str,
    accept: &'static str,
    content_type: &'static str,
}

const GOLDEN: &[Golden] = &[
    // A specimen with photographs (dorsal and ventral) and four collectors,
    // as its page for people shows them.
    Golden {
        file: "specimen-record-1.html",
        path: "/api/v2/specimen-records/1/",
        accept: "text/html",
        content_type: "text/html; charset=utf-8",
    },
    // The same specimen's item: its collectors and every embedded record.
    Golden {
        file: "specimen-record-1.json",
        path: "/api/v2/specimen-records/1/",
        accept: "application/json",
        content_type: "application/json",
    },
    // Its photographs, as the specimens' images list holds them.
    Golden {
        file: "specimen-record-images-ummz-000001.json",
        path: "/api/v2/specimen-record-images/?usi=UMMZ-000001",
        accept: "application/json",
        content_type: "application/json",
    },
    // A nested item: the species with its genus, tribe, ... embedded whole.
    Golden {
        file: "nested-species-1.json",
        path: "/api/v2/nested-species/1/",
        accept: "application/json",
        content_type: "application/json",
    },
    Golden {
        file: "species-page-11.json",
        path: "/api/v2/species-pages/11/",
        accept: "application/json",
        content_type: "application/json",
    },
    // The same specimen as a GBIF occurrence (its four collectors in
    // `recordedBy`).
    Golden {
        file: "gbif-occurrence-1.json",
        path: "/gbif/v1/occurrence/1",
        accept: "application/json",
        content_type: "application/json",
    },
    Golden {
        file: "eml.xml",
        path: "/eml.xml",
        accept: "application/xml",
        content_type: "application/xml; charset=utf-8",
    },
];

fn golden(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(file)
}

/// Where two byte strings first differ, with a little of each around it.
fn first_difference(kept: &[u8], got: &[u8]) -> String {
    let at = kept
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(kept.len().min(got.len()));
    let around = |b: &[u8]| {
        let from = at.saturating_sub(60);
        String::from_utf8_lossy(&b[from..(at + 60).min(b.len())]).into_owned()
    };
    format!(
        "first difference at byte {at} (kept {} bytes, answered {}):\n kept: {}\n  got: {}",
        kept.len(),
        got.len(),
        around(kept),
        around(got)
    )
}

#[test]
fn the_samples_answers_are_the_literal_ones_kept() {
    let bless = std::env::var_os("CATALOGUE_BLESS").is_some_and(|v| v == "1");
    let s = Server::sample();
    let mut wrong = Vec::new();
    for g in GOLDEN {
        let reply = s.send("GET", g.path, &[("Accept", g.accept)]);
        assert_eq!(reply.status, 200, "{}: {}", g.path, reply.text());
        assert_eq!(
            reply.header("content-type"),
            Some(g.content_type),
            "{}",
            g.path
        );
        let file = golden(g.file);
        if bless {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &reply.body).unwrap();
            continue;
        }
        let kept = std::fs::read(&file).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; write it with CATALOGUE_BLESS=1 cargo test --test integration golden::",
                file.display()
            )
        });
        if kept != reply.body {
            wrong.push(format!(
                "{} ({}): {}",
                g.file,
                g.path,
                first_difference(&kept, &reply.body)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "answers differ from tests/golden/ (if intended: CATALOGUE_BLESS=1 cargo test \
         --test integration golden::, and review the diff):\n{}",
        wrong.join("\n")
    );
    the_kept_specimen_has_photographs_and_several_collectors();
}

/// The answers kept still show what they were chosen for: a specimen with
/// photographs and several collectors.
fn the_kept_specimen_has_photographs_and_several_collectors() {
    let page = std::fs::read_to_string(golden("specimen-record-1.html")).unwrap();
    for photo in ["ummz-000001-dorsal.jpg", "ummz-000001-ventral.png"] {
        assert!(page.contains(photo), "{photo}");
    }
    let item: serde_json::Value =
        serde_json::from_slice(&std::fs::read(golden("specimen-record-1.json")).unwrap()).unwrap();
    assert_eq!(item["collector"].as_array().map(Vec::len), Some(4));
    let images: serde_json::Value = serde_json::from_slice(
        &std::fs::read(golden("specimen-record-images-ummz-000001.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(images["meta"]["total_count"], 2);
}
