//! GBIF's occurrence search: every answer on a generated collection against a full
//! scan of every occurrence computed here (ranges, OR, polygons, facets, paging,
//! sort), and the HTTP answers on the bundled sample, exactly.

use crate::common;

use catalogue::model::dataset::Dataset;
use catalogue::model::Model;
use catalogue::query::gbif::{answer, Search};
use catalogue::query::Params;
use catalogue::view::View;
use common::{Server, TempDir};
use serde_json::Value;

/// A dataset without codes: each occurrenceID is the bare catalogue number.
fn undescribed() -> Dataset {
    Dataset::default()
}

/// Every occurrence of the view, as `/gbif/v1/occurrence/{key}` writes it.
fn occurrences(view: &View) -> Vec<Value> {
    (0..view.table(Model::SpecimenRecord).len())
        .map(|pos| serde_json::from_slice(&answer::one(view, &undescribed(), pos)).unwrap())
        .collect()
}

/// A search's count and page keys, and its whole answer.
fn search(view: &View, q: &str) -> (usize, Vec<i64>, Value) {
    let search = Search::parse(&Params::parse(q).unwrap(), view)
        .unwrap_or_else(|e| panic!("{q}: {}", e.message));
    let found = search.run(view);
    let body: Value =
        serde_json::from_slice(&answer::search(view, &undescribed(), &search, &found)).unwrap();
    let keys = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["key"].as_i64().unwrap())
        .collect();
    (found.count, keys, body)
}

/// The keys of the occurrences `keep` takes, ascending.
fn expected(all: &[Value], keep: impl Fn(&Value) -> bool) -> Vec<i64> {
    all.iter()
        .filter(|o| keep(o))
        .map(|o| o["key"].as_i64().unwrap())
        .collect()
}

/// Asserts that a search finds exactly `want` (asked with a limit that holds them all).
fn finds(view: &View, q: &str, want: &[i64]) {
    assert!(
        !want.is_empty(),
        "{q}: a check that finds nothing proves little"
    );
    let (count, keys, _) = search(view, &format!("{q}&limit=300&offset=0"));
    assert_eq!(count, want.len(), "{q}");
    let mut page = keys;
    page.sort_unstable();
    assert_eq!(page, want[..want.len().min(300)], "{q}");
}

fn num(o: &Value, term: &str) -> Option<f64> {
    o[term].as_f64()
}

fn text(o: &Value, term: &str) -> String {
    o[term].as_str().unwrap_or_default().to_string()
}

fn generated_view(specimens: usize) -> (TempDir, View) {
    let dir = TempDir::new("gbif");
    let view = View::load(&common::generated(&dir, specimens)).unwrap();
    (dir, view)
}

