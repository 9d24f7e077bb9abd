//! Filters and sorts on a generated collection big enough that some fields are
//! grouped and others are not: every answer must equal the one computed here from
//! the full rendered list.

use crate::common;

use catalogue::model::{Endpoint, Model};
use catalogue::query::{self, Limits, Params, Plan};
use catalogue::view::View;
use common::TempDir;
use serde_json::Value;

/// The answer to a list request, which must succeed.
fn page(view: &View, endpoint: Endpoint, q: &str) -> query::Page {
    Plan::parse(endpoint, &Params::parse(q).unwrap(), &Limits::default())
        .unwrap_or_else(|e| panic!("{q}: {}", e.message))
        .run(view)
}

fn items(view: &View, endpoint: Endpoint, q: &str) -> (usize, Vec<Value>) {
    let page = page(view, endpoint, q);
    // Media URLs carry a marker where the server puts their base: left out here.
    let mut json = [b"[", &page.items.parts().concat()[..], b"]"].concat();
    json.retain(|&b| b != catalogue::view::render::MEDIA_BASE);
    let items: Vec<Value> = serde_json::from_slice(&json).unwrap();
    (page.total, items)
}

/// Every string of an item, lowercased, timestamps aside: what `search` looks in.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.to_lowercase()),
        Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        // Timestamps and featured images are not searched.
        Value::Object(o) => o
            .iter()
            .filter(|(k, _)| !k.starts_with("date_") && *k != "featured_image")
            .for_each(|(_, v)| strings(v, out)),
        _ => {}
    }
}

fn text(v: &Value, path: &[&str]) -> String {
    let mut v = v;
    for p in path {
        v = &v[p];
    }
    v.as_str().unwrap_or_default().to_lowercase()
}

const SPECIMENS: Endpoint = Endpoint {
    model: Model::SpecimenRecord,
    nested: false,
};

/// A view of a generated collection; the directory lives as long as the view is used.
fn generated_view(tag: &str, specimens: usize) -> (TempDir, View) {
    let dir = TempDir::new(tag);
    let view = View::load(&common::generated(&dir, specimens)).unwrap();
    (dir, view)
}

