//! Any answer to take home: `format=csv` and `format=ndjson` on the lists (every
//! filter, sort and `fields` honoured, the whole answer rather than a page), the
//! Darwin Core columns, the archive of a question, and the species checklists,
//! whose counts must agree with the facets of the same question.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::{disposition, snapshot_name, Server, TempDir};
use serde_json::Value;

const SPECIMENS: &str = "/api/v2/specimen-records/";
const CHECKLIST: &str = "/api/v2/specimen-records/checklist/";

#[test]
fn a_filtered_sorted_projected_list_as_csv() {
    let s = Server::sample();
    let q = "family=idae&sort=-year&fields=_,id,usi,family,taxon,collector,habitat,notes,year,labeled,date_modified";
    let r = s.get(&format!("{SPECIMENS}?format=csv&{q}"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("text/csv; charset=utf-8"));
    assert_eq!(
        r.header("content-disposition"),
        Some(disposition(&s, "specimen-records", q, "csv").as_str())
    );
    // Another question, another name; the whole list, none; the same
    // question in another order, the same name.
    let other = s.get(&format!("{SPECIMENS}?format=csv&family=nymph"));
    assert_eq!(
        other.header("content-disposition"),
        Some(disposition(&s, "specimen-records", "family=nymph", "csv").as_str())
    );
    assert_ne!(
        other.header("content-disposition"),
        r.header("content-disposition")
    );
    assert_eq!(
        s.get(&format!("{SPECIMENS}?format=csv"))
            .header("content-disposition"),
        Some(
            format!(
                "inline; filename=\"specimen-records-{}.csv\"",
                snapshot_name(&s)
            )
            .as_str()
        )
    );
    assert_eq!(
        s.get(&format!("{SPECIMENS}?sort=-year&format=csv&family=idae&fields=_,id,usi,family,taxon,collector,habitat,notes,year,labeled,date_modified"))
            .header("content-disposition"),
        r.header("content-disposition")
    );
    assert_eq!(
        r.text(),
        "id,usi,family_id,family_name,taxon_id,taxon_name,labeled,year,collector_id,collector_name,habitat,notes,date_modified\r\n\
         5,UMMZ-000005,4,Aeshnidae,4,Aeshnidae,,2023,,,,,2024-01-05T10:20:00.000000Z\r\n\
         3,UMMZ-000003,2,Saturniidae,2,Hyalophora cecropia,,2021,3 | 2,\"Amelia Brooks | Henry Brooks, Jr.\",,,2024-03-09T16:20:00.999999Z\r\n\
         6,UMMZ-000006,1,Nymphalidae,1,Danaus plexippus,,2021,1 | 4,\"Rosa M. Alvarez | Théo J. Côté, III\",,Collected on Asclepias.,2024-01-05T10:25:00.000000Z\r\n\
         1,UMMZ-000001,1,Nymphalidae,1,Danaus plexippus megalippe,true,2019,1 | 3 | 2 | 4,\"Rosa M. Alvarez | Amelia Brooks | Henry Brooks, Jr. | Théo J. Côté, III\",Roosting on Quercus virginiana & live oaks,Tagged before release.,2024-01-05T10:00:00.100000Z\r\n\
         2,UMMZ-000002,1,Nymphalidae,1,Danaus plexippus,,2018,1,Rosa M. Alvarez,,,2024-01-05T10:05:00.000000Z\r\n\
         4,UMMZ-000004,3,Carabidae,4,Cicindela sexguttata,,2015,2,\"Henry Brooks, Jr.\",,,2024-01-05T10:15:00.000000Z\r\n\
         8,UMMZ-000008,2,Saturniidae,2,Saturniidae,,1998,3 | 2,\"Amelia Brooks | Henry Brooks, Jr.\",,,2024-01-05T10:35:00.000000Z\r\n"
    );
    // The same question as JSON stays as it was, and names the same records.
    let json = s.json(&format!("{SPECIMENS}?{q}&limit=100"), 200);
    assert_eq!(common::ids(&json), vec![5, 3, 6, 1, 2, 4, 8]);
}

#[test]
fn ndjson_is_the_lists_items_one_a_line() {
    let s = Server::sample();
    for q in [
        "family=idae&sort=-year",
        "search=monarch",
        "fields=_,id,usi,taxon(name)&sort=usi",
        "",
    ] {
        let r = s.get(&format!("{SPECIMENS}?format=ndjson&{q}"));
        assert_eq!(r.status, 200, "{q}");
        assert_eq!(r.header("content-type"), Some("application/x-ndjson"));
        let json = s.json(&format!("{SPECIMENS}?{q}&limit=1000"), 200);
        let lines: Vec<Value> = r
            .text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(r.text().ends_with('\n'));
        assert_eq!(&lines, json["items"].as_array().unwrap(), "{q}");
        assert!(!lines.is_empty(), "{q}");
    }
    // A plain list without a filter: its rendered items, byte for byte.
    let r = s.get("/api/v2/orders/?format=ndjson&fields=_,id,name");
    assert_eq!(
        r.text(),
        "{\"id\":1,\"name\":\"Lepidoptera\"}\n{\"id\":2,\"name\":\"Coleoptera\"}\n{\"id\":3,\"name\":\"Odonata\"}\n"
    );
    assert_eq!(
        r.header("content-disposition"),
        Some(disposition(&s, "orders", "fields=_,id,name", "ndjson").as_str())
    );
}

#[test]
fn downloads_refuse_bad_values_and_name_what_they_ignore() {
    let s = Server::sample();
    for (q, message) in [
        (
            "/api/v2/orders/?format=csv&columns=dwc",
            "columns=dwc is only for the specimen records' lists",
        ),
        (
            "/api/v2/specimen-records/?format=csv&columns=abc",
            "columns must be fields or dwc, not \"abc\"",
        ),
        (
            "/api/v2/orders/?format=xml",
            "format must be json, geojson, csv, ndjson, atom or zip, not \"xml\"",
        ),
    ] {
        s.assert_error(q, 400, message);
    }
    // What a format has no use for changes nothing, and is named.
    for (q, ignored, same_as) in [
        (
            "/api/v2/orders/?format=csv&facet=name&facet_size=3",
            "facet, facet_size",
            "/api/v2/orders/?format=csv",
        ),
        (
            "/api/v2/orders/?columns=fields&limit=2",
            "columns",
            "/api/v2/orders/?limit=2",
        ),
        (
            "/api/v2/specimen-records/?format=csv&columns=dwc&fields=_,id",
            "fields",
            "/api/v2/specimen-records/?format=csv&columns=dwc",
        ),
    ] {
        let r = s.get(q);
        assert_eq!(r.status, 200, "{q}");
        assert_eq!(r.header("x-ignored-parameters"), Some(ignored), "{q}");
        assert_eq!(r.body, s.get(same_as).body, "{q}");
    }
}

/// The cells of a CSV text (RFC 4180: quoted cells may hold commas, quotes and
/// line breaks).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    rows
}

