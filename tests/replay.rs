//! Answers replayed: a GET that asks what an earlier one asked of the same view
//! gets the same head and body again; whatever the answer depends on besides the
//! view (the headers it varies by, a file on disk, a conditional, a reload)
//! gets an answer of its own.

use crate::common;

use catalogue::serve::Settings;
use catalogue::view::View;
use common::{generated, Reply, Server, TempDir};

const REPLAYED: &str = "catalogue_replayed_answers_total";

/// A response's status, headers but `Date`, and body.
fn seen(r: &Reply) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let headers = r
        .headers
        .iter()
        .filter(|(k, _)| !k.eq_ignore_ascii_case("date"))
        .cloned()
        .collect();
    (r.status, headers, r.body.clone())
}

#[test]
fn a_repeated_get_gets_the_same_head_and_body_replayed() {
    let s = Server::sample();
    let path = "/api/v2/specimen-records/?limit=2&offset=1";
    let before = s.metric(REPLAYED);
    // Made the first time, made and kept the second, replayed from the third.
    let made = s.get(path);
    assert_eq!(made.status, 200, "{}", made.text());
    let kept = s.get(path);
    assert_eq!(s.metric(REPLAYED), before);
    assert_eq!(seen(&kept), seen(&made));
    for n in 1..=2 {
        let replayed = s.get(path);
        assert_eq!(s.metric(REPLAYED), before + n);
        assert_eq!(seen(&replayed), seen(&made));
        let length = made.body.len().to_string();
        assert_eq!(replayed.header("content-length"), Some(&*length));
    }
    // Each header an answer varies by makes a request of its own: made, then
    // replayed, never another's answer.
    let variants: [&[(&str, &str)]; 4] = [
        &[("Accept-Encoding", "gzip")],
        &[("Accept", "text/html")],
        &[("Origin", "https://a.example")],
        &[("Host", "example.org")],
    ];
    let mut count = before + 2;
    for headers in variants {
        let first = s.send("GET", path, headers);
        assert_eq!(seen(&s.send("GET", path, headers)), seen(&first));
        assert_eq!(s.metric(REPLAYED), count, "{headers:?} made twice");
        let again = s.send("GET", path, headers);
        count += 1;
        assert_eq!(s.metric(REPLAYED), count, "{headers:?} replayed");
        assert_eq!(seen(&again), seen(&first), "{headers:?}");
    }
    let gzip = s.send("GET", path, variants[0]);
    assert_eq!(
        gzip.header("etag").map(|t| t.ends_with("-gzip\"")),
        Some(true)
    );
    let html = s.send("GET", path, variants[1]);
    assert!(html
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    // Media URLs follow the request's Host, replayed or not.
    let images = "/api/v2/specimen-record-images/?limit=1&fields=_,file";
    for host in ["a.example", "b.example"].repeat(3) {
        let r = s.send("GET", images, &[("Host", host)]);
        let url = format!("http://{host}/media/");
        assert!(r.text().contains(&url), "{host}: {}", r.text());
    }
}

#[test]
fn without_a_budget_nothing_is_replayed() {
    let settings = Settings {
        replay_budget: 0,
        ..Settings::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    let path = "/api/v2/specimen-records/?limit=2";
    let first = s.get(path);
    for _ in 0..3 {
        assert_eq!(seen(&s.get(path)), seen(&first));
    }
    assert_eq!(s.metric(REPLAYED), 0);
}

#[test]
fn conditional_head_and_changing_answers_are_made_each_time() {
    let s = Server::sample();
    let path = "/api/v2/specimen-records/?limit=3";
    let made = s.get(path);
    let tag = made.header("etag").expect("a tag").to_string();
    assert_eq!(seen(&s.get(path)), seen(&made));
    let before = s.metric(REPLAYED);
    let revalidated = s.send("GET", path, &[("If-None-Match", &tag)]);
    assert_eq!(revalidated.status, 304);
    let head = s.send("HEAD", path, &[]);
    assert_eq!((head.status, head.body.len()), (200, 0));
    assert_eq!(head.header("etag"), Some(&*tag));
    // Random order: a new order each time, never kept.
    let random = "/api/v2/orders/?order=random";
    for _ in 0..3 {
        let r = s.get(random);
        assert_eq!(r.status, 200);
        assert_eq!(r.header("etag"), None);
    }
    // An error is made again.
    for _ in 0..2 {
        assert_eq!(s.get("/api/v2/specimen-records/?limit=x").status, 400);
    }
    assert_eq!(s.metric(REPLAYED), before);
}

#[test]
fn a_media_file_changed_on_disk_is_served_as_it_is_now() {
    let dir = TempDir::new("replay-media");
    let media = dir.path("media");
    std::fs::create_dir_all(media.join("images")).unwrap();
    let file = media.join("images/a.jpg");
    std::fs::write(&file, b"\xff\xd8\xff\xe0one").unwrap();
    let settings = Settings {
        media_dir: Some(media),
        ..Settings::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    for _ in 0..3 {
        assert_eq!(s.get("/media/images/a.jpg").body, b"\xff\xd8\xff\xe0one");
    }
    std::fs::write(&file, b"\xff\xd8\xff\xe0two, longer").unwrap();
    assert_eq!(
        s.get("/media/images/a.jpg").body,
        b"\xff\xd8\xff\xe0two, longer"
    );
}

#[test]
fn a_new_view_replays_nothing_of_the_one_it_replaced() {
    let (one, two) = (
        TempDir::new("replay-swap-30"),
        TempDir::new("replay-swap-40"),
    );
    let (small, large) = (generated(&one, 30), generated(&two, 40));
    let s = Server::start(&small, Settings::default());
    let path = "/api/v2/specimen-records/?limit=1";
    let count = |r: &Reply| r.json()["meta"]["total_count"].as_u64();
    for _ in 0..3 {
        assert_eq!(count(&s.get(path)), Some(30));
    }
    let before = s.metric(REPLAYED);
    assert!(before > 0);
    s.state
        .swap(View::load(&large).expect("the snapshot loads"));
    for _ in 0..2 {
        assert_eq!(count(&s.get(path)), Some(40));
    }
    assert_eq!(s.metric(REPLAYED), before);
    assert_eq!(count(&s.get(path)), Some(40));
    assert_eq!(s.metric(REPLAYED), before + 1);
}

/// A citation says the day it was accessed, the request's: asked again and
/// again, it is made each time, never replayed from an earlier day's answer.
#[test]
fn a_citation_is_never_replayed() {
    let s = Server::sample();
    let before = s.metric(REPLAYED);
    for _ in 0..4 {
        assert_eq!(s.get("/api/v2/citation/?format=ris").status, 200);
    }
    assert_eq!(s.metric(REPLAYED), before);
    // The same asks of a list are replayed from the third.
    for _ in 0..4 {
        assert_eq!(s.get("/api/v2/orders/").status, 200);
    }
    assert_eq!(s.metric(REPLAYED), before + 2);
}

#[test]
fn a_memo_without_room_for_pages_keeps_them_to_be_made_again_byte_for_byte() {
    let dir = TempDir::new("replay-remade");
    let snapshot = generated(&dir, 3_000);
    // A 20-item page of the specimens is tens of kilobytes: more than a
    // sixteenth of this budget, so never kept as its bytes.
    let settings = Settings {
        replay_budget: 256 << 10,
        ..Settings::default()
    };
    let s = Server::start(&snapshot, settings);
    let mut asked: Vec<(String, Vec<(&str, &str)>)> = (0..60)
        .map(|i| {
            let path = format!("/api/v2/specimen-records/?limit=20&offset={}", i * 37);
            (path, Vec::new())
        })
        .collect();
    // Media URLs from the request's Host, spliced into the items made again.
    for host in ["a.example", "b.example"] {
        for i in 0..10 {
            let path = format!("/api/v2/specimen-record-images/?limit=20&offset={}", i * 20);
            asked.push((path, vec![("Host", host)]));
        }
    }
    let made: Vec<Reply> = asked.iter().map(|(p, h)| s.send("GET", p, h)).collect();
    assert!(
        made[0].body.len() > (256 << 10) / 16,
        "{}",
        made[0].body.len()
    );
    assert!(made[60].text().contains("http://a.example/media/"));
    for ((path, headers), first) in asked.iter().zip(&made) {
        assert_eq!(first.status, 200, "{path}");
        assert_eq!(seen(&s.send("GET", path, headers)), seen(first), "{path}");
    }
    let before = s.metric(REPLAYED);
    for ((path, headers), first) in asked.iter().zip(&made) {
        assert_eq!(seen(&s.send("GET", path, headers)), seen(first), "{path}");
    }
    let replayed = s.metric(REPLAYED) - before;
    assert!(replayed >= 72, "{replayed} of {} replayed", asked.len());
}
