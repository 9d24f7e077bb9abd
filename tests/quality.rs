//! The data-quality flags: errors planted in a generated collection, each found
//! as exactly its flag, controls placed well inside their county, state and
//! country found clean; and `issue=`, `facet=issue`, GBIF's `issue` and
//! `issues`, the CSV's `issue` column and `/api/v2/quality/` agreeing for every
//! flag.

use std::collections::BTreeSet;

use catalogue::model::records::Collection;
use catalogue::quality::Flag;

use crate::common::{self, Server, TempDir};

const SPECIMENS: &str = "/api/v2/specimen-records/";

/// A specimen planted: its point (none without a GPS record), elevation,
/// place, dates, whether it names a taxon, and the flags it must have.
struct Plant {
    point: Option<(&'static str, &'static str)>,
    elevation: &'static str,
    country: Place,
    state: Place,
    county: Option<&'static str>,
    date: (Option<i64>, &'static str, Option<i64>),
    determined: Option<i64>,
    identified: bool,
    flags: &'static [&'static str],
}

/// A country or state by name and abbreviation.
type Place = Option<(&'static str, &'static str)>;

const US: Place = Some(("United States of America", "USA"));
const MICHIGAN: Place = Some(("Michigan", "MI"));
const ANN_ARBOR: Option<(&str, &str)> = Some(("42.280800", "-83.743000"));

fn clean() -> Plant {
    Plant {
        point: ANN_ARBOR,
        elevation: "260",
        country: US,
        state: MICHIGAN,
        county: Some("Washtenaw"),
        date: (Some(2019), "June", Some(4)),
        determined: Some(2020),
        identified: true,
        flags: &[],
    }
}

fn plants() -> Vec<Plant> {
    let at = |point: Option<(&'static str, &'static str)>, flags| Plant {
        point,
        flags,
        ..clean()
    };
    vec![
        // Controls, well inside their county, state and country.
        clean(),
        Plant {
            point: Some(("10.300000", "-84.800000")),
            country: Some(("Costa Rica", "CRI")),
            state: Some(("Guanacaste", "G")),
            county: Some("Tilarán"),
            ..clean()
        },
        Plant {
            point: Some(("32.2217", "-110.9265")),
            state: Some(("Arizona", "AZ")),
            county: Some("Pima/Santa Cruz"),
            ..clean()
        },
        Plant {
            point: Some(("64.8378", "-147.7164")),
            state: Some(("Alaska", "AK")),
            county: Some("Fairbanks N. Star"),
            ..clean()
        },
        Plant {
            point: Some(("29.9511", "-90.0715")),
            state: Some(("Louisiana", "LA")),
            county: Some("Orleans Parish"),
            ..clean()
        },
        Plant {
            point: Some(("47.0", "-122.0")),
            state: Some(("Washington", "WA")),
            county: Some("Pierce County"),
            ..clean()
        },
        // Each error, alone.
        at(Some(("0", "0")), &["ZERO_COORDINATE"]),
        // Out of range, and out of range swapped too.
        at(Some(("95.5", "-120.7")), &["COORDINATE_OUT_OF_RANGE"]),
        at(Some(("42°17'N", "83°44'W")), &["COORDINATE_INVALID"]),
        at(
            Some(("48.8566", "2.3522")),
            &["COUNTRY_COORDINATE_MISMATCH"],
        ),
        at(
            Some(("-83.743000", "42.280800")),
            &["PRESUMED_SWAPPED_COORDINATE"],
        ),
        at(
            Some(("-42.280800", "-83.743000")),
            &["PRESUMED_NEGATED_LATITUDE"],
        ),
        at(
            Some(("42.280800", "83.743000")),
            &["PRESUMED_NEGATED_LONGITUDE"],
        ),
        Plant {
            state: Some(("Ohio", "OH")),
            county: None,
            flags: &["STATE_COORDINATE_MISMATCH"],
            ..clean()
        },
        Plant {
            county: Some("Marquette"),
            flags: &["COUNTY_COORDINATE_MISMATCH"],
            ..clean()
        },
        Plant {
            state: Some(("Atlantis", "AT")),
            flags: &["STATE_UNMATCHED"],
            ..clean()
        },
        Plant {
            county: Some("Nowhere"),
            flags: &["COUNTY_UNMATCHED"],
            ..clean()
        },
        Plant {
            point: None,
            date: (Some(2023), "February", Some(29)),
            determined: Some(2024),
            flags: &["RECORDED_DATE_INVALID"],
            ..clean()
        },
        Plant {
            point: None,
            date: (Some(1700), "June", Some(4)),
            determined: None,
            flags: &["RECORDED_DATE_UNLIKELY"],
            ..clean()
        },
        Plant {
            point: None,
            determined: Some(2010),
            flags: &["IDENTIFIED_DATE_UNLIKELY"],
            ..clean()
        },
        Plant {
            elevation: "12000",
            flags: &["ELEVATION_UNLIKELY"],
            ..clean()
        },
        Plant {
            elevation: "high on the ridge",
            flags: &["ELEVATION_NON_NUMERIC"],
            ..clean()
        },
        Plant {
            point: None,
            identified: false,
            flags: &["NOT_IDENTIFIED"],
            ..clean()
        },
        // GBIF's swap rule: the latitude out of range, in range swapped, and
        // then in its parish (the issue's New Orleans record).
        Plant {
            point: Some(("-90.0715", "29.9511")),
            state: Some(("Louisiana", "LA")),
            county: Some("Orleans Parish"),
            flags: &["PRESUMED_SWAPPED_COORDINATE"],
            ..clean()
        },
    ]
}

