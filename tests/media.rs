//! Images, renditions and species pages on the bundled sample, as the existing
//! service served them: exact items, media URLs from the request's host (or
//! `--media-url`), and everything the other lists do.

use crate::common;

use common::{sample_snapshot, Server};
use serde_json::{json, Value};

fn with_host(s: &Server, path: &str, host: &str) -> common::Reply {
    s.send("GET", path, &[("Host", host)])
}

/// The six renditions of an image of `width` x `height`, the first with id
/// `first`, made at the sample's `stamp` (the seconds digit is the id's last).
fn renditions(
    base: &str,
    first: i64,
    image: i64,
    stem: &str,
    (width, height): (i64, i64),
    day: u32,
) -> Vec<Value> {
    [2000, 1500, 1200, 900, 600, 300]
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            let id = first + i as i64;
            let scale = (size as f64 / width.max(height) as f64).min(1.0);
            let stamp = format!("2023-10-0{day}T12:00:0{}.000000Z", id % 10);
            json!({
                "id": id,
                "date_created": stamp,
                "date_modified": stamp,
                "filter_spec": format!("max-{size}x{size}"),
                "file": format!("{base}images/{stem}.max-{size}x{size}.jpg"),
                "width": (width as f64 * scale) as i64,
                "height": (height as f64 * scale) as i64,
                "focal_point_key": "",
                "image": image,
            })
        })
        .collect()
}

