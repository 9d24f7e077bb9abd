//! The service's images since 0.16, on the bundled sample: featured images of
//! orders, families and species wherever those are served; Wagtail's own
//! `/api/v2/images/`; and the typed image lists of before, answered from the one
//! image model exactly as they were from the typed tables.

use crate::common;

use catalogue::serve::Settings;
use common::{Server, TempDir};
use serde_json::{json, Value};

/// The bundled sample, its media under `--media-url https://cdn.example/m/`.
fn behind_a_cdn() -> Server {
    Server::start(
        &common::sample_snapshot(),
        Settings {
            media_url: Some("https://cdn.example/m/".into()),
            ..Settings::default()
        },
    )
}

#[test]
fn featured_images_are_served_wherever_their_taxa_are() {
    let s = Server::sample();
    // Order 1 features image 3, as does family 1 (from the insect image's flag
    // in the sample's older shape); other ranks and taxa have no such key or null.
    let order = s.json("/api/v2/orders/1/", 200);
    let image = &order["featured_image"];
    assert_eq!(image["id"], 3);
    assert_eq!(image["title"], "Monarch on milkweed");
    assert_eq!(image["image_type"], "insect");
    assert_eq!(
        image["file"],
        "http://t/media/original_images/monarch-milkweed.jpg"
    );
    assert_eq!(
        image["thumbnail"]["file"],
        "http://t/media/images/monarch-milkweed.max-300x300.jpg"
    );
    assert_eq!(image["species"], 1);
    assert_eq!(image["plant_species_page"], json!([]));
    assert_eq!(
        s.json("/api/v2/orders/2/", 200)["featured_image"],
        Value::Null
    );
    assert_eq!(
        s.json("/api/v2/families/1/", 200)["featured_image"]["id"],
        3
    );
    assert_eq!(
        s.json("/api/v2/species/1/", 200)["featured_image"],
        Value::Null
    );
    assert!(s
        .json("/api/v2/genera/1/", 200)
        .get("featured_image")
        .is_none());
    // Nested chains carry them, as do a specimen's ranks and taxon.
    let nested = s.json("/api/v2/nested-species/1/", 200);
    let family = &nested["genus"]["tribe"]["subfamily"]["family"];
    assert_eq!(family["featured_image"]["id"], 3);
    assert_eq!(family["order"]["featured_image"]["id"], 3);
    let specimen = s.json("/api/v2/specimen-records/1/", 200);
    assert_eq!(specimen["order"]["featured_image"]["id"], 3);
    assert_eq!(specimen["family"]["featured_image"]["id"], 3);
    let page = s.json("/api/v2/species-pages/11/", 200);
    assert_eq!(page["order"]["featured_image"], *image);
    // Their files follow `--media-url` like every other media URL.
    let cdn = behind_a_cdn();
    assert_eq!(
        cdn.json("/api/v2/orders/1/", 200)["featured_image"]["file"],
        "https://cdn.example/m/original_images/monarch-milkweed.jpg"
    );
    // `featured_image=<id>` names a field: accepted, and it filters nothing.
    assert_eq!(s.ids_of("/api/v2/orders/?featured_image=3"), [1, 2, 3]);
    assert_eq!(
        s.ids_of("/api/v2/species/?featured_image=999"),
        s.ids_of("/api/v2/species/")
    );
}

#[test]
fn lists_without_a_featured_image_hold_no_media_and_keep_their_validators() {
    let s = Server::sample();
    // Countries embed nothing with a file: the same tag whatever the host.
    let a = s.send("GET", "/api/v2/countries/", &[("Host", "a")]);
    let b = s.send("GET", "/api/v2/countries/", &[("Host", "b")]);
    assert_eq!(a.header("etag"), b.header("etag"));
    // Orders do: their tags differ with the host.
    let a = s.send("GET", "/api/v2/orders/", &[("Host", "a")]);
    let b = s.send("GET", "/api/v2/orders/", &[("Host", "b")]);
    assert_ne!(a.header("etag"), b.header("etag"));
}

