//! What the label-printing form sends, answered as the existing service's Django
//! forms answered it: each request here must give exactly the records of its plain
//! equivalent (and a non-empty answer, so the comparison means something).

use crate::common;

use common::{Server, TempDir};
use serde_json::Value;

fn ids(s: &Server, query: &str) -> Vec<i64> {
    s.ids_of(&format!("/api/v2/specimen-records/?limit=100000&{query}"))
}

/// A value of a specimen field that some generated records hold.
fn some_value(s: &Server, field: &str) -> Value {
    let body = s.json("/api/v2/specimen-records/?limit=100000", 200);
    body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[field].clone())
        .find(|v| !v.is_null() && v != "")
        .unwrap_or_else(|| panic!("no record has a {field}"))
}

#[test]
fn form_values_mean_what_django_read() {
    let dir = TempDir::new("forms");
    let s = Server::start(&common::generated(&dir, 1500), Default::default());
    let all = ids(&s, "");
    let family = some_value(&s, "family")["name"]
        .as_str()
        .unwrap()
        .to_string();
    let usi = some_value(&s, "usi").as_str().unwrap().to_string();
    let date = some_value(&s, "preparation_date")
        .as_str()
        .unwrap()
        .to_string();
    let (y, m, d) = (&date[0..4], &date[5..7], &date[8..10]);
    let same: Vec<(String, String)> = vec![
        // Booleans: NullBooleanSelect's spellings, `unknown` is no filter.
        ("labels_printed=unknown".into(), String::new()),
        ("labels_printed=2".into(), "labels_printed=true".into()),
        ("labeled=3".into(), "labeled=false".into()),
        (
            "photographed=True&labeled=unknown".into(),
            "photographed=1".into(),
        ),
        // Surrounding whitespace is trimmed; only whitespace is no filter.
        (format!("family={family}%20"), format!("family={family}")),
        (format!("usi={usi}%20"), format!("usi={usi}")),
        (format!("usi=+{usi}+"), format!("usi={usi}")),
        ("habitat=%09meadow".into(), "habitat=meadow".into()),
        ("day=%2015".into(), "day=15".into()),
        ("habitat=%20".into(), String::new()),
        ("notes=+%09+".into(), String::new()),
        // Integers in decimal notation, truncated toward zero.
        ("day=1.0".into(), "day=1".into()),
        ("year=1990.5".into(), "year=1990".into()),
        (
            "determined_year=2001.99".into(),
            "determined_year=2001".into(),
        ),
        // Django's default date input formats.
        (
            format!("preparation_date={m}/{d}/{y}"),
            format!("preparation_date={date}"),
        ),
        (
            format!("preparation_date={m}/{d}/{}", &y[2..]),
            format!("preparation_date={date}"),
        ),
    ];
    for (form, plain) in &same {
        let expected = ids(&s, plain);
        assert!(
            !expected.is_empty(),
            "{plain} finds nothing: the case proves nothing"
        );
        assert_eq!(ids(&s, form), expected, "{form} should answer as {plain}");
    }
    assert!(ids(&s, "labels_printed=2").len() < all.len());
}

#[test]
fn query_strings_decode_as_browsers_send_them() {
    let s = Server::sample();
    // A `%` without two hex digits is itself; bytes that are not UTF-8 become U+FFFD.
    for query in [
        "notes=100%",
        "notes=%zz",
        "family=Rhop%aidae",
        "habitat=%FF",
        "search=50%",
    ] {
        let body = s.json(&format!("/api/v2/specimen-records/?{query}"), 200);
        assert_eq!(body["meta"]["total_count"], 0, "{query}");
    }
    // `+` is a space, so this is the two-word search "Tagged before".
    let tagged = s.ids_of("/api/v2/specimen-records/?search=Tagged+before");
    assert_eq!(
        tagged,
        s.ids_of("/api/v2/specimen-records/?notes=tagged%20before")
    );
    assert!(!tagged.is_empty());
    s.assert_error(
        "/api/v2/specimen-records/?notes=a%00b",
        400,
        "the query string holds a NUL character (%00), which no value can hold",
    );
}