/// The id of the record of `list` named `name` (with `abbr`), added when the
/// collection has none.
fn named<T: Clone>(
    list: &mut Vec<T>,
    name: &str,
    fill: impl Fn(&mut T, i64),
    is: impl Fn(&T) -> bool,
    id: impl Fn(&T) -> i64,
) -> i64 {
    if let Some(found) = list.iter().find(|r| is(r)) {
        return id(found);
    }
    let next = list.iter().map(&id).max().unwrap_or(0) + 1;
    let mut record = list[0].clone();
    fill(&mut record, next);
    assert!(is(&record), "{name}");
    list.push(record);
    next
}

/// Plants `plants` as the first specimens of `c`; returns their ids.
fn plant(c: &mut Collection, plants: &[Plant]) -> Vec<i64> {
    let mut ids = Vec::new();
    for (k, p) in plants.iter().enumerate() {
        let country = p.country.map(|(name, abbr)| {
            named(
                &mut c.countries,
                name,
                |r, id| (r.id, r.name, r.abbr) = (id, name.into(), abbr.into()),
                |r| r.name == name,
                |r| r.id,
            )
        });
        let state = p.state.map(|(name, abbr)| {
            let country = country.unwrap();
            named(
                &mut c.states,
                name,
                |r, id| (r.id, r.name, r.abbr, r.country) = (id, name.into(), abbr.into(), country),
                |r| r.name == name && r.country == country,
                |r| r.id,
            )
        });
        let county = p.county.map(|name| {
            let state = state.unwrap();
            named(
                &mut c.counties,
                name,
                |r, id| (r.id, r.name, r.state) = (id, name.into(), state),
                |r| r.name == name && r.state == state,
                |r| r.id,
            )
        });
        let gps = p.point.map(|(lat, lon)| {
            let mut g = c.gps[0].clone();
            g.id = c.gps.iter().map(|g| g.id).max().unwrap() + 1;
            (g.latitude, g.longitude) = (Some(lat.into()), Some(lon.into()));
            g.elevation = p.elevation.into();
            let id = g.id;
            c.gps.push(g);
            id
        });
        let s = &mut c.specimen_records[k];
        (s.country, s.state, s.county, s.locality, s.gps) = (country, state, county, None, gps);
        (s.year, s.month, s.day) = (p.date.0, p.date.1.into(), p.date.2);
        s.determined_year = p.determined;
        let taxon = (!p.identified).then_some(None);
        if let Some(none) = taxon {
            (s.order, s.family, s.subfamily, s.tribe) = (none, none, none, none);
            (s.genus, s.species, s.subspecies) = (none, none, none);
        } else if s.order.is_none() {
            s.order = Some(c.orders[0].id);
        }
        ids.push(s.id);
    }
    ids
}

