//! What a request asks for, as routing names it: one [`Target`] per request,
//! which also says how metrics count it and which representations it has.

use crate::model::Endpoint;

use super::metrics::Route;

/// What a request asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    List(Endpoint),
    Record(Endpoint, String),
    /// Wagtail's own image list, and one image.
    Images,
    Image(String),
    /// The specimen label sheets.
    Labels,
    /// The species checklist of a specimen question.
    Checklist,
    /// GBIF's occurrence search, its count, and one occurrence by key.
    GbifSearch,
    GbifCount,
    GbifOccurrence(String),
    /// A list or record path without its trailing slash: redirected.
    Unslashed(Route),
    /// `/` and `/api/v2/`: the front page for people, the API root for programs.
    Home,
    /// `/api`, `/api/` and `/api/v2`: redirected to the API root.
    Api,
    /// The API docs viewer.
    Docs,
    /// A file the pages load (`/static/...`).
    Asset,
    /// A media file, from `--media-dir` (`/media/...`).
    MediaFile,
    Health,
    Ready,
    Metrics,
    OpenApi,
    Archive,
    /// `OPTIONS`, on any path: the CORS preflight.
    Preflight,
    /// A method other than GET, HEAD and OPTIONS.
    NotAllowed,
    /// No route takes the path.
    NotFound,
    /// Refused before routing (not a path, no single valid Host): the
    /// connection is closed after the answer.
    Refused(&'static str),
}

impl Target {
    /// How metrics count the request.
    pub fn route(&self) -> Route {
        match self {
            Target::List(e) => Route::List(*e),
            Target::Record(e, _) => Route::Record(*e),
            Target::Images => Route::Images,
            Target::Image(_) => Route::Image,
            Target::Labels => Route::Labels,
            Target::Checklist => Route::Checklist,
            Target::GbifSearch | Target::GbifCount | Target::GbifOccurrence(_) => Route::Gbif,
            Target::Unslashed(route) => *route,
            Target::Home | Target::Api | Target::Docs | Target::Asset | Target::MediaFile => {
                Route::Page
            }
            Target::Health => Route::Health,
            Target::Ready => Route::Ready,
            Target::Metrics => Route::Metrics,
            Target::OpenApi => Route::OpenApi,
            Target::Archive => Route::Archive,
            Target::Preflight | Target::NotAllowed | Target::NotFound | Target::Refused(_) => {
                Route::Other
            }
        }
    }

    /// Whether the URL answers a page or JSON, as the client prefers
    /// (`Vary: Accept`).
    pub fn negotiable(&self) -> bool {
        matches!(
            self,
            Target::List(_)
                | Target::Record(..)
                | Target::Checklist
                | Target::Home
                | Target::NotFound
        )
    }

    /// Whether the answer names the methods the API takes (`Allow`).
    pub fn names_methods(&self) -> bool {
        matches!(self, Target::Preflight | Target::NotAllowed)
    }
}