#[test]
fn wagtails_image_list_answers_as_wagtail_does() {
    let s = Server::sample();
    let list = s.get("/api/v2/images/?limit=2");
    assert_eq!(list.status, 200);
    assert_eq!(
        list.text(),
        r#"{"meta":{"total_count":6},"items":[{"id":1,"meta":{"type":"images.CustomImage","detail_url":"http://localhost/api/v2/images/1/","tags":[],"download_url":"/media/original_images/ummz-000001-dorsal.jpg"},"title":"UMMZ-000001 dorsal"},{"id":2,"meta":{"type":"images.CustomImage","detail_url":"http://localhost/api/v2/images/2/","tags":[],"download_url":"/media/original_images/ummz-000001-ventral.png"},"title":"UMMZ-000001 ventral"}]}"#
    );
    // One image: every field; tags by name in byte order.
    assert_eq!(
        s.get("/api/v2/images/3/").text(),
        r#"{"id":3,"meta":{"type":"images.CustomImage","detail_url":"http://localhost/api/v2/images/3/","tags":["Lepidoptera","milkweed"],"download_url":"/media/original_images/monarch-milkweed.jpg"},"title":"Monarch on milkweed","width":2400,"height":1600}"#
    );
    // `fields` adds to the listing's defaults, `_` and `*` start from none or all.
    assert_eq!(
        s.get("/api/v2/images/?fields=_,id,width&limit=1").text(),
        r#"{"meta":{"total_count":6},"items":[{"id":1,"width":1800}]}"#
    );
    assert_eq!(
        s.json("/api/v2/images/?fields=width,-tags&limit=1", 200)["items"][0],
        json!({"id": 1, "meta": {"type": "images.CustomImage",
            "detail_url": "http://localhost/api/v2/images/1/",
            "download_url": "/media/original_images/ummz-000001-dorsal.jpg"},
            "title": "UMMZ-000001 dorsal", "width": 1800})
    );
    assert_eq!(
        s.get("/api/v2/images/3/?fields=_,title").text(),
        r#"{"title":"Monarch on milkweed"}"#
    );
    // Filters on its columns and tags, order, search.
    assert_eq!(s.ids_of("/api/v2/images/?tags=milkweed"), [3, 5]);
    assert_eq!(s.ids_of("/api/v2/images/?tags=milkweed,Lepidoptera"), [3]);
    assert_eq!(s.ids_of("/api/v2/images/?title=Tallgrass%20prairie"), [6]);
    assert_eq!(s.ids_of("/api/v2/images/?width=2400"), [3]);
    let page = |q: &str| common::ids(&s.json(&format!("/api/v2/images/?{q}"), 200));
    assert_eq!(page("order=-width&limit=3"), [6, 3, 1]);
    assert_eq!(page("order=title&limit=2"), [5, 3]);
    assert_eq!(s.ids_of("/api/v2/images/?search=QU%C3%89BEC"), [6]);
    assert_eq!(s.ids_of("/api/v2/images/?search=ummz+ventral"), [2]);
    assert_eq!(
        s.ids_of("/api/v2/images/?search=ummz+prairie&search_operator=or"),
        [1, 2, 6]
    );
    let mut shuffled = s.ids_of("/api/v2/images/?order=random");
    shuffled.sort();
    assert_eq!(shuffled, [1, 2, 3, 4, 5, 6]);
    // Wagtail refuses these two; here they are answered.
    assert_eq!(page("order=random&offset=5").len(), 1);
    assert_eq!(s.ids_of("/api/v2/images/?tags=milkweed&search=common"), [5]);
    // What Wagtail refuses, with its words.
    for (q, message) in [
        (
            "foo=1",
            "query parameter is not an operation or a recognised field: foo",
        ),
        ("fields=bogus", "unknown fields: bogus"),
        ("order=type", "cannot order by \"type\" (unknown field)"),
        (
            "width=wide",
            "field filter error. \"wide\" is not a valid value for width (expected an integer)",
        ),
        ("limit=-1", "limit must be a positive integer"),
    ] {
        s.assert_error(&format!("/api/v2/images/?{q}"), 400, message);
    }
    s.assert_error(
        "/api/v2/images/99/",
        404,
        "No CustomImage matches the given query.",
    );
    s.assert_error(
        "/api/v2/images/x/",
        404,
        "No CustomImage matches the given query.",
    );
    assert_eq!(s.get("/api/v2/images").status, 301);
}

#[test]
fn wagtails_download_url_does_not_follow_the_host_but_media_url() {
    let s = Server::sample();
    let a = s.send("GET", "/api/v2/images/", &[("Host", "a")]);
    let b = s.send("GET", "/api/v2/images/", &[("Host", "b")]);
    assert_eq!(a.body, b.body);
    assert_eq!(a.header("etag"), b.header("etag"));
    let cdn = behind_a_cdn();
    assert_eq!(
        cdn.json("/api/v2/images/1/", 200)["meta"]["download_url"],
        "https://cdn.example/m/original_images/ummz-000001-dorsal.jpg"
    );
    // A revalidation answers 304, and a HEAD has the headers.
    let tag = a.header("etag").unwrap().to_string();
    let again = s.send("GET", "/api/v2/images/", &[("If-None-Match", &tag)]);
    assert_eq!(again.status, 304);
}

#[test]
fn the_typed_lists_are_the_same_from_either_shape_of_the_collection() {
    // The bundled sample in the shape of the service before 0.16 (typed image
    // tables, featured flags on insect images), converted on the way in.
    let dir = TempDir::new("typed");
    let typed = dir.path("typed.bin");
    let out = common::catalogue(&[
        "build",
        common::typed_fixture().to_str().unwrap(),
        "-o",
        typed.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (today, before) = (Server::sample(), Server::start(&typed, Settings::default()));
    for path in [
        "/api/v2/specimen-record-images/",
        "/api/v2/insect-images/",
        "/api/v2/plant-images/",
        "/api/v2/habitat-images/",
        "/api/v2/insect-images/3/",
        "/api/v2/families/",
        "/api/v2/species/",
    ] {
        let (a, b) = (today.get(path), before.get(path));
        assert_eq!(a.status, 200, "{path}");
        assert_eq!(a.text(), b.text(), "{path}");
    }
    // The flag says which featured image it is; the image names its kind.
    let insect = today.json("/api/v2/insect-images/3/", 200);
    assert_eq!(insect["featured_family"], true);
    assert_eq!(insect["featured_species"], false);
    assert!(insect.get("image_type").is_none());
    // Only today's collection has tags and the order's featured image.
    assert_eq!(
        before.json("/api/v2/images/3/", 200)["meta"]["tags"],
        json!([])
    );
    assert_eq!(
        before.json("/api/v2/orders/1/", 200)["featured_image"],
        Value::Null
    );
}