#[test]
fn grouped_filters_and_partial_sorts_agree_with_the_full_list() {
    let (_dir, view) = generated_view("indexed", 5000);
    let specimens = SPECIMENS;
    let (total, all) = items(&view, specimens, "limit=100000");
    assert_eq!((total, all.len()), (5000, 5000));

    type Pred = Box<dyn Fn(&Value) -> bool>;
    let search = |terms: &[&str]| -> Pred {
        let terms: Vec<String> = terms.iter().map(|t| t.to_string()).collect();
        Box::new(move |s: &Value| {
            let mut all = Vec::new();
            strings(s, &mut all);
            terms.iter().all(|t| all.iter().any(|s| s.contains(t)))
        })
    };
    let collector = |term: &'static str| -> Pred {
        Box::new(move |s: &Value| {
            s["collector"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| text(p, &["last_name"]).contains(term))
        })
    };
    let cases: Vec<(&str, Pred)> = vec![
        ("year=1990", Box::new(|s| s["year"] == 1990)),
        (
            "sex=female&year=1990",
            Box::new(|s| s["sex"] == "female" && s["year"] == 1990),
        ),
        (
            "order=lepi",
            Box::new(|s| text(s, &["order", "name"]).contains("lepi")),
        ),
        ("collector_lastname=re", collector("re")),
        (
            "method=light",
            Box::new(|s| text(s, &["method"]).contains("light")),
        ),
        (
            "notes=worn",
            Box::new(|s| text(s, &["notes"]).contains("worn")),
        ),
        (
            "family=idae&full_date=june&labeled=true",
            Box::new(|s| {
                text(s, &["family", "name"]).contains("idae")
                    && text(s, &["full_date"]).contains("june")
                    && s["labeled"] == true
            }),
        ),
        (
            "order=lepi&year=1990&sex=female",
            Box::new(|s| {
                text(s, &["order", "name"]).contains("lepi")
                    && s["year"] == 1990
                    && s["sex"] == "female"
            }),
        ),
        ("collector_lastname=re&year=1990", {
            let re = collector("re");
            Box::new(move |s| re(s) && s["year"] == 1990)
        }),
        ("usi=CAT-000042", Box::new(|s| s["usi"] == "CAT-000042")),
        ("state=zzz", Box::new(|_| false)),
        ("search=moth+june", search(&["moth", "june"])),
        ("search=reyes&year=1990", {
            let reyes = search(&["reyes"]);
            Box::new(move |s| reyes(s) && s["year"] == 1990)
        }),
    ];
    for (q, keep) in &cases {
        let expected: Vec<&Value> = all.iter().filter(|s| keep(s)).map(|s| &s["id"]).collect();
        // Each case but the last matches something, so the comparison means something.
        assert_eq!(expected.is_empty(), q.starts_with("state=zzz"), "{q}");
        let (total, got) = items(&view, specimens, &format!("{q}&limit=100000"));
        let got: Vec<&Value> = got.iter().map(|s| &s["id"]).collect();
        assert_eq!(total, expected.len(), "{q}");
        assert_eq!(got, expected, "{q}");
    }

    // One substring condition on a one-record field is paged by merging the
    // related records' groups: every page is that slice of the full answer.
    for (q, path) in [
        ("family=idae", &["family", "name"][..]),
        ("family=a", &["family", "name"]),
        ("taxon=on", &["taxon", "name"]),
        ("country=québ", &["country", "name"]),
        ("genus=qzx", &["genus", "name"]),
    ] {
        let term = q.split('=').nth(1).unwrap();
        let want: Vec<i64> = all
            .iter()
            .filter(|s| text(s, path).contains(term))
            .map(|s| s["id"].as_i64().unwrap())
            .collect();
        for (offset, limit) in [
            (0, 20),
            (7, 3),
            (want.len().saturating_sub(5), 20),
            (0, 100000),
        ] {
            let page = format!("{q}&offset={offset}&limit={limit}");
            let (total, got) = items(&view, specimens, &page);
            let got: Vec<i64> = got.iter().map(|s| s["id"].as_i64().unwrap()).collect();
            let expected: Vec<i64> = want.iter().skip(offset).take(limit).copied().collect();
            assert_eq!((total, got), (want.len(), expected), "{page}");
        }
    }

    // One-word searches, answered from the words of the search text: fragments
    // inside words, across punctuation, accented, numbers.
    for term in [
        "a", "mo", "ée", "côté", "québec", "cat-0001", "1990", ",", "-06-", "z", "qzx",
    ] {
        let want: Vec<&Value> = all
            .iter()
            .filter(|s| search(&[term])(s))
            .map(|s| &s["id"])
            .collect();
        let q = format!("search={}&limit=100000", term.replace(',', "%2C"));
        let (total, got) = items(&view, specimens, &q);
        let got: Vec<&Value> = got.iter().map(|s| &s["id"]).collect();
        assert_eq!((total, got), (want.len(), want), "{q}");
    }

    // A sorted page anywhere in the list is that slice of the whole sorted list.
    let mut sorted: Vec<&Value> = all.iter().collect();
    sorted.sort_by_key(|s| {
        (
            std::cmp::Reverse(s["year"].as_i64()),
            s["usi"].as_str().map(String::from),
        )
    });
    // Nulls last when descending: `Reverse(None)` sorts first, so move them.
    let (nulls, years): (Vec<&Value>, Vec<&Value>) =
        sorted.into_iter().partition(|s| s["year"].is_null());
    let sorted: Vec<&Value> = years.into_iter().chain(nulls).collect();
    for (offset, limit) in [(0, 20), (1234, 20), (4990, 20), (0, 5000), (17, 0)] {
        let (total, got) = items(
            &view,
            specimens,
            &format!("sort=-year,usi&offset={offset}&limit={limit}"),
        );
        assert_eq!(total, 5000);
        let want: Vec<&Value> = sorted
            .iter()
            .skip(offset)
            .take(limit)
            .map(|s| &s["id"])
            .collect();
        let got: Vec<&Value> = got.iter().map(|s| &s["id"]).collect();
        assert_eq!(got, want, "offset {offset} limit {limit}");
    }

    // Exact filters on another list, through a parent id.
    let species = Endpoint {
        model: Model::Species,
        nested: false,
    };
    let (_, every) = items(&view, species, "limit=100000");
    let genus = every[10]["genus"].as_i64().unwrap();
    let (total, got) = items(&view, species, &format!("genus={genus}&limit=100000"));
    let want: Vec<&Value> = every
        .iter()
        .filter(|s| s["genus"] == genus)
        .map(|s| &s["id"])
        .collect();
    assert!(total >= 1);
    assert_eq!(got.iter().map(|s| &s["id"]).collect::<Vec<_>>(), want);
}

