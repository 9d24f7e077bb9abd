//! Search, sort, fields and single records, alone and together.

use crate::common;

use common::Server;
use serde_json::json;

#[test]
fn search_needs_every_term_somewhere_in_the_item_as_served() {
    let s = Server::sample();
    let cases: &[(&str, &[i64])] = &[
        ("people/?search=brooks", &[2, 3]),
        ("people/?search=BROOKS+jr", &[2]),
        ("people/?search=brooks++amelia", &[3]),
        ("people/?search=brooks+nobody", &[]),
        ("orders/?search=1758", &[1, 2]),
        // Timestamps are not searched.
        ("orders/?search=2023-03", &[]),
        // A plain state shows its country as an id; the nested state shows it whole.
        ("states/?search=canada", &[]),
        ("nested-states/?search=canada", &[5, 6]),
        ("nested-gps-coordinates/?search=qu%C3%A9bec", &[2]),
        // Specimens embed their records: the species' and subspecies' common names,
        // collectors, the trip with its states.
        ("specimen-records/?search=monarch", &[1, 2, 6]),
        ("specimen-records/?search=C%C3%94T%C3%89", &[1, 6]),
        ("specimen-records/?search=louisiana", &[1]),
        ("specimen-records/?search=ohio", &[1]),
        ("specimen-records/?search=census+brooks", &[7]),
        ("collecting-trips/?search=arizona", &[2]),
        ("specimen-records/?search=", &[1, 2, 3, 4, 5, 6, 7, 8]),
    ];
    for (q, expected) in cases {
        assert_eq!(s.ids_of(&format!("/api/v2/{q}")), *expected, "{q}");
    }
}

#[test]
fn sort_by_scalars_with_nulls_last_and_ties_by_id() {
    let s = Server::sample();
    let cases: &[(&str, &[i64])] = &[
        ("people/?sort=last_name", &[1, 2, 3, 4]),
        ("people/?sort=-last_name", &[4, 2, 3, 1]),
        ("people/?sort=last_name,first_name", &[1, 3, 2, 4]),
        ("people/?sort=-middle_initial", &[1, 4, 2, 3]),
        ("people/?sort=middle_initial", &[4, 1, 2, 3]),
        ("orders/?sort=common_name", &[2, 1, 3]),
        ("orders/?sort=-common_name", &[1, 2, 3]),
        ("orders/?sort=-id", &[3, 2, 1]),
        ("families/?sort=-order,name", &[4, 3, 1, 2]),
        ("specimen-records/?sort=year", &[8, 4, 2, 1, 3, 6, 5, 7]),
        ("specimen-records/?sort=-year", &[5, 3, 6, 1, 2, 4, 8, 7]),
        // Strings by code point: "" < "-3" < "31.95" < ...
        (
            "specimen-records/?sort=temperature",
            &[5, 7, 2, 8, 3, 4, 1, 6],
        ),
        (
            "specimen-records/?sort=labeled,-id",
            &[1, 8, 7, 6, 5, 4, 3, 2],
        ),
        ("counties/?sort=date_created", &[1, 2, 3, 4, 5, 6, 7]),
    ];
    for (q, expected) in cases {
        assert_eq!(
            s.ids_of(&format!("/api/v2/{q}&limit=100")),
            *expected,
            "{q}"
        );
    }
    // A refused key names the fields `sort` takes.
    let orders = "sort takes id, name, common_name, authority, date_created, date_modified \
                  (- before one for descending)";
    let specimens = "sort takes id, usi, determined_year, sex, stage, preparation, \
                     preparation_date, labels_printed, labeled, photographed, identified, day, \
                     month, year, collected_date, full_date, num_date, collectors, method, \
                     weather, temperature, temp_F, temp_C, time_of_day, habitat, notes, \
                     date_created, date_modified (- before one for descending)";
    let errors = [
        (
            "orders/?sort=bogus",
            format!("cannot order by 'bogus' (unknown field); {orders}"),
        ),
        (
            "orders/?sort=name,-zeta",
            format!("cannot order by 'zeta' (unknown field); {orders}"),
        ),
        (
            "specimen-records/?sort=taxon",
            format!("cannot order by 'taxon' (not a scalar field); {specimens}"),
        ),
        (
            "specimen-records/?sort=date",
            format!("cannot order by 'date' (unknown field); {specimens}"),
        ),
        (
            "nested-families/?sort=order",
            format!("cannot order by 'order' (not a scalar field); {orders}"),
        ),
    ];
    for (q, message) in errors {
        s.assert_error(&format!("/api/v2/{q}"), 400, &message);
    }
}

