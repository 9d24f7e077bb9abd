//! Data quality for the curator: `/quality/`, each flag with its count, what it
//! means and how to fix it, links to its records and their CSV, and a map of the
//! points that are not where their records say; and a specimen page's flags.

use maud::{html, Markup};

use crate::model::endpoint::{PUBLISHING_PAGE_PATH, QUALITY_PAGE_PATH, QUALITY_PATH};
use crate::quality::checks::TOLERANCE_KM;
use crate::quality::report::{csv_url, records_url};
use crate::quality::{Flag, Quality};
use crate::view::View;

use super::layout::{self, MAP};
use super::map::{self, Markers};
use super::site::Site;

/// The most mismatched points the page's map draws (the commonest first).
pub const MAP_MISMATCHES: usize = 1000;

/// The page of the flags.
pub fn page(site: &Site, view: &View) -> String {
    let quality = view.derived::<Quality>();
    let shown = &quality.mismatches[..quality.mismatches.len().min(MAP_MISMATCHES)];
    let features = features(shown);
    let content = html! {
        h1 { "Data quality" }
        p.summary {
            (quality.specimens()) " specimen records checked; "
            (quality.unflagged()) " have no flag. "
            span.formats { a href=(QUALITY_PATH) type="application/json" { "JSON" } }
        }
        p.note {
            "Flags are GBIF's where GBIF has the flag. Points are tested against countries "
            "(Natural Earth, 1:50m) everywhere, and against states and counties (the Census "
            "Bureau's, 1:10m) in the United States only; elsewhere a state or county is not "
            "checked. A point within " (TOLERANCE_KM) " km of its area's boundary counts as inside."
        }
        p.note {
            "Records that fail a rule of publishing (a reference to a missing record, a duplicate "
            "USI, a value that does not read) are held back, not flagged here: "
            a href=(PUBLISHING_PAGE_PATH) { (view.held.len()) " record(s) held back" } "."
        }
        div.table-wrap {
            table.quality {
                thead { tr { th scope="col" { "Flag" } th scope="col" { "Records" } th scope="col" { "What it means" } th scope="col" { "How to fix it" } } }
                tbody {
                    @for flag in Flag::ALL {
                        @let n = quality.count(flag);
                        tr id=(flag.name()) {
                            th scope="row" { code { (flag.name()) } }
                            td {
                                @if n > 0 {
                                    a href=(records_url(flag)) { (n) } " · "
                                    a href=(csv_url(flag)) type="text/csv" { "CSV" }
                                } @else { "0" }
                            }
                            td { (flag.meaning()) }
                            td { (flag.fix()) }
                        }
                    }
                }
            }
        }
        @if shown.is_empty() {
            p { "Every point is where its record says it is." }
        } @else {
            (map::map(site, "Points not where their records say",
                "Map of points outside the area their records name",
                Markers::Drawn { features: &features },
                html! { p.note {
                    "Each red point is where a record's coordinates put it; the line leads to a "
                    "blue point inside the area the record names."
                    @if quality.mismatches.len() > shown.len() {
                        " The " (shown.len()) " commonest of " (quality.mismatches.len()) " are drawn."
                    }
                } }))
        }
    };
    layout::page(
        view,
        "Data quality",
        layout::crumbs(&[], "Data quality"),
        &MAP,
        content,
    )
}

/// The mismatches as GeoJSON features: the point, the stated area's point, and
/// the line between.
fn features(mismatches: &[crate::quality::Mismatch]) -> String {
    use serde_json::json;
    let mut features = Vec::with_capacity(mismatches.len() * 3);
    for m in mismatches {
        let about = format!(
            "{}: {} specimen{} at {}, {}; the record says {}",
            m.flag.name(),
            m.specimens,
            if m.specimens == 1 { "" } else { "s" },
            m.point[1],
            m.point[0],
            m.stated_name
        );
        features.push(json!({"type": "Feature", "properties": {"kind": "point", "label": about, "records": records_url(m.flag)},
            "geometry": {"type": "Point", "coordinates": m.point}}));
        features.push(
            json!({"type": "Feature", "properties": {"kind": "stated", "label": m.stated_name},
            "geometry": {"type": "Point", "coordinates": m.stated}}),
        );
        features.push(json!({"type": "Feature", "properties": {"kind": "line"},
            "geometry": {"type": "LineString", "coordinates": [m.point, m.stated]}}));
    }
    json!({"type": "FeatureCollection", "features": features}).to_string()
}

/// A specimen page's flags: what each means and how to fix it, or that it has
/// none.
pub fn section(view: &View, pos: usize) -> Markup {
    let flags = view.derived::<Quality>().of(pos);
    html! {
        section aria-labelledby="quality-heading" {
            h2 id="quality-heading" { "Quality" }
            @if flags.is_empty() {
                p { "No flag (" a href=(QUALITY_PAGE_PATH) { "what is checked" } ")." }
            } @else {
                ul.flags {
                    @for flag in flags.iter() {
                        li {
                            a href={ (QUALITY_PAGE_PATH) "#" (flag.name()) } { code { (flag.name()) } }
                            ": " (flag.meaning()) " " (flag.fix())
                        }
                    }
                }
            }
        }
    }
}
