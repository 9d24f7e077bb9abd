//! Wagtail's own `pages` and `documents` endpoints on the bundled sample: its
//! home page (10), a live species page under it (11, in menus) and a draft
//! (12, never served); two documents, tagged.

use crate::common::Server;
use serde_json::json;

fn page(id: i64, kind: &str, slug: &str, published: &str, title: &str) -> serde_json::Value {
    let html = match slug {
        "home" => "http://localhost/".to_string(),
        _ => format!("http://localhost/{slug}/"),
    };
    json!({"id": id, "meta": {"type": kind, "detail_url": format!("http://localhost/api/v2/pages/{id}/"),
        "html_url": html, "slug": slug, "first_published_at": published}, "title": title})
}

#[test]
fn the_live_pages_under_the_sites_root_are_listed_in_tree_order() {
    let s = Server::sample();
    let home = page(
        10,
        "home.HomePage",
        "home",
        "2023-01-02T09:00:00Z",
        "Catalogue",
    );
    let monarch = page(
        11,
        "pages.SpeciesPage",
        "monarch",
        "2023-04-01T08:30:00Z",
        "Monarch",
    );
    let both = json!({"meta": {"total_count": 2}, "items": [home, monarch]});
    assert_eq!(s.json("/api/v2/pages/", 200), both);
    let only = |item: &serde_json::Value| json!({"meta": {"total_count": 1}, "items": [item]});
    assert_eq!(s.json("/api/v2/pages/?child_of=10", 200), only(&monarch));
    assert_eq!(s.json("/api/v2/pages/?child_of=root", 200), only(&monarch));
    assert_eq!(
        s.json("/api/v2/pages/?descendant_of=root", 200),
        only(&monarch)
    );
    assert_eq!(s.json("/api/v2/pages/?ancestor_of=11", 200), only(&home));
    assert_eq!(
        s.json("/api/v2/pages/?type=pages.speciespage", 200),
        only(&monarch)
    );
    assert_eq!(
        s.json("/api/v2/pages/?show_in_menus=1", 200),
        only(&monarch)
    );
    assert_eq!(s.json("/api/v2/pages/?search=MONARCH", 200), only(&monarch));
    assert_eq!(
        s.json("/api/v2/pages/?slug=home&locale=en", 200),
        only(&home)
    );
    assert_eq!(s.json("/api/v2/pages/?site=localhost:80", 200), both);
    assert_eq!(
        s.json(
            "/api/v2/pages/?order=-title&fields=_,title&limit=1&offset=1",
            200
        ),
        json!({"meta": {"total_count": 2}, "items": [{"title": "Catalogue"}]})
    );
    assert_eq!(
        s.json("/api/v2/pages/?fields=-title,-html_url,-detail_url,-slug,-first_published_at,seo_title", 200),
        json!({"meta": {"total_count": 2}, "items": [
            {"id": 10, "meta": {"type": "home.HomePage", "seo_title": ""}},
            {"id": 11, "meta": {"type": "pages.SpeciesPage", "seo_title": "Monarch butterfly"}},
        ]})
    );
}

#[test]
fn one_page_says_everything_and_its_parent() {
    let s = Server::sample();
    let parent = json!({"id": 10, "meta": {"type": "home.HomePage",
        "detail_url": "http://localhost/api/v2/pages/10/", "html_url": "http://localhost/"},
        "title": "Catalogue"});
    let mut item = json!({"id": 11, "meta": {"type": "pages.SpeciesPage",
        "detail_url": "http://localhost/api/v2/pages/11/", "html_url": "http://localhost/monarch/",
        "slug": "monarch", "show_in_menus": true, "seo_title": "Monarch butterfly",
        "search_description": "The monarch in the collection.",
        "first_published_at": "2023-04-01T08:30:00Z", "alias_of": null, "parent": parent},
        "title": "Monarch"});
    assert_eq!(s.json("/api/v2/pages/11/", 200), item);
    item["meta"]["locale"] = json!("en");
    assert_eq!(s.json("/api/v2/pages/11/?fields=*", 200), item);
    assert_eq!(
        s.json("/api/v2/pages/10/", 200)["meta"]["parent"],
        json!(null)
    );
    for missing in ["12", "9", "999", "abc", "-1"] {
        s.assert_error(
            &format!("/api/v2/pages/{missing}/"),
            404,
            "No Page matches the given query.",
        );
    }
    s.assert_error(
        "/api/v2/pages/11/?fields=parent(slug)",
        400,
        "'parent' does not support nested fields",
    );
}

