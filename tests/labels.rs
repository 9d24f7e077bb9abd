//! Label sheets at `/api/v2/specimen-records/labels/`: the PDF's structure, the
//! CSV's lines for a question, the overflow report, the preview, the bound on a
//! sheet's size, and the form and its links as a person uses them.

use crate::common;

use catalogue::labels::Template;
use catalogue::serve::Settings;
use common::{Server, TempDir};

const LABELS: &str = "/api/v2/specimen-records/labels/";

/// Where `needle` first occurs in `hay` at or after `from`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// How many times `needle` occurs in `hay`.
fn count(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}

/// Checks a PDF's cross-reference table: every object it lists starts where it
/// says. Returns the number of pages.
fn check_pdf(body: &[u8]) -> usize {
    assert!(body.starts_with(b"%PDF-1.7\n"));
    assert!(body.ends_with(b"%%EOF\n"));
    let tail = &body[body.len() - 40..];
    let at = find(tail, b"startxref\n").expect("startxref") + 10;
    let start: usize = std::str::from_utf8(&tail[at..])
        .unwrap()
        .lines()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("the table's offset");
    let xref = std::str::from_utf8(&body[start..]).expect("the table is text");
    assert!(
        xref.starts_with("xref\n0 "),
        "startxref points at the table"
    );
    let mut lines = xref.lines().skip(1);
    let size: usize = lines.next().unwrap()[2..].parse().unwrap();
    let mut objects = 0;
    for (n, entry) in lines.take(size).enumerate() {
        assert_eq!(entry.len(), 19, "entries are 20 bytes with their newline");
        if entry.ends_with(" n ") {
            let at: usize = entry[..10].parse().unwrap();
            let head = format!("{n} 0 obj");
            assert!(
                body[at..].starts_with(head.as_bytes()),
                "object {n} is not at {at}"
            );
            objects += 1;
        }
    }
    assert!(objects >= 4, "{objects} objects");
    count(body, b"/Type /Page\n") + count(body, b"/Type /Page ")
}

#[test]
fn the_qr_sheet_is_a_pdf_of_every_specimen_the_question_selects() {
    let s = Server::sample();
    let r = s.get(LABELS);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/pdf"));
    assert_eq!(
        r.header("content-disposition"),
        Some(
            format!(
                "inline; filename=\"labels-qr-{}.pdf\"",
                common::snapshot_name(&s)
            )
            .as_str()
        )
    );
    assert_eq!(r.header("x-label-overflow"), None);
    assert_eq!(check_pdf(&r.body), 1);
    // Both styles appear only where used: the QR sheet writes no italics.
    let text = String::from_utf8_lossy(&r.body);
    assert!(text.contains("CATLBL+LiberationSans"));
    assert!(!text.contains("LiberationSans-Italic"));
    let det = s.get(&format!("{LABELS}?kind=determination"));
    assert_eq!(check_pdf(&det.body), 1);
    assert!(String::from_utf8_lossy(&det.body).contains("CATLBL+LiberationSans-Italic"));
    // No specimen: one page, the note saying so (its text read back by
    // tests/labels/check.py), not a blank one.
    let none = s.get(&format!("{LABELS}?kind=data&family=nothing-of-that-name"));
    assert_eq!(none.status, 200);
    assert_eq!(check_pdf(&none.body), 1);
    assert!(String::from_utf8_lossy(&none.body).contains("FontFile2"));
    // HEAD says what a GET would send, without making it.
    let head = s.send("HEAD", LABELS, &[]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("content-type"), Some("application/pdf"));
}

#[test]
fn a_sheet_of_many_pages_lists_each_page_once() {
    let dir = TempDir::new("labels-pages");
    let snapshot = common::generated(&dir, 1300);
    let s = Server::start(&snapshot, Settings::default());
    // 600 cells a page: three pages for 1,300 specimens.
    let r = s.get(LABELS);
    assert_eq!(check_pdf(&r.body), 3);
    assert!(String::from_utf8_lossy(&r.body).contains("/Count 3"));
    let before = s.metric("catalogue_worked_documents_total");
    let data = s.get(&format!("{LABELS}?kind=data&qr=true&sort=-year&limit=250"));
    assert_eq!(data.status, 200);
    assert!(check_pdf(&data.body) >= 1);
    assert_eq!(s.metric("catalogue_worked_documents_total"), before + 1);
    assert_eq!(
        s.metric("catalogue_streamed_units"),
        0,
        "given back once sent"
    );
}

