//! Answering a request from a view: its query string decoded into [`Params`],
//! parsed and checked into a [`Plan`] (filters, search, sort, `fields`, facets,
//! paging, format), which then runs against a view to give a [`Page`]. Nothing
//! here knows of HTTP; the view is only read.

pub mod cost;
pub mod envelope;
pub mod facets;
pub mod filter;
pub mod form;
pub mod gbif;
pub mod geojson;
pub mod holdings;
pub mod images;
pub mod nearest;
pub mod params;
pub mod plan;
pub mod projection;
pub mod question;
pub mod sort;

mod error;

pub use cost::Cost;
pub use error::ApiError;
pub use params::Params;
pub use plan::{
    byte_order_mark, Columns, Format, Limits, Page, Plan, RecordPlan, BYTE_ORDER_MARK,
    DEFAULT_LIMIT, FEED_ENTRIES, MOST_FEED_ENTRIES, OPERATIONS,
};

use crate::model::{Model, Shape};
use crate::view::View;

/// Builds the indexes a view otherwise builds on first use: every table's row
/// groups and lowercased strings (filters, facets, search), then every sortable
/// field's order (facets on scalar fields count from them too) and each table's
/// search words. Run off the request path after a view is published, so the
/// first questions find them ready; a question that comes sooner builds (or waits
/// for) the one it needs. Stops early once `wanted` says no. Only the models
/// served as lists are asked questions: the renditions' and the image table's
/// orders and words (37 MB at a million specimens) would never be read.
pub fn prepare(view: &View, wanted: impl Fn() -> bool) {
    for model in Model::ALL {
        if !wanted() {
            return;
        }
        view.table(model).index();
    }
    for model in Model::ALL.into_iter().filter(|m| m.listed()) {
        let table = view.table(model);
        for (f, field) in model.fields().iter().enumerate() {
            if !wanted() {
                return;
            }
            if sort::sortable(field.ty, Shape::Plain) {
                table.order(f);
            }
        }
        table.words();
        let (orders, words) = table.prepared_bytes();
        tracing::debug!(
            model = model.path(),
            orders_mb = orders >> 20,
            words_mb = words >> 20,
            "sort orders and search words built"
        );
    }
}