/// `meta.facets` of a list answer, as JSON.
fn facets_of(view: &View, endpoint: Endpoint, q: &str) -> Value {
    let page = page(view, endpoint, q);
    let meta = [b"{", &page.meta[1..], b"}"].concat();
    serde_json::from_slice::<Value>(&meta).unwrap()["facets"].clone()
}

/// Facet counts computed here from items: values per item, counted, ordered by
/// count then value (nulls last), cut to `size`.
fn expected_facet(items: &[&Value], values: impl Fn(&Value) -> Vec<Value>, size: usize) -> Value {
    let mut counts: Vec<(Value, usize)> = Vec::new();
    for item in items {
        for v in values(item) {
            match counts.iter_mut().find(|(x, _)| *x == v) {
                Some((_, n)) => *n += 1,
                None => counts.push((v, 1)),
            }
        }
    }
    let key = |v: &Value| {
        (
            v.is_null(),
            v.as_bool(),
            v.as_i64(),
            v.as_str().map(String::from),
        )
    };
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| key(&a.0).cmp(&key(&b.0))));
    counts
        .into_iter()
        .take(size)
        .map(|(value, count)| serde_json::json!({"value": value, "count": count}))
        .collect()
}

#[test]
fn facet_counts_equal_counts_from_the_full_list() {
    let (_dir, view) = generated_view("facets", 3000);
    let specimens = SPECIMENS;
    let (_, all) = items(&view, specimens, "limit=100000");
    let family = |s: &Value| vec![s["family"]["name"].clone()];
    let year = |s: &Value| vec![s["year"].clone()];
    let collector = |s: &Value| {
        s["collector"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["full_name"].clone())
            .collect()
    };
    for (filter, keep) in [
        (
            "",
            Box::new(|_: &&Value| true) as Box<dyn Fn(&&Value) -> bool>,
        ),
        ("sort=-year&", Box::new(|_: &&Value| true)),
        ("year=1990&", Box::new(|s: &&Value| s["year"] == 1990)),
        (
            "order=lepi&",
            Box::new(|s: &&Value| text(s, &["order", "name"]).contains("lepi")),
        ),
        // Most rows: related facets are counted through the groups and a bitset.
        (
            "family=idae&",
            Box::new(|s: &&Value| text(s, &["family", "name"]).contains("idae")),
        ),
    ] {
        let kept: Vec<&Value> = all.iter().filter(|s| keep(s)).collect();
        assert!(!kept.is_empty(), "{filter}");
        let named = |field: &'static str| move |s: &Value| vec![s[field]["name"].clone()];
        let q = format!("{filter}facet=taxon,country&facet_size=1000&limit=1");
        let got = facets_of(&view, specimens, &q);
        assert_eq!(
            got["taxon"],
            expected_facet(&kept, named("taxon"), 1000),
            "{q}"
        );
        assert_eq!(
            got["country"],
            expected_facet(&kept, named("country"), 1000),
            "{q}"
        );
        let q = format!("{filter}facet=family,year,collector&facet_size=1000&limit=1");
        let got = facets_of(&view, specimens, &q);
        assert_eq!(got["family"], expected_facet(&kept, family, 1000), "{q}");
        assert_eq!(got["year"], expected_facet(&kept, year, 1000), "{q}");
        assert_eq!(
            got["collector"],
            expected_facet(&kept, collector, 1000),
            "{q}"
        );
        let top = facets_of(&view, specimens, &format!("{filter}facet=family"));
        assert_eq!(top["family"], expected_facet(&kept, family, 30), "{filter}");
        // Scalar fields, counted by rank: nulls, booleans, unique strings, instants.
        for (field, size) in [
            ("labeled", 1000),
            ("determined_year", 1000),
            ("determined_year", 3),
            ("usi", 30),
            ("sex", 1000),
            ("date_created", 10),
        ] {
            let q = format!("{filter}facet={field}&facet_size={size}&limit=1");
            let got = facets_of(&view, specimens, &q);
            let want = expected_facet(&kept, |s| vec![s[field].clone()], size);
            assert_eq!(got[field], want, "{q}");
        }
    }
}

