//! What the collection and its API look like to other programs: the OpenAPI
//! document ([`openapi`], with GBIF's occurrence operations in [`openapi_gbif`], the
//! suggestions' in [`openapi_suggest`], Wagtail's in [`openapi_wagtail`])
//! and the Darwin Core Archive ([`dwca`]). Both are made
//! from the field tables and a view; neither knows of HTTP. GBIF's registry
//! ([`registry`]) is told of the archive: the one client of another service.

pub mod csv;
pub mod dwca;
pub mod openapi;
pub mod openapi_gbif;
pub mod openapi_parts;
pub mod openapi_quality;
pub mod openapi_suggest;
pub mod openapi_versions;
pub mod openapi_wagtail;
pub mod publication;
pub mod registry;
