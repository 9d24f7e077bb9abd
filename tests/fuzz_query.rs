//! Property test: arbitrary query strings thrown at the query parser and the list
//! and record answers never panic, and every refusal is a 400 or a 404.
//!
//! `PROPTEST_CASES=200000 cargo test --release --test fuzz_query` runs more.

use crate::common;

use std::sync::OnceLock;

use catalogue::model::Endpoint;
use catalogue::query::{Limits, Params, Plan, RecordPlan};
use catalogue::view::View;
use proptest::prelude::*;

fn view() -> &'static View {
    static VIEW: OnceLock<View> = OnceLock::new();
    VIEW.get_or_init(|| View::load(&common::sample_snapshot()).unwrap())
}

/// Fields, specimen filters and names the server does not know; the operations are
/// added from `query::OPERATIONS`, so a new operation is fuzzed too.
const OTHER_NAMES: &[&str] = &[
    "id",
    "name",
    "country",
    "state",
    "year",
    "day",
    "month",
    "sex",
    "labeled",
    "order",
    "taxon",
    "collector_lastname",
    "usi",
    "preparation_date",
    "date_created",
    "states",
    "genus",
    "bogus",
    "",
];

fn names() -> Vec<&'static str> {
    catalogue::query::OPERATIONS
        .iter()
        .chain(OTHER_NAMES)
        .copied()
        .collect()
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[-_,()*a-zA-Z0-9.+%= ]{0,24}",
        "[0-9]{0,25}",
        "(_|\\*|-?[a-z_]{1,12})(,-?[a-z_]{1,12}(\\([a-z_,()*-]{0,20}\\))?){0,4}",
        any::<String>(),
        "%[0-9a-fA-F]{0,2}[%&=+]{0,3}",
    ]
}

fn query_string() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec((prop::sample::select(names()), value()), 0..6).prop_map(|pairs| {
            pairs
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("&")
        }),
        any::<String>(),
        "[&=%+a-z0-9(),_*-]{0,60}",
    ]
}

proptest! {
    // 4,000 cases by default; PROPTEST_CASES sets more.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(4000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_query_string_is_answered_or_refused_cleanly(
        raw in query_string(),
        which in 0usize..30,
        id in prop_oneof!["[0-9]{1,3}", "[-a-z0-9.%]{0,12}"],
    ) {
        let endpoint = Endpoint::all()[which];
        let params = match Params::parse(&raw) {
            Ok(p) => p,
            Err(e) => {
                prop_assert_eq!(e.status, 400);
                return Ok(());
            }
        };
        match Plan::parse(endpoint, &params, &Limits::default()).map(|plan| plan.run(view())) {
            Ok(page) => {
                let body = [b"[".as_slice(), &without_media_base(&page.items.parts().concat()), b"]"].concat();
                let items: serde_json::Value = serde_json::from_slice(&body).expect("a page is JSON");
                prop_assert!(items.as_array().unwrap().len() <= page.total);
            }
            Err(e) => prop_assert_eq!(e.status, 400, "{}", e.message),
        }
        match RecordPlan::parse(endpoint, &id, &params).and_then(|plan| plan.run(view())) {
            Ok(item) => {
                let _: serde_json::Value =
                    serde_json::from_slice(&without_media_base(&item)).expect("a record is JSON");
            }
            Err(e) => prop_assert!(e.status == 400 || e.status == 404, "{}", e.message),
        }
    }
}

/// The items as the server sends them with an empty media base: the query layer
/// marks where the base goes, and the server fills it in.
fn without_media_base(items: &[u8]) -> Vec<u8> {
    items
        .iter()
        .copied()
        .filter(|&b| b != catalogue::view::render::MEDIA_BASE)
        .collect()
}
