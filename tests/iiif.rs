//! IIIF's Image API on the bundled sample, its photographs' originals
//! written into a media folder: the base URI's redirect, `info.json`, regions
//! cut from the tile pyramid made beside the media, validators, `HEAD`, and
//! hostile paths refused with 400, 404, 415 or 501.

use std::io::Cursor;
use std::path::Path;

use catalogue::iiif::params::Format;
use catalogue::iiif::raster::{self, Coded, Raster};
use catalogue::serve::Settings;
use serde_json::json;

use crate::common::{self, Server, TempDir};

/// A raster whose pixels say where they are (red: x, green: y).
fn gradient(w: u32, h: u32) -> Raster {
    let pixels = (0..w * h)
        .flat_map(|i| {
            let (x, y) = (i % w, i / w);
            [(x * 255 / w) as u8, (y * 255 / h) as u8, 90]
        })
        .collect();
    Raster {
        width: w,
        height: h,
        channels: 3,
        pixels,
    }
}

/// The sample served with its first two photographs' originals: image 1 a
/// 1800x1200 JPEG, image 2 a 600x900 PNG.
fn served(dir: &TempDir) -> (Server, Raster) {
    let media = dir.path("media");
    let originals = media.join("original_images");
    std::fs::create_dir_all(&originals).unwrap();
    let jpeg = gradient(1800, 1200).encode(Format::Jpg).unwrap();
    std::fs::write(originals.join("ummz-000001-dorsal.jpg"), jpeg).unwrap();
    let png = gradient(600, 900);
    std::fs::write(
        originals.join("ummz-000001-ventral.png"),
        png.encode(Format::Png).unwrap(),
    )
    .unwrap();
    let settings = Settings {
        media_dir: Some(media),
        ..Settings::default()
    };
    (Server::start(&common::sample_snapshot(), settings), png)
}

fn decoded(body: &[u8]) -> Raster {
    let coded = Coded::sniff(body).expect("an image");
    raster::decode(coded, Cursor::new(body)).unwrap()
}

#[test]
fn the_base_uri_redirects_and_info_json_says_the_levels() {
    let dir = TempDir::new("iiif-info");
    let (s, _) = served(&dir);
    let r = s.get("/iiif/1");
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), Some("http://t/iiif/1/info.json"));
    let r = s.get("/iiif/1/info.json");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert_eq!(
        r.json(),
        json!({
            "@context": "http://iiif.io/api/image/3/context.json",
            "id": "http://t/iiif/1",
            "type": "ImageService3",
            "protocol": "http://iiif.io/api/image",
            "profile": "level2",
            "width": 1800,
            "height": 1200,
            "maxWidth": 4096,
            "maxHeight": 4096,
            "maxArea": 16777216,
            "sizes": [
                {"type": "Size", "width": 450, "height": 300},
                {"type": "Size", "width": 900, "height": 600},
                {"type": "Size", "width": 1800, "height": 1200},
            ],
            "tiles": [{"type": "Tile", "width": 512, "height": 512, "scaleFactors": [1, 2, 4]}],
            "extraQualities": ["color", "gray", "bitonal"],
            "extraFeatures": ["mirroring", "sizeUpscaling"],
        })
    );
    let ld = s.send(
        "GET",
        "/iiif/1/info.json",
        &[("Accept", "application/ld+json")],
    );
    assert_eq!(
        ld.header("content-type"),
        Some("application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\"")
    );
    // The pyramid was made beside the media folder, named by the file hash.
    let pyramid = dir.path("media.tiles/00/0000000000000000000000000000000000001eef");
    assert!(pyramid.join("pyramid.txt").is_file());
    assert!(pyramid.join("2/0_0.jpg").is_file());
    assert!(!pyramid.join("3").exists());
}

