//! The pages a naturalist reads: a specimen's card and photographs, a taxon's and
//! a place's holdings with their season charts (whose bars are the `month` and
//! `year` facets of the same question), rich text through the sanitizer, the
//! specimen table's columns, and media files from `--media-dir`.

use crate::common;

use std::collections::BTreeMap;

use common::{generated, Server, TempDir};

use catalogue::serve::Settings;

const BROWSER: &str = "text/html,application/xhtml+xml";

fn page(s: &Server, path: &str) -> String {
    let r = s.send("GET", path, &[("Accept", BROWSER)]);
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    r.text()
}

/// The value of attribute `name` in a tag's text.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = tag[at..].find('"')?;
    Some(&tag[at..at + end])
}

/// The bars of the chart `name` on a page: each bar's value and count.
fn bars(html: &str, name: &str) -> BTreeMap<String, u64> {
    let start = html
        .find(&format!("data-chart=\"{name}\""))
        .unwrap_or_else(|| panic!("no {name} chart"));
    let chart = &html[start..start + html[start..].find("</svg>").unwrap()];
    chart
        .split("<rect")
        .skip(1)
        .map(|tag| {
            let tag = &tag[..tag.find('>').unwrap()];
            let value = attribute(tag, "data-value").unwrap().to_string();
            let count = attribute(tag, "data-count").unwrap().parse().unwrap();
            (value, count)
        })
        .collect()
}

/// The facet `name` of a JSON answer, as value -> count.
fn facet(json: &serde_json::Value, name: &str) -> BTreeMap<String, u64> {
    json["meta"]["facets"][name]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let value = match &v["value"] {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (value, v["count"].as_u64().unwrap())
        })
        .collect()
}

/// The chart's bars are the question's facets: every counted month or year has
/// its bar with its count, and every other bar is zero.
fn assert_charts_are_facets(s: &Server, html: &str, question: &str) {
    let json = s.json(
        &format!("/api/v2/specimen-records/?{question}&facet=month,year&facet_size=1000&limit=0"),
        200,
    );
    for chart in ["month", "year"] {
        let drawn = bars(html, chart);
        let counted: BTreeMap<String, u64> = facet(&json, chart)
            .into_iter()
            .filter(|(v, _)| !v.is_empty() && v != "null")
            .collect();
        assert!(!counted.is_empty(), "{question}: no {chart} counted");
        for (value, n) in &counted {
            assert_eq!(drawn.get(value), Some(n), "{question}: {chart} {value}");
        }
        let others: u64 = drawn
            .iter()
            .filter(|(v, _)| !counted.contains_key(*v))
            .map(|(_, n)| n)
            .sum();
        assert_eq!(others, 0, "{question}: {chart} bars nobody counted");
    }
}

/// The question a taxon's or a place's page asks: its "N specimens" link's.
fn holdings_question(html: &str) -> String {
    let lead = "<p class=\"count\"><a href=\"";
    let at = html.find(lead).unwrap() + lead.len();
    let href = &html[at..at + html[at..].find('"').unwrap()];
    let query = href.split_once('?').unwrap().1;
    query.replace("&amp;", "&")
}

#[test]
fn chart_bars_are_the_facet_counts_of_the_same_question() {
    let dir = TempDir::new("charts");
    let s = Server::start(&generated(&dir, 3000), Settings::default());
    for question in ["", "family=idae", "country=Canada&sex=female", "search=net"] {
        let html = page(&s, &format!("/api/v2/specimen-records/?{question}"));
        assert_charts_are_facets(&s, &html, question);
    }
    for path in [
        "/api/v2/orders/1/",
        "/api/v2/species/2/",
        "/api/v2/countries/1/",
        "/api/v2/states/3/",
    ] {
        let html = page(&s, path);
        let question = holdings_question(&html);
        assert!(!question.is_empty(), "{path}");
        assert_charts_are_facets(&s, &html, &question);
        let total = s.json(
            &format!("/api/v2/specimen-records/?{question}&limit=0"),
            200,
        )["meta"]["total_count"]
            .as_u64()
            .unwrap();
        assert!(
            html.contains(&format!("<strong>{total}</strong> specimens")),
            "{path}: {total}"
        );
    }
}

