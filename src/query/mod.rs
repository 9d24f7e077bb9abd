//! Answering a request from a view: its query string decoded into [`Params`],
//! parsed and checked into a [`Plan`] (filters, search, sort, `fields`, facets,
//! paging, format), which then runs against a view to give a [`Page`]. Nothing
//! here knows of HTTP; the view is only read.

pub mod envelope;
pub mod facets;
pub mod filter;
pub mod form;
pub mod geojson;
pub mod params;
pub mod plan;
pub mod projection;
pub mod sort;

mod error;

pub use error::ApiError;
pub use params::Params;
pub use plan::{Format, Limits, Page, Plan, RecordPlan, DEFAULT_LIMIT, OPERATIONS};