#[test]
fn regions_sizes_turns_and_qualities_are_cut_from_the_tiles() {
    let dir = TempDir::new("iiif-cut");
    let (s, png) = served(&dir);
    // A region across tiles of a PNG, as PNG: its very pixels.
    let r = s.get("/iiif/2/400,500,200,300/max/0/default.png");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("image/png"));
    assert_eq!(decoded(&r.body), png.crop(400, 500, 200, 300));
    // Turned a quarter clockwise, mirrored first.
    let r = s.get("/iiif/2/0,0,10,20/max/!90/default.png");
    let turned = png
        .crop(0, 0, 10, 20)
        .turn(catalogue::iiif::params::Rotation {
            mirror: true,
            quarters: 1,
        });
    assert_eq!(decoded(&r.body), turned);
    // Scaled and gray, as JPEG.
    let r = s.get("/iiif/1/square/pct:10/0/gray.jpg");
    assert_eq!(r.header("content-type"), Some("image/jpeg"));
    let gray = decoded(&r.body);
    assert_eq!((gray.width, gray.height), (120, 120));
    // One channel, which the decoder spreads to three.
    assert!(gray.pixels.chunks(3).all(|p| p[0] == p[1] && p[1] == p[2]));
    // A tile as a viewer asks it is the stored tile's bytes.
    let r = s.get("/iiif/1/1024,0,776,1024/388,/0/default.jpg");
    assert_eq!(r.status, 200);
    let stored = dir.path("media.tiles/00/0000000000000000000000000000000000001eef/1/1_0.jpg");
    assert_eq!(r.body, std::fs::read(stored).unwrap());
}

#[test]
fn images_have_tags_and_head_answers_as_get() {
    let dir = TempDir::new("iiif-head");
    let (s, _) = served(&dir);
    let path = "/iiif/1/0,0,512,512/256,/0/default.jpg";
    let get = s.get(path);
    assert_eq!(get.status, 200);
    let tag = get.header("etag").unwrap().to_string();
    assert_eq!(get.header("cache-control"), Some("public, max-age=3600"));
    let head = s.send("HEAD", path, &[]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("etag"), Some(tag.as_str()));
    assert_eq!(head.header("content-length"), get.header("content-length"));
    let again = s.send("GET", path, &[("If-None-Match", &tag)]);
    assert_eq!(again.status, 304);
    assert_ne!(
        s.get("/iiif/1/0,0,512,512/128,/0/default.jpg")
            .header("etag"),
        Some(tag.as_str())
    );
}

#[test]
fn a_tile_asked_again_is_replayed_and_a_manifest_is_made_again() {
    const REPLAYED: &str = "catalogue_replayed_answers_total";
    let dir = TempDir::new("iiif-replay");
    let (s, _) = served(&dir);
    let tile = "/iiif/1/512,512,512,512/512,512/0/default.jpg";
    let made = s.get(tile);
    assert_eq!(made.status, 200);
    let before = s.metric(REPLAYED);
    // Made the first time, made and kept the second, replayed from the third.
    assert_eq!(s.get(tile).body, made.body);
    let replayed = s.get(tile);
    assert_eq!(s.metric(REPLAYED), before + 1);
    assert_eq!(replayed.body, made.body);
    assert_eq!(replayed.header("etag"), made.header("etag"));
    // A manifest's canvases are read from the originals' files: made each time.
    for _ in 0..3 {
        assert_eq!(s.get("/iiif/manifests/1").status, 200);
    }
    assert_eq!(s.metric(REPLAYED), before + 1);
}

