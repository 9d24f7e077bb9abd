//! Every endpoint's shape on the bundled sample, asserted on real responses.

use crate::common;

use common::{ids, Server};

/// The keys of each endpoint's items, in order, written out independently of the
/// server's field tables.
const KEYS: &[(&str, &str)] = &[
    ("orders", "id name common_name authority date_created date_modified featured_image"),
    ("families", "id name common_name authority date_created date_modified order featured_image"),
    ("nested-families", "id name common_name authority date_created date_modified order featured_image"),
    ("subfamilies", "id name common_name authority date_created date_modified family"),
    ("nested-subfamilies", "id name common_name authority date_created date_modified family"),
    ("tribes", "id name common_name authority date_created date_modified subfamily"),
    ("nested-tribes", "id name common_name authority date_created date_modified subfamily"),
    ("genera", "id name common_name authority date_created date_modified tribe"),
    ("nested-genera", "id name common_name authority date_created date_modified tribe"),
    ("species", "id name binomial common_name authority mona p3 ps date_created date_modified genus featured_image"),
    ("nested-species", "id name binomial common_name authority mona p3 ps date_created date_modified genus featured_image"),
    ("subspecies", "id name trinomial common_name authority mona p3 ps date_created date_modified species"),
    ("nested-subspecies", "id name trinomial common_name authority mona p3 ps date_created date_modified species"),
    ("countries", "id name abbr date_created date_modified"),
    ("states", "id name abbr date_created date_modified country"),
    ("nested-states", "id name abbr date_created date_modified country"),
    ("counties", "id name abbr full_name date_created date_modified state"),
    ("nested-counties", "id name abbr full_name date_created date_modified state"),
    ("localities", "id name range town date_created date_modified country state county"),
    ("nested-localities", "id name range town date_created date_modified country state county"),
    ("gps-coordinates", "id latitude longitude elevation elevation_meters date_created date_modified locality"),
    ("nested-gps-coordinates", "id latitude longitude elevation elevation_meters date_created date_modified locality"),
    ("collecting-trips", "id name slug states start_date end_date notes date_created date_modified"),
    ("people", "id first_name middle_initial last_name suffix collector_name full_name date_created date_modified"),
    (
        "specimen-records",
        "id usi order family subfamily tribe genus species subspecies taxon determiner determined_year sex stage \
         preparer preparation preparation_date labels_printed labeled photographed identified collecting_trip \
         country state county locality gps day month year collected_date full_date num_date collector collectors \
         method weather temperature temp_F temp_C time_of_day habitat notes date_created date_modified",
    ),
];

/// Record counts of the bundled sample, per plain list.
const COUNTS: &[(&str, usize)] = &[
    ("orders", 3),
    ("families", 4),
    ("subfamilies", 3),
    ("tribes", 3),
    ("genera", 3),
    ("species", 3),
    ("subspecies", 1),
    ("countries", 3),
    ("states", 7),
    ("counties", 7),
    ("localities", 6),
    ("gps-coordinates", 3),
    ("collecting-trips", 2),
    ("people", 4),
    ("specimen-records", 8),
];

