//! What one request asks, read once. Routing builds an [`Asked`] per request:
//! the target, the parameters (or why they cannot be read), the representation,
//! the content coding and where media URLs start; its tag is made at most once,
//! when first needed. Freshness, the answer and its headers all read this one
//! value: nothing parses the query string or negotiates twice.

use std::net::IpAddr;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};
use warp::http::{header, HeaderMap, Method};

use crate::encoding::hex::push_hex;
use crate::encoding::time::parse_http_date;
use crate::query::{ApiError, Params};
use crate::view::View;

use super::compress::{self, Coding};
use super::media::Media;
use super::negotiate::{self, Representation};
use super::routing::{MediaOf, Routed, Shown};
use super::settings::Settings;

/// One request, as every step of answering it reads it.
pub struct Asked {
    pub routed: Routed,
    pub method: Method,
    pub path: String,
    pub raw_query: String,
    pub headers: HeaderMap,
    /// The query's parameters, or why they cannot be read.
    pub params: Result<Params, ApiError>,
    /// A page for people or the API's JSON (GeoJSON is a list's `format`).
    pub representation: Representation,
    /// The content coding the client takes best (`Accept-Encoding`).
    pub coding: Coding,
    /// The client's address, where the connection said it.
    pub peer: Option<IpAddr>,
    /// Where the media URLs of a successful answer start, if it may hold any.
    pub media: Media,
    base: OnceLock<Option<String>>,
    tag: OnceLock<String>,
}

impl Asked {
    /// Reads a request routed to `routed`, answered from `view`.
    pub fn new(
        routed: Routed,
        method: Method,
        path: String,
        raw_query: String,
        headers: HeaderMap,
        view: &View,
    ) -> Asked {
        let params = Params::parse(&raw_query);
        let route = routed.matched().filter(|m| !m.unslashed);
        let representation = match route.map(|m| m.routing.shown) {
            _ if negotiable(&routed) => {
                let format = params.as_ref().ok().and_then(|p| p.get("format"));
                negotiate::representation(&headers, format)
            }
            Some(Shown::Page) => Representation::Html,
            _ => Representation::Json,
        };
        let coding = compress::negotiate(
            headers
                .get(header::ACCEPT_ENCODING)
                .and_then(|v| v.to_str().ok()),
        );
        let media = match route.map(|m| (m.routing.media, m.list)) {
            Some((MediaOf::List, Some(e))) => Media::of(view, e),
            Some((MediaOf::Configured, _)) => Media::Configured,
            _ => Media::None,
        };
        Asked {
            routed,
            method,
            path,
            raw_query,
            headers,
            params,
            representation,
            coding,
            peer: None,
            media,
            base: OnceLock::new(),
            tag: OnceLock::new(),
        }
    }

    /// The request, from the client at `peer`.
    pub fn from(mut self, peer: Option<IpAddr>) -> Asked {
        self.peer = peer;
        self
    }

    /// The list the path named, if it named one.
    pub fn list(&self) -> Option<crate::model::Endpoint> {
        self.routed.matched().and_then(|m| m.list)
    }

    /// The identifier the path named, if it named one.
    pub fn id(&self) -> Option<&str> {
        self.routed.matched().and_then(|m| m.id.as_deref())
    }

    /// Whether the URL answers a page or JSON, as the client prefers
    /// (`Vary: Accept`).
    pub fn negotiable(&self) -> bool {
        negotiable(&self.routed)
    }

    /// Whether the answer is a page for people.
    pub fn html(&self) -> bool {
        self.representation == Representation::Html
    }

    /// Where media URLs start, as JSON string content, if the answer may hold any.
    pub fn media_base(&self, settings: &Settings) -> Option<&str> {
        self.base
            .get_or_init(|| self.media.base(settings, &self.headers))
            .as_deref()
    }

    /// The strong validator of the successful answer: the snapshot's checksum
    /// (and the description said over it, where it is not the snapshot's) and
    /// the request, so every replica serving the same snapshot gives the same tag.
    /// A body with media URLs also depends on their base; a page, on this build's
    /// templates and the map's tiles.
    pub fn tag(&self, settings: &Settings, view: &View) -> &str {
        self.tag.get_or_init(|| {
            let mut h = Sha256::new();
            h.update(view.header.checksum);
            if let Some(described) = view.redescribed {
                h.update(b"\0described ");
                h.update(described);
            }
            h.update(self.path.as_bytes());
            h.update(b"?");
            h.update(self.raw_query.as_bytes());
            if self.html() {
                h.update(b"\0html ");
                h.update(env!("CARGO_PKG_VERSION"));
                h.update(crate::html::assets::prefix());
                h.update(settings.site.map_tiles.as_deref().unwrap_or_default());
                h.update(b"\0");
                h.update(settings.site.map_attribution.as_deref().unwrap_or_default());
            }
            if let Some(base) = self.media_base(settings) {
                h.update(b"\0");
                h.update(base.as_bytes());
            }
            let digest = h.finalize();
            let mut tag = String::with_capacity(48);
            tag.push('"');
            push_hex(&mut tag, &digest[..16]);
            if let Some(t) = self.coding.token() {
                tag.push('-');
                tag.push_str(t);
            }
            tag.push('"');
            tag
        })
    }

    /// Whether `If-None-Match` names `tag` (weak comparison, `*` matches), on
    /// whichever of its header lines (a list may be split over several).
    pub fn names(&self, tag: &str) -> bool {
        self.headers
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|t| t.trim())
            .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag)
    }

    /// Whether the request's `If-None-Match` already names the tag its successful
    /// answer would carry, or (without `If-None-Match`) its `If-Modified-Since`
    /// is no earlier than the view's `Last-Modified`: then it is answered 304
    /// without making the answer.
    pub fn fresh(&self, settings: &Settings, view: &View) -> bool {
        match self.headers.contains_key(header::IF_NONE_MATCH) {
            true => self.names(self.tag(settings, view)),
            false => self.unmodified_since(&view.last_modified),
        }
    }

    /// Whether `If-Modified-Since` says the client holds what was last
    /// modified at `last_modified` (an HTTP date): RFC 9110's rules, by which
    /// it is ignored beside `If-None-Match` (which decides), on a method other
    /// than GET or HEAD, and when it is not a date.
    pub fn unmodified_since(&self, last_modified: &str) -> bool {
        if self.headers.contains_key(header::IF_NONE_MATCH)
            || !(self.method == Method::GET || self.method == Method::HEAD)
        {
            return false;
        }
        let Some(since) = self
            .headers
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_http_date)
        else {
            return false;
        };
        parse_http_date(last_modified).is_some_and(|modified| modified <= since)
    }
}

/// Whether a request so routed answers a page or JSON as the client prefers:
/// a route that says so (not while redirecting), and a path none takes.
fn negotiable(routed: &Routed) -> bool {
    match routed {
        Routed::Route(m) => m.routing.shown == Shown::Negotiated && !m.unslashed,
        Routed::NotFound => true,
        _ => false,
    }
}
