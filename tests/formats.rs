//! Values carrying every special character of every format the catalogue
//! writes, and control characters in the records: each format escapes or
//! drops what it cannot carry, so a value never ends its field, line, entry
//! or element.

use crate::common;

use catalogue::model::dataset::{Dataset, Party, Told};
use catalogue::serve::Settings;
use common::{Server, TempDir};

/// Every character some format gives a meaning: BibTeX's braces, `@`,
/// backslash and `%`, RIS's line breaks, JSON's quotes, XML's markup, CSV's
/// commas and quotes, TSV's tabs.
const SPECIAL: &str = "} @misc{injected, title={x}} \\ % # $ & _ ~ ^ \" ' < > , ;\ttab\nline";

fn told() -> Settings {
    let dataset = Dataset {
        title: format!("Moths {SPECIAL}"),
        publisher: format!("Museum {SPECIAL}"),
        homepage: "https://h.example/a?b=1&c=%7D".into(),
        doi: "10.12345/abc(1)".into(),
        creators: vec![Party {
            name: format!("Ada {SPECIAL}"),
            email: "ada@example.org".into(),
            ..Party::default()
        }],
        ..Dataset::default()
    };
    dataset.check("test").expect("valid");
    Settings {
        dataset: Told {
            file: Some(dataset),
            values: Vec::new(),
        },
        ..Settings::default()
    }
}

/// Whether braces balance in BibTeX text, `\{` and `\}` not counted.
fn balanced(text: &str) -> bool {
    let mut depth = 0i32;
    let mut escaped = false;
    for c in text.chars() {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '{') => depth += 1,
            (false, '}') => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

#[test]
fn every_citation_format_carries_special_characters_as_one_record() {
    let s = Server::start(&common::sample_snapshot(), told());
    let bibtex = s.get("/api/v2/citation/?format=bibtex").text();
    let entries = bibtex
        .lines()
        .filter(|l| l.trim_start().starts_with('@'))
        .count();
    assert_eq!(entries, 1, "{bibtex}");
    assert!(balanced(&bibtex), "{bibtex}");
    // Each field on its line, each line a field or the entry's ends.
    for line in bibtex.lines() {
        let l = line.trim();
        assert!(
            l.starts_with('@') || l == "}" || l.ends_with("},"),
            "{line:?} in {bibtex}"
        );
    }
    let ris = s.get("/api/v2/citation/?format=ris").text();
    for line in ris.split("\r\n").filter(|l| !l.is_empty()) {
        let tag = line.as_bytes();
        assert!(
            tag.len() >= 6
                && tag[..2].iter().all(u8::is_ascii_alphanumeric)
                && &tag[2..6] == b"  - ",
            "{line:?} in {ris}"
        );
    }
    assert_eq!(ris.matches("ER  - ").count(), 1);
    let csl = s.get("/api/v2/citation/?format=csl").json();
    assert_eq!(csl[0]["title"], format!("Moths {SPECIAL}"));
    let text = s.get("/api/v2/citation/?format=text").text();
    assert!(text.contains("Moths }"), "{text}");
    for xml in ["/eml.xml", "/versions.atom"] {
        let body = s.get(xml).text();
        assert!(
            !body.contains("<misc") && !body.contains("< >"),
            "{xml}: {body}"
        );
        assert!(
            body.contains(
                "Moths } @misc{injected, title={x}} \\ % # $ &amp; _ ~ ^ &quot; &#x27; &lt; &gt;"
            ) || body
                .contains("Moths } @misc{injected, title={x}} \\ % # $ &amp; _ ~ ^ \" ' &lt; &gt;"),
            "{xml}: {body}"
        );
    }
}

/// Control characters in a record (a NUL and a \x01 in a person's name) are
/// in no text format: not in occurrence.txt, not in the CSV, not in the
/// page; JSON escapes them.
#[test]
fn control_characters_in_records_are_in_no_text_format() {
    let dir = TempDir::new("controls");
    let path = common::generated_with(&dir, 50, |c| {
        for p in &mut c.people {
            p.last_name = format!("Ok\u{0}a\u{1}for{}", p.id);
        }
    });
    let s = Server::start(&path, Settings::default());
    let control = |b: &u8| matches!(b, 0..=8 | 11 | 12 | 14..=31 | 127);
    let archive = s.get("/dwca.zip").body;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(archive)).unwrap();
    let mut occurrences = Vec::new();
    std::io::Read::read_to_end(
        &mut zip.by_name("occurrence.txt").unwrap(),
        &mut occurrences,
    )
    .unwrap();
    assert!(String::from_utf8_lossy(&occurrences).contains("Okafor"));
    assert!(!occurrences.iter().any(control), "occurrence.txt");
    for path in [
        "/api/v2/specimen-records/?format=csv",
        "/api/v2/specimen-records/?format=csv&columns=dwc",
        "/api/v2/people/?format=csv",
        "/specimen-records/",
        "/people/",
    ] {
        let body = s.get(path).body;
        assert!(!body.is_empty(), "{path}");
        assert!(!body.iter().any(control), "{path}");
    }
    let json = s.get("/api/v2/people/?limit=1").text();
    assert!(json.contains("Ok\\u0000a\\u0001for"), "{json}");
}