#[test]
fn darwin_core_columns_are_the_archives() {
    let s = Server::sample();
    let r = s.get(&format!(
        "{SPECIMENS}?format=csv&columns=dwc&country=united&sort=usi"
    ));
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-disposition"),
        Some(
            disposition(
                &s,
                "specimen-records-dwc",
                "columns=dwc&country=united&sort=usi",
                "csv"
            )
            .as_str()
        )
    );
    let rows = parse_csv(&r.text());
    let terms: Vec<&str> = catalogue::export::dwca::COLUMNS
        .iter()
        .map(|(t, _)| *t)
        .collect();
    // The archive's terms, then the quality flags.
    let (issue, rows_terms) = rows[0].split_last().unwrap();
    assert_eq!(rows_terms, terms);
    assert_eq!(issue, "issue");
    let json = s.json(
        &format!("{SPECIMENS}?country=united&sort=usi&limit=100"),
        200,
    );
    let usis: Vec<&str> = json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["usi"].as_str().unwrap())
        .collect();
    // catalogNumber, and the occurrenceID made of it.
    let got: Vec<&str> = rows[1..].iter().map(|r| r[1].as_str()).collect();
    assert_eq!(got, usis);
    let ids: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    let want: Vec<String> = (usis.iter())
        .map(|usi| format!("urn:catalog:UMMZ:Insects:{usi}"))
        .collect();
    assert_eq!(ids, want);
    // Every row is the archive's row of the same specimen, cell for cell.
    let zip = s.get("/dwca.zip").body;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("occurrence.txt").unwrap(), &mut text)
        .unwrap();
    let archived: BTreeMap<String, Vec<String>> = text
        .lines()
        .skip(1)
        .map(|l| {
            let cells: Vec<String> = l.split('\t').map(str::to_string).collect();
            (cells[0].clone(), cells)
        })
        .collect();
    for row in &rows[1..] {
        assert_eq!(row.len(), terms.len() + 1);
        assert_eq!(archived[&row[0]], row[..terms.len()], "{}", row[0]);
    }
}