#[test]
fn ranges_ors_and_names_agree_with_a_full_scan() {
    let (_dir, view) = generated_view(3000);
    let all = occurrences(&view);
    assert_eq!(all.len(), 3000);

    let year = |o: &Value| num(o, "year");
    finds(
        &view,
        "year=1990,2000",
        &expected(&all, |o| {
            year(o).is_some_and(|y| (1990.0..=2000.0).contains(&y))
        }),
    );
    finds(
        &view,
        "year=*,1960&year=2020,*",
        &expected(&all, |o| {
            year(o).is_some_and(|y| y <= 1960.0 || y >= 2020.0)
        }),
    );
    finds(
        &view,
        "month=12,*",
        &expected(&all, |o| num(o, "month") == Some(12.0)),
    );
    finds(
        &view,
        "eventDate=1990-06,1990-08",
        &expected(&all, |o| {
            let d = text(o, "eventDate");
            d.len() >= 7 && ("1990-06".."1990-09").contains(&&d[..7])
        }),
    );

    // The two commonest families, one asked in another case: OR.
    let mut families: Vec<String> = all.iter().map(|o| text(o, "family")).collect();
    families.retain(|f| !f.is_empty());
    families.sort();
    families.dedup();
    let size = |f: &str| all.iter().filter(|o| text(o, "family") == f).count();
    families.sort_by_key(|f| std::cmp::Reverse(size(f)));
    let (a, b) = (&families[0], &families[1]);
    finds(
        &view,
        &format!("family={a}&family={}", b.to_uppercase()),
        &expected(&all, |o| text(o, "family") == *a || text(o, "family") == *b),
    );
    finds(
        &view,
        &format!("family={a}&year=1990,2010&sex=FEMALE"),
        &expected(&all, |o| {
            text(o, "family") == *a
                && year(o).is_some_and(|y| (1990.0..=2010.0).contains(&y))
                && text(o, "sex") == "female"
        }),
    );
    // A genus's name as scientificName: the genus and everything below it.
    let genus = text(&all[0], "genus");
    finds(
        &view,
        &format!("scientificName={genus}"),
        &expected(&all, |o| text(o, "genus") == genus),
    );
    let species = all
        .iter()
        .find(|o| text(o, "taxonRank") == "species")
        .unwrap();
    let name = text(species, "scientificName");
    let binomial = format!(
        "{} {}",
        text(species, "genus"),
        text(species, "specificEpithet")
    );
    let below = expected(&all, |o| {
        text(o, "genus") == text(species, "genus")
            && text(o, "specificEpithet") == text(species, "specificEpithet")
    });
    finds(
        &view,
        &format!("scientificName={}", urlencode(&name)),
        &below,
    );
    finds(
        &view,
        &format!("scientificName={}", urlencode(&binomial)),
        &below,
    );

    finds(
        &view,
        "hasCoordinate=false",
        &expected(&all, |o| o.get("decimalLatitude").is_none()),
    );
    finds(
        &view,
        "isGeoreferenced=true",
        &expected(&all, |o| o.get("decimalLatitude").is_some()),
    );
    finds(
        &view,
        "decimalLatitude=20,30.5&decimalLongitude=*,-100",
        &expected(&all, |o| {
            num(o, "decimalLatitude").is_some_and(|v| (20.0..=30.5).contains(&v))
                && num(o, "decimalLongitude").is_some_and(|v| v <= -100.0)
        }),
    );
    finds(
        &view,
        "basisOfRecord=PRESERVED_SPECIMEN&country=us",
        &expected(&all, |o| text(o, "countryCode") == "US"),
    );
}

fn urlencode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[test]
fn polygons_agree_with_a_full_scan() {
    let (_dir, view) = generated_view(3000);
    let all = occurrences(&view);
    let inside = |o: &Value, [x0, y0, x1, y1]: [f64; 4]| match (
        num(o, "decimalLongitude"),
        num(o, "decimalLatitude"),
    ) {
        (Some(x), Some(y)) => x >= x0 && x <= x1 && y >= y0 && y <= y1,
        _ => false,
    };
    let square = [-120.0, 25.0, -90.0, 45.0];
    let want = expected(&all, |o| inside(o, square));
    let ccw = "POLYGON((-120 25,-90 25,-90 45,-120 45,-120 25))";
    let cw = "POLYGON((-120 25,-120 45,-90 45,-90 25,-120 25))";
    finds(&view, &format!("geometry={}", urlencode(ccw)), &want);
    finds(&view, &format!("geometry={}", urlencode(cw)), &want);
    let (_, _, body) = search(&view, &format!("geometry={}&limit=0", urlencode(cw)));
    assert!(
        body["notes"][0]
            .as_str()
            .unwrap()
            .contains("runs clockwise"),
        "{body}"
    );
    let (_, _, body) = search(&view, &format!("geometry={}&limit=0", urlencode(ccw)));
    assert!(body.get("notes").is_none(), "{body}");

    // With a hole, and two polygons.
    let hole = [-110.0, 30.0, -100.0, 40.0];
    finds(
        &view,
        &format!(
            "geometry={}",
            urlencode("POLYGON((-120 25,-90 25,-90 45,-120 45,-120 25),(-110 30,-110 40,-100 40,-100 30,-110 30))")
        ),
        &expected(&all, |o| inside(o, square) && !inside(o, hole)),
    );
    let east = [-80.0, 50.0, -65.0, 60.0];
    finds(
        &view,
        &format!(
            "geometry={}",
            urlencode("MULTIPOLYGON(((-120 25,-90 25,-90 45,-120 45,-120 25)),((-80 50,-65 50,-65 60,-80 60,-80 50)))")
        ),
        &expected(&all, |o| inside(o, square) || inside(o, east)),
    );
    // Two geometries: either.
    finds(
        &view,
        &format!(
            "geometry={}&geometry={}",
            urlencode(ccw),
            urlencode("POLYGON((-80 50,-65 50,-65 60,-80 60,-80 50))")
        ),
        &expected(&all, |o| inside(o, square) || inside(o, east)),
    );
    // A triangle: the half of the square under its diagonal.
    finds(
        &view,
        &format!(
            "geometry={}",
            urlencode("POLYGON((-120 25,-90 25,-90 45,-120 25))")
        ),
        &expected(&all, |o| {
            inside(o, square) && {
                let (x, y) = (
                    num(o, "decimalLongitude").unwrap(),
                    num(o, "decimalLatitude").unwrap(),
                );
                // Under the line from (-120, 25) to (-90, 45).
                y - 25.0 < (x + 120.0) * (20.0 / 30.0)
            }
        }),
    );
}