#[test]
fn wrong_questions_are_answered_as_wagtail_answers_them() {
    let s = Server::sample();
    let cases = [
        ("type=pages.Nothing", 400, "type doesn't exist"),
        ("child_of=12", 400, "parent page doesn't exist"),
        ("child_of=x", 400, "child_of must be a positive integer"),
        ("descendant_of=10&child_of=10", 400, "filtering by descendant_of with child_of is not supported"),
        ("ancestor_of=root", 400, "ancestor_of must be a positive integer"),
        ("translation_of=999", 400, "translation_of page doesn't exist"),
        ("locale=fr", 404, "No Locale matches the given query."),
        ("fields=parent", 400, "unknown fields: parent"),
        ("fields=*,title", 400, "fields error: additional fields with '*' doesn't make sense"),
        ("order=random&offset=0", 400, "random ordering with offset is not supported"),
        ("order=nothing", 400, "cannot order by 'nothing' (unknown field)"),
        ("search=x&slug=home", 400, "cannot filter by 'slug' while searching (field is not indexed)"),
        ("search=x&order=slug", 400, "cannot order by 'slug' while searching (field is not indexed)"),
        ("search=x&search_operator=xor", 400, "search_operator must be 'and' or 'or', not \"xor\""),
        ("id=abc", 400, "field filter error. 'abc' is not a valid value for id (invalid literal for int() with base 10: 'abc')"),
        ("limit=-1", 400, "limit must be a positive integer"),
        ("has_children=true&b=1", 400, "query parameter is not an operation or a recognised field: b, has_children"),
    ];
    for (query, status, message) in cases {
        s.assert_error(&format!("/api/v2/pages/?{query}"), status, message);
    }
    let said = s.json("/api/v2/pages/?site=example.com", 400)["message"].clone();
    assert!(said.as_str().unwrap().contains("localhost:80"), "{said}");
}

#[test]
fn find_redirects_to_a_pages_item() {
    let s = Server::sample();
    for (query, location) in [
        ("html_path=/", "http://localhost/api/v2/pages/10/?"),
        ("html_path=monarch", "http://localhost/api/v2/pages/11/?"),
        (
            "id=11&fields=title",
            "http://localhost/api/v2/pages/11/?fields=title",
        ),
    ] {
        let r = s.get(&format!("/api/v2/pages/find/?{query}"));
        assert_eq!(
            (r.status, r.header("location")),
            (302, Some(location)),
            "{query}"
        );
    }
    for query in [
        "html_path=/cecropia-moth/",
        "html_path=/nothing/",
        "id=12",
        "",
    ] {
        s.assert_error(&format!("/api/v2/pages/find/?{query}"), 404, "not found");
    }
}

#[test]
fn documents_are_listed_with_their_tags_and_files() {
    let s = Server::sample();
    let permit = json!({"id": 1, "meta": {"type": "wagtaildocs.Document",
        "detail_url": "http://localhost/api/v2/documents/1/", "tags": ["permits"],
        "download_url": "http://localhost/documents/1/permit-2023.pdf"},
        "title": "Collecting permit 2023"});
    let notes = json!({"id": 2, "meta": {"type": "wagtaildocs.Document",
        "detail_url": "http://localhost/api/v2/documents/2/", "tags": ["Field notes", "permits"],
        "download_url": "http://localhost/documents/2/notes%20qu%C3%A9bec.pdf"},
        "title": "Field notes, Québec"});
    assert_eq!(
        s.json("/api/v2/documents/", 200),
        json!({"meta": {"total_count": 2}, "items": [permit, notes]})
    );
    assert_eq!(s.json("/api/v2/documents/2/", 200), notes);
    let only = |item: &serde_json::Value| json!({"meta": {"total_count": 1}, "items": [item]});
    assert_eq!(
        s.json("/api/v2/documents/?tags=Field%20notes,permits", 200),
        only(&notes)
    );
    assert_eq!(
        s.json("/api/v2/documents/?search=quebec", 200),
        only(&notes)
    );
    assert_eq!(
        s.json("/api/v2/documents/?order=-id&limit=1", 200)["items"][0]["id"],
        2
    );
    s.assert_error(
        "/api/v2/documents/?tags=permits&search=x",
        400,
        "filtering by tag with a search query is not supported",
    );
    s.assert_error(
        "/api/v2/documents/3/",
        404,
        "No Document matches the given query.",
    );
    s.assert_error(
        "/api/v2/documents/?type=x",
        400,
        "query parameter is not an operation or a recognised field: type",
    );
}

#[test]
fn head_says_what_get_says() {
    let s = Server::sample();
    for path in [
        "/api/v2/pages/",
        "/api/v2/pages/11/",
        "/api/v2/pages/12/",
        "/api/v2/pages/?child_of=x",
        "/api/v2/pages/find/?html_path=/monarch/",
        "/api/v2/documents/",
        "/api/v2/documents/9/",
    ] {
        let (get, head) = (s.send("GET", path, &[]), s.send("HEAD", path, &[]));
        assert_eq!(get.status, head.status, "{path}");
        for name in ["content-type", "etag", "location", "cache-control"] {
            assert_eq!(get.header(name), head.header(name), "{path} {name}");
        }
        assert!(head.body.is_empty(), "{path}");
    }
}
