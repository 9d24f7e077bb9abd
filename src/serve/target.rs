//! What a request asks for, as routing names it: one [`Target`] per request,
//! which also says how metrics count it and which representations it has.
//!
//! Routing is a match on the path's segments, read as warp's path filters read
//! them, rather than a chain of warp filters: the chain's nested types took the
//! compiler minutes to check each time the library was built.

use warp::http::Method;

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
    /// What `method` on `path` (the request's path, without its query) asks for.
    ///
    /// OPTIONS is the preflight on any path; GET and HEAD take the routes below;
    /// any other method is not allowed, whatever the path. A path is matched
    /// segment by segment, as warp's `path!` does: a trailing slash matches too,
    /// an empty segment matches nothing, and segments are compared undecoded.
    pub fn of(method: &Method, path: &str) -> Target {
        match *method {
            Method::OPTIONS => Target::Preflight,
            Method::GET | Method::HEAD => Target::read(path),
            _ => Target::NotAllowed,
        }
    }

    fn read(path: &str) -> Target {
        let slashed = path.ends_with('/');
        // Held on the stack: no route names more than four segments, so a path
        // cut after six still matches what it matched whole (a file's, or none).
        let mut held = [""; 6];
        let mut n = 0;
        for (slot, segment) in held
            .iter_mut()
            .zip(path.strip_prefix('/').unwrap_or(path).split('/'))
        {
            *slot = segment;
            n += 1;
        }
        let mut segments = &held[..n];
        // `path!`'s end matches at the path's end or before its trailing slash.
        if let [rest @ .., ""] = segments {
            segments = rest;
        }
        // A list or record path without its trailing slash is redirected.
        let slash = |with: Target, without: Route| match slashed {
            true => with,
            false => Target::Unslashed(without),
        };
        // The operations' paths are exact: no trailing slash.
        let exact = |target: Target| match slashed {
            true => Target::NotFound,
            false => target,
        };
        match *segments {
            ["healthz"] => exact(Target::Health),
            ["readyz"] => exact(Target::Ready),
            ["metrics"] => exact(Target::Metrics),
            ["dwca.zip"] => exact(Target::Archive),
            ["api", "v2", "openapi.json"] => exact(Target::OpenApi),
            ["api", "v2", "docs"] => exact(Target::Docs),
            [] => Target::Home,
            ["api", "v2"] if slashed => Target::Home,
            ["api", "v2"] | ["api"] => Target::Api,
            ["static", ..] => Target::Asset,
            ["media", ..] => Target::MediaFile,
            ["api", "v2", "images"] => slash(Target::Images, Route::Images),
            ["api", "v2", "images", id] if !id.is_empty() => {
                slash(Target::Image(id.to_string()), Route::Image)
            }
            ["api", "v2", "specimen-records", "labels"] => slash(Target::Labels, Route::Labels),
            ["api", "v2", "specimen-records", "checklist"] => {
                slash(Target::Checklist, Route::Checklist)
            }
            // GBIF's paths have no trailing slash (`/gbif/v1/occurrence/search`).
            ["gbif", "v1", "occurrence", "search"] => exact(Target::GbifSearch),
            ["gbif", "v1", "occurrence", "count"] => exact(Target::GbifCount),
            ["gbif", "v1", "occurrence", key] if !key.is_empty() => {
                exact(Target::GbifOccurrence(key.to_string()))
            }
            ["api", "v2", segment] => match Endpoint::from_segment(segment) {
                Some(e) => slash(Target::List(e), Route::List(e)),
                None => Target::NotFound,
            },
            ["api", "v2", segment, id] if !id.is_empty() => match Endpoint::from_segment(segment) {
                Some(e) => slash(Target::Record(e, id.to_string()), Route::Record(e)),
                None => Target::NotFound,
            },
            _ => Target::NotFound,
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str) -> Target {
        Target::of(&Method::GET, path)
    }

    fn list(segment: &str) -> Endpoint {
        Endpoint::from_segment(segment).unwrap()
    }

    #[test]
    fn paths_name_their_targets() {
        assert_eq!(get("/"), Target::Home);
        assert_eq!(get("/api/v2/"), Target::Home);
        assert_eq!(get("/api/v2"), Target::Api);
        assert_eq!(get("/api/"), Target::Api);
        assert_eq!(get("/api"), Target::Api);
        assert_eq!(get("/api/v1"), Target::NotFound);
        assert_eq!(get("/api/v2/docs"), Target::Docs);
        assert_eq!(get("/api/v2/docs/"), Target::NotFound);
        assert_eq!(get("/api/v2/openapi.json"), Target::OpenApi);
        assert_eq!(get("/healthz"), Target::Health);
        assert_eq!(get("/healthz/"), Target::NotFound);
        assert_eq!(get("/readyz"), Target::Ready);
        assert_eq!(get("/metrics"), Target::Metrics);
        assert_eq!(get("/dwca.zip"), Target::Archive);
        assert_eq!(get("/static/abc/site.css"), Target::Asset);
        assert_eq!(get("/media/images/a.jpg"), Target::MediaFile);
        assert_eq!(get("/api/v2/specimen-records/labels/"), Target::Labels);
        assert_eq!(
            get("/api/v2/specimen-records/labels"),
            Target::Unslashed(Route::Labels)
        );
        assert_eq!(
            get("/api/v2/specimen-records/checklist/"),
            Target::Checklist
        );
        assert_eq!(get("/gbif/v1/occurrence/search"), Target::GbifSearch);
        assert_eq!(get("/gbif/v1/occurrence/count"), Target::GbifCount);
        assert_eq!(
            get("/gbif/v1/occurrence/12"),
            Target::GbifOccurrence("12".into())
        );
        assert_eq!(get("/gbif/v1/occurrence/search/"), Target::NotFound);
        assert_eq!(get("/api/v2/images/"), Target::Images);
        assert_eq!(get("/api/v2/images/7/"), Target::Image("7".into()));
        assert_eq!(get("/api/v2/images/7"), Target::Unslashed(Route::Image));
        assert_eq!(get("/api/v2/orders/"), Target::List(list("orders")));
        assert_eq!(
            get("/api/v2/orders"),
            Target::Unslashed(Route::List(list("orders")))
        );
        assert_eq!(
            get("/api/v2/orders/3/"),
            Target::Record(list("orders"), "3".into())
        );
        // Segments compare undecoded; an identifier is passed on as it came.
        assert_eq!(
            get("/api/v2/orders/a%2Fb/"),
            Target::Record(list("orders"), "a%2Fb".into())
        );
        assert_eq!(get("/api/v2/%6Frders/"), Target::NotFound);
        assert_eq!(get("/api/v2/nothing/"), Target::NotFound);
    }

    #[test]
    fn long_paths_are_files_or_nothing() {
        assert_eq!(get("/static/a/b/c/d/e/f/site.css"), Target::Asset);
        assert_eq!(get("/media/images/a/b/c/d/e/f.jpg"), Target::MediaFile);
        assert_eq!(get("/api/v2/orders/1/2/"), Target::NotFound);
        assert_eq!(get("/api/v2/orders/1/2/3/4/5/"), Target::NotFound);
        assert_eq!(get("/api/v2/orders/1/////"), Target::NotFound);
    }

    #[test]
    fn empty_segments_match_nothing() {
        assert_eq!(get("//"), Target::NotFound);
        assert_eq!(get("/api//v2/"), Target::NotFound);
        assert_eq!(get("/api/v2//"), Target::NotFound);
        assert_eq!(get("/api/v2/orders//"), Target::NotFound);
        assert_eq!(get("/api/v2/orders/3//"), Target::NotFound);
        assert_eq!(get("/gbif/v1/occurrence//"), Target::NotFound);
    }

    #[test]
    fn methods_other_than_reads_are_not_allowed_anywhere() {
        assert_eq!(
            Target::of(&Method::HEAD, "/api/v2/orders/"),
            get("/api/v2/orders/")
        );
        assert_eq!(Target::of(&Method::OPTIONS, "/nowhere"), Target::Preflight);
        assert_eq!(
            Target::of(&Method::POST, "/api/v2/orders/"),
            Target::NotAllowed
        );
        assert_eq!(Target::of(&Method::DELETE, "/nowhere"), Target::NotAllowed);
    }
}