#[test]
fn hostile_requests_are_refused_never_made() {
    let dir = TempDir::new("iiif-hostile");
    let (s, _) = served(&dir);
    for (path, status) in [
        ("/iiif/1/0,0,0,10/max/0/default.jpg", 400),
        ("/iiif/1/1800,0,10,10/max/0/default.jpg", 400),
        ("/iiif/1/full/^100000,/0/default.jpg", 400),
        ("/iiif/1/full/4097,/0/default.jpg", 400),
        ("/iiif/1/full/3600,/0/default.jpg", 400),
        ("/iiif/1/full/max/45/default.jpg", 501),
        ("/iiif/1/full/max/0/default.gif", 415),
        ("/iiif/1/full/max/0/sepia.jpg", 400),
        ("/iiif/1/full/max/0/default", 400),
        ("/iiif/1/99999999999,0,10,10/max/0/default.jpg", 400),
        ("/iiif/1/full/max", 404),
        ("/iiif/1/info.json/x", 404),
        ("/iiif/999/info.json", 404),
        ("/iiif/01/info.json", 404),
        ("/iiif/..%2F..%2Fetc/info.json", 404),
        ("/iiif/%2e%2e/info.json", 404),
        // Image 3's original is not in the media folder.
        ("/iiif/3/info.json", 404),
    ] {
        let r = s.get(path);
        assert_eq!(r.status, status, "{path}: {}", r.text());
    }
    // Without --media-dir, there are no image services.
    assert_eq!(Server::sample().get("/iiif/1/info.json").status, 404);
}

#[test]
fn a_pyramid_is_cut_once_and_read_by_the_next_server() {
    let dir = TempDir::new("iiif-once");
    let (s, _) = served(&dir);
    assert_eq!(s.get("/iiif/2/info.json").status, 200);
    let made = dir.path("media.tiles/00/0000000000000000000000000000000000003dde/pyramid.txt");
    let first = std::fs::metadata(&made).unwrap().modified().unwrap();
    drop(s);
    let settings = Settings {
        media_dir: Some(dir.path("media")),
        ..Settings::default()
    };
    let again = Server::start(&common::sample_snapshot(), settings);
    assert_eq!(again.get("/iiif/2/full/max/0/default.png").status, 200);
    assert_eq!(std::fs::metadata(&made).unwrap().modified().unwrap(), first);
    assert!(Path::new(&made).is_file());
}

#[test]
fn a_photographed_specimen_has_a_manifest_in_its_taxons_collections() {
    let dir = TempDir::new("iiif-manifest");
    let (s, _) = served(&dir);
    assert_eq!(s.json("/", 200)["iiif"], "/iiif/collections/");
    let m = s.json("/iiif/manifests/1", 200);
    assert_eq!(m["id"], "http://t/iiif/manifests/1");
    assert_eq!(m["type"], "Manifest");
    assert_eq!(
        m["label"],
        json!({"none": ["UMMZ-000001 Danaus plexippus megalippe (Hübner, [1826])"]})
    );
    assert_eq!(m["rights"], "http://creativecommons.org/licenses/by/4.0/");
    assert_eq!(
        m["requiredStatement"],
        json!({"label": {"en": ["Attribution"]}, "value": {"none": ["Catalogue Sample Museum"]}})
    );
    assert_eq!(
        m["homepage"][0]["id"],
        "http://t/api/v2/specimen-records/1/?format=html"
    );
    assert_eq!(m["seeAlso"][0]["id"], "http://t/api/v2/specimen-records/1/");
    assert_eq!(
        m["metadata"][1],
        json!({"label": {"en": ["catalogNumber"]}, "value": {"none": ["UMMZ-000001"]}})
    );
    // A canvas per photograph, dorsal before ventral, each its file's size
    // and its image service's.
    let canvases = m["items"].as_array().unwrap();
    let sizes: Vec<_> = canvases
        .iter()
        .map(|c| {
            (
                c["label"]["none"][0].clone(),
                c["width"].clone(),
                c["height"].clone(),
            )
        })
        .collect();
    assert_eq!(
        sizes,
        [
            (json!("dorsal"), json!(1800), json!(1200)),
            (json!("ventral"), json!(600), json!(900))
        ]
    );
    let body = &canvases[1]["items"][0]["items"][0]["body"];
    assert_eq!(body["service"][0]["id"], "http://t/iiif/2");
    assert_eq!(s.get("/iiif/2/full/600,900/0/default.jpg").status, 200);
    // No photograph, no manifest.
    assert_eq!(s.get("/iiif/manifests/2").status, 404);
    assert_eq!(s.get("/iiif/manifests/1/x").status, 404);
    // From the top down to the subspecies, which holds the manifest.
    let top = s.json("/iiif/collections/", 200);
    assert_eq!(top["items"][0]["id"], "http://t/iiif/collections/order/1");
    let species = s.json("/iiif/collections/species/1", 200);
    assert_eq!(
        species["partOf"][0]["id"],
        "http://t/iiif/collections/genus/1"
    );
    assert_eq!(
        species["items"][0]["id"],
        "http://t/iiif/collections/subspecies/1"
    );
    let sub = s.json("/iiif/collections/subspecies/1", 200);
    assert_eq!(
        sub["items"],
        json!([{"id": "http://t/iiif/manifests/1", "type": "Manifest", "label": {"none": ["UMMZ-000001"]}}])
    );
    assert_eq!(s.get("/iiif/collections/species/999").status, 404);
    assert_eq!(s.get("/iiif/collections/kingdom/1").status, 404);
}