/// Every specimen's flags as GBIF's occurrences list them.
fn gbif_issues(s: &Server, total: usize) -> Vec<(i64, Vec<String>)> {
    let mut out = Vec::new();
    for offset in (0..total).step_by(300) {
        let page = s.json(
            &format!("/gbif/v1/occurrence/search?limit=300&offset={offset}&sort=key"),
            200,
        );
        for o in page["results"].as_array().unwrap() {
            let issues = o["issues"].as_array().unwrap();
            let names = issues.iter().map(|i| i.as_str().unwrap().to_string());
            out.push((o["key"].as_i64().unwrap(), names.collect()));
        }
    }
    out
}

#[test]
fn planted_errors_are_found_as_their_flags_and_asked_like_any_filter() {
    let dir = TempDir::new("quality");
    let plants = plants();
    let mut planted = Vec::new();
    let snapshot = common::generated_with(&dir, 400, |c| planted = plant(c, &plants));
    let s = Server::start(&snapshot, Default::default());
    let total = s.json(&format!("{SPECIMENS}?limit=0"), 200)["meta"]["total_count"]
        .as_u64()
        .unwrap() as usize;
    let issues = gbif_issues(&s, total);
    assert_eq!(issues.len(), total);
    let of = |id: i64| &issues.iter().find(|(k, _)| *k == id).unwrap().1;
    for (p, &id) in plants.iter().zip(&planted) {
        assert_eq!(of(id), p.flags, "specimen {id}");
    }
    // Every flag is planted, so every flag is asked for below with records.
    let all_planted: BTreeSet<&str> = plants
        .iter()
        .flat_map(|p| p.flags.iter().copied())
        .collect();
    assert_eq!(all_planted.len(), Flag::ALL.len());

    let facets = s.json(
        &format!("{SPECIMENS}?facet=issue&limit=0&facet_size=100"),
        200,
    );
    let counted = facets["meta"]["facets"]["issue"].as_array().unwrap();
    let gbif_facets = s.json(
        "/gbif/v1/occurrence/search?facet=issue&limit=0&facetLimit=100",
        200,
    );
    let gbif_counted = gbif_facets["facets"][0]["counts"].as_array().unwrap();
    assert_eq!(gbif_facets["facets"][0]["field"], "ISSUE");
    assert_eq!(gbif_counted.len(), counted.len());
    let report = s.json("/api/v2/quality/", 200);
    let mut flagged = BTreeSet::new();
    for flag in Flag::ALL {
        let name = flag.name();
        let ids = s.ids_of(&format!("{SPECIMENS}?issue={name}&limit=1000"));
        let want: Vec<i64> = issues
            .iter()
            .filter(|(_, f)| f.iter().any(|n| n == name))
            .map(|(k, _)| *k)
            .collect();
        assert_eq!(ids, want, "issue={name} and GBIF's issues");
        assert!(!ids.is_empty(), "{name}");
        let gbif = s.json(
            &format!("/gbif/v1/occurrence/search?issue={name}&limit=0"),
            200,
        );
        assert_eq!(gbif["count"], ids.len(), "GBIF's issue={name}");
        // In any case, as the other flags' names are.
        let lower = s.ids_of(&format!(
            "{SPECIMENS}?issue={}&limit=1000",
            name.to_lowercase()
        ));
        assert_eq!(lower, ids);
        let facet = counted.iter().find(|c| c["value"] == name).unwrap();
        assert_eq!(facet["count"], ids.len(), "facet=issue {name}");
        let gbif_facet = gbif_counted.iter().find(|c| c["name"] == name).unwrap();
        assert_eq!(gbif_facet["count"], ids.len(), "GBIF's facet=issue {name}");
        let reported = report["flags"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap();
        assert_eq!(reported["count"], ids.len(), "/api/v2/quality/ {name}");
        assert_eq!(
            reported["records"],
            format!("{SPECIMENS}?issue={name}"),
            "{name}"
        );
        flagged.extend(ids);
    }
    assert_eq!(counted.len(), Flag::ALL.len(), "every flag counted once");
    // `none`: the rest; repeated: any of them.
    let none = s.ids_of(&format!("{SPECIMENS}?issue=none&limit=1000"));
    assert!(none.contains(&planted[0]), "the first control has no flag");
    assert_eq!(none.len() + flagged.len(), total);
    assert!(none.iter().all(|id| !flagged.contains(id)));
    assert_eq!(report["unflagged"], none.len());
    assert_eq!(report["specimens"], total);
    let either = s.ids_of(&format!(
        "{SPECIMENS}?issue=ZERO_COORDINATE&issue=NOT_IDENTIFIED&limit=1000"
    ));
    let want: Vec<i64> = issues
        .iter()
        .filter(|(_, f)| {
            f.iter()
                .any(|n| n == "ZERO_COORDINATE" || n == "NOT_IDENTIFIED")
        })
        .map(|(k, _)| *k)
        .collect();
    assert_eq!(either, want);
    // Combined with another filter, as any filter is.
    let both = s.ids_of(&format!("{SPECIMENS}?issue=none&year=2019&limit=1000"));
    assert!(both.contains(&planted[0]));
    assert!(both.iter().all(|id| none.contains(id)));
    // An empty value filters nothing, as the form sends it.
    assert_eq!(
        s.json(&format!("{SPECIMENS}?issue=&limit=0"), 200)["meta"]["total_count"],
        total
    );
    s.assert_error(
        &format!("{SPECIMENS}?issue=SWAPPED"),
        400,
        &format!(
            "issue must be a quality flag ({}) or none; not \"SWAPPED\"",
            Flag::ALL.map(|f| f.name()).join(", ")
        ),
    );
    // The CSV's last column says the flags, as GBIF's issues do.
    let csv = s.get(&format!("{SPECIMENS}?format=csv&columns=dwc&limit=1000"));
    assert_eq!(csv.status, 200);
    let text = csv.text();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    assert_eq!(header.last(), Some(&"issue"));
    for (p, id) in plants.iter().zip(&planted) {
        let usi = s.json(&format!("{SPECIMENS}{id}/"), 200)["usi"]
            .as_str()
            .unwrap()
            .to_string();
        let line = text.lines().find(|l| l.starts_with(&usi)).unwrap();
        assert!(line.ends_with(&format!(",{}", p.flags.join(";"))), "{line}");
    }
}

#[test]
fn the_curator_sees_each_flag_its_count_and_a_records_flags() {
    let dir = TempDir::new("quality-pages");
    let plants = plants();
    let mut planted = Vec::new();
    let snapshot = common::generated_with(&dir, 100, |c| planted = plant(c, &plants));
    let s = Server::start(&snapshot, Default::default());
    let page = s.send("GET", "/quality/", &[("accept", "text/html")]);
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let html = page.text();
    for flag in Flag::ALL {
        assert!(
            html.contains(&format!("<tr id=\"{}\">", flag.name())),
            "{}",
            flag.name()
        );
        assert!(html.contains(&format!("href=\"{SPECIMENS}?issue={}\"", flag.name())));
    }
    // The map of the points not where their records say.
    assert!(html.contains("data-features=\""), "the map");
    assert!(html.contains("PRESUMED_SWAPPED_COORDINATE: 1 specimen at -83.743, 42.2808; the record says United States of America"));
    // The same address as JSON; parameters refused.
    assert_eq!(s.json("/quality/", 200)["specimens"], 100);
    s.assert_error(
        "/api/v2/quality/?x=1",
        400,
        "the quality counts take no parameters (x given)",
    );
    s.assert_error(
        "/api/v2/quality/?format=AAA",
        400,
        "format must be json, not \"AAA\"",
    );
    assert_eq!(
        s.json("/api/v2/quality/?format=json", 200)["specimens"],
        100
    );
    let page = s.get("/api/v2/quality/?format=html");
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    // A specimen's page lists its flags, a clean one says so.
    let swapped = planted[10];
    let record = s.send(
        "GET",
        &format!("{SPECIMENS}{swapped}/"),
        &[("accept", "text/html")],
    );
    assert!(record.text().contains("<a href=\"/quality/#PRESUMED_SWAPPED_COORDINATE\"><code>PRESUMED_SWAPPED_COORDINATE</code></a>"));
    let clean = s.send(
        "GET",
        &format!("{SPECIMENS}{}/", planted[0]),
        &[("accept", "text/html")],
    );
    assert!(clean.text().contains("No flag ("), "a clean record says so");
}
