//! The table of routes: every path the server answers, in the order they are
//! matched, each naming the room its feature lives in. Adding a feature is one
//! entry here and its own file; the dispatcher (`router`), metrics, `HEAD` and
//! `If-None-Match` follow from the entry.

use crate::export::openapi::{self, Describe};
use crate::export::{
    openapi_gbif, openapi_quality, openapi_suggest, openapi_versions, openapi_wagtail,
};

use super::route::{Parse, Route};
use super::routing::{MediaOf, Path, Routing, Seg, Shown, Slash, Source, Takes};

mod archive;
mod checklist;
mod downloads;
mod files;
mod gbif;
mod home;
pub mod iiif;
mod images;
mod kept;
mod labels;
mod lists;
mod operations;
mod photographs;
mod quality;
mod records;
pub mod sensitive;
mod short;
mod suggest;
mod versions;
mod wagtail;

use Seg::{Id, List, Lit};

const fn path(segs: &'static [Seg], slash: Slash) -> Path {
    Path { segs, slash }
}

/// A route answering JSON only, with no media, decided by the view alone.
const fn json(
    metric: &'static str,
    paths: &'static [Path],
    json: Parse,
    openapi: Option<Describe>,
) -> Route {
    made_from(Source::View, metric, paths, json, openapi)
}

/// A route answering JSON or a document of its own, with no media, made
/// from `source` as well as the view: never replayed.
const fn made_from(
    source: Source,
    metric: &'static str,
    paths: &'static [Path],
    json: Parse,
    openapi: Option<Describe>,
) -> Route {
    Route {
        routing: Routing {
            metric,
            paths,
            shown: Shown::Json,
            media: MediaOf::None,
            source,
            takes: Takes::Query,
        },
        json,
        page: None,
        openapi,
    }
}

/// A route made from files as well as the view (the versions kept).
const fn files(
    metric: &'static str,
    paths: &'static [Path],
    json: Parse,
    openapi: Describe,
) -> Route {
    made_from(Source::Files, metric, paths, json, Some(openapi))
}