#[test]
fn a_manifests_place_is_the_point_its_record_publishes() {
    use catalogue::model::Model;
    use catalogue::view::{Value, View};
    let dir = TempDir::new("iiif-place");
    let snapshot = common::generated(&dir, 60);
    let view = View::load(&snapshot).unwrap();
    let images = view.table(Model::Image);
    let (specimen_field, gps, file) = (
        Model::Image.field_index("specimen_record").unwrap(),
        Model::SpecimenRecord.field_index("gps").unwrap(),
        Model::Image.field_index("file").unwrap(),
    );
    // A photographed specimen with a point, and its photographs' originals.
    let media = dir.path("media");
    let mut chosen = None;
    for pos in 0..images.len() {
        let Value::Ref(Model::SpecimenRecord, s) = images.get(pos, specimen_field) else {
            continue;
        };
        let specimens = view.table(Model::SpecimenRecord);
        if !matches!(specimens.get(s as usize, gps), Value::Ref(..)) {
            continue;
        }
        let id = specimens.id(s);
        if chosen.is_some_and(|c| c != id) {
            continue;
        }
        chosen = Some(id);
        let path = media.join(images.get(pos, file).as_str().unwrap());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, gradient(64, 48).encode(Format::Jpg).unwrap()).unwrap();
    }
    let id = chosen.expect("a photographed specimen with a point");
    drop(view);
    let settings = Settings {
        media_dir: Some(media),
        ..Settings::default()
    };
    let s = Server::start(&snapshot, settings);
    let record = s.json(&format!("/api/v2/specimen-records/{id}/"), 200);
    let lat: f64 = record["gps"]["latitude"].as_str().unwrap().parse().unwrap();
    let lon: f64 = record["gps"]["longitude"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let m = s.json(&format!("/iiif/manifests/{id}"), 200);
    let point = &m["navPlace"]["features"][0]["geometry"];
    assert_eq!(point["type"], "Point");
    assert_eq!(point["coordinates"], json!([lon, lat]));
    assert_eq!(m["items"][0]["width"], 64);
}

#[test]
fn the_activity_stream_creates_the_manifests_served() {
    let dir = TempDir::new("iiif-activity");
    let (s, _) = served(&dir);
    assert_eq!(s.json("/", 200)["iiif_activity"], "/iiif/activity/");
    let stream = s.json("/iiif/activity/", 200);
    assert_eq!(
        stream,
        json!({
            "@context": "http://iiif.io/api/discovery/1/context.json",
            "id": "http://t/iiif/activity/",
            "type": "OrderedCollection",
            "totalItems": 1,
            "first": {"id": "http://t/iiif/activity/page/0", "type": "OrderedCollectionPage"},
            "last": {"id": "http://t/iiif/activity/page/0", "type": "OrderedCollectionPage"},
        })
    );
    let page = s.json("/iiif/activity/page/0", 200);
    let items = page["orderedItems"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["type"], "Create");
    assert_eq!(
        items[0]["object"],
        json!({"id": "http://t/iiif/manifests/1", "type": "Manifest"})
    );
    assert!(items[0]["endTime"].as_str().unwrap().ends_with('Z'));
    assert_eq!(s.get("/iiif/activity/page/1").status, 404);
    assert_eq!(s.get("/iiif/activity/page/x").status, 404);
}