#[test]
fn a_download_is_the_whole_answer_not_a_page() {
    let dir = TempDir::new("downloads-whole");
    let s = Server::start(
        &common::generated(&dir, 1500),
        catalogue::serve::Settings {
            limits: catalogue::query::Limits {
                default_limit: 20,
                max_limit: Some(100),
            },
            ..Default::default()
        },
    );
    let total = s.json(&format!("{SPECIMENS}?limit=0"), 200)["meta"]["total_count"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(total, 1500);
    let r = s.get(&format!("{SPECIMENS}?format=ndjson"));
    let ids: Vec<i64> = r
        .text()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(ids.len(), total);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let csv = parse_csv(&s.get(&format!("{SPECIMENS}?format=csv&sort=-year")).text());
    assert_eq!(csv.len(), total + 1);
    // An explicit page is honoured.
    let csv = parse_csv(
        &s.get(&format!("{SPECIMENS}?format=csv&offset=10&limit=5"))
            .text(),
    );
    let got: Vec<&str> = csv[1..].iter().map(|r| r[0].as_str()).collect();
    let json = s.json(&format!("{SPECIMENS}?offset=10&limit=5"), 200);
    let want: Vec<String> = common::ids(&json).iter().map(i64::to_string).collect();
    assert_eq!(got, want);
}

/// The catalogue numbers of an archive's occurrences, and its `eml.xml`.
fn archive_contents(body: Vec<u8>) -> (Vec<String>, String) {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(body)).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("occurrence.txt").unwrap(), &mut text)
        .unwrap();
    let ids = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(1).unwrap().to_string())
        .collect();
    let mut eml = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("eml.xml").unwrap(), &mut eml).unwrap();
    (ids, eml)
}