#[test]
fn facets_page_and_count_as_a_full_scan_does() {
    let (_dir, view) = generated_view(3000);
    let all = occurrences(&view);
    let counted = |term: &str, keep: &dyn Fn(&Value) -> bool| {
        let mut n: std::collections::BTreeMap<String, usize> = Default::default();
        for o in all.iter().filter(|o| keep(o)) {
            let v = match &o[term] {
                Value::String(s) => s.clone(),
                Value::Number(x) => x.to_string(),
                _ => continue,
            };
            *n.entry(v).or_default() += 1;
        }
        let mut v: Vec<(String, usize)> = n.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v
    };
    let shown = |body: &Value, i: usize| -> Vec<(String, usize)> {
        body["facets"][i]["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["name"].as_str().unwrap().to_string(),
                    c["count"].as_u64().unwrap() as usize,
                )
            })
            .collect()
    };
    let everything = |_: &Value| true;
    let (_, keys, body) = search(
        &view,
        "facet=family&facet=YEAR&facetLimit=4&facetOffset=2&year.facetLimit=3&limit=0",
    );
    assert!(keys.is_empty());
    assert_eq!(body["facets"][0]["field"], "FAMILY");
    assert_eq!(body["facets"][1]["field"], "YEAR");
    let families = counted("family", &everything);
    assert!(families.len() > 6, "{families:?}");
    assert_eq!(shown(&body, 0), families[2..6]);
    assert_eq!(shown(&body, 1), counted("year", &everything)[2..5]);

    // facetMincount leaves out the rarer values.
    let (_, _, body) = search(&view, "facet=sex&facetMincount=100&facetLimit=100&limit=0");
    let want: Vec<_> = counted("sex", &everything)
        .into_iter()
        .filter(|(_, n)| *n >= 100)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(shown(&body, 0), want);

    // A filtered facet counts the filtered specimens; with facetMultiselect, as
    // if its own filter were not set.
    let sex = |o: &Value| text(o, "sex") == "female";
    let (_, _, body) = search(&view, "sex=female&facet=sex&facet=country&limit=0");
    assert_eq!(shown(&body, 0), counted("sex", &sex));
    assert_eq!(body["facets"][1]["field"], "COUNTRY");
    assert_eq!(
        shown(&body, 1),
        counted("countryCode", &sex)[..counted("countryCode", &sex).len().min(10)]
    );
    let (_, _, body) = search(
        &view,
        "sex=female&facet=sex&facet=country&facetMultiselect=true&facetLimit=100&limit=0",
    );
    assert_eq!(shown(&body, 0), counted("sex", &everything));
    assert_eq!(shown(&body, 1), counted("countryCode", &sex));
}