#[test]
fn the_csv_holds_each_labels_lines_for_the_question() {
    let s = Server::sample();
    let r = s.get(&format!("{LABELS}?kind=data&format=csv&family=Nymphalidae"));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/csv; charset=utf-8"));
    assert_eq!(
        r.header("content-disposition"),
        Some(
            common::disposition(
                &s,
                "labels-data",
                "kind=data&format=csv&family=Nymphalidae",
                "csv"
            )
            .as_str()
        )
    );
    assert_eq!(
        r.text(),
        "usi,region,locality,point,date,collectors\r\n\
         UMMZ-000001,USA: Louisiana: Orleans Par.,\"Audubon Park, New Orleans\",,\"4-Oct-2019, Net\",\"leg. R.M. Alvarez, A. Brooks, H. Brooks Jr., T.J. Côté III\"\r\n\
         UMMZ-000002,USA: Michigan: Washtenaw Co.,\"Matthaei Botanical Gardens, 2 km NE Ann Arbor\",\"42.298611, -83.663889, 260 m\",\"Aug 2018, Reared\",leg. R.M. Alvarez\r\n\
         UMMZ-000006,USA: Arizona: Cochise Co.,\"Ramsey Canyon Preserve, Hereford\",,\"Jul 2021, Sweep\",\"leg. R.M. Alvarez, T.J. Côté III\"\r\n"
    );
    let det = s.get(&format!(
        "{LABELS}?kind=determination&format=csv&sort=-id&limit=2"
    ));
    assert_eq!(
        det.text(),
        "usi,family,taxon,determiner\r\n\
         UMMZ-000008,Saturniidae,\"Saturniidae Boisduval, 1837\",\r\n\
         UMMZ-000007,,,\r\n"
    );
}