/// Every route, in the order a path is matched against them: the first that
/// takes a path answers it.
pub static ROUTES: &[Route] = &[
    json(
        "/healthz",
        &[path(&[Lit("healthz")], Slash::Without)],
        operations::health,
        None,
    ),
    json(
        "/readyz",
        &[path(&[Lit("readyz")], Slash::Without)],
        operations::ready,
        None,
    ),
    json(
        "/metrics",
        &[path(&[Lit("metrics")], Slash::Without)],
        operations::metrics,
        None,
    ),
    json(
        crate::model::endpoint::ARCHIVE_PATH,
        &[path(&[Lit("dwca.zip")], Slash::Without)],
        archive::answer,
        Some(openapi::archive),
    )
    .taking_forms(),
    json(
        crate::model::endpoint::EML_PATH,
        &[path(&[Lit("eml.xml")], Slash::Without)],
        archive::eml,
        Some(openapi::eml),
    ),
    json(
        crate::model::endpoint::OPENAPI_PATH,
        &[path(
            &[Lit("api"), Lit("v2"), Lit("openapi.json")],
            Slash::Without,
        )],
        operations::openapi,
        Some(openapi::openapi),
    ),
    Route {
        routing: Routing {
            metric: "pages",
            paths: &[path(&[Lit("api"), Lit("v2"), Lit("docs")], Slash::Without)],
            shown: Shown::Page,
            media: MediaOf::None,
            source: Source::View,
            takes: Takes::Query,
        },
        json: home::docs,
        page: None,
        openapi: None,
    },
    Route {
        routing: Routing {
            metric: "pages",
            paths: &[
                path(&[], Slash::Either),
                path(&[Lit("api"), Lit("v2")], Slash::OnlyWith),
            ],
            shown: Shown::Negotiated,
            media: MediaOf::None,
            source: Source::View,
            takes: Takes::Query,
        },
        json: home::root,
        page: Some(home::front),
        openapi: None,
    },
    json(
        "pages",
        &[
            path(&[Lit("api"), Lit("v2")], Slash::Without),
            path(&[Lit("api")], Slash::Either),
        ],
        home::api,
        None,
    ),
    json(
        "pages",
        &[path(&[Lit("static")], Slash::Beneath)],
        files::asset,
        None,
    ),
    Route {
        routing: Routing {
            metric: "pages",
            paths: &[path(&[Lit("media")], Slash::Beneath)],
            shown: Shown::Json,
            media: MediaOf::None,
            source: Source::Files,
            takes: Takes::Query,
        },
        json: files::media,
        page: None,
        openapi: None,
    },
    Route {
        routing: Routing {
            metric: "/iiif/",
            paths: &[path(&[Lit("iiif")], Slash::Beneath)],
            shown: Shown::Json,
            media: MediaOf::None,
            // Tiles are cut once per `file_hash` the view names; an answer
            // read from a file it does not name so says (`read_from_files`).
            source: Source::View,
            takes: Takes::Query,
        },
        json: iiif::answer,
        page: None,
        openapi: None,
    },
    Route {
        routing: Routing {
            metric: crate::model::endpoint::IMAGES_PATH,
            paths: &[path(&[Lit("api"), Lit("v2"), Lit("images")], Slash::With)],
            shown: Shown::Json,
            media: MediaOf::Configured,
            source: Source::View,
            takes: Takes::Query,
        },
        json: images::list,
        page: None,
        openapi: Some(openapi::images),
    }
    .taking_forms(),
    Route {
        routing: Routing {
            metric: "/api/v2/images/{id}/",
            paths: &[path(
                &[Lit("api"), Lit("v2"), Lit("images"), Id],
                Slash::With,
            )],
            shown: Shown::Json,
            media: MediaOf::Configured,
            source: Source::View,
            takes: Takes::Query,
        },
        json: images::one,
        page: None,
        openapi: Some(openapi::image),
    },
    json(
        crate::wagtail::PAGES_PATH,
        &[path(&[Lit("api"), Lit("v2"), Lit("pages")], Slash::With)],
        wagtail::page_list,
        Some(openapi_wagtail::pages),
    )
    .taking_forms(),
    json(
        "/api/v2/pages/find/",
        &[path(
            &[Lit("api"), Lit("v2"), Lit("pages"), Lit("find")],
            Slash::With,
        )],
        wagtail::find,
        Some(openapi_wagtail::find),
    ),
    json(
        "/api/v2/pages/{id}/",
        &[path(
            &[Lit("api"), Lit("v2"), Lit("pages"), Id],
            Slash::With,
        )],
        wagtail::page,
        Some(openapi_wagtail::page),
    ),
    json(
        crate::wagtail::DOCUMENTS_PATH,
        &[path(
            &[Lit("api"), Lit("v2"), Lit("documents")],
            Slash::With,
        )],
        wagtail::document_list,
        Some(openapi_wagtail::documents),
    )
    .taking_forms(),
    json(
        "/api/v2/documents/{id}/",
        &[path(
            &[Lit("api"), Lit("v2"), Lit("documents"), Id],
            Slash::With,
        )],
        wagtail::document,
        Some(openapi_wagtail::document),
    ),
    json(
        crate::labels::PATH,
        &[path(
            &[
                Lit("api"),
                Lit("v2"),
                Lit("specimen-records"),
                Lit("labels"),
            ],
            Slash::With,
        )],
        labels::answer,
        Some(openapi::labels),
    )
    .taking_forms(),
    // The labels' short links: no trailing slash, as printed.
    json(
        crate::model::endpoint::SHORT_PATH,
        &[path(&[Lit("s"), Id], Slash::Without)],
        short::answer,
        Some(openapi::short_link),
    ),
    Route {
        routing: Routing {
            metric: crate::model::endpoint::CHECKLIST_PATH,
            paths: &[path(
                &[
                    Lit("api"),
                    Lit("v2"),
                    Lit("specimen-records"),
                    Lit("checklist"),
                ],
                Slash::With,
            )],
            shown: Shown::Negotiated,
            media: MediaOf::None,
            source: Source::View,
            takes: Takes::Query,
        },
        json: checklist::answer,
        page: None,
        openapi: Some(openapi::checklist),
    }
    .taking_forms(),
    Route {
        routing: Routing {
            metric: crate::model::endpoint::VERSIONS_PATH,
            paths: &[path(&[Lit("api"), Lit("v2"), Lit("versions")], Slash::With)],
            shown: Shown::Negotiated,
            media: MediaOf::None,
            source: Source::Files,
            takes: Takes::Query,
        },
        json: versions::list,
        page: Some(versions::page),
        openapi: Some(openapi_versions::versions),
    },
    json(
        crate::model::endpoint::CHANGES_PATH,
        &[path(&[Lit("api"), Lit("v2"), Lit("changes")], Slash::With)],
        versions::changes,
        Some(openapi_versions::changes),
    ),
    // The access date is the request's day: never replayed.
    made_from(
        Source::Clock,
        crate::model::endpoint::CITATION_PATH,
        &[path(&[Lit("api"), Lit("v2"), Lit("citation")], Slash::With)],
        versions::citation,
        Some(openapi_versions::citation),
    ),
    files(
        crate::model::endpoint::FEED_PATH,
        &[path(&[Lit("versions.atom")], Slash::Without)],
        versions::feed,
        openapi_versions::feed,
    ),
    files(
        crate::model::endpoint::RSS_PATH,
        &[path(&[Lit("versions.rss")], Slash::Without)],
        versions::rss,
        openapi_versions::rss,
    ),
    files(
        crate::model::endpoint::KEPT_ARCHIVE_PATH,
        &[path(
            &[Lit("versions"), Id, Lit("dwca.zip")],
            Slash::Without,
        )],
        kept::archive,
        openapi_versions::kept_archive,
    ),
    files(
        crate::model::endpoint::KEPT_EML_PATH,
        &[path(&[Lit("versions"), Id, Lit("eml.xml")], Slash::Without)],
        kept::eml,
        openapi_versions::kept_eml,
    ),
    Route {
        routing: Routing {
            metric: crate::model::endpoint::QUALITY_PATH,
            paths: &[
                path(&[Lit("api"), Lit("v2"), Lit("quality")], Slash::With),
                path(&[Lit("quality")], Slash::With),
            ],
            shown: Shown::Negotiated,
            media: MediaOf::None,
            source: Source::View,
            takes: Takes::Query,
        },
        json: quality::json,
        page: Some(quality::page),
        openapi: Some(openapi_quality::quality),
    },
    Route {
        routing: Routing {
            metric: crate::model::endpoint::PUBLISHING_PATH,
            paths: &[
                path(&[Lit("api"), Lit("v2"), Lit("publishing")], Slash::With),
                path(&[Lit("publishing")], Slash::With),
            ],
            shown: Shown::Negotiated,
            media: MediaOf::None,
            // The view, and how publishing stands, which changes without
            // it: never replayed (an answer is slices of bytes made once
            // per view).
            source: Source::Files,
            takes: Takes::Query,
        },
        json: versions::publishing,
        page: Some(versions::publishing_page),
        openapi: Some(openapi_versions::publishing),
    },
    json(
        crate::model::endpoint::SUGGEST_PATH,
        &[path(&[Lit("api"), Lit("v2"), Lit("suggest")], Slash::With)],
        suggest::answer,
        Some(openapi_suggest::suggest),
    ),
    // GBIF's paths have no trailing slash (`/gbif/v1/occurrence/search`).
    json(
        "/gbif/v1/species/",
        &[path(
            &[Lit("gbif"), Lit("v1"), Lit("species"), Lit("suggest")],
            Slash::Without,
        )],
        suggest::species,
        Some(openapi_suggest::species),
    ),
    json(
        "/gbif/v1/occurrence/",
        &[path(
            &[Lit("gbif"), Lit("v1"), Lit("occurrence"), Lit("search"), Id],
            Slash::Without,
        )],
        suggest::term,
        Some(openapi_suggest::term),
    ),
    json(
        "/gbif/v1/occurrence/",
        &[path(
            &[Lit("gbif"), Lit("v1"), Lit("occurrence"), Lit("search")],
            Slash::Without,
        )],
        gbif::search,
        Some(openapi_gbif::search),
    )
    .taking_forms(),
    json(
        "/gbif/v1/occurrence/",
        &[path(
            &[Lit("gbif"), Lit("v1"), Lit("occurrence"), Lit("count")],
            Slash::Without,
        )],
        gbif::count,
        Some(openapi_gbif::count),
    )
    .taking_forms(),
    json(
        "/gbif/v1/occurrence/",
        &[path(
            &[Lit("gbif"), Lit("v1"), Lit("occurrence"), Id],
            Slash::Without,
        )],
        gbif::occurrence,
        Some(openapi_gbif::occurrence),
    ),
    Route {
        routing: Routing {
            metric: "/api/v2/{list}/",
            paths: &[path(&[Lit("api"), Lit("v2"), List], Slash::With)],
            shown: Shown::Negotiated,
            media: MediaOf::List,
            source: Source::View,
            takes: Takes::Query,
        },
        json: lists::json,
        page: Some(lists::page),
        openapi: Some(openapi::lists),
    }
    .taking_forms(),
    Route {
        routing: Routing {
            metric: "/api/v2/{list}/{id}/",
            paths: &[path(&[Lit("api"), Lit("v2"), List, Id], Slash::With)],
            shown: Shown::Negotiated,
            media: MediaOf::List,
            source: Source::View,
            takes: Takes::Query,
        },
        json: records::json,
        page: Some(records::page),
        openapi: Some(openapi::records),
    },
];

