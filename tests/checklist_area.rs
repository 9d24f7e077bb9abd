//! The checklist of a drawn area: `geometry` (WKT polygons and multipolygons,
//! as GBIF's search reads them) on `/api/v2/specimen-records/checklist/`.

use std::collections::BTreeSet;

use crate::common;

use common::{Server, TempDir};
use serde_json::Value;

/// A specimen's taxon's scientific name, as a checklist names it.
fn scientific_name(taxon: &Value) -> Option<String> {
    ["trinomial", "binomial", "name"]
        .iter()
        .find_map(|k| taxon.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// The (longitude, latitude, scientific name) of every specimen with both.
fn placed(s: &Server) -> Vec<(f64, f64, Option<String>)> {
    let body = s.json(
        "/api/v2/specimen-records/?limit=100000&fields=_,id,gps,taxon",
        200,
    );
    let number = |v: &Value| v.as_str().and_then(|t| t.parse::<f64>().ok());
    body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| {
            let (lon, lat) = (
                number(&i["gps"]["longitude"])?,
                number(&i["gps"]["latitude"])?,
            );
            Some((lon, lat, scientific_name(&i["taxon"])))
        })
        .collect()
}

fn names(checklist: &Value) -> BTreeSet<String> {
    checklist["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["scientific_name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_polygons_checklist_lists_exactly_the_species_collected_inside() {
    let dir = TempDir::new("checklist-area");
    let s = Server::start(&common::generated(&dir, 1500), Default::default());
    let points = placed(&s);
    let inside = |boxes: &[[f64; 4]]| {
        let within: Vec<&(f64, f64, Option<String>)> = points
            .iter()
            .filter(|(lon, lat, _)| {
                boxes
                    .iter()
                    .any(|[x0, y0, x1, y1]| x0 < lon && lon < x1 && y0 < lat && lat < y1)
            })
            .collect();
        let names: BTreeSet<String> = within.iter().filter_map(|p| p.2.clone()).collect();
        (within.len(), names)
    };
    let path = "/api/v2/specimen-records/checklist/?format=json&geometry=";
    let polygon = "POLYGON((-120 30,-90 30,-90 45,-120 45,-120 30))";
    let (count, want) = inside(&[[-120.0, 30.0, -90.0, 45.0]]);
    assert!(count > 10 && want.len() > 5, "{count} specimens inside");
    let all = s.json("/api/v2/specimen-records/checklist/?format=json", 200);
    assert!(
        names(&all).len() > want.len() + 5,
        "some species are outside"
    );
    let got = s.json(&format!("{path}{}", polygon.replace(' ', "%20")), 200);
    assert_eq!(got["meta"]["specimens"], count);
    assert_eq!(names(&got), want);
    // GBIF's search of the same polygon finds the same specimens.
    let gbif = s.json(
        &format!(
            "/gbif/v1/occurrence/search?limit=0&geometry={}",
            polygon.replace(' ', "%20")
        ),
        200,
    );
    assert_eq!(gbif["count"], count);

    // A multipolygon, and two geometries: any of the areas.
    let boxes = [[-150.0, 15.0, -130.0, 25.0], [-80.0, 40.0, -60.0, 56.0]];
    let (count, want) = inside(&boxes);
    assert!(count > 0);
    let multi = "MULTIPOLYGON(((-150 15,-130 15,-130 25,-150 25,-150 15)),\
                 ((-80 40,-60 40,-60 56,-80 56,-80 40)))";
    let got = s.json(&format!("{path}{}", multi.replace(' ', "%20")), 200);
    assert_eq!(
        (got["meta"]["specimens"].clone(), names(&got)),
        (count.into(), want.clone())
    );
    let two = format!(
        "{path}POLYGON((-150%2015,-130%2015,-130%2025,-150%2025,-150%2015))\
         &geometry=POLYGON((-80%2040,-60%2040,-60%2056,-80%2056,-80%2040))"
    );
    assert_eq!(names(&s.json(&two, 200)), want);
    // With the question's filters, POSTed as a form too.
    let r = s.post(
        "/api/v2/specimen-records/checklist/?format=json",
        "application/x-www-form-urlencoded",
        &format!("geometry={}&year=1", multi.replace(' ', "+")),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["meta"]["specimens"], 0);
    // An area where nothing was collected; a geometry that is not one.
    let empty = s.json(
        &format!("{path}POLYGON((0%200,1%200,1%201,0%201,0%200))"),
        200,
    );
    assert_eq!(
        (empty["meta"]["specimens"].clone(), names(&empty).len()),
        (0.into(), 0)
    );
    let r = s.get(&format!("{path}POINT(1%202)"));
    assert_eq!(r.status, 400);
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("geometry: "),
        "{}",
        r.text()
    );
    // The page names the area, and its CSV link keeps it.
    let page = s.get(&format!(
        "/api/v2/specimen-records/checklist/?format=html&geometry={}",
        polygon.replace(' ', "%20")
    ));
    let text = page.text();
    assert!(text.contains("collected within 1 area"), "{text}");
    assert!(text.contains("geometry=POLYGON"), "{text}");
}
