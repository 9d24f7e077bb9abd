//! Short links (`/s/{digits}`), what a QR label says by default: 301 to the
//! record of the specimen whose USI has exactly those digits, 404 for any
//! other code, `HEAD` answered as `GET`; shared digits lead to the lowest id,
//! and a sheet never prints them.

use serde_json::json;

use crate::common::{self, Server, TempDir};
use catalogue::serve::Settings;

/// The 404's message for `code`.
fn unknown(code: &str) -> String {
    format!(
        "no specimen has the short code {code:?}: a short code is every digit of a \
         specimen's USI, in order (MEM-000367 is /s/000367)"
    )
}

/// Asserts that `path` is sent on to the record of `id`, by GET and by HEAD.
fn assert_moved(s: &Server, path: &str, id: i64) {
    let location = format!("/api/v2/specimen-records/{id}/");
    let r = s.get(path);
    assert_eq!(r.status, 301, "{path}: {}", r.text());
    assert_eq!(r.header("location"), Some(location.as_str()), "{path}");
    assert_eq!(r.header("content-type"), Some("application/json"), "{path}");
    assert_eq!(
        r.json(),
        json!({ "message": format!("moved to {location}") }),
        "{path}"
    );
    let head = s.send("HEAD", path, &[]);
    assert_eq!(head.status, 301, "{path}");
    assert_eq!(head.header("location"), Some(location.as_str()), "{path}");
    assert_eq!(head.header("content-type"), Some("application/json"));
    assert!(head.body.is_empty(), "{path}: HEAD answered a body");
}

#[test]
fn a_short_link_leads_to_the_specimens_record() {
    let s = Server::sample();
    assert_moved(&s, "/s/000003", 3);
    // Followed, it is that specimen's record.
    let record = s.json("/api/v2/specimen-records/3/", 200);
    assert_eq!(record["usi"], "UMMZ-000003");
    // Every specimen of the sample by its own digits.
    for id in 1..=8 {
        assert_moved(&s, &format!("/s/{id:06}"), id);
    }
    // Parameters change nothing, and a browser is sent on alike (its record
    // is then a page).
    assert_moved(&s, "/s/000003?format=html&x=1", 3);
    let browser = s.send("GET", "/s/000003", &[("Accept", "text/html")]);
    assert_eq!(browser.status, 301);
    assert_eq!(
        browser.header("location"),
        Some("/api/v2/specimen-records/3/")
    );
    // Counted under the route's own name.
    let metrics = s.get("/metrics").text();
    assert!(
        metrics.contains("catalogue_requests_total{route=\"/s/{digits}\",status=\"301\"}"),
        "{metrics}"
    );
}

#[test]
fn a_code_no_specimen_has_is_404() {
    let s = Server::sample();
    // Digits no USI has, the number rather than the digits as written, more
    // or fewer digits, and what is not digits at all.
    for code in [
        "000009",
        "999999",
        "3",
        "0000030",
        "00003",
        "0",
        "abc",
        "UMMZ-000003",
        "00000x",
        "%30%30%30%30%30%33",
    ] {
        let path = format!("/s/{code}");
        s.assert_error(&path, 404, &unknown(code));
        let head = s.send("HEAD", &path, &[]);
        assert_eq!(head.status, 404, "{path}");
        assert_eq!(head.header("content-type"), Some("application/json"));
        assert_eq!(head.header("location"), None);
        assert!(head.body.is_empty(), "{path}: HEAD answered a body");
    }
    // The path has no trailing slash, and nothing beneath it.
    for path in ["/s/000003/", "/s/", "/s", "/s/000003/x"] {
        s.assert_error(path, 404, "Not found.");
    }
    // Only reads are answered.
    assert_eq!(s.send("POST", "/s/000003", &[]).status, 405);
}

#[test]
fn shared_digits_lead_to_the_lowest_id_and_a_sheet_prints_the_record_for_them() {
    let dir = TempDir::new("short-shared");
    let snapshot = common::generated_with(&dir, 12, |c| {
        for r in &mut c.specimen_records {
            match r.id {
                // 000007 is CAT-000007's (id 7) and now OLD-000007's (id 9).
                9 => r.usi = "OLD-000007".into(),
                // No digits: no short link.
                4 => r.usi = "CAT-NONE".into(),
                _ => {}
            }
        }
    });
    let s = Server::start(&snapshot, Settings::default());
    assert_moved(&s, "/s/000007", 7);
    assert_moved(&s, "/s/000001", 1);
    s.assert_error("/s/000009", 404, &unknown("000009"));
    s.assert_error("/s/000004", 404, &unknown("000004"));
    // The sheet's codes: the short link where it leads to the specimen alone,
    // else the record.
    let r = s.send(
        "GET",
        "/api/v2/specimen-records/labels/?format=csv&sort=id",
        &[("Host", "labels.example:8443")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let codes: Vec<String> = r
        .text()
        .lines()
        .skip(1)
        .map(|l| l.split_once(',').unwrap().1.to_string())
        .collect();
    let base = "http://labels.example:8443";
    let expected: Vec<String> = (1..=12)
        .map(|id| match id {
            4 | 7 | 9 => format!("{base}/api/v2/specimen-records/{id}/"),
            _ => format!("{base}/s/{id:06}"),
        })
        .collect();
    assert_eq!(codes, expected);
}