#[cfg(test)]
mod tests {
    use warp::http::Method;

    use super::*;
    use crate::serve::routing::Routed;

    /// What a request for `path` by `method` is routed to, said as the first
    /// path of the route (`/api/v2/{list}/{id}/`) and what it captured.
    fn routed(method: Method, path: &str) -> String {
        let table = ROUTES.iter().map(|r| &r.routing);
        match Routed::of(table, &method, path) {
            Routed::Route(m) => {
                let first = &m.routing.paths[0];
                let mut said: String = first
                    .segs
                    .iter()
                    .map(|s| match s {
                        Lit(text) => format!("/{text}"),
                        List => "/{list}".into(),
                        Id => "/{id}".into(),
                    })
                    .collect();
                said.push_str(match first.slash {
                    Slash::Beneath => "*",
                    Slash::Without => "",
                    _ => "/",
                });
                if let Some(list) = m.list {
                    said.push_str(&format!(" {}", list.segment()));
                }
                if let Some(id) = m.id {
                    said.push_str(&format!(" {id}"));
                }
                if m.unslashed {
                    said.push_str(" unslashed");
                }
                said
            }
            other => format!("{other:?}"),
        }
    }

    fn get(path: &str) -> String {
        routed(Method::GET, path)
    }

    #[test]
    fn paths_name_their_routes() {
        let cases = [
            ("/", "/"),
            ("/api/v2/", "/"),
            ("/api/v2", "/api/v2"),
            ("/api/", "/api/v2"),
            ("/api", "/api/v2"),
            ("/api/v1", "NotFound"),
            ("/api/v2/docs", "/api/v2/docs"),
            ("/api/v2/docs/", "NotFound"),
            ("/api/v2/openapi.json", "/api/v2/openapi.json"),
            ("/healthz", "/healthz"),
            ("/healthz/", "NotFound"),
            ("/readyz", "/readyz"),
            ("/metrics", "/metrics"),
            ("/dwca.zip", "/dwca.zip"),
            ("/static/abc/site.css", "/static*"),
            ("/media/images/a.jpg", "/media*"),
            ("/iiif/1", "/iiif*"),
            ("/iiif/1/full/max/0/default.jpg", "/iiif*"),
            ("/iiif", "/iiif*"),
            (
                "/api/v2/specimen-records/labels/",
                "/api/v2/specimen-records/labels/",
            ),
            (
                "/api/v2/specimen-records/labels",
                "/api/v2/specimen-records/labels/ unslashed",
            ),
            (
                "/api/v2/specimen-records/checklist/",
                "/api/v2/specimen-records/checklist/",
            ),
            ("/s/000367", "/s/{id} 000367"),
            ("/s/x", "/s/{id} x"),
            ("/s/000367/", "NotFound"),
            ("/s/", "NotFound"),
            ("/s", "NotFound"),
            ("/s/1/2", "NotFound"),
            ("/gbif/v1/occurrence/search", "/gbif/v1/occurrence/search"),
            ("/gbif/v1/occurrence/count", "/gbif/v1/occurrence/count"),
            ("/gbif/v1/occurrence/12", "/gbif/v1/occurrence/{id} 12"),
            ("/gbif/v1/occurrence/search/", "NotFound"),
            (
                "/gbif/v1/occurrence/search/recordedBy",
                "/gbif/v1/occurrence/search/{id} recordedBy",
            ),
            ("/gbif/v1/species/suggest", "/gbif/v1/species/suggest"),
            ("/api/v2/suggest/", "/api/v2/suggest/"),
            ("/api/v2/suggest", "/api/v2/suggest/ unslashed"),
            ("/api/v2/images/", "/api/v2/images/"),
            ("/api/v2/images/7/", "/api/v2/images/{id}/ 7"),
            ("/api/v2/images/7", "/api/v2/images/{id}/ 7 unslashed"),
            ("/api/v2/pages/", "/api/v2/pages/"),
            ("/api/v2/pages", "/api/v2/pages/ unslashed"),
            ("/api/v2/pages/find/", "/api/v2/pages/find/"),
            ("/api/v2/pages/4/", "/api/v2/pages/{id}/ 4"),
            ("/api/v2/documents/", "/api/v2/documents/"),
            ("/api/v2/documents/1/", "/api/v2/documents/{id}/ 1"),
            ("/api/v2/orders/", "/api/v2/{list}/ orders"),
            ("/api/v2/orders", "/api/v2/{list}/ orders unslashed"),
            ("/api/v2/orders/3/", "/api/v2/{list}/{id}/ orders 3"),
            // Segments compare undecoded; an identifier is passed on as it came.
            ("/api/v2/orders/a%2Fb/", "/api/v2/{list}/{id}/ orders a%2Fb"),
            ("/api/v2/%6Frders/", "NotFound"),
            ("/api/v2/nothing/", "NotFound"),
        ];
        for (path, route) in cases {
            assert_eq!(get(path), route, "{path}");
        }
    }