#[test]
fn paging_reaches_the_end_and_sort_orders_any_term() {
    let (_dir, view) = generated_view(3000);
    let all = occurrences(&view);
    let (count, first, body) = search(&view, "limit=5");
    assert_eq!((count, first.len()), (3000, 5));
    assert_eq!(body["endOfRecords"], false);
    assert_eq!(first, [1, 2, 3, 4, 5]);
    let (_, last, body) = search(&view, "offset=2997&limit=5");
    assert_eq!(last, [2998, 2999, 3000]);
    assert_eq!(body["endOfRecords"], true);
    let (_, none, body) = search(&view, "offset=5000&limit=5");
    assert!(none.is_empty());
    assert_eq!(body["count"], 3000);
    let (_, _, body) = search(&view, "limit=1000");
    assert_eq!(body["limit"], 300, "a larger limit is taken as the largest");

    // Descending year, the years' ties by key, no year last.
    let (_, keys, _) = search(&view, "sort=-year&limit=300&offset=2800");
    let mut want: Vec<(Option<i64>, i64)> = all
        .iter()
        .map(|o| (o["year"].as_i64(), o["key"].as_i64().unwrap()))
        .collect();
    want.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => y.cmp(&x).then(a.1.cmp(&b.1)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.1.cmp(&b.1),
    });
    let want: Vec<i64> = want
        .into_iter()
        .skip(2800)
        .take(200)
        .map(|(_, k)| k)
        .collect();
    assert_eq!(keys, want);
}