#[test]
fn the_archive_of_a_question_holds_exactly_its_specimens() {
    let s = Server::sample();
    let checksum = s.json("/readyz", 200)["checksum"]
        .as_str()
        .unwrap()
        .to_string();
    for q in [
        "family=Nymphalidae",
        "year=2021",
        "search=brooks",
        "country=united&sex=female",
        "order=odonata",
    ] {
        let r = s.get(&format!("/dwca.zip?{q}"));
        assert_eq!(r.status, 200, "{q}: {}", r.text());
        assert_eq!(r.header("content-type"), Some("application/zip"));
        let json = s.json(&format!("{SPECIMENS}?{q}&limit=100"), 200);
        let mut want: Vec<String> = json["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["usi"].as_str().unwrap().to_string())
            .collect();
        want.sort();
        let (mut got, eml) = archive_contents(r.body);
        got.sort();
        assert_eq!(got, want, "{q}");
        assert!(!want.is_empty(), "{q}");
        let said = format!(
            "The {} specimen records that the filter {} selects in /api/v2/specimen-records/, from the snapshot with SHA-256 checksum {checksum}, made ",
            want.len(),
            q.replace('&', "&amp;")
        );
        assert!(eml.contains(&said), "{eml}");
        let download = format!(
            "<url function=\"download\">http://t/dwca.zip?{}</url>",
            q.replace('&', "&amp;")
        );
        assert!(eml.contains(&download), "{eml}");
    }
    // The whole archive says no question.
    let (all, eml) = archive_contents(s.get("/dwca.zip").body);
    assert_eq!(all.len(), 8);
    assert!(!eml.contains("selects"), "{eml}");
    s.assert_error(
        "/dwca.zip?family=x&sort=year&limit=3",
        400,
        "/dwca.zip takes the specimen list's filters and search, not limit, sort",
    );
    s.assert_error(
        "/dwca.zip?year=abc",
        400,
        "year must be an integer; not \"abc\"",
    );
}

/// A taxon as the specimen list's JSON shows it: its rank (told by its parent's
/// key: a genus names its tribe, a family its order, ...) and its id.
fn taxon_key(taxon: &Value) -> (String, i64) {
    let id = taxon["id"].as_i64().unwrap();
    let rank = [
        ("species", "subspecies"),
        ("genus", "species"),
        ("tribe", "genus"),
        ("subfamily", "tribe"),
        ("family", "subfamily"),
        ("order", "family"),
    ]
    .iter()
    .find(|(parent, _)| taxon.get(*parent).is_some())
    .map_or("order", |(_, rank)| rank);
    (rank.to_string(), id)
}

#[test]
fn checklist_counts_are_the_facets_and_the_lists() {
    let dir = TempDir::new("checklist");
    let s = Server::start(&common::generated(&dir, 3000), Default::default());
    let mut seen_ranks = BTreeSet::new();
    let mut seen_without = 0;
    let mut seen_ties = false;
    for q in [
        "",
        "year=1990",
        "country=a",
        "search=e",
        "sex=female&stage=adult",
        "order=a",
    ] {
        let c = s.json(&format!("{CHECKLIST}?{q}"), 200);
        let items = c["items"].as_array().unwrap();
        let list = s.json(&format!("{SPECIMENS}?{q}&limit=100000"), 200);
        let specimens = list["items"].as_array().unwrap();
        assert_eq!(c["meta"]["specimens"], specimens.len(), "{q}");
        assert_eq!(c["meta"]["total_count"], items.len(), "{q}");
        let without = specimens.iter().filter(|i| i["taxon"].is_null()).count();
        assert_eq!(c["meta"]["without_taxon"], without, "{q}");
        seen_without += without;
        // The facet of `taxon` counts names: the rows' counts, summed by name.
        let facets = s.json(
            &format!("{SPECIMENS}?{q}&facet=taxon&facet_size=1000&limit=0"),
            200,
        );
        let mut by_facet: BTreeMap<String, u64> = BTreeMap::new();
        for v in facets["meta"]["facets"]["taxon"].as_array().unwrap() {
            if let Some(name) = v["value"].as_str() {
                by_facet.insert(name.to_string(), v["count"].as_u64().unwrap());
            }
        }
        let mut by_rows: BTreeMap<String, u64> = BTreeMap::new();
        for t in items {
            let name = t["scientific_name"].as_str().unwrap();
            // The facet counts a taxon's `name`: a species' epithet, not its binomial.
            let short = name.rsplit(' ').next().unwrap().to_string();
            *by_rows.entry(short).or_default() += t["specimens"].as_u64().unwrap();
            seen_ranks.insert(t["rank"].as_str().unwrap().to_string());
        }
        assert_eq!(by_rows, by_facet, "{q}");
        // Each row against the list's specimens of that taxon.
        let mut groups: BTreeMap<(String, i64), Vec<&Value>> = BTreeMap::new();
        for sp in specimens.iter().filter(|i| !i["taxon"].is_null()) {
            groups.entry(taxon_key(&sp["taxon"])).or_default().push(sp);
        }
        assert_eq!(groups.len(), items.len(), "{q}");
        for t in items {
            let key = (
                t["rank"].as_str().unwrap().to_string(),
                t["id"].as_i64().unwrap(),
            );
            let group = &groups[&key];
            assert_eq!(t["specimens"], group.len(), "{q} {key:?}");
            let years: Vec<i64> = group.iter().filter_map(|i| i["year"].as_i64()).collect();
            seen_ties |= years.len() > BTreeSet::from_iter(years.iter()).len();
            assert_eq!(
                t["first_year"].as_i64(),
                years.iter().min().copied(),
                "{q} {key:?}"
            );
            assert_eq!(
                t["last_year"].as_i64(),
                years.iter().max().copied(),
                "{q} {key:?}"
            );
            let localities: BTreeSet<i64> = group
                .iter()
                .filter_map(|i| i["locality"]["id"].as_i64())
                .collect();
            assert_eq!(t["localities"], localities.len(), "{q} {key:?}");
            let taxon = &group[0]["taxon"];
            let name = taxon["trinomial"]
                .as_str()
                .or(taxon["binomial"].as_str())
                .or(taxon["name"].as_str())
                .unwrap();
            assert_eq!(t["scientific_name"], name);
            for rank in ["order", "family", "genus"] {
                let want = group[0][rank]["name"].as_str();
                if want.is_some() {
                    assert_eq!(t[rank].as_str(), want, "{q} {key:?} {rank}");
                }
            }
        }
    }
    assert!(
        seen_without > 0,
        "the collection has specimens without a taxon"
    );
    assert!(seen_ties, "some taxon has two specimens of one year");
    for rank in ["subspecies", "species", "tribe", "family", "order"] {
        assert!(seen_ranks.contains(rank), "{rank} in {seen_ranks:?}");
    }
}

#[test]
fn a_checklist_as_csv_and_as_a_page() {
    let s = Server::sample();
    let r = s.get(&format!("{CHECKLIST}?format=csv&country=united"));
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-disposition"),
        Some(disposition(&s, "checklist", "country=united", "csv").as_str())
    );
    assert_eq!(
        r.text(),
        "taxonID,scientificName,taxonRank,numberOfOccurrences,order,family,subfamily,tribe,genus,species,scientificNameAuthorship,vernacularName,firstYear,lastYear,numberOfLocalities\r\n\
         species:4,Cicindela sexguttata,species,1,Coleoptera,Carabidae,Cicindelinae,Cicindelini,Cicindela,Cicindela sexguttata,\"Fabricius, 1775\",Six-spotted Tiger Beetle,2015,2015,0\r\n\
         species:1,Danaus plexippus,species,2,Lepidoptera,Nymphalidae,Danainae,Danaini,Danaus,Danaus plexippus,\"(Linnaeus, 1758)\",Monarch,2018,2021,2\r\n\
         subspecies:1,Danaus plexippus megalippe,subspecies,1,Lepidoptera,Nymphalidae,Danainae,Danaini,Danaus,Danaus plexippus,\"(Hübner, [1826])\",Southern Monarch,2019,2019,1\r\n\
         family:2,Saturniidae,family,1,Lepidoptera,Saturniidae,,,,,\"Boisduval, 1837\",Giant Silk Moths,1998,1998,1\r\n"
    );
    // A browser gets the page; each row links to the list of its specimens.
    let page = s.send(
        "GET",
        &format!("{CHECKLIST}?country=united"),
        &[("Accept", "text/html,*/*;q=0.8")],
    );
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let html = page.text();
    let links: Vec<String> = html
        .split("<th scope=\"row\"><a href=\"")
        .skip(1)
        .map(|p| p[..p.find('"').unwrap()].replace("&amp;", "&"))
        .collect();
    assert_eq!(links.len(), 4);
    let counts = [1, 2, 1, 1];
    for (link, n) in links.iter().zip(counts) {
        assert!(link.starts_with(SPECIMENS), "{link}");
        assert!(link.contains("country=united"), "{link}");
        assert_eq!(s.json(link, 200)["meta"]["total_count"], n, "{link}");
    }
    assert!(
        html.contains("href=\"/api/v2/specimen-records/checklist/?country=united&amp;format=csv\"")
    );
    s.assert_error(
        &format!("{CHECKLIST}?format=pdf"),
        400,
        "format must be json, csv or html, not \"pdf\"",
    );
    s.assert_error(
        &format!("{CHECKLIST}?sort=year"),
        400,
        "a checklist takes the specimen list's filters and search, not sort",
    );
}