    /// The document is made from the table: each route describes only paths
    /// the table sends to that route.
    #[test]
    fn a_route_describes_the_paths_it_takes() {
        let mut described = 0;
        for (at, route) in ROUTES.iter().enumerate() {
            let Some(describe) = route.openapi else {
                continue;
            };
            let mut paths = serde_json::Map::new();
            describe(&mut paths, None);
            assert!(!paths.is_empty(), "{}", route.routing.metric);
            for path in paths.keys() {
                let asked = path
                    .replace("{id}", "1")
                    .replace("{key}", "1")
                    .replace("{term}", "locality");
                let table = ROUTES.iter().map(|r| &r.routing);
                match Routed::of(table, &Method::GET, &asked) {
                    Routed::Route(m) => assert_eq!(m.route, at, "{path}"),
                    other => panic!("{path} is described but routed to {other:?}"),
                }
                described += 1;
            }
        }
        // Every list and record, the typed image lists', and a few more.
        assert!(described > 2 * crate::model::Endpoint::all().len());
    }

    #[test]
    fn long_paths_are_files_or_nothing() {
        assert_eq!(get("/static/a/b/c/d/e/f/site.css"), "/static*");
        assert_eq!(get("/media/images/a/b/c/d/e/f.jpg"), "/media*");
        assert_eq!(get("/api/v2/orders/1/2/"), "NotFound");
        assert_eq!(get("/api/v2/orders/1/2/3/4/5/"), "NotFound");
        assert_eq!(get("/api/v2/orders/1/////"), "NotFound");
    }