#[test]
fn the_http_answers_are_gbifs() {
    let server = Server::sample();
    let one = server.get("/gbif/v1/occurrence/3");
    assert_eq!(one.status, 200);
    assert_eq!(one.header("content-type"), Some("application/json"));
    // Terms without a value (county, the coordinates, habitat) are left out;
    // the codes are the bundled sample's dataset file's.
    assert_eq!(
        one.text(),
        concat!(
            r#"{"key":3,"occurrenceID":"urn:catalog:UMMZ:Insects:UMMZ-000003","catalogNumber":"UMMZ-000003","#,
            r#""basisOfRecord":"PreservedSpecimen","institutionCode":"UMMZ","#,
            r#""collectionCode":"Insects","kingdom":"Animalia","phylum":"Arthropoda","#,
            r#""class":"Insecta","order":"Lepidoptera","family":"Saturniidae","#,
            r#""subfamily":"Saturniinae","tribe":"Attacini","genus":"Hyalophora","#,
            r#""specificEpithet":"cecropia","scientificName":"Hyalophora cecropia (Linnaeus, 1758)","#,
            r#""taxonRank":"species","scientificNameAuthorship":"(Linnaeus, 1758)","#,
            r#""vernacularName":"Cecropia Moth","recordedBy":"Amelia Brooks | Henry Brooks, Jr.","#,
            r#""identifiedBy":"Rosa M. Alvarez","dateIdentified":"2022","eventDate":"2021-06-12","#,
            r#""year":2021,"month":6,"day":12,"country":"Canada","countryCode":"CA","#,
            r#""stateProvince":"Québec","locality":"Parc national de la Jacques-Cartier","#,
            r#""minimumElevationInMeters":400,"maximumElevationInMeters":550,"sex":"female","#,
            r#""lifeStage":"adult","preparations":"pinned","samplingProtocol":"MV light sheet","#,
            r#""eventRemarks":"weather: Overcast; temperature: 58 °F; time of day: 11:40 PM","#,
            r#""modified":"2024-03-09T16:20:00.999999Z","elevation":475,"issues":[]}"#
        )
    );
    let o = one.json();

    // One collector of several, in any case.
    let by = server.json(
        "/gbif/v1/occurrence/search?recordedBy=henry%20brooks,%20jr.&limit=300",
        200,
    );
    let keys: Vec<i64> = by["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["key"].as_i64().unwrap())
        .collect();
    assert!(keys.contains(&3), "{keys:?}");
    assert_eq!(by["count"], keys.len());

    let found = server.json("/gbif/v1/occurrence/search?catalogNumber=ummz-000003", 200);
    assert_eq!(found["count"], 1);
    assert_eq!(found["results"][0], o);

    let count = server.get("/gbif/v1/occurrence/count?year=1990,2020");
    assert_eq!(count.status, 200);
    let all = server.json("/gbif/v1/occurrence/search?year=1990,2020&limit=0", 200);
    assert_eq!(count.text(), all["count"].to_string());

    server.assert_error(
        "/gbif/v1/occurrence/search?taxonKey=5&datasetKey=x",
        400,
        "unknown parameters taxonKey, datasetKey: this collection answers q, scientificName, order, family, genus, country, countryCode, stateProvince, county, locality, recordedBy, identifiedBy, catalogNumber, basisOfRecord, sex, lifeStage, year, month, day, eventDate, decimalLatitude, decimalLongitude, elevation, hasCoordinate, isGeoreferenced, modified, geometry, issue, checklistKey, limit, offset, sort, facet, facetLimit, facetOffset, facetMincount, facetMultiselect",
    );
    server.assert_error(
        "/gbif/v1/occurrence/search?geometry=POLYGON((0%200,%2010%200,%2010%20x,%200%200))",
        400,
        "geometry: expected a latitude, found 'x' at character 24",
    );
    // A country as GBIF writes it (alpha-2), as ISO's alpha-3 or name, or as
    // the collection writes it (its abbreviation `USA`, its name): one count.
    let count = |q: &str| server.get(&format!("/gbif/v1/occurrence/count?{q}")).text();
    let us = count("country=US");
    assert!(us != "0");
    for q in [
        "country=USA",
        "country=usa",
        "countryCode=USA",
        "country=United%20States%20of%20America",
    ] {
        assert_eq!(count(q), us, "{q}");
    }
    assert!(count("country=CA") != "0");
    assert_eq!(count("country=Canada"), count("country=CA"));
    assert_eq!(count("country=XYZ"), "0");
    // A range from the larger to the smaller holds nothing, as GBIF answers it;
    // `*` alone is any value.
    assert_eq!(
        server
            .get("/gbif/v1/occurrence/count?year=2000,1990")
            .text(),
        "0"
    );
    let every = server.json("/gbif/v1/occurrence/search?limit=300", 200);
    let dated = every["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o.get("year").is_some())
        .count();
    assert!(dated > 0 && dated < every["count"].as_u64().unwrap() as usize);
    assert_eq!(
        server.get("/gbif/v1/occurrence/count?year=*").text(),
        dated.to_string()
    );
    server.assert_error(
        "/gbif/v1/occurrence/search?year=1e3",
        400,
        "year takes a number (1990, 45.5), or a range `from,to` of them (`*` for an open end), \
         not \"1e3\"",
    );
    // A date in another form is told the form to use.
    server.assert_error(
        "/gbif/v1/occurrence/search?eventDate=04/10/2019",
        400,
        "eventDate takes a date written YYYY, YYYY-MM or YYYY-MM-DD (2019, 2019-10, \
         2019-10-04), or a range `from,to` of them (`*` for an open end), not \"04/10/2019\"",
    );
    // pygbif sends a checklistKey with every search: names are the collection's own.
    assert_eq!(
        server
            .get("/gbif/v1/occurrence/count?checklistKey=7ddf754f-d193-4cc9-b351-99906754a03b")
            .text(),
        server.get("/gbif/v1/occurrence/count").text()
    );
    server.assert_error(
        "/gbif/v1/occurrence/search?facet=weather",
        400,
        "facet cannot count weather: it takes catalogNumber, basisOfRecord, scientificName, order, family, genus, country, countryCode, stateProvince, county, locality, recordedBy, identifiedBy, sex, lifeStage, year, month, day, issue",
    );
    server.assert_error(
        "/gbif/v1/occurrence/999999",
        404,
        "no occurrence has the key \"999999\"",
    );
    assert_eq!(server.get("/gbif/v1/occurrence/search/").status, 404);
}

/// A polygon too long for a request's head is searched as a form POSTed to the
/// same path: 10,000 vertices along a square's edges find what the square finds.
#[test]
fn a_polygon_too_long_for_a_head_is_posted_as_a_form() {
    let dir = TempDir::new("gbif-form");
    let s = Server::start(&common::generated(&dir, 3000), Default::default());
    let square = "POLYGON((-120 25,-90 25,-90 45,-120 45,-120 25))";
    let search = "/gbif/v1/occurrence/search";
    let by_get = s.get(&format!(
        "{search}?limit=300&geometry={}",
        urlencode(square)
    ));
    assert_eq!(by_get.status, 200);
    let found = by_get.json()["count"].as_u64().unwrap();
    assert!(found > 0, "a check that finds nothing proves little");
    // 9,999 vertices along the four edges, then the first again.
    let corners = [(-120.0, 25.0), (-90.0, 25.0), (-90.0, 45.0), (-120.0, 45.0)];
    let ring = |vertices: usize| {
        let mut points = Vec::new();
        for (e, &(x0, y0)) in corners.iter().enumerate() {
            let (x1, y1) = corners[(e + 1) % 4];
            let n = vertices / 4 + usize::from(e < vertices % 4);
            for k in 0..n {
                let t = k as f64 / n as f64;
                points.push(format!(
                    "{:.6} {:.6}",
                    x0 + (x1 - x0) * t,
                    y0 + (y1 - y0) * t
                ));
            }
        }
        points.push(points[0].clone());
        format!("POLYGON(({}))", points.join(","))
    };
    let form = format!("limit=300&geometry={}", urlencode(&ring(9_999)));
    assert!(form.len() > 200_000, "{} bytes", form.len());
    let too_long = s.get(&format!("{search}?{form}"));
    assert_eq!(too_long.status, 431, "as a GET, it does not fit a head");
    let posted = s.post(search, "application/x-www-form-urlencoded", &form);
    assert_eq!(posted.status, 200, "{}", posted.text());
    assert_eq!(posted.json(), by_get.json());
    // The query's parameters count too; the count takes forms as well.
    let geometry = format!("geometry={}", urlencode(&ring(9_999)));
    let counted = s.post(
        "/gbif/v1/occurrence/count?limit=0",
        "application/x-www-form-urlencoded; charset=utf-8",
        &geometry,
    );
    assert_eq!(counted.status, 200, "{}", counted.text());
    assert_eq!(counted.text(), found.to_string());
    // What a form may not be.
    let more = format!("geometry={}", urlencode(&ring(10_000)));
    let refused = s.post(search, "application/x-www-form-urlencoded", &more);
    assert_eq!(refused.status, 400);
    assert!(
        refused.text().contains("at most 10000 vertices"),
        "{}",
        refused.text()
    );
    // A form of unknown names: the first ten said, the rest counted.
    let unknown: Vec<String> = (0..20_000).map(|i| format!("unknown{i:05}=1")).collect();
    let refused = s.post(
        search,
        "application/x-www-form-urlencoded",
        &unknown.join("&"),
    );
    assert_eq!(refused.status, 400);
    let message = refused.json()["message"].as_str().unwrap().to_string();
    assert!(
        message.starts_with(
            "unknown parameters unknown00000, unknown00001, unknown00002, unknown00003, \
             unknown00004, unknown00005, unknown00006, unknown00007, unknown00008, \
             unknown00009 and 19990 more: this collection answers "
        ),
        "{message}"
    );
    assert!(message.len() < 4096, "{} bytes", message.len());
    // Nor may its geometries together.
    let two = format!(
        "geometry={}&geometry={}",
        urlencode(&ring(5_999)),
        urlencode(&ring(5_999))
    );
    let refused = s.post(search, "application/x-www-form-urlencoded", &two);
    assert_eq!(refused.status, 400);
    assert_eq!(
        refused.json()["message"],
        "geometry: the geometries of a request have at most 10000 vertices in all"
    );
    let plain = s.post(search, "text/plain", &form);
    assert_eq!(plain.status, 415, "{}", plain.text());
    let huge = "x".repeat(catalogue::query::params::MAX_FORM_BYTES + 1);
    let huge = s.post(search, "application/x-www-form-urlencoded", &huge);
    assert_eq!(huge.status, 413, "{}", huge.text());
    // A record takes no form (the lists do: tests/many.rs).
    let elsewhere = s.post(
        "/api/v2/orders/1/",
        "application/x-www-form-urlencoded",
        "limit=1",
    );
    assert_eq!(elsewhere.status, 405);
    assert_eq!(elsewhere.header("allow"), Some("GET, HEAD, OPTIONS"));
}
