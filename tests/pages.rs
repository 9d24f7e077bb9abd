//! The pages for people: which requests get them (and which keep getting the exact
//! JSON they got), their headers, links and escaping, and the files they load.

use crate::common;

use common::{sample_fixture, Reply, Server, TempDir};

use catalogue::html::Site;
use catalogue::serve::Settings;

const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

fn page(s: &Server, path: &str) -> Reply {
    s.send("GET", path, &[("Accept", BROWSER)])
}

fn html(s: &Server, path: &str, status: u16) -> String {
    let r = page(s, path);
    assert_eq!(r.status, status, "{path}: {}", r.text());
    assert_eq!(
        r.header("content-type"),
        Some("text/html; charset=utf-8"),
        "{path}"
    );
    r.text()
}

#[test]
fn browsers_get_pages_and_every_other_client_gets_the_same_json() {
    let s = Server::sample();
    for path in [
        "/api/v2/orders/?limit=2",
        "/api/v2/specimen-records/?family=idae&sort=-year",
        "/api/v2/nested-families/",
        "/api/v2/people/3/",
        "/api/v2/gps-coordinates/?format=geojson",
    ] {
        let json = s.get(path);
        assert_eq!(json.status, 200, "{path}");
        // An answer with media URLs (a featured image's) built them from the Host.
        let vary = match json.text().contains("http://t/media/") {
            true => "Accept, Accept-Encoding, Host",
            false => "Accept, Accept-Encoding",
        };
        for accept in [
            None,
            Some("*/*"),
            Some("application/json"),
            Some("application/json, text/html"),
        ] {
            let headers: Vec<(&str, &str)> = accept.map(|a| ("Accept", a)).into_iter().collect();
            let r = s.send("GET", path, &headers);
            assert_eq!(r.body, json.body, "{path} with {accept:?}");
            assert_eq!(r.header("content-type"), json.header("content-type"));
            assert_eq!(r.header("vary"), Some(vary), "{path}");
        }
        // A browser's Accept gets the page, unless `format` names JSON.
        let p = page(&s, path);
        let explicit = path.contains("format=");
        assert_eq!(
            p.header("content-type"),
            Some(match explicit {
                true => json.header("content-type").unwrap(),
                false => "text/html; charset=utf-8",
            }),
            "{path}"
        );
        assert_eq!(p.header("vary"), Some(vary), "{path}");
        if !explicit {
            assert_ne!(
                p.header("etag"),
                json.header("etag"),
                "{path}: one tag per representation"
            );
        }
    }
    let sep = |p: &str| if p.contains('?') { '&' } else { '?' };
    for path in ["/api/v2/orders/", "/api/v2/people/3/"] {
        for format in ["html", "api"] {
            let r = s.get(&format!("{path}{}format={format}", sep(path)));
            assert_eq!(r.status, 200);
            assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
        }
        let r = s.send(
            "GET",
            &format!("{path}{}format=json", sep(path)),
            &[("Accept", BROWSER)],
        );
        assert_eq!(
            r.body,
            s.get(path).body,
            "{path}: format=json wins over Accept"
        );
    }
}

#[test]
fn a_page_has_its_own_tag_revalidates_and_answers_head() {
    let s = Server::sample();
    let path = "/api/v2/specimen-records/?sex=female";
    let first = page(&s, path);
    assert_eq!(first.status, 200);
    let tag = first.header("etag").unwrap().to_string();
    let again = s.send("GET", path, &[("Accept", BROWSER), ("If-None-Match", &tag)]);
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    // The JSON answer does not take the page's tag.
    let json = s.send("GET", path, &[("If-None-Match", &tag)]);
    assert_eq!(json.status, 200);
    let head = s.send("HEAD", path, &[("Accept", BROWSER)]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("etag"), Some(tag.as_str()));
    // Compressed like JSON.
    let gz = s.send(
        "GET",
        path,
        &[("Accept", BROWSER), ("Accept-Encoding", "gzip")],
    );
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
}