/// The keys of a JSON object in the order the server wrote them.
fn keys_in_order(raw: &str) -> Vec<String> {
    // Read the first item's top-level keys straight from the text: serde_json's
    // maps do not keep order.
    let start = raw.find("\"items\":[{").expect("a non-empty list") + "\"items\":[".len();
    let mut keys = Vec::new();
    let mut depth = 0;
    let bytes = raw.as_bytes();
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b'"' => {
                let end = i + 1 + raw[i + 1..].find('"').unwrap();
                if depth == 1 && bytes[end + 1] == b':' {
                    keys.push(raw[i + 1..end].to_string());
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    keys
}

#[test]
fn all_25_endpoints_answer_with_their_keys_in_order() {
    let server = Server::sample();
    assert_eq!(KEYS.len(), 25);
    for (endpoint, keys) in KEYS {
        let r = server.get(&format!("/api/v2/{endpoint}/"));
        assert_eq!(r.status, 200, "{endpoint}");
        let expected: Vec<&str> = keys.split_whitespace().collect();
        assert_eq!(keys_in_order(&r.text()), expected, "{endpoint}");
        let plain = endpoint.trim_start_matches("nested-");
        let count = COUNTS.iter().find(|(e, _)| *e == plain).unwrap().1;
        let body = r.json();
        assert_eq!(body["meta"]["total_count"], count, "{endpoint}");
        let got = ids(&body);
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(got, sorted, "{endpoint} is ordered by id");
        assert_eq!(got.len(), count.min(20), "{endpoint}");
    }
}

#[test]
fn plain_lists_give_parent_ids_and_nested_lists_give_whole_parents() {
    let server = Server::sample();
    let plain = server.json("/api/v2/subspecies/", 200);
    assert_eq!(plain["items"][0]["species"], 1);
    let nested = server.json("/api/v2/nested-subspecies/", 200);
    let species = &nested["items"][0]["species"];
    assert_eq!(species["binomial"], "Danaus plexippus");
    let order = &species["genus"]["tribe"]["subfamily"]["family"]["order"];
    assert_eq!(order["name"], "Lepidoptera");
    // A nested locality nests whichever region it hangs from.
    let localities = server.json("/api/v2/nested-localities/", 200);
    let by_id = |id: i64| {
        localities["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(by_id(1)["county"]["state"]["country"]["abbr"], "USA");
    assert_eq!(by_id(4)["state"]["country"]["name"], "Canada");
    assert_eq!(by_id(5)["country"]["name"], "Costa Rica");
    assert!(by_id(5)["state"].is_null() && by_id(5)["county"].is_null());
}

#[test]
fn exact_bodies() {
    let server = Server::sample();
    for (path, expected) in [
        ("/api/v2/orders/?offset=1", golden::ORDERS_2_3),
        ("/api/v2/people/", golden::PEOPLE),
        ("/api/v2/counties/", golden::COUNTIES),
        ("/api/v2/collecting-trips/", golden::COLLECTING_TRIPS),
        (
            "/api/v2/nested-gps-coordinates/?limit=1&offset=1",
            golden::NESTED_GPS_PAGE,
        ),
        ("/api/v2/specimen-records/5/", golden::SPECIMEN_5),
    ] {
        let r = server.get(path);
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.text(), expected, "{path}");
    }
}

#[test]
fn specimen_derived_values() {
    let server = Server::sample();
    let body = server.json("/api/v2/specimen-records/", 200);
    let items = body["items"].as_array().unwrap();
    let get = |id: i64| items.iter().find(|i| i["id"] == id).unwrap();
    let one = get(1);
    // Collectors sorted by last name, first name, id.
    let collector_ids: Vec<i64> = one["collector"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    assert_eq!(collector_ids, vec![1, 3, 2, 4]);
    assert_eq!(
        one["collectors"],
        "R.M. Alvarez, A. Brooks, H. Brooks Jr., T.J. Côté III"
    );
    assert_eq!(one["taxon"]["trinomial"], "Danaus plexippus megalippe");
    assert_eq!(one["identified"], true);
    assert_eq!(
        one["collecting_trip"]["slug"],
        "gulf-coast-migration-count-2019"
    );
    assert_eq!(one["collecting_trip"]["states"][0]["name"], "Louisiana");
    assert_eq!(
        (one["temp_F"].as_str(), one["temp_C"].as_str()),
        (Some("76.2°F"), Some("24.6°C"))
    );
    assert_eq!(
        (&one["collected_date"], &one["full_date"], &one["num_date"]),
        (
            &"4-Oct-2019".into(),
            &"4 October 2019".into(),
            &"2019-10-04".into()
        )
    );
    let two = get(2);
    assert_eq!(
        (two["temp_F"].as_str(), two["temp_C"].as_str()),
        (Some("31.9°F"), Some("-0.0°C"))
    );
    assert_eq!(
        (two["collected_date"].as_str(), two["num_date"].as_str()),
        (Some("Aug 2018"), Some("2018-08"))
    );
    assert_eq!(two["taxon"]["binomial"], "Danaus plexippus");
    let four = get(4);
    assert_eq!(
        (four["full_date"].as_str(), four["temp_F"].as_str()),
        (Some("2015"), Some("70°F"))
    );
    // No taxon at all, no year, no month: nulls and empty strings.
    let seven = get(7);
    assert!(seven["taxon"].is_null());
    assert_eq!(seven["identified"], false);
    assert_eq!(
        (seven["collected_date"].as_str(), seven["num_date"].as_str()),
        (Some(""), Some(""))
    );
    assert_eq!(
        (seven["temp_F"].as_str(), seven["temp_C"].as_str()),
        (Some("-3°F"), Some("-19.4°C"))
    );
    // Family-level taxon, not identified.
    let eight = get(8);
    assert_eq!(eight["taxon"]["name"], "Saturniidae");
    assert_eq!(eight["identified"], false);
    assert_eq!(eight["temp_F"], "45.0°F");
}

#[test]
fn unknown_paths_are_404_json() {
    let server = Server::sample();
    for path in ["/api/v2/bogus/", "/api/v1/orders/", "/api/v2/orders/1/x/"] {
        let body = server.json(path, 404);
        assert_eq!(body, serde_json::json!({"message": "Not found."}), "{path}");
    }
}

#[test]
fn a_list_name_that_is_none_gets_the_nearest() {
    let server = Server::sample();
    server.assert_error(
        "/api/v2/specimens/",
        404,
        "Not found. There is no list \"specimens\"; did you mean /api/v2/specimen-records/, \
         /api/v2/specimen-record-images/ or /api/v2/species/? /api/v2/ lists them all.",
    );
    server.assert_error(
        "/api/v2/nested-people/",
        404,
        "Not found. There is no list \"nested-people\"; did you mean /api/v2/people/? \
         /api/v2/ lists them all.",
    );
    server.assert_error(
        "/api/v2/familys/7/",
        404,
        "Not found. There is no list \"familys\"; did you mean /api/v2/families/? \
         /api/v2/ lists them all.",
    );
}

#[test]
fn the_api_root_lists_every_list_and_the_documents() {
    let server = Server::sample();
    for path in ["/", "/api/v2/"] {
        let root = server.json(path, 200);
        let lists = root["lists"].as_object().unwrap();
        // The 30 lists, and Wagtail's images, pages and documents.
        assert_eq!(lists.len(), 33, "{path}");
        assert_eq!(lists["orders"], "/api/v2/orders/");
        assert_eq!(lists["images"], "/api/v2/images/");
        assert_eq!(lists["nested-families"], "/api/v2/nested-families/");
        for url in lists.values() {
            server.json(url.as_str().unwrap(), 200);
        }
        assert_eq!(root["openapi"], "/api/v2/openapi.json");
        assert_eq!(root["docs"], "/api/v2/docs");
        assert_eq!(root["archive"], "/dwca.zip");
    }
    for path in ["/api", "/api/", "/api/v2"] {
        let r = server.get(path);
        assert_eq!(r.status, 301, "{path}");
        assert_eq!(r.header("location"), Some("/api/v2/"), "{path}");
    }
}

#[test]
fn a_path_without_its_slash_redirects_with_the_query() {
    let server = Server::sample();
    let r = server.get("/api/v2/orders?limit=1");
    assert_eq!(r.status, 301);
    assert_eq!(r.header("location"), Some("/api/v2/orders/?limit=1"));
    let r = server.get("/api/v2/people/3");
    assert_eq!(r.status, 301);
    assert_eq!(r.header("location"), Some("/api/v2/people/3/"));
}

#[test]
fn single_records_answer_as_their_list_shows_them() {
    let server = Server::sample();
    let list = server.json("/api/v2/nested-counties/", 200);
    let one = server.json("/api/v2/nested-counties/2/", 200);
    assert_eq!(one, list["items"][1]);
    assert_eq!(server.json("/api/v2/counties/2/", 200)["state"], 2);
    let missing = server.json("/api/v2/gps-coordinates/99/", 404);
    assert_eq!(missing["message"], "No GPS matches the given query.");
    let missing = server.json("/api/v2/specimen-records/abc/", 404);
    assert_eq!(
        missing["message"],
        "No SpecimenRecord matches the given query."
    );
    // A USI in the record's place: the 404 says where a USI is asked, and
    // that address finds it.
    let usi = server.json("/api/v2/specimen-records/1/", 200)["usi"].clone();
    let usi = usi.as_str().unwrap();
    let missing = server.json(&format!("/api/v2/specimen-records/{usi}/"), 404);
    let found_at = format!("/api/v2/specimen-records/?usi={usi}");
    assert_eq!(
        missing["message"],
        format!(
            "No SpecimenRecord matches the given query. A record is named by its id; a \
             specimen is found by its USI at {found_at}"
        )
    );
    assert_eq!(server.json(&found_at, 200)["items"][0]["id"], 1);
}

#[test]
fn only_reads_are_allowed() {
    let server = Server::sample();
    let r = common::request(
        server.addr,
        "POST /api/v2/orders/1/ HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("GET, HEAD, OPTIONS"));
    assert!(r.json()["message"].as_str().unwrap().contains("read-only"));
}

#[test]
fn a_huge_limit_gives_the_whole_list_with_an_exact_length() {
    // The streamed (head, slice, tail) body is exercised in tests/paging.rs, on a
    // collection big enough to pass the copy threshold.
    let server = Server::sample();
    let r = server.get("/api/v2/specimen-records/?limit=100000");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-length")
            .map(|l| l.parse::<usize>().unwrap()),
        Some(r.body.len())
    );
    assert_eq!(ids(&r.json()), vec![1, 2, 3, 4, 5, 6, 7, 8]);
}

mod golden {
    pub const ORDERS_2_3: &str = r#"{"meta":{"total_count":3},"items":[{"id":2,"name":"Coleoptera","common_name":"Beetles","authority":"Linnaeus, 1758","date_created":"2023-03-02T14:11:40.000000Z","date_modified":"2023-03-02T14:11:40.000000Z","featured_image":null},{"id":3,"name":"Odonata","common_name":null,"authority":"Fabricius, 1793","date_created":"2023-03-02T14:12:00.500000Z","date_modified":"2023-03-02T14:12:00.500000Z","featured_image":null}]}"#;
    pub const PEOPLE: &str = r#"{"meta":{"total_count":4},"items":[{"id":1,"first_name":"Rosa","middle_initial":"M","last_name":"Alvarez","suffix":null,"collector_name":"R.M. Alvarez","full_name":"Rosa M. Alvarez","date_created":"2023-02-01T12:00:00.000000Z","date_modified":"2023-02-01T12:00:00.000000Z"},{"id":2,"first_name":"Henry","middle_initial":null,"last_name":"Brooks","suffix":"Jr.","collector_name":"H. Brooks Jr.","full_name":"Henry Brooks, Jr.","date_created":"2023-02-01T12:05:00.000000Z","date_modified":"2023-02-01T12:05:00.000000Z"},{"id":3,"first_name":"Amelia","middle_initial":null,"last_name":"Brooks","suffix":null,"collector_name":"A. Brooks","full_name":"Amelia Brooks","date_created":"2023-02-01T12:10:00.000000Z","date_modified":"2023-02-01T12:10:00.000000Z"},{"id":4,"first_name":"Théo","middle_initial":"J","last_name":"Côté","suffix":"III","collector_name":"T.J. Côté III","full_name":"Théo J. Côté, III","date_created":"2023-02-01T12:15:00.000000Z","date_modified":"2023-02-01T12:15:00.000000Z"}]}"#;
    pub const COUNTIES: &str = r#"{"meta":{"total_count":7},"items":[{"id":1,"name":"Washtenaw","abbr":"Co.","full_name":"Washtenaw Co.","date_created":"2023-01-12T01:30:00.000000Z","date_modified":"2023-01-12T01:30:00.000000Z","state":1},{"id":2,"name":"Matanuska-Susitna","abbr":"Boro.","full_name":"Matanuska-Susitna Boro.","date_created":"2023-01-12T02:30:00.000000Z","date_modified":"2023-01-12T02:30:00.000000Z","state":2},{"id":3,"name":"Bethel Census Area","abbr":"","full_name":"Bethel Census Area","date_created":"2023-01-12T03:30:00.000000Z","date_modified":"2023-01-12T03:30:00.000000Z","state":2},{"id":4,"name":"Orleans","abbr":"Par.","full_name":"Orleans Par.","date_created":"2023-01-12T04:30:00.000000Z","date_modified":"2023-01-12T04:30:00.000000Z","state":3},{"id":5,"name":"Lucas/Wood","abbr":"Co.","full_name":"Lucas/Wood Co. line","date_created":"2023-01-12T05:30:00.000000Z","date_modified":"2023-01-12T05:30:00.000000Z","state":4},{"id":6,"name":"Marquette","abbr":"Co.","full_name":"Marquette Co.","date_created":"2023-01-12T06:30:00.000000Z","date_modified":"2023-01-12T06:30:00.000000Z","state":1},{"id":7,"name":"Cochise","abbr":"Co.","full_name":"Cochise Co.","date_created":"2023-01-12T07:30:00.000000Z","date_modified":"2023-01-12T07:30:00.000000Z","state":7}]}"#;
    pub const COLLECTING_TRIPS: &str = r#"{"meta":{"total_count":2},"items":[{"id":1,"name":"Gulf Coast Migration Count 2019","slug":"gulf-coast-migration-count-2019","states":[{"id":3,"name":"Louisiana","abbr":"LA","date_created":"2023-01-11T03:00:00.000000Z","date_modified":"2023-01-11T03:00:00.000000Z","country":1},{"id":4,"name":"Ohio","abbr":"OH","date_created":"2023-01-11T04:00:00.000000Z","date_modified":"2023-01-11T04:00:00.000000Z","country":1}],"start_date":"2019-10-02","end_date":"2019-10-09","notes":"<p>Monarch roosts along the coast.</p>","date_created":"2023-05-20T18:00:00.000000Z","date_modified":"2023-05-20T18:00:00.000000Z"},{"id":2,"name":"Sky Islands – Été 2021!","slug":"sky-islands-ete-2021","states":[{"id":7,"name":"Arizona","abbr":"AZ","date_created":"2023-01-11T07:00:00.000000Z","date_modified":"2023-01-11T07:00:00.000000Z","country":1}],"start_date":"2021-07-15","end_date":"2021-07-28","notes":null,"date_created":"2023-05-21T18:00:00.000000Z","date_modified":"2023-05-21T18:00:00.000000Z"}]}"#;
    pub const NESTED_GPS_PAGE: &str = r#"{"meta":{"total_count":3},"items":[{"id":2,"latitude":null,"longitude":null,"elevation":"400-550","elevation_meters":"400-550m","date_created":"2023-01-14T09:05:00.000000Z","date_modified":"2023-01-14T09:05:00.000000Z","locality":{"id":4,"name":"Parc national de la Jacques-Cartier","range":null,"town":null,"date_created":"2023-01-13T08:15:00.000000Z","date_modified":"2023-01-13T08:15:00.000000Z","country":null,"state":{"id":5,"name":"Québec","abbr":"QC","date_created":"2023-01-11T05:00:00.000000Z","date_modified":"2023-01-11T05:00:00.000000Z","country":{"id":2,"name":"Canada","abbr":"CAN","date_created":"2023-01-10T10:01:00.000000Z","date_modified":"2023-01-10T10:01:00.000000Z"}},"county":null}}]}"#;
    pub const SPECIMEN_5: &str = r#"{"id":5,"usi":"UMMZ-000005","order":{"id":3,"name":"Odonata","common_name":null,"authority":"Fabricius, 1793","date_created":"2023-03-02T14:12:00.500000Z","date_modified":"2023-03-02T14:12:00.500000Z","featured_image":null},"family":{"id":4,"name":"Aeshnidae","common_name":"Darners","authority":"Rambur, 1842","date_created":"2023-03-02T15:03:00.000000Z","date_modified":"2023-03-02T15:03:00.000000Z","order":3,"featured_image":null},"subfamily":null,"tribe":null,"genus":null,"species":null,"subspecies":null,"taxon":{"id":4,"name":"Aeshnidae","common_name":"Darners","authority":"Rambur, 1842","date_created":"2023-03-02T15:03:00.000000Z","date_modified":"2023-03-02T15:03:00.000000Z","order":3,"featured_image":null},"determiner":null,"determined_year":null,"sex":"male","stage":"nymph","preparer":null,"preparation":"alcohol","preparation_date":null,"labels_printed":null,"labeled":null,"photographed":null,"identified":false,"collecting_trip":null,"country":{"id":3,"name":"Costa Rica","abbr":"CRI","date_created":"2023-01-10T10:02:00.000000Z","date_modified":"2023-01-10T10:02:00.000000Z"},"state":null,"county":null,"locality":{"id":5,"name":"Monteverde Cloud Forest","range":"5 km E","town":"Santa Elena","date_created":"2023-01-13T08:20:00.000000Z","date_modified":"2023-01-13T08:20:00.000000Z","country":3,"state":null,"county":null},"gps":{"id":3,"latitude":"10.300000","longitude":"-84.800000","elevation":"1440","elevation_meters":"1440m","date_created":"2023-01-14T09:10:00.000000Z","date_modified":"2023-01-14T09:10:00.000000Z","locality":5},"day":3,"month":"March","year":2023,"collected_date":"3-Mar-2023","full_date":"3 March 2023","num_date":"2023-03-03","collector":[],"collectors":"","method":"","weather":"","temperature":"","temp_F":"","temp_C":"","time_of_day":"","habitat":"","notes":"","date_created":"2024-01-05T10:20:00.000000Z","date_modified":"2024-01-05T10:20:00.000000Z"}"#;
}