/// `bom=1`: the same CSV after a UTF-8 byte-order mark, for spreadsheet
/// programs, under the same name; the default is without; ignored and named in
/// another format; a value other than 1, 0, true or false refused.
#[test]
fn a_csv_for_spreadsheets_begins_with_a_byte_order_mark_when_asked() {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let s = Server::sample();
    for (plain, asked) in [
        (
            format!("{SPECIMENS}?format=csv&family=nymph"),
            format!("{SPECIMENS}?format=csv&family=nymph&bom=1"),
        ),
        (
            format!("{SPECIMENS}?format=csv"),
            format!("{SPECIMENS}?bom=true&format=csv"),
        ),
        (
            format!("{SPECIMENS}?format=csv&fields=_,id,collector&sort=id"),
            format!("{SPECIMENS}?format=csv&fields=_,id,collector&sort=id&bom=1"),
        ),
        (
            format!("{SPECIMENS}?format=csv&columns=dwc"),
            format!("{SPECIMENS}?format=csv&columns=dwc&bom=1"),
        ),
        (
            "/api/v2/orders/?format=csv".to_string(),
            "/api/v2/orders/?format=csv&bom=1".to_string(),
        ),
        (
            format!("{CHECKLIST}?format=csv&country=united"),
            format!("{CHECKLIST}?format=csv&country=united&bom=1"),
        ),
        (
            "/api/v2/specimen-records/labels/?format=csv&kind=data".to_string(),
            "/api/v2/specimen-records/labels/?format=csv&kind=data&bom=1".to_string(),
        ),
    ] {
        let (plain, asked) = (s.get(&plain), s.get(&asked));
        assert_eq!((plain.status, asked.status), (200, 200), "{}", asked.text());
        assert!(!plain.body.starts_with(BOM), "the default is unchanged");
        assert_eq!(asked.body, [BOM, &plain.body[..]].concat());
        assert_eq!(asked.header("content-type"), plain.header("content-type"));
        assert_eq!(
            asked.header("content-disposition"),
            plain.header("content-disposition")
        );
        assert_eq!(asked.header("x-ignored-parameters"), None);
    }
    // Its text is the same UTF-8, accents and all.
    let r = s.get(&format!(
        "{SPECIMENS}?format=csv&fields=_,id,collector&sort=id&bom=1"
    ));
    assert!(
        String::from_utf8(r.body[3..].to_vec())
            .unwrap()
            .starts_with("id,collector_id,collector_name\r\n1,1 | 3 | 2 | 4,\"Rosa M. Alvarez | Amelia Brooks | Henry Brooks, Jr. | Théo J. Côté, III\"\r\n"),
        "{}",
        r.text()
    );
    // Nothing to mark in another format: ignored, and named.
    for (q, same_as) in [
        (
            format!("{SPECIMENS}?format=ndjson&bom=1"),
            format!("{SPECIMENS}?format=ndjson"),
        ),
        (
            format!("{SPECIMENS}?limit=2&bom=1"),
            format!("{SPECIMENS}?limit=2"),
        ),
        (
            format!("{CHECKLIST}?format=json&bom=1"),
            format!("{CHECKLIST}?format=json"),
        ),
    ] {
        let r = s.get(&q);
        assert_eq!(r.status, 200, "{q}");
        assert_eq!(r.header("x-ignored-parameters"), Some("bom"), "{q}");
        assert_eq!(r.body, s.get(&same_as).body, "{q}");
    }
    for q in [
        format!("{SPECIMENS}?format=csv&bom=yes"),
        format!("{CHECKLIST}?format=csv&bom=yes"),
        "/api/v2/orders/?format=csv&bom=yes".to_string(),
    ] {
        s.assert_error(&q, 400, "bom must be 1 or 0, not \"yes\"");
    }
    // A value a form left empty is none; a value is taken as written.
    assert_eq!(
        s.get(&format!("{SPECIMENS}?format=csv&bom=%20")).body,
        s.get(&format!("{SPECIMENS}?format=csv")).body
    );
    s.assert_error(
        &format!("{SPECIMENS}?format=csv&bom=%201"),
        400,
        "bom must be 1 or 0, not \" 1\"",
    );
}