/// What orders an item by a field in the oracle: its JSON value read as the
/// field's type (instants parsed, so that `…05Z` and `…05.120000Z` compare right).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Int(i64),
    Str(String),
    Bool(bool),
}

fn key_of(item: &Value, field: &catalogue::model::Field) -> Option<Key> {
    use catalogue::model::Type;
    let v = item.get(field.name)?;
    match (field.ty, v) {
        (_, Value::Null) => None,
        (Type::Time, Value::String(s)) => Some(Key::Int(
            chrono::DateTime::parse_from_rfc3339(s)
                .unwrap()
                .timestamp_micros(),
        )),
        (_, Value::String(s)) => Some(Key::Str(s.clone())),
        (_, Value::Bool(b)) => Some(Key::Bool(*b)),
        (_, Value::Number(n)) => Some(Key::Int(n.as_i64().unwrap())),
        (_, Value::Object(o)) => Some(Key::Int(o["id"].as_i64().unwrap())),
        (_, other) => panic!("{}: {other}", field.name),
    }
}

/// The ids of `items` sorted by `keys` (field, descending) as `sort` promises:
/// nulls last both ways, ties by ascending id.
fn sorted_ids(items: &[&Value], model: Model, keys: &[(&str, bool)]) -> Vec<i64> {
    let fields: Vec<_> = keys
        .iter()
        .map(|(name, d)| (&model.fields()[model.field_index(name).unwrap()], *d))
        .collect();
    let mut items = items.to_vec();
    items.sort_by(|a, b| {
        fields
            .iter()
            .map(|(f, descending)| match (key_of(a, f), key_of(b, f)) {
                (None, None) => std::cmp::Ordering::Equal,
                (None, _) => std::cmp::Ordering::Greater,
                (_, None) => std::cmp::Ordering::Less,
                (Some(x), Some(y)) if *descending => y.cmp(&x),
                (Some(x), Some(y)) => x.cmp(&y),
            })
            .find(|o| o.is_ne())
            .unwrap_or_else(|| a["id"].as_i64().cmp(&b["id"].as_i64()))
    });
    items.iter().map(|i| i["id"].as_i64().unwrap()).collect()
}

/// Every sortable field of three lists, both ways, on every row and on a broad and
/// a narrow filter, at pages across the list: the answer is that slice of the full
/// list sorted here. The generated collection has nulls, ties and accented names.
#[test]
fn sort_orders_agree_with_sorting_the_full_list() {
    use catalogue::model::Shape;
    use catalogue::query::sort::sortable;
    let (_dir, view) = generated_view("indexed-sort", 3000);
    let lists = [
        (Model::SpecimenRecord, vec!["", "sex=female", "year=1990"]),
        (Model::Species, vec!["", "search=moth"]),
        (Model::Locality, vec![""]),
    ];
    let mut checked = 0;
    for (model, filters) in lists {
        let endpoint = Endpoint {
            model,
            nested: false,
        };
        let fields: Vec<&str> = model
            .fields()
            .iter()
            .filter(|f| sortable(f.ty, Shape::Plain))
            .map(|f| f.name)
            .collect();
        assert!(fields.len() >= 3, "{model:?}");
        for filter in filters {
            let (total, all) = items(&view, endpoint, &format!("{filter}&limit=100000"));
            assert!(total > 0, "{model:?} {filter}");
            let all: Vec<&Value> = all.iter().collect();
            let mut orders: Vec<Vec<(&str, bool)>> = fields
                .iter()
                .flat_map(|f| [vec![(*f, false)], vec![(*f, true)]])
                .collect();
            // Two keys: the second orders what the first leaves tied.
            orders.push(vec![(fields[2], true), (fields[1], false)]);
            for keys in orders {
                let want = sorted_ids(&all, model, &keys);
                let sort: Vec<String> = keys
                    .iter()
                    .map(|(f, d)| format!("{}{f}", if *d { "-" } else { "" }))
                    .collect();
                for offset in [0, total / 2, total.saturating_sub(7)] {
                    let q = format!("{filter}&sort={}&offset={offset}&limit=20", sort.join(","));
                    let (got_total, got) = items(&view, endpoint, &q);
                    let got: Vec<i64> = got.iter().map(|i| i["id"].as_i64().unwrap()).collect();
                    let expected: Vec<i64> = want.iter().skip(offset).take(20).copied().collect();
                    assert_eq!((got_total, got), (total, expected), "{model:?} {q}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 200, "{checked}");
}