#[test]
fn fields_keep_item_order_and_cut_embedded_records() {
    let s = Server::sample();
    let text = |p: &str| {
        let r = s.get(p);
        assert_eq!(r.status, 200, "{p}: {}", r.text());
        r.text()
    };
    assert_eq!(
        text("/api/v2/people/?fields=_,last_name,id&limit=2"),
        r#"{"meta":{"total_count":4},"items":[{"id":1,"last_name":"Alvarez"},{"id":2,"last_name":"Brooks"}]}"#
    );
    assert_eq!(
        text("/api/v2/orders/?fields=-date_created,-date_modified,-authority,-featured_image&limit=1"),
        r#"{"meta":{"total_count":3},"items":[{"id":1,"name":"Lepidoptera","common_name":"Butterflies and Moths"}]}"#
    );
    // A featured image is cut like any embedded record.
    assert_eq!(
        text("/api/v2/orders/?fields=_,id,featured_image(_,id,title,thumbnail(_,file))&limit=2"),
        r#"{"meta":{"total_count":3},"items":[{"id":1,"featured_image":{"id":3,"thumbnail":{"file":"http://t/media/images/monarch-milkweed.max-300x300.jpg"},"title":"Monarch on milkweed"}},{"id":2,"featured_image":null}]}"#
    );
    assert_eq!(
        text("/api/v2/specimen-records/?fields=_,usi,taxon(_,name,authority)&limit=2"),
        r#"{"meta":{"total_count":8},"items":[{"usi":"UMMZ-000001","taxon":{"name":"megalippe","authority":"(Hübner, [1826])"}},{"usi":"UMMZ-000002","taxon":{"name":"plexippus","authority":"(Linnaeus, 1758)"}}]}"#
    );
    assert_eq!(
        text("/api/v2/specimen-records/?fields=_,id,collector(_,last_name),taxon(_,binomial)&limit=1&offset=7"),
        r#"{"meta":{"total_count":8},"items":[{"id":8,"taxon":{},"collector":[{"last_name":"Brooks"},{"last_name":"Brooks"}]}]}"#
    );
    assert_eq!(
        text("/api/v2/nested-gps-coordinates/?fields=_,id,locality(_,state(_,name),county(abbr))&limit=2"),
        concat!(
            r#"{"meta":{"total_count":3},"items":[{"id":1,"locality":{"state":null,"county":{"id":1,"name":"Washtenaw","abbr":"Co.","full_name":"Washtenaw Co.","date_created":"2023-01-12T01:30:00.000000Z","date_modified":"2023-01-12T01:30:00.000000Z","state":{"id":1,"name":"Michigan","abbr":"MI","date_created":"2023-01-11T01:00:00.000000Z","date_modified":"2023-01-11T01:00:00.000000Z","country":{"id":1,"name":"United States of America","abbr":"USA","date_created":"2023-01-10T10:00:00.000000Z","date_modified":"2023-01-10T10:00:00.000000Z"}}}}},"#,
            r#"{"id":2,"locality":{"state":{"name":"Québec"},"county":null}}]}"#
        )
    );
    // `*` and a plain `name` keep everything: the pre-rendered bytes.
    assert_eq!(text("/api/v2/orders/?fields=*"), text("/api/v2/orders/"));
    assert_eq!(text("/api/v2/orders/?fields=name"), text("/api/v2/orders/"));
    let errors = [
        (
            "families/?fields=order(name)",
            "'order' does not support nested fields",
        ),
        (
            "people/?fields=zzz,bogus,-aaa",
            "unknown fields: aaa, bogus, zzz",
        ),
        (
            "specimen-records/?fields=taxon(nope)",
            "unknown fields: nope",
        ),
        (
            "people/?fields=last_name+id",
            "fields error: unexpected char ' ' at position 9",
        ),
        (
            "people/?fields=last_name(",
            "fields error: unexpected end of input at position 10",
        ),
    ];
    for (q, message) in errors {
        s.assert_error(&format!("/api/v2/{q}"), 400, message);
    }
}