#[test]
fn a_specimen_reads_like_its_label_with_its_photographs() {
    let s = Server::sample();
    let html = page(&s, "/api/v2/specimen-records/1/");
    assert!(html.contains(
        "<p class=\"event\">4 October 2019, Audubon Park, Orleans Par., Louisiana, United States of America, R.M. Alvarez, A. Brooks, H. Brooks Jr., T.J. Côté III, net.</p>"
    ), "{html}");
    assert!(html.contains(
        "<a href=\"/api/v2/subspecies/1/\"><span class=\"taxon-name\"><i>Danaus plexippus megalippe</i> <span class=\"authority\">(Hübner, [1826])</span></span></a>"
    ));
    assert!(html.contains(
        "<span class=\"rank\">genus </span><a href=\"/api/v2/genera/1/\"><i>Danaus</i></a>"
    ));
    assert!(
        html.contains("Determined by <a href=\"/api/v2/people/1/\">Rosa M. Alvarez</a> in 2020.")
    );
    // The dorsal photograph at the rendition that fits, the original a click away.
    assert!(html.contains(
        "<a href=\"http://t/media/original_images/ummz-000001-dorsal.jpg\"><img src=\"http://t/media/images/ummz-000001-dorsal.max-600x600.jpg\" alt=\"Monarch, dorsal view\" width=\"600\" height=\"400\""
    ), "{html}");
    // Without alt text, the title says what it shows.
    assert!(html.contains("alt=\"UMMZ-000001 ventral\""));
    // Labels in words; the JSON answer unchanged.
    assert!(html.contains("<dt>Temperature (°C)</dt>") && !html.contains("<dt>temp_C</dt>"));
    assert_eq!(
        s.json("/api/v2/specimen-records/1/", 200)["usi"],
        "UMMZ-000001"
    );
}