#[test]
fn an_insect_image_is_the_services_item() {
    let s = Server::sample();
    let r = with_host(&s, "/api/v2/insect-images/3/", "media.test:8080");
    assert_eq!(r.status, 200);
    let base = "http://media.test:8080/media/";
    let r6 = renditions(base, 12, 3, "monarch-milkweed", (2400, 1600), 3);
    let expected = json!({
        "id": 3,
        "x_large": r6[0], "large": r6[1], "medium": r6[2], "small": r6[3], "x_small": r6[4], "thumbnail": r6[5],
        "identified": true,
        "family": "Nymphalidae",
        "species_binomial": "Danaus plexippus",
        "date_created": "2023-07-14T15:20:00.000000Z",
        "date_modified": "2023-07-14T15:20:00.000000Z",
        "title": "Monarch on milkweed",
        "file": format!("{base}original_images/monarch-milkweed.jpg"),
        "description": "Photo © catalogue volunteers",
        "width": 2400,
        "height": 1600,
        "created_at": "2023-07-14T15:20:00.000000Z",
        "focal_point_x": 1200,
        "focal_point_y": 800,
        "focal_point_width": 300,
        "focal_point_height": 200,
        "file_size": 192000,
        "file_hash": format!("{:040x}", 3 * 7919),
        "alt_text": "",
        "date": "2023-04-13",
        "notes": "<p>Nectaring at <i>Asclepias syriaca</i>.</p>",
        "featured_family": true,
        "featured_species": false,
        "sex": "female",
        "stage": "adult",
        "status": "wild",
        "collection": 2,
        "uploaded_by_user": 7,
        "country": null,
        "state": null,
        "county": null,
        "locality": 1,
        "gps": 1,
        "collecting_trip": null,
        "species": 1,
        "species_page": 11,
    });
    assert_eq!(r.json(), expected);
    // Keys in the service's order.
    let text = r.text();
    let order: Vec<usize> = [
        "\"thumbnail\"",
        "\"identified\"",
        "\"family\"",
        "\"date_created\":\"2023-07",
        "\"featured_family\"",
        "\"collection\"",
        "\"country\"",
        "\"species_page\"",
    ]
    .iter()
    .map(|k| text.find(k).unwrap_or_else(|| panic!("{k}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    // The list shows the same item.
    let list = with_host(&s, "/api/v2/insect-images/?limit=100000", "media.test:8080").json();
    assert_eq!(list["meta"]["total_count"], 2);
    assert_eq!(list["items"][0], expected);
}

#[test]
fn an_image_without_a_species_leaves_out_its_family_and_a_missing_rendition_is_null() {
    let s = Server::sample();
    let caterpillar = with_host(&s, "/api/v2/insect-images/4/", "h").json();
    let keys: Vec<&str> = caterpillar
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert!(
        !keys.contains(&"family") && !keys.contains(&"species_binomial"),
        "{keys:?}"
    );
    assert_eq!(caterpillar["identified"], false);
    assert_eq!(caterpillar["species"], Value::Null);
    // Rich text is served as stored (escaping it is the page's job).
    assert_eq!(
        caterpillar["notes"],
        "<p>Found on oak. <script>alert(\"x\")</script><img src=x onerror=\"alert(1)\"></p>"
    );
    let ventral = with_host(&s, "/api/v2/specimen-record-images/2/", "h").json();
    assert_eq!(ventral["thumbnail"], Value::Null);
    assert_eq!(
        ventral["x_small"]["file"],
        "http://h/media/images/ummz-000001-ventral.max-600x600.png"
    );
    assert_eq!(ventral["usi"], 1);
    assert_eq!(ventral["position"], "ventral");
}

#[test]
fn species_pages_nest_their_taxonomy_and_list_drafts() {
    let s = Server::sample();
    let body = s.json("/api/v2/species-pages/", 200);
    assert_eq!(body["meta"]["total_count"], 2);
    let monarch = &body["items"][0];
    // The live title, not the draft's.
    assert_eq!(monarch["title"], "Monarch");
    assert_eq!(monarch["slug"], "monarch");
    for (rank, path) in [
        ("order", "/api/v2/orders/1/"),
        ("family", "/api/v2/families/1/"),
        ("species", "/api/v2/species/1/"),
    ] {
        assert_eq!(monarch[rank], s.json(path, 200), "{rank}");
    }
    assert_eq!(
        monarch["subspecies"],
        json!([s.json("/api/v2/subspecies/1/", 200)])
    );
    assert_eq!(monarch["first_published_at"], "2023-04-01T08:30:00.000000Z");
    assert_eq!(monarch["last_published_at"], "2024-02-11T16:05:30.125000Z");
    assert_eq!(monarch["life_cycle"], "");
    let draft = &body["items"][1];
    assert_eq!(draft["title"], "Cecropia moth");
    assert_eq!(draft["first_published_at"], Value::Null);
    assert_eq!(draft["last_published_at"], Value::Null);
    assert_eq!(draft["subspecies"], json!([]));
    // The order's featured image is there with its files under the request's host.
    let a = with_host(&s, "/api/v2/species-pages/", "a");
    let b = with_host(&s, "/api/v2/species-pages/", "b");
    assert_ne!(a.body, b.body);
    assert_eq!(
        a.json()["items"][0]["order"]["featured_image"]["file"],
        "http://a/media/original_images/monarch-milkweed.jpg"
    );
    assert_eq!(a.json()["items"][1]["order"]["featured_image"]["id"], 3);
    // The plant image lists its pages by id, ascending.
    assert_eq!(
        s.json("/api/v2/plant-images/5/", 200)["species_page"],
        json!([11, 12])
    );
    assert_eq!(
        s.json("/api/v2/habitat-images/6/", 200)["species_page"],
        json!([])
    );
}

#[test]
fn media_urls_follow_the_host_or_the_configured_base() {
    let s = Server::sample();
    let path = "/api/v2/specimen-record-images/?limit=1&fields=_,file";
    let a = with_host(&s, path, "a.example");
    let b = with_host(&s, path, "b.example");
    assert_eq!(
        a.json()["items"][0]["file"],
        "http://a.example/media/original_images/ummz-000001-dorsal.jpg"
    );
    assert_eq!(
        b.json()["items"][0]["file"],
        "http://b.example/media/original_images/ummz-000001-dorsal.jpg"
    );
    // One representation per base: each has its own tag, and revalidates.
    assert_ne!(a.header("etag"), b.header("etag"));
    assert_eq!(
        with_host(&s, path, "a.example").header("etag"),
        a.header("etag")
    );
    let again = s.send(
        "GET",
        path,
        &[
            ("Host", "a.example"),
            ("If-None-Match", a.header("etag").unwrap()),
        ],
    );
    assert_eq!(again.status, 304);
    // A Host that is not a host is refused: no answer is built from it.
    for evil in ["x\"y", "evil.example/x?", "user:pw@evil.example", ""] {
        let r = with_host(&s, path, evil);
        assert_eq!(r.status, 400, "{evil}");
        assert!(
            r.text().contains("the Host header must be a host name"),
            "{evil}"
        );
    }
    // An answer built from the Host says so to caches.
    assert_eq!(a.header("vary"), Some("Accept, Accept-Encoding, Host"));
    assert_eq!(
        s.get("/api/v2/countries/").header("vary"),
        Some("Accept, Accept-Encoding")
    );
    // Compressed answers carry the same URLs.
    let whole = "/api/v2/insect-images/?limit=100000";
    let plain = with_host(&s, whole, "c.example");
    let gz = s.send(
        "GET",
        whole,
        &[("Host", "c.example"), ("Accept-Encoding", "gzip")],
    );
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    let mut decoded = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&gz.body[..]),
        &mut decoded,
    )
    .unwrap();
    assert_eq!(decoded, plain.body);

    let settings = catalogue::serve::Settings {
        media_url: Some("https://cdn.example.org/m/".into()),
        ..Default::default()
    };
    let cdn = Server::start(&sample_snapshot(), settings);
    let r = with_host(
        &cdn,
        "/api/v2/habitat-images/6/?fields=_,file,thumbnail(_,file)",
        "ignored",
    );
    assert_eq!(
        r.json(),
        json!({"file": "https://cdn.example.org/m/original_images/prairie.jpg",
               "thumbnail": {"file": "https://cdn.example.org/m/images/prairie.max-300x300.jpg"}})
    );
}

#[test]
fn image_and_page_lists_do_what_every_list_does() {
    let s = Server::sample();
    // One id sequence across the kinds: another kind's id is not found here.
    s.assert_error(
        "/api/v2/insect-images/1/",
        404,
        "No InsectImage matches the given query.",
    );
    s.assert_error(
        "/api/v2/species-pages/10/",
        404,
        "No SpeciesPage matches the given query.",
    );
    s.assert_error(
        "/api/v2/plant-images/?foo=1",
        400,
        "query parameter is not an operation or a recognised field: foo",
    );
    // A field's name is accepted and filters nothing, as the existing service did.
    assert_eq!(s.ids_of("/api/v2/insect-images/?title=x"), [3, 4]);
    assert_eq!(s.ids_of("/api/v2/insect-images/?order=-id"), [4, 3]);
    assert_eq!(s.ids_of("/api/v2/insect-images/?search=caterpillar"), [4]);
    // Search looks into embedded renditions' strings too.
    assert_eq!(
        s.ids_of("/api/v2/specimen-record-images/?search=ventral.max-600x600"),
        [2]
    );
    // A featured image is not searched (the order's is "Monarch on milkweed").
    assert_eq!(s.ids_of("/api/v2/species-pages/?search=monarch"), [11]);
    let facets = s.json("/api/v2/insect-images/?facet=species,stage&limit=0", 200);
    assert_eq!(
        facets["meta"]["facets"],
        json!({"species": [{"value": "plexippus", "count": 1}, {"value": null, "count": 1}],
               "stage": [{"value": "adult", "count": 1}, {"value": "larva", "count": 1}]})
    );
    let geo = s.get("/api/v2/habitat-images/?format=geojson&fields=_,id");
    assert_eq!(geo.header("content-type"), Some("application/geo+json"));
    assert_eq!(
        geo.json(),
        json!({"type": "FeatureCollection", "meta": {"total_count": 1, "without_coordinates": 0},
               "features": [{"type": "Feature", "id": 6,
                             "geometry": {"type": "Point", "coordinates": [-84.8, 10.3]},
                             "properties": {"id": 6}}]})
    );
    s.assert_error(
        "/api/v2/species-pages/?format=geojson",
        400,
        "format=geojson is only for the lists of records with a place: gps-coordinates, nested-gps-coordinates, specimen-records, insect-images, plant-images, habitat-images",
    );
}