#[test]
fn single_records_on_all_25_endpoints() {
    let s = Server::sample();
    for &endpoint in catalogue::model::Endpoint::all() {
        let segment = endpoint.segment();
        let list = s.json(&format!("/api/v2/{segment}/?limit=1000"), 200);
        let items = list["items"].as_array().unwrap();
        assert!(!items.is_empty(), "{segment}");
        for item in items {
            let id = item["id"].as_i64().unwrap();
            let one = s.json(&format!("/api/v2/{segment}/{id}/"), 200);
            assert_eq!(&one, item, "{segment}/{id}");
        }
        let name = endpoint.model.class_name();
        for missing in ["999999", "abc", "-1", "1.0"] {
            let body = s.json(&format!("/api/v2/{segment}/{missing}/"), 404);
            assert_eq!(
                body,
                json!({"message": format!("No {name} matches the given query.")}),
                "{segment}/{missing}"
            );
        }
    }
    assert_eq!(
        s.json("/api/v2/people/2/?fields=_,full_name", 200),
        json!({"full_name": "Henry Brooks, Jr."})
    );
    assert_eq!(
        s.json("/api/v2/people/2/?fields=bogus", 400),
        json!({"message": "unknown fields: bogus"})
    );
}

#[test]
fn filters_search_sort_paging_and_fields_compose() {
    let s = Server::sample();
    let r = s.get("/api/v2/specimen-records/?collector_lastname=brooks&search=alaska&sort=-year&fields=_,id,year&limit=1&offset=1");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.text(),
        r#"{"meta":{"total_count":2},"items":[{"id":7,"year":null}]}"#
    );
    let r = s.get("/api/v2/nested-states/?country=1&search=a&sort=-name&fields=_,abbr&limit=3");
    assert_eq!(
        r.text(),
        r#"{"meta":{"total_count":5},"items":[{"abbr":"OH"},{"abbr":"MI"},{"abbr":"LA"}]}"#
    );
}

#[test]
fn facets_count_values_over_the_filtered_records() {
    let server = Server::sample();
    let body = server.json("/api/v2/species/?facet=genus,name&limit=0", 200);
    let genus = body["meta"]["facets"]["genus"].as_array().unwrap();
    let total: i64 = genus.iter().map(|v| v["count"].as_i64().unwrap()).sum();
    assert_eq!(total, body["meta"]["total_count"].as_i64().unwrap());
    assert_eq!(body["items"], json!([]));
    // Counts follow the filter, and facet_size cuts the list.
    let one = server.json("/api/v2/species/?facet=genus&facet_size=1&id=1", 200);
    assert_eq!(one["meta"]["facets"]["genus"].as_array().unwrap().len(), 1);
    assert_eq!(one["meta"]["facets"]["genus"][0]["count"], 1);
    // Without facet, meta is only the total.
    let plain = server.json("/api/v2/species/?limit=0", 200);
    assert_eq!(plain["meta"].as_object().unwrap().len(), 1);
    server.assert_error(
        "/api/v2/specimen-records/?facet=gps",
        400,
        "cannot facet on 'gps' (its records have no name)",
    );
    server.assert_error(
        "/api/v2/orders/?facet=name,bogus",
        400,
        "cannot facet on 'bogus' (unknown field)",
    );
    server.assert_error(
        "/api/v2/orders/?facet=name&facet_size=-1",
        400,
        "facet_size must be a positive integer",
    );
}