    #[test]
    fn empty_segments_match_nothing() {
        for path in [
            "//",
            "/api//v2/",
            "/api/v2//",
            "/api/v2/orders//",
            "/api/v2/orders/3//",
            "/gbif/v1/occurrence//",
        ] {
            assert_eq!(get(path), "NotFound", "{path}");
        }
    }

    #[test]
    fn methods_other_than_reads_are_not_allowed_anywhere() {
        assert_eq!(
            routed(Method::HEAD, "/api/v2/orders/"),
            get("/api/v2/orders/")
        );
        assert_eq!(routed(Method::OPTIONS, "/nowhere"), "Preflight(Query)");
        assert_eq!(
            routed(Method::POST, "/api/v2/orders/1/"),
            "NotAllowed(Query)"
        );
        assert_eq!(routed(Method::DELETE, "/nowhere"), "NotAllowed(Query)");
        // A search that takes forms says so; its POST is the router's to read.
        let search = "/gbif/v1/occurrence/search";
        assert_eq!(routed(Method::OPTIONS, search), "Preflight(QueryOrForm)");
        assert_eq!(routed(Method::PUT, search), "NotAllowed(QueryOrForm)");
        // So does every list, download, checklist and label sheet.
        for path in [
            "/api/v2/orders/",
            "/api/v2/specimen-records/",
            "/api/v2/specimen-records/checklist/",
            "/api/v2/specimen-records/labels/",
            "/api/v2/images/",
            "/api/v2/pages/",
            "/api/v2/documents/",
            "/dwca.zip",
        ] {
            assert_eq!(
                routed(Method::OPTIONS, path),
                "Preflight(QueryOrForm)",
                "{path}"
            );
        }
    }
}