#[test]
fn the_activity_stream_deletes_a_deleted_specimens_manifest() {
    use serde_json::Value;
    let dir = TempDir::new("iiif-deleted");
    let text = std::fs::read_to_string(common::sample_fixture()).unwrap();
    let v1: Vec<Value> = serde_json::from_str(&text).unwrap();
    // Version 2: the photographed specimen 1 deleted with its photographs;
    // specimen 2 photographed (image 3 now its photograph).
    let mut v2: Vec<Value> = v1
        .iter()
        .filter(|o| {
            let (model, pk) = (o["model"].as_str().unwrap(), o["pk"].as_i64().unwrap_or(0));
            !(model == "specimens.specimenrecord" && pk == 1
                || model == "images.customimage" && (pk == 1 || pk == 2)
                || model == "images.customrendition"
                    && (o["fields"]["image"] == 1 || o["fields"]["image"] == 2))
        })
        .cloned()
        .collect();
    let image3 = v2
        .iter_mut()
        .find(|o| o["model"] == "images.customimage" && o["pk"] == 3)
        .unwrap();
    image3["fields"]["specimen_record"] = json!(2);
    let build = |name: &str, objects: &[Value], previous: Option<&str>| {
        let fixture = dir.path(&format!("{name}.json"));
        std::fs::write(&fixture, Value::Array(objects.to_vec()).to_string()).unwrap();
        let out = dir.path(&format!("{name}.bin"));
        let (fixture, out) = (
            fixture.to_string_lossy().into_owned(),
            out.to_string_lossy().into_owned(),
        );
        let mut args = vec!["build", &fixture, "-o", &out];
        let previous = previous.map(|p| dir.path(p).to_string_lossy().into_owned());
        if let Some(p) = &previous {
            args.extend(["--previous", p]);
        }
        let o = common::catalogue(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        dir.path(&format!("{name}.bin"))
    };
    build("v1", &v1, None);
    let v2 = build("v2", &v2, Some("v1.bin"));
    let media = dir.path("media");
    std::fs::create_dir_all(media.join("original_images")).unwrap();
    std::fs::write(
        media.join("original_images/monarch-milkweed.jpg"),
        gradient(60, 40).encode(Format::Jpg).unwrap(),
    )
    .unwrap();
    let settings = Settings {
        media_dir: Some(media),
        ..Settings::default()
    };
    let s = Server::start(&v2, settings);
    assert_eq!(s.get("/iiif/manifests/1").status, 404);
    assert_eq!(s.get("/iiif/manifests/2").status, 200);
    let page = s.json("/iiif/activity/page/0", 200);
    let said: Vec<(String, String)> = page["orderedItems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["type"].as_str().unwrap().into(),
                a["object"]["id"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(
        said.contains(&("Delete".into(), "http://t/iiif/manifests/1".into())),
        "{said:?}"
    );
    // Read from the last back, the first word on each manifest decides.
    let mut decided = std::collections::BTreeMap::new();
    for (kind, id) in said.iter().rev() {
        decided.entry(id.clone()).or_insert(kind.clone());
    }
    let rebuilt: Vec<&String> = decided
        .iter()
        .filter(|(_, k)| *k != "Delete")
        .map(|(id, _)| id)
        .collect();
    assert_eq!(rebuilt, ["http://t/iiif/manifests/2"]);
}