#[test]
fn wagtail_operations_on_every_list() {
    let s = Server::sample();
    let names = |path: &str| -> Vec<String> {
        let body = s.json(path, 200);
        body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["name"].as_str().unwrap().to_string())
            .collect()
    };
    let page = |path: &str| common::ids(&s.json(path, 200));
    // `limit` and `offset` read as Python's int().
    assert_eq!(page("/api/v2/orders/?limit=+2"), [1, 2]);
    assert_eq!(page("/api/v2/orders/?limit=%202"), [1, 2]);
    assert_eq!(page("/api/v2/orders/?limit=%202%20&offset=+1"), [2, 3]);
    s.assert_error(
        "/api/v2/orders/?limit=-2",
        400,
        "limit must be a positive integer",
    );
    // `order` is another spelling of `sort`, one field.
    let by_name = names("/api/v2/orders/?sort=name");
    assert_eq!(names("/api/v2/orders/?order=name"), by_name);
    let mut reversed = by_name.clone();
    reversed.reverse();
    assert_eq!(names("/api/v2/orders/?order=-name"), reversed);
    s.assert_error(
        "/api/v2/orders/?order=name,id",
        400,
        "cannot order by 'name,id' (unknown field)",
    );
    // With `sort`, `order` is one more key.
    assert_eq!(
        page("/api/v2/families/?sort=-order&limit=10"),
        page("/api/v2/families/?sort=-order,id&limit=10")
    );
    assert_eq!(
        page("/api/v2/people/?sort=last_name&order=-id"),
        page("/api/v2/people/?sort=last_name,-id")
    );
    // `order=random`: every item, in some order, with nothing to cache.
    let r = s.get("/api/v2/orders/?order=random");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("etag"), None);
    let mut shuffled: Vec<String> = r.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_string())
        .collect();
    shuffled.sort();
    let mut sorted = by_name.clone();
    sorted.sort();
    assert_eq!(shuffled, sorted);
    assert_eq!(page("/api/v2/orders/?order=random&limit=2").len(), 2);
    assert_eq!(page("/api/v2/orders/?order=random&offset=1").len(), 2);
    // After `sort`, `random` only breaks ties.
    let last_names = |path: &str| -> Vec<String> {
        let body = s.json(path, 200);
        let items = body["items"].as_array().unwrap().clone();
        items
            .iter()
            .map(|i| i["last_name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        last_names("/api/v2/people/?sort=last_name&order=random"),
        last_names("/api/v2/people/?sort=last_name")
    );
    // Where a model has a field named `order`, it stays that field.
    assert_eq!(
        s.ids_of("/api/v2/families/?order=1"),
        s.ids_of("/api/v2/families/?sort=id")
            .into_iter()
            .filter(|&id| id == 1 || id == 2)
            .collect::<Vec<_>>()
    );
    assert_eq!(
        s.ids_of("/api/v2/specimen-records/?order=lepid"),
        s.ids_of("/api/v2/specimen-records/?order=Lepidoptera")
    );
    // `search_operator`: `and` by default, `or` for any term.
    let moth = s.ids_of("/api/v2/specimen-records/?search=Nymphalidae");
    let beetle = s.ids_of("/api/v2/specimen-records/?search=Carabidae");
    assert!(!moth.is_empty() && !beetle.is_empty());
    let mut either = [moth.clone(), beetle.clone()].concat();
    either.sort();
    assert_eq!(
        s.ids_of("/api/v2/specimen-records/?search=Nymphalidae+Carabidae&search_operator=or"),
        either
    );
    assert!(s
        .ids_of("/api/v2/specimen-records/?search=Nymphalidae+Carabidae&search_operator=and")
        .is_empty());
    s.assert_error(
        "/api/v2/orders/?search=a&search_operator=xor",
        400,
        "search_operator must be and or or, not \"xor\"",
    );
}