#[test]
fn rich_text_is_sanitized_and_unnamed_records_say_what_they_hold() {
    let dir = TempDir::new("prose");
    // Species 1's photographs (its featured image among them, if it has one),
    // with notes holding an editor's markup and an attack.
    let snapshot = common::generated_with(&dir, 200, |c| {
        for image in c.images.iter_mut().filter(|i| i.image_type == "insect") {
            image.species = Some(1);
            image.notes = r#"<p data-block-key="k1">On <i>Quercus</i>.<script>window.x=1</script><img src=x onerror="alert(1)"><a href="javascript:alert(2)">more</a></p>"#.into();
        }
    });
    let s = Server::start(&snapshot, Settings::default());
    let species = page(&s, "/api/v2/species/1/");
    assert!(
        species.contains(r#"<div class="prose"><p>On <i>Quercus</i>.<a rel="nofollow noopener">more</a></p></div>"#),
        "{species}"
    );
    for raw in ["<script>window", "onerror", "javascript:", "data-block-key"] {
        assert!(!species.contains(raw), "{raw}");
    }
    // The sample's species page: the editor's italics kept.
    let sample = Server::sample();
    let monarch = page(&sample, "/api/v2/species/1/");
    assert!(monarch.contains(
        "<figcaption>Monarch on milkweed<div class=\"prose\"><p>Nectaring at <i>Asclepias syriaca</i>.</p></div></figcaption>"
    ), "{monarch}");
    // A locality without a name is named by its town, not `#2`.
    let locality = page(&sample, "/api/v2/localities/2/");
    assert!(locality.contains("<h1>Near Palmer</h1>"), "{locality}");
}

#[test]
fn the_specimen_table_shows_what_a_person_scans_and_the_rest_a_click_away() {
    let s = Server::sample();
    let html = page(&s, "/api/v2/specimen-records/");
    let head = &html[html.find("<thead>").unwrap()..html.find("</thead>").unwrap()];
    assert_eq!(head.matches("<th ").count(), 9, "{head}");
    assert!(head.contains(">Catalogue number (USI)</a>") && !head.contains(">Weather</a>"));
    let every = html.find("Show every field").unwrap();
    let link = &html[html[..every].rfind("href=\"").unwrap() + 6..every];
    let all = page(&s, &link[..link.find('"').unwrap()].replace("&amp;", "&"));
    let head = &all[all.find("<thead>").unwrap()..all.find("</thead>").unwrap()];
    assert!(head.matches("<th ").count() > 40, "{head}");
    // The JSON answer keeps every field.
    let json = s.json("/api/v2/specimen-records/?limit=1", 200);
    assert!(json["items"][0].as_object().unwrap().len() > 40);
}

#[test]
fn media_files_are_served_from_the_media_dir_and_nothing_else() {
    let dir = TempDir::new("media");
    let media = dir.path("media");
    std::fs::create_dir_all(media.join("images")).unwrap();
    std::fs::write(media.join("images/a.jpg"), b"\xff\xd8\xff\xe0jpeg").unwrap();
    std::fs::write(media.join("page.html"), b"<script>x</script>").unwrap();
    std::fs::write(dir.path("secret.jpg"), b"secret").unwrap();
    let settings = Settings {
        media_dir: Some(media),
        ..Settings::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    let r = s.get("/media/images/a.jpg");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("image/jpeg"));
    assert_eq!(r.body, b"\xff\xd8\xff\xe0jpeg");
    for path in [
        "/media/page.html",
        "/media/../secret.jpg",
        "/media/%2e%2e/secret.jpg",
        "/media/none.jpg",
    ] {
        assert_eq!(s.get(path).status, 404, "{path}");
    }
    // Without --media-dir, nothing is served there.
    assert_eq!(Server::sample().get("/media/images/a.jpg").status, 404);
}

#[test]
fn media_files_are_confined_to_regular_files_beneath_the_dir_and_sent_in_pieces() {
    let dir = TempDir::new("confined");
    let media = dir.path("media");
    std::fs::create_dir_all(media.join("images/real")).unwrap();
    // Larger than one piece, and not a multiple of it.
    let big: Vec<u8> = (0..200_003u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(media.join("images/big.png"), &big).unwrap();
    std::fs::write(media.join("images/real/ok.jpg"), b"ok").unwrap();
    std::fs::write(dir.path("outside.jpg"), b"outside").unwrap();
    let link = |target: &std::path::Path, at: &str| {
        std::os::unix::fs::symlink(target, media.join(at)).unwrap()
    };
    link(&dir.path("outside.jpg"), "images/out.jpg");
    link(&media.join("images/real/ok.jpg"), "images/inside.jpg");
    link(std::path::Path::new("/"), "images/root.jpg");
    link(&media.join("images/real"), "images/linked");
    let fifo = std::ffi::CString::new(media.join("images/fifo.jpg").to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path alive for the call.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    std::fs::create_dir(media.join("images/dir.jpg")).unwrap();
    let settings = Settings {
        media_dir: Some(media.clone()),
        media_max_bytes: 100_000,
        ..Settings::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    assert_eq!(s.get("/media/images/real/ok.jpg").body, b"ok");
    // Links (out of the folder or not), a FIFO, a directory, a file over the
    // limit: none is a file here, and none holds a thread.
    for path in [
        "/media/images/out.jpg",
        "/media/images/inside.jpg",
        "/media/images/root.jpg/etc/passwd.jpg",
        "/media/images/linked/ok.jpg",
        "/media/images/fifo.jpg",
        "/media/images/dir.jpg",
        "/media/images/big.png",
    ] {
        for _ in 0..3 {
            assert_eq!(s.get(path).status, 404, "{path}");
        }
    }
    drop(s);
    let settings = Settings {
        media_dir: Some(media.clone()),
        ..Settings::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    let r = s.get("/media/images/big.png");
    assert_eq!(
        (r.status, r.header("content-length")),
        (200, Some("200003"))
    );
    assert!(r.body == big, "the file's bytes, in order");
    let tag = r.header("etag").unwrap().to_string();
    assert!(tag.starts_with("\"m-30d43-"), "{tag}");
    // HEAD and a revalidation say the same without the bytes.
    let head = s.send("HEAD", "/media/images/big.png", &[]);
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-length"), Some("200003"));
    assert_eq!(head.header("etag"), Some(tag.as_str()));
    assert!(head.body.is_empty());
    let again = s.send("GET", "/media/images/big.png", &[("If-None-Match", &tag)]);
    assert_eq!((again.status, again.body.len()), (304, 0));
    // A file replaced under the same name gets a new tag.
    std::fs::write(media.join("images/big.png"), b"small").unwrap();
    let r = s.get("/media/images/big.png");
    assert_eq!(r.body, b"small");
    assert_ne!(r.header("etag"), Some(tag.as_str()));
}

/// A media file's `Last-Modified` is the file's (the later of its
/// modification and status change times, so a file replaced by an older one
/// is newer): a replaced file asked with the old date is sent whole, never
/// 304; and a file changed within the last second says no date at all (an
/// HTTP date counts whole seconds).
#[test]
fn a_replaced_media_file_is_never_304_by_its_old_date() {
    let dir = TempDir::new("media-modified");
    let media = dir.path("media");
    std::fs::create_dir_all(&media).unwrap();
    let file = media.join("a.jpg");
    std::fs::write(&file, b"\xff\xd8first").unwrap();
    let settings = Settings {
        media_dir: Some(media.clone()),
        ..Settings::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    let fresh = s.get("/media/a.jpg");
    assert_eq!(fresh.status, 200);
    assert_eq!(
        fresh.header("last-modified"),
        None,
        "changed within the second"
    );
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let first = s.get("/media/a.jpg");
    let old = first.header("last-modified").expect("a date").to_string();
    assert_ne!(
        Some(old.as_str()),
        s.get("/api/v2/orders/").header("last-modified")
    );
    let since = [("If-Modified-Since", old.as_str())];
    assert_eq!(s.send("GET", "/media/a.jpg", &since).status, 304);
    // Replaced by a file whose modification time is a year older (`cp -p`).
    let new = media.join("new.tmp");
    std::fs::write(&new, b"\xff\xd8second").unwrap();
    let year_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(365 * 86400);
    std::fs::File::options()
        .write(true)
        .open(&new)
        .unwrap()
        .set_modified(year_ago)
        .unwrap();
    std::fs::rename(&new, &file).unwrap();
    let replaced = s.send("GET", "/media/a.jpg", &since);
    assert_eq!(
        (replaced.status, &replaced.body[..]),
        (200, &b"\xff\xd8second"[..])
    );
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let later = s.send("GET", "/media/a.jpg", &since);
    assert_eq!(later.status, 200);
    let newer = later.header("last-modified").unwrap().to_string();
    assert_ne!(newer, old);
    let again = s.send("GET", "/media/a.jpg", &[("If-Modified-Since", &newer)]);
    assert_eq!(again.status, 304);
}
