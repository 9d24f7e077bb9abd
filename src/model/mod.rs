//! The collection's vocabulary, which every other layer speaks: the models and
//! their field tables, the raw records a snapshot stores, the API's endpoints, the
//! choices of the service's forms, the rules that derive values, and validation.

pub mod darwin_core;
pub mod dataset;
pub mod derived;
pub mod digest;
pub mod endpoint;
pub mod generalised;
pub mod held;
pub mod history;
pub mod image_api;
pub mod occurrence_id;
pub mod package_id;
pub mod policy;
pub mod records;
pub mod refusal;
pub mod registration;
pub mod schema;
pub mod validate;
pub mod vocabulary;
pub mod wagtail;

pub use endpoint::{Endpoint, Shape};
pub use policy::{Filters, Policy, Side};
pub use schema::{Field, Model, Type};
