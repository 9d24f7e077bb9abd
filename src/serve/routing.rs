//! How a request finds its route: the paths a route takes, how metrics name
//! it, what it answers in; and what a request's path matched. The handlers'
//! side of a route is `route`.

use warp::http::Method;

use crate::model::Endpoint;

/// A segment of a route's path.
#[derive(Clone, Copy, Debug)]
pub enum Seg {
    /// This text, as it is (segments are compared undecoded).
    Lit(&'static str),
    /// A list's segment (`orders`): the route is one per list for metrics.
    List,
    /// A record's identifier: any non-empty segment, passed on as it came.
    Id,
}

/// What a path's trailing slash does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slash {
    /// No trailing slash: with one, nothing is found.
    Without,
    /// A trailing slash: without one, the path is redirected to it.
    With,
    /// Only with a trailing slash; without one, a later route may take it.
    OnlyWith,
    /// Either.
    Either,
    /// The segments are a prefix: any path beneath (a file's).
    Beneath,
}

/// One path a route takes.
#[derive(Clone, Copy, Debug)]
pub struct Path {
    pub segs: &'static [Seg],
    pub slash: Slash,
}

/// What a route answers in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    Json,
    /// A page or JSON, as the client prefers (`Vary: Accept`).
    Negotiated,
    /// A page, whatever the client takes.
    Page,
}

/// Where the media URLs of a route's answers start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MediaOf {
    None,
    /// As the list's items hold them (`Media::of`).
    List,
    /// Wagtail's own: `--media-url` whatever the Host.
    Configured,
}

/// What a route's answers are made from, which says whether one may be
/// replayed to the next request that asks the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The view (and the settings): the same request, the same answer, until
    /// the view is swapped.
    View,
    /// Files on disk, which may change under the server: never replayed.
    Files,
    /// The clock (a citation's access date, the request's day): never
    /// replayed.
    Clock,
}

/// How a route is found, counted and answered in: everything of a route but
/// its handlers.
#[derive(Debug)]
pub struct Routing {
    /// How metrics name it: a path template, `{list}` standing for each list's
    /// segment where a path names a list. Routes may share a name.
    pub metric: &'static str,
    pub paths: &'static [Path],
    pub shown: Shown,
    pub media: MediaOf,
    pub source: Source,
    pub takes: Takes,
}

/// How a route's parameters may come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// In the query string only.
    Query,
    /// In the query string, or also as a form POSTed to the same path
    /// (`application/x-www-form-urlencoded`), for parameters too long for a
    /// request head (a GBIF search's polygon of thousands of vertices).
    QueryOrForm,
}

impl Takes {
    /// The methods a path of such a route allows (`Allow`).
    pub fn allow(self) -> &'static str {
        match self {
            Takes::Query => "GET, HEAD, OPTIONS",
            Takes::QueryOrForm => "GET, HEAD, OPTIONS, POST",
        }
    }
}

/// What a path is, once a route took it.
#[derive(Clone, Debug)]
pub struct Matched {
    /// The route's place in the table.
    pub route: usize,
    pub routing: &'static Routing,
    pub list: Option<Endpoint>,
    pub id: Option<String>,
    /// The path lacks the slash the route's path ends with: redirected.
    pub unslashed: bool,
}

/// What `segments` (a path cut at its slashes, its trailing slash said by
/// `slashed`) matches among `routes`: the first route one of whose paths takes
/// it, or `None`.
fn find(
    routes: impl Iterator<Item = &'static Routing>,
    segments: &[&str],
    slashed: bool,
) -> Option<Matched> {
    for (route, routing) in routes.enumerate() {
        for path in routing.paths {
            let beneath = path.slash == Slash::Beneath;
            let fits = match beneath {
                true => segments.len() >= path.segs.len(),
                false => segments.len() == path.segs.len(),
            };
            if !fits {
                continue;
            }
            let mut matched = Matched {
                route,
                routing,
                list: None,
                id: None,
                unslashed: false,
            };
            let takes = path.segs.iter().zip(segments).all(|(seg, &s)| match seg {
                Seg::Lit(text) => *text == s,
                Seg::List => {
                    matched.list = Endpoint::from_segment(s);
                    matched.list.is_some()
                }
                Seg::Id => {
                    matched.id = Some(s.to_string());
                    !s.is_empty()
                }
            });
            if !takes {
                continue;
            }
            match (path.slash, slashed) {
                (Slash::Without, true) => return None,
                (Slash::OnlyWith, false) => continue,
                (Slash::With, false) => matched.unslashed = true,
                _ => {}
            }
            return Some(matched);
        }
    }
    None
}

/// What routing made of a request.
#[derive(Clone, Debug)]
pub enum Routed {
    /// A route of the table took its path.
    Route(Matched),
    /// `OPTIONS`, on any path: the CORS preflight; what its path takes.
    Preflight(Takes),
    /// A method the path does not take: any but GET, HEAD and OPTIONS, or a
    /// POST where no form is taken.
    NotAllowed(Takes),
    /// No route takes the path.
    NotFound,
    /// Refused before routing (not a path, no single valid Host): the
    /// connection is closed after the answer.
    Refused(&'static str),
}

impl Routed {
    /// What `method` on `path` (the request's path, without its query) asks
    /// for among `routes` (the table's, in order).
    ///
    /// OPTIONS is the preflight on any path; GET and HEAD take the routes;
    /// any other method is not allowed, whatever the path (a POST of a form is
    /// the router's to read: [`Takes`]). Both say what the path allows. A path is matched
    /// segment by segment, as warp's `path!` does: a trailing slash matches
    /// too, an empty segment matches nothing, and segments are compared
    /// undecoded.
    pub fn of(
        routes: impl Iterator<Item = &'static Routing>,
        method: &Method,
        path: &str,
    ) -> Routed {
        let reads = matches!(*method, Method::GET | Method::HEAD);
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
        let found = find(routes, segments, slashed);
        let takes = found.as_ref().map_or(Takes::Query, |m| m.routing.takes);
        match found {
            _ if *method == Method::OPTIONS => Routed::Preflight(takes),
            _ if !reads => Routed::NotAllowed(takes),
            Some(matched) => Routed::Route(matched),
            None => Routed::NotFound,
        }
    }

    /// What the path matched, if a route took it.
    pub fn matched(&self) -> Option<&Matched> {
        match self {
            Routed::Route(matched) => Some(matched),
            _ => None,
        }
    }
}
