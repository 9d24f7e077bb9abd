//! A question's photographs (`format=zip` on the specimen list): each selected
//! specimen's photographs' original files, byte for byte, and `index.csv`
//! naming each one's image id, USI, title, licence and creator, and why a
//! file the media folder lacks is not there.

use crate::common;

use std::io::Read;

use catalogue::model::dataset::{Dataset, Told};
use catalogue::serve::Settings;
use common::{Server, TempDir};

/// The entries of a zip, by name, in the zip's order.
fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
    (0..zip.len())
        .map(|i| {
            let mut file = zip.by_index(i).unwrap();
            let mut body = Vec::new();
            file.read_to_end(&mut body).unwrap();
            (file.name().unwrap().to_string(), body)
        })
        .collect()
}

/// The sample's specimen UMMZ-000001 has two photographs: image 1
/// (`original_images/ummz-000001-dorsal.jpg`, here) and image 2 (its `.png`,
/// not in the media folder).
fn served(dir: &TempDir) -> (Server, Vec<u8>) {
    let media = dir.path("media");
    std::fs::create_dir_all(media.join("original_images")).unwrap();
    // Longer than a piece, and not a multiple of one.
    let photo: Vec<u8> = (0..200_003u32).map(|i| (i * 7 + i / 251) as u8).collect();
    std::fs::write(media.join("original_images/ummz-000001-dorsal.jpg"), &photo).unwrap();
    let settings = Settings {
        media_dir: Some(media),
        dataset: Told {
            file: Some(Dataset {
                title: "Lepidoptera of the sample".into(),
                publisher: "Sample Museum".into(),
                license: "http://creativecommons.org/licenses/by/4.0/legalcode".into(),
                ..Dataset::default()
            }),
            values: Vec::new(),
        },
        ..Settings::default()
    };
    (Server::start(&common::sample_snapshot(), settings), photo)
}

#[test]
fn the_zip_holds_each_photograph_byte_for_byte_and_an_index_naming_them() {
    let dir = TempDir::new("photographs");
    let (s, photo) = served(&dir);
    let path = "/api/v2/specimen-records/?format=zip";
    let r = s.get(path);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/zip"));
    assert_eq!(
        r.header("content-disposition").map(String::from),
        Some(common::disposition(&s, "specimen-photographs", "", "zip"))
    );
    let entries = unzip(&r.body);
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["UMMZ-000001-1.jpg", "index.csv"]);
    assert!(entries[0].1 == photo, "the original file, byte for byte");
    assert_eq!(
        String::from_utf8(entries[1].1.clone()).unwrap(),
        "file,image,usi,title,licence,licence_url,creator,missing\r\n\
         UMMZ-000001-1.jpg,1,UMMZ-000001,UMMZ-000001 dorsal,CC-BY-4.0,\
         http://creativecommons.org/licenses/by/4.0/,Sample Museum,\r\n\
         UMMZ-000001-2.png,2,UMMZ-000001,UMMZ-000001 ventral,CC-BY-4.0,\
         http://creativecommons.org/licenses/by/4.0/,Sample Museum,\
         \"no such file, or a link\"\r\n"
    );
    // The same bytes again (the entries carry the snapshot's time), so its
    // tag names them: HEAD has it, and it revalidates.
    assert!(s.get(path).body == r.body);
    let tag = r.header("etag").expect("a tag").to_string();
    let head = s.send("HEAD", path, &[]);
    assert_eq!((head.status, head.body.len()), (200, 0));
    assert_eq!(head.header("etag"), Some(tag.as_str()));
    assert_eq!(head.header("content-type"), Some("application/zip"));
    let again = s.send("GET", path, &[("If-None-Match", &tag)]);
    assert_eq!((again.status, again.body.len()), (304, 0));
}

#[test]
fn a_posted_question_selects_the_photographs_and_one_without_any_is_an_index_alone() {
    let dir = TempDir::new("photographs-form");
    let (s, photo) = served(&dir);
    let r = s.post(
        "/api/v2/specimen-records/",
        "application/x-www-form-urlencoded",
        "format=zip&usi=UMMZ-000001%2CNOPE-1",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let entries = unzip(&r.body);
    assert_eq!(entries[0].0, "UMMZ-000001-1.jpg");
    assert!(entries[0].1 == photo);
    assert_eq!(entries.len(), 2);
    // Another specimen, without photographs: the index's header alone.
    let r = s.get("/api/v2/specimen-records/?format=zip&usi=UMMZ-000008");
    assert_eq!(r.status, 200, "{}", r.text());
    let entries = unzip(&r.body);
    assert_eq!(entries.len(), 1);
    assert_eq!(
        entries[0],
        (
            "index.csv".to_string(),
            b"file,image,usi,title,licence,licence_url,creator,missing\r\n".to_vec()
        )
    );
}

#[test]
fn only_the_specimen_list_answers_a_zip_and_a_download_refuses_what_it_does_not_know() {
    let s = Server::sample();
    s.assert_error(
        "/api/v2/species/?format=zip",
        400,
        "format=zip (the photographs' files) is only for the specimen records' list",
    );
    let r = s.get("/api/v2/specimen-records/?format=zip&colour=red");
    assert_eq!(r.status, 400, "{}", r.text());
    // Without a media folder, every photograph is said missing, and the zip
    // still answers.
    let r = s.get("/api/v2/specimen-records/?format=zip");
    assert_eq!(r.status, 200);
    let entries = unzip(&r.body);
    assert_eq!(entries.len(), 1);
    let index = String::from_utf8(entries[0].1.clone()).unwrap();
    assert_eq!(index.lines().count(), 3, "{index}");
    assert!(
        index.ends_with(",the server has no media folder (--media-dir)\r\n"),
        "{index}"
    );
}

#[test]
fn the_list_page_links_its_questions_feed_and_photographs() {
    let s = Server::sample();
    let page = s
        .get("/api/v2/specimen-records/?format=html&sex=female&limit=2&offset=1")
        .text();
    // The question, not the page of it: no limit, no offset.
    assert!(
        page.contains(
            "<a href=\"/api/v2/specimen-records/?sex=female&amp;format=atom\" \
             type=\"application/atom+xml\">Feed of changes</a>"
        ),
        "{page}"
    );
    assert!(
        page.contains(
            "<a href=\"/api/v2/specimen-records/?sex=female&amp;format=zip\" \
             type=\"application/zip\" download>Download photographs</a>"
        ),
        "{page}"
    );
    let species = s.get("/api/v2/species/?format=html").text();
    assert!(species.contains(
        "<a href=\"/api/v2/species/?format=atom\" type=\"application/atom+xml\">Feed of changes</a>"
    ));
    assert!(!species.contains("Download photographs"));
}