#[test]
fn pages_say_what_they_may_load_and_send() {
    let s = Server::sample();
    let r = page(&s, "/api/v2/gps-coordinates/");
    assert_eq!(
        r.header("content-security-policy"),
        Some(
            "default-src 'none'; script-src 'self'; \
             style-src 'self' 'sha256-9xTiqzfwFaL2SGb1rmr8gysEwVVjIvqWAgmZgqFqpEE='; img-src 'self' data: ; \
             connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; \
             frame-ancestors 'none'"
        )
    );
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(r.header("referrer-policy"), Some("same-origin"));
    let body = r.text();
    assert!(!body.contains("data-tiles"), "no tiles unless configured");
    // Links may lead elsewhere (the dataset's licence); nothing loads from there.
    assert!(
        !body.contains("src=\"http") && !body.contains("stylesheet\" href=\"http"),
        "no other host"
    );
    assert!(!body.contains("<script>"), "no inline script");
    // With --map-tiles, the tile host is allowed for images and given to the map.
    let settings = Settings {
        site: Site {
            map_tiles: Some("https://{s}.tiles.example.org/{z}/{x}/{y}.png".into()),
            map_attribution: Some("© Tiles <b>& co</b>".into()),
        },
        ..Settings::default()
    };
    let tiled = Server::start(&common::sample_snapshot(), settings);
    let r = page(&tiled, "/api/v2/gps-coordinates/");
    assert!(r
        .header("content-security-policy")
        .unwrap()
        .contains("img-src 'self' data: https://*.tiles.example.org;"));
    assert!(r
        .text()
        .contains(r#"data-tiles="https://{s}.tiles.example.org/{z}/{x}/{y}.png""#));
    assert!(r
        .text()
        .contains(r#"data-attribution="© Tiles &lt;b&gt;&amp; co&lt;/b&gt;""#));
}

#[test]
fn list_pages_link_pages_sorts_filters_and_records() {
    let s = Server::sample();
    let body = html(
        &s,
        "/api/v2/specimen-records/?limit=3&offset=3&sex=female",
        200,
    );
    assert!(body.contains("<strong>3</strong> records"), "{body}");
    let body = html(&s, "/api/v2/specimen-records/?limit=3&offset=3", 200);
    assert!(body.contains("<strong>8</strong> records, showing 4–6."));
    for link in [
        r#"<a rel="first" href="/api/v2/specimen-records/?limit=3&amp;offset=0">"#,
        r#"<a rel="prev" href="/api/v2/specimen-records/?limit=3&amp;offset=0">"#,
        r#"<a rel="next" href="/api/v2/specimen-records/?limit=3&amp;offset=6">"#,
        r#"<a rel="last" href="/api/v2/specimen-records/?limit=3&amp;offset=6">"#,
        // A sortable column sorts; the page starts again.
        r#"<a href="/api/v2/specimen-records/?limit=3&amp;sort=sex">Sex</a>"#,
        // The same query as JSON and GeoJSON.
        r#"href="/api/v2/specimen-records/?limit=3&amp;offset=3&amp;format=json""#,
        r#"href="/api/v2/specimen-records/?limit=3&amp;offset=3&amp;format=geojson""#,
        // Records and their related records link to their pages.
        r#"<a href="/api/v2/specimen-records/4/">4</a>"#,
        r#"<a href="/api/v2/species/4/">Cicindela sexguttata</a>"#,
    ] {
        assert!(body.contains(link), "missing {link}");
    }
    // The first page has no way back; the last none forward.
    let first = html(&s, "/api/v2/specimen-records/?limit=3", 200);
    assert!(!first.contains(r#"rel="prev""#) && first.contains(r#"rel="next""#));
    let last = html(&s, "/api/v2/specimen-records/?limit=3&offset=6", 200);
    assert!(last.contains(r#"rel="prev""#) && !last.contains(r#"rel="next""#));
    // A filter in use is shown, with a link that removes it.
    let filtered = html(
        &s,
        "/api/v2/specimen-records/?family=idae&sex=male&labeled=unknown",
        200,
    );
    assert!(filtered.contains(
        r#"<a href="/api/v2/specimen-records/?sex=male&amp;labeled=unknown" aria-label="Remove the filter family""#
    ));
    assert!(
        !filtered.contains("Remove the filter labeled"),
        "unknown is no filter"
    );
    // The current sort shows its direction; the header turns it around.
    let sorted = html(&s, "/api/v2/people/?sort=last_name", 200);
    assert!(sorted.contains(
        r#"<th scope="col" aria-sort="ascending"><a href="/api/v2/people/?sort=-last_name">Last name ▲</a></th>"#
    ));
    // `fields` chooses the columns.
    let narrow = html(&s, "/api/v2/people/?fields=_,id,last_name", 200);
    assert!(narrow.contains(">Last name</a></th>") && !narrow.contains(">First name</a></th>"));
}

#[test]
fn the_label_form_keeps_its_values_and_counts_link_filters() {
    let s = Server::sample();
    let body = html(
        &s,
        "/api/v2/specimen-records/?family=nymph&sex=female&labels_printed=true&labeled=3",
        200,
    );
    for control in [
        r#"<input id="f-family" name="family" type="text" value="nymph">"#,
        r#"<option value="female" selected>female</option>"#,
        r#"<option value="true" selected>yes</option>"#,
        // The select's own spelling of false, as the old form sent it.
        r#"<select id="f-labeled" name="labeled"><option value="unknown">unknown</option><option value="true">yes</option><option value="false" selected>no</option></select>"#,
        r#"<input id="f-preparation_date" name="preparation_date" type="date" value="">"#,
        r#"<form class="filters" method="get" action="/api/v2/specimen-records/""#,
    ] {
        assert!(body.contains(control), "missing {control}");
    }
    // Counts over the filtered records, each adding its filter.
    let all = html(&s, "/api/v2/specimen-records/", 200);
    assert!(all.contains(
        r#"<a href="/api/v2/specimen-records/?family=Nymphalidae">Nymphalidae</a><span class="count">3</span>"#
    ));
    assert!(all.contains(
        r#"<a href="/api/v2/specimen-records/?collector_firstname=Amelia&amp;collector_lastname=Brooks">Amelia Brooks</a><span class="count">4</span>"#
    ));
    let json = s.json(
        "/api/v2/specimen-records/?collector_firstname=Amelia&collector_lastname=Brooks",
        200,
    );
    assert_eq!(json["meta"]["total_count"], 4);
    // A refused value is shown in the form, as the API words it.
    let refused = html(&s, "/api/v2/specimen-records/?year=soon", 400);
    assert!(refused.contains(
        r#"<p class="error" role="alert">year must be an integer; not &quot;soon&quot;</p>"#
    ));
    assert!(refused.contains(r#"name="year" type="number" step="1" value="soon""#));
}

#[test]
fn record_pages_front_page_docs_and_not_found() {
    let s = Server::sample();
    let record = html(&s, "/api/v2/specimen-records/2/", 200);
    assert!(record.contains("<h1>UMMZ-000002</h1>"));
    assert!(
        record.contains(r#"data-lat="42.298611" data-lng="-83.663889""#),
        "its place on a map"
    );
    assert!(record.contains(r#"<a href="/api/v2/localities/1/">Matthaei Botanical Gardens</a>"#));
    html(&s, "/api/v2/specimen-records/999/", 404);
    html(&s, "/api/v2/bogus/", 404);
    assert!(html(&s, "/api/v2/specimens/", 404).contains("did you mean /api/v2/specimen-records/"));
    for home in ["/", "/api/v2/"] {
        let body = html(&s, home, 200);
        assert!(body.contains(r#"<a href="/api/v2/specimen-records/">specimen-records</a> — 8"#));
        assert!(
            body.contains(r#"<a href="/api/v2/docs">"#)
                && body.contains(r#"<a href="/api/v2/openapi.json">"#)
        );
        // JSON clients find the API root there.
        assert_eq!(s.json(home, 200)["lists"]["orders"], "/api/v2/orders/");
    }
    let docs = s.get("/api/v2/docs");
    assert_eq!(docs.status, 200);
    assert!(docs
        .text()
        .contains(r#"<div id="swagger-ui" data-spec="/api/v2/openapi.json"></div>"#));
}

#[test]
fn every_value_from_the_collection_is_text() {
    let dir = TempDir::new("pages-hostile");
    let mut records: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(sample_fixture()).unwrap()).unwrap();
    let hostile = [
        ("notes", "<script>alert(1)</script>"),
        ("habitat", "<img src=x onerror=alert(2)>"),
        ("weather", "\"><svg onload=alert(3)>"),
        ("method", "javascript:alert(4)"),
    ];
    for r in records
        .iter_mut()
        .filter(|r| r["model"] == "specimens.specimenrecord")
    {
        for (k, v) in hostile {
            r["fields"][k] = v.into();
        }
    }
    for r in records
        .iter_mut()
        .filter(|r| r["model"] == "specimens.person")
    {
        r["fields"]["last_name"] = "O'Hara\" onmouseover=\"alert(5)".into();
    }
    let fixture = dir.path("hostile.json");
    std::fs::write(&fixture, serde_json::to_vec(&records).unwrap()).unwrap();
    let snapshot = dir.path("hostile.bin");
    let out = common::catalogue(&[
        "build",
        fixture.to_str().unwrap(),
        "-o",
        snapshot.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = Server::start(&snapshot, Settings::default());
    for path in [
        "/api/v2/specimen-records/",
        "/api/v2/specimen-records/1/",
        "/api/v2/people/",
        "/api/v2/people/1/",
        "/api/v2/specimen-records/?notes=%3Cscript%3E",
    ] {
        let body = html(&s, path, 200);
        for raw in [
            "<script>alert",
            "<img src=x",
            "<svg onload",
            "onmouseover=\"alert",
            "href=\"javascript:",
        ] {
            assert!(!body.contains(raw), "{path} holds {raw}");
        }
    }
    let body = html(&s, "/api/v2/specimen-records/1/", 200);
    for escaped in [
        // Markup in rich text goes through the sanitizer: nothing of it is kept.
        "<dt>Notes</dt><dd><div class=\"prose\"></div></dd>",
        "<dt>Habitat</dt><dd><div class=\"prose\"></div></dd>",
        // Plain text is escaped.
        "&quot;&gt;&lt;svg onload=alert(3)&gt;",
        "<dd>javascript:alert(4)</dd>",
        "O'Hara&quot; onmouseover=&quot;alert(5)",
    ] {
        assert!(body.contains(escaped), "missing {escaped}");
    }
    // The form echoes a hostile query as text too.
    let body = html(
        &s,
        "/api/v2/specimen-records/?family=%22%3E%3Cscript%3Ex%3C/script%3E",
        200,
    );
    assert!(body.contains(r#"value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;""#));
}

#[test]
fn the_pages_files_are_cached_for_a_year_and_compressed() {
    let s = Server::sample();
    let body = html(&s, "/api/v2/gps-coordinates/", 200);
    let at = body.find("/static/").unwrap();
    let url = &body[at..at + body[at..].find('"').unwrap()];
    assert!(url.ends_with("/site.css"), "{url}");
    let r = s.get(url);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/css; charset=utf-8"));
    assert_eq!(
        r.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    let plain = r.body;
    // Compressed on a thread of their own at start: sent as they are until then.
    let gzipped = || s.send("GET", url, &[("Accept-Encoding", "gzip")]);
    let mut gz = gzipped();
    for _ in 0..100 {
        if gz.header("content-encoding").is_some() {
            break;
        }
        assert_eq!(gz.body, plain, "as it is, until compressed");
        std::thread::sleep(std::time::Duration::from_millis(50));
        gz = gzipped();
    }
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert!(gz.body.len() < plain.len());
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz.body[..]), &mut out).unwrap();
    assert_eq!(out, plain);
    assert_ne!(gz.header("etag"), s.get(url).header("etag"));
    let map = url.replace("site.css", "vendor/leaflet/leaflet.js");
    assert_eq!(
        s.get(&map).header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    // Another build's files are not these.
    assert_eq!(s.get("/static/000000000000/site.css").status, 404);
}

/// The specimen list's form matches its text fields without regard to accents
/// and case (`unaccented=1`, which its page asks by default, and its map, chart
/// and label sheets with it); the API's filters match accents as the existing
/// service did, unless asked.
#[test]
fn the_forms_text_fields_match_without_accents_on_the_page() {
    let s = Server::sample();
    const LIST: &str = "/api/v2/specimen-records/";
    let rows = |body: &str| -> Vec<String> {
        body.split("href=\"/api/v2/specimen-records/")
            .skip(1)
            .filter_map(|p| {
                let id = &p[..p.find('/')?];
                (!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())).then(|| id.to_string())
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    for (query, ids) in [
        ("state=quebec", vec!["3"]),
        ("state=QUEBEC", vec!["3"]),
        ("state=Québec", vec!["3"]),
        ("collecting_trip=ete+2021", vec!["6"]),
        ("collector_lastname=cote", vec!["1", "6"]),
        ("locality=jacques-cartier", vec!["3"]),
    ] {
        let body = html(&s, &format!("{LIST}?{query}"), 200);
        assert_eq!(rows(&body), ids, "{query}");
        // Its map and its label sheets ask the same question.
        assert!(
            body.contains("unaccented=1"),
            "{query}: the page's links carry unaccented=1"
        );
        let json: Vec<String> = s
            .ids_of(&format!("{LIST}?{query}&unaccented=1&limit=100"))
            .iter()
            .map(|id| id.to_string())
            .collect();
        assert_eq!(json, ids, "{query} as JSON with unaccented=1");
    }
    // Said otherwise, the page matches accents as the API does.
    let body = html(&s, &format!("{LIST}?state=quebec&unaccented=0"), 200);
    assert!(body.contains("No records on this page."), "{body}");
    // The API's filters keep the service's semantics: accents as written.
    assert_eq!(
        s.ids_of(&format!("{LIST}?state=quebec&limit=100")),
        Vec::<i64>::new()
    );
    assert_eq!(s.ids_of(&format!("{LIST}?state=québec&limit=100")), vec![3]);
    assert_eq!(
        s.ids_of(&format!("{LIST}?collector_lastname=cote&limit=100")),
        Vec::<i64>::new()
    );
    s.assert_error(
        &format!("{LIST}?state=quebec&unaccented=maybe"),
        400,
        "unaccented must be 1 or 0, not \"maybe\"",
    );
    // The chips say the filters, not how they match.
    let body = html(&s, &format!("{LIST}?state=quebec"), 200);
    assert!(body.contains("state: <strong>quebec</strong>"), "{body}");
    assert!(!body.contains("unaccented: <strong>"), "{body}");
}

/// The maps' basemap, as served: no ring or border has a segment spanning more
/// than 180 degrees of longitude (which a map draws as a line across the world:
/// Fiji, Chukotka and Wrangel Island are split at the antimeridian, Antarctica
/// closed along the pole), every ring is closed, and the split land still
/// reaches the antimeridian from both sides.
#[test]
fn the_basemap_draws_no_line_across_the_world() {
    let s = Server::sample();
    let body = html(&s, "/api/v2/specimen-records/", 200);
    let at = body.find("data-basemap=\"").expect("a map") + "data-basemap=\"".len();
    let url = &body[at..at + body[at..].find('"').unwrap()];
    let basemap: serde_json::Value = s.get(url).json();
    let mut rings = Vec::new();
    for feature in basemap["features"].as_array().unwrap() {
        let coordinates = &feature["geometry"]["coordinates"];
        match feature["geometry"]["type"].as_str().unwrap() {
            "MultiPolygon" => {
                for polygon in coordinates.as_array().unwrap() {
                    for ring in polygon.as_array().unwrap() {
                        assert_eq!(ring[0], ring[ring.as_array().unwrap().len() - 1]);
                        rings.push(ring.clone());
                    }
                }
            }
            "MultiLineString" => rings.extend(coordinates.as_array().unwrap().iter().cloned()),
            other => panic!("{other}"),
        }
    }
    let lon = |p: &serde_json::Value| p[0].as_f64().unwrap();
    let mut touching = [0, 0];
    for ring in &rings {
        let points = ring.as_array().unwrap();
        for pair in points.windows(2) {
            assert!(
                (lon(&pair[1]) - lon(&pair[0])).abs() <= 180.0,
                "{} to {} spans the world",
                pair[0],
                pair[1]
            );
        }
        if points.iter().any(|p| lon(p) == -180.0) {
            touching[0] += 1;
        }
        if points.iter().any(|p| lon(p) == 180.0) {
            touching[1] += 1;
        }
    }
    assert!(touching[0] >= 3 && touching[1] >= 3, "{touching:?}");
}