#[test]
fn the_codes_say_what_the_operator_asks() {
    let template = Template::parse("www.memcollection.com/s/{digits}").unwrap();
    let settings = Settings {
        label_url: Some(template),
        ..Settings::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    let r = s.get(&format!("{LABELS}?format=csv&limit=2"));
    assert_eq!(
        r.text(),
        "usi,code\r\nUMMZ-000001,www.memcollection.com/s/000001\r\n\
         UMMZ-000002,www.memcollection.com/s/000002\r\n"
    );
    // By default, the specimen's short link on the server that printed it
    // (tests/short.rs: its record where the digits are not its alone).
    let s = Server::sample();
    let r = s.send(
        "GET",
        &format!("{LABELS}?format=csv&limit=1&kind=data&qr=1"),
        &[("Host", "labels.example:8443")],
    );
    assert!(
        r.text()
            .ends_with(",http://labels.example:8443/s/000001\r\n"),
        "{}",
        r.text()
    );
}

#[test]
fn a_locality_of_300_characters_is_reported_by_label_and_line() {
    let dir = TempDir::new("labels-overflow");
    let long = "Along the old logging road north of the second creek crossing, \
        in the mixed hardwood stand below the ridge, where the trail bends east \
        toward the beaver meadows, then a further half kilometre through wet \
        alder thickets to the edge of the sphagnum bog at the foot of the hill, \
        light trap at the margin";
    assert_eq!(long.chars().count(), 300);
    let snapshot = common::generated_with(&dir, 200, |c| {
        c.localities[0].name = Some(long.to_string());
    });
    let s = Server::start(&snapshot, Settings::default());
    // Which labels hold it, from their lines.
    let csv = s.get(&format!("{LABELS}?kind=data&format=csv"));
    let holding: Vec<String> = csv
        .text()
        .lines()
        .filter(|l| l.contains("beaver meadows"))
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    assert!(
        !holding.is_empty(),
        "the generator puts specimens at locality 0"
    );
    let pdf = s.get(&format!("{LABELS}?kind=data"));
    assert_eq!(pdf.status, 200);
    // The labels' pages, as the preview counts them, and the note's after them.
    let preview = s.get(&format!("{LABELS}?kind=data&format=html")).text();
    let pages: usize = preview
        .split(" labels on ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the preview counts the pages");
    assert_eq!(check_pdf(&pdf.body), pages + 1);
    let report = pdf.header("x-label-overflow").expect("an overflow report");
    // A HEAD measures the labels as the GET does, and says the same.
    for format in ["", "&format=csv"] {
        let head = s.send("HEAD", &format!("{LABELS}?kind=data{format}"), &[]);
        assert_eq!(head.header("x-label-overflow"), Some(report), "{format}");
    }
    let named: Vec<&str> = report
        .split_once(": ")
        .unwrap()
        .1
        .split("), ")
        .filter(|e| e.contains("locality"))
        .map(|e| e.split(" (").next().unwrap())
        .collect();
    // The header names the first twenty; each label holding it is among them,
    // in the sheet's order, until the header stops naming.
    assert!(!named.is_empty(), "{report}");
    assert_eq!(named, holding[..named.len()].to_vec());
    let counted: usize = report.split(' ').next().unwrap().parse().unwrap();
    assert!(counted >= holding.len(), "{report}");
    // The preview lists every one of them, with the line.
    let preview = s.get(&format!("{LABELS}?kind=data&format=html"));
    assert_eq!(preview.status, 200);
    assert_eq!(
        preview.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let page = preview.text();
    for usi in &holding {
        assert!(
            page.contains(&format!("<code>{usi}</code>: locality")),
            "{usi}"
        );
    }
    assert!(page.contains("<svg"));
    assert!(page.contains("labels do not fit, even at 3 pt"));
}

#[test]
fn a_sheet_holds_at_most_max_labels() {
    let settings = Settings {
        max_labels: 5,
        ..Settings::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    s.assert_error(
        LABELS,
        400,
        "this question selects 8 specimens, and a sheet holds at most 5 labels \
         (--max-labels): narrow it with filters, or print it in parts with offset and limit",
    );
    // A HEAD is refused alike (its question is answered, its labels not laid out).
    assert_eq!(s.send("HEAD", LABELS, &[]).status, 400);
    assert_eq!(
        s.send("HEAD", &format!("{LABELS}?limit=5"), &[]).status,
        200
    );
    assert_eq!(s.get(&format!("{LABELS}?limit=5")).status, 200);
    assert_eq!(s.get(&format!("{LABELS}?offset=3")).status, 200);
    assert_eq!(s.get(&format!("{LABELS}?family=Nymphalidae")).status, 200);
}

#[test]
fn bad_choices_are_refused_with_what_is_allowed() {
    let s = Server::sample();
    s.assert_error(
        &format!("{LABELS}?kind=pinned"),
        400,
        "kind must be qr, data or determination, not \"pinned\"",
    );
    s.assert_error(
        &format!("{LABELS}?width_mm=2"),
        400,
        "width_mm must be a number from 5 to 180 (millimetres), not \"2\"",
    );
    s.assert_error(
        &format!("{LABELS}?font_pt=NaN"),
        400,
        "font_pt must be a number from 2 to 24 (points), not \"NaN\"",
    );
    s.assert_error(
        &format!("{LABELS}?paper=legal"),
        400,
        "paper must be letter or a4, not \"legal\"",
    );
    s.assert_error(
        &format!("{LABELS}?format=docx"),
        400,
        "format must be pdf, csv or html, not \"docx\"",
    );
    let list = s.json("/api/v2/specimen-records/?sort=nowhere", 400);
    let message = list["message"].as_str().unwrap();
    s.assert_error(&format!("{LABELS}?sort=nowhere"), 400, message);
    // Fields left empty are no choice: the defaults.
    let r = s.get(&format!("{LABELS}?kind=&width_mm=&paper=&format=csv"));
    assert_eq!(r.status, 200);
    assert!(r.text().starts_with("usi,code\r\n"));
    // The preview's refusal is a page.
    let page = s.get(&format!("{LABELS}?format=html&kind=pinned"));
    assert_eq!(page.status, 400);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    // Without its slash, redirected with its question.
    let r = s.get("/api/v2/specimen-records/labels?kind=data");
    assert_eq!(r.status, 301);
    assert_eq!(
        r.header("location"),
        Some("/api/v2/specimen-records/labels/?kind=data")
    );
}

#[test]
fn the_form_sent_with_empty_fields_answers_its_filter_and_links_its_labels() {
    let s = Server::sample();
    let html = [("Accept", "text/html")];
    // As a browser submits the form from the bare list address: every field,
    // most of them empty, the selects at "any" and "unknown".
    let r = s.send(
        "GET",
        "/api/v2/specimen-records/?search=&sort=&limit=&family=Nymphalidae&year=&sex=&labels_printed=unknown",
        &html,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let page = r.text();
    assert!(page.contains("UMMZ-000001") && page.contains("UMMZ-000006"));
    assert!(!page.contains("UMMZ-000003"));
    // "Print labels" beside the counts: the question without its paging,
    // its text matched as the page matches it (without regard to accents).
    let link = "/api/v2/specimen-records/labels/?family=Nymphalidae&amp;labels_printed=unknown&amp;unaccented=1&amp;kind=data\"";
    assert!(page.contains(link), "{page}");
    let csv = s.get(&format!(
        "{LABELS}?family=Nymphalidae&labels_printed=unknown&kind=data&format=csv"
    ));
    assert_eq!(csv.text().lines().count(), 4);
}

/// A sheet has no tag, so no `If-None-Match` (not even `*`) answers it: it is
/// made as for any GET.
#[test]
fn a_revalidation_of_a_sheet_makes_it() {
    let s = Server::sample();
    let r = s.send("GET", LABELS, &[("If-None-Match", "*")]);
    assert_eq!(r.status, 200);
    assert!(r.body.starts_with(b"%PDF-"), "{} bytes", r.body.len());
    assert_eq!(r.header("etag"), None);
}

/// The preview's footer offers what its address answers: the sheet as PDF and
/// CSV, not JSON (which is 400 there).
#[test]
fn the_previews_footer_offers_only_what_answers() {
    let s = Server::sample();
    let page = s.get(&format!("{LABELS}?format=html")).text();
    assert!(
        page.contains("This preview's sheet is a PDF (<code>format=pdf</code>) or CSV (<code>format=csv</code>)."),
        "{page}"
    );
    assert!(!page.contains("format=json"));
    assert_eq!(s.get(&format!("{LABELS}?format=json")).status, 400);
    for format in ["pdf", "csv"] {
        assert_eq!(s.get(&format!("{LABELS}?format={format}")).status, 200);
    }
}
