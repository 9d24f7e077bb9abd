//! Lists made of fragments read as the lists rendered whole, byte for byte:
//! every page of every list (1,000 a page, and short pages across segments),
//! every item, its length and its media bit, against the same view's lists
//! rendered with each embedded record copied ([`View::lists_without_fragments`]), also
//! after a reload that kept the segments nothing changed.

use catalogue::model::Model;
use catalogue::view::render::{write_spliced, MEDIA_BASE};
use catalogue::view::{List, View};

use catalogue::serve::Settings;

use crate::common::{self, Server, TempDir};

/// Asserts that `list` reads as `whole` in every way a page is cut from it;
/// says how many of its runs copied as a long slice is sent held a media URL.
fn reads_as(list: &List, whole: &List, what: &str) -> usize {
    let n = whole.len();
    assert_eq!(list.len(), n, "{what}: items");
    // A list made of fragments has no item as one slice: it says so, where
    // it once panicked.
    if n > 0 {
        assert_eq!(list.item(0).is_none(), list.has_fragments(), "{what}");
    }
    assert_eq!(list.byte_len(), whole.byte_len(), "{what}: bytes");
    assert_eq!(list.has_media(), whole.has_media(), "{what}: media");
    let bytes = |from: usize, to: usize, l: &List| l.run(from, to).parts().concat();
    // Every page of 1,000, and the whole list.
    for from in (0..n).step_by(1000) {
        let to = (from + 1000).min(n);
        assert_eq!(
            bytes(from, to, list),
            bytes(from, to, whole),
            "{what}: {from}..{to}"
        );
        assert_eq!(list.has_media_in(from, to), whole.has_media_in(from, to));
    }
    assert_eq!(bytes(0, n, list), bytes(0, n, whole), "{what}: whole");
    // Short pages at every offset a prime apart (across segments too).
    for from in (0..n).step_by(37) {
        for len in [1, 2, 20, 161] {
            let to = (from + len).min(n);
            assert_eq!(
                bytes(from, to, list),
                bytes(from, to, whole),
                "{what}: {from}..{to}"
            );
        }
    }
    let mut out = Vec::new();
    for i in 0..n {
        assert_eq!(
            list.item_bytes(i),
            whole.item(i).unwrap(),
            "{what}: item {i}"
        );
        assert_eq!(
            list.item_len(i),
            whole.item(i).unwrap().len(),
            "{what}: item {i}'s length"
        );
        out.clear();
        list.append_item(i, &mut out);
        assert_eq!(out, whole.item(i).unwrap(), "{what}: item {i} appended");
        assert_eq!(list.has_media_in(i, i + 1), whole.has_media_in(i, i + 1));
    }
    assert!(list.run(n, n).is_empty());
    runs_read_as(list, whole, what)
}

/// Asserts that runs of `list` (made of fragments or not) copied as a long
/// slice is sent read as `whole`'s with a media base put in; says how many
/// held a media URL.
fn runs_read_as(list: &List, whole: &List, what: &str) -> usize {
    let n = whole.len();
    let base = b"https://example.org/media/";
    let mut with_media = 0;
    for from in (0..n).step_by(997) {
        let to = (from + 500).min(n);
        let rendered = whole.run(from, to).parts().concat();
        for (after_comma, put) in [(false, Some(&base[..])), (true, Some(base)), (true, None)] {
            let mut want = if after_comma {
                b",".to_vec()
            } else {
                Vec::new()
            };
            match put {
                Some(base) => write_spliced(&mut want, &rendered, base).unwrap(),
                None => want.extend_from_slice(&rendered),
            }
            let mut got = Vec::new();
            list.write_run(from..to, after_comma, put, &mut got);
            assert!(
                got == want,
                "{what}: {from}..{to}, after a comma: {after_comma}"
            );
            let len = list.run_len(from..to, after_comma, put);
            assert_eq!(len, want.len(), "{what}: {from}..{to}'s length");
        }
        with_media += usize::from(rendered.contains(&MEDIA_BASE));
    }
    with_media
}

/// Every list of `view`, plain and nested, against the same lists rendered
/// without fragments.
fn every_list_reads_as_without_fragments(view: &View) {
    let lists = view.lists_without_fragments();
    assert_eq!(lists.len(), 30);
    let (mut fragmented, mut with_media) = (0, 0);
    for (endpoint, whole) in &lists {
        assert!(
            !whole.has_fragments(),
            "{}: made of fragments",
            endpoint.segment()
        );
        let list = view.list(*endpoint);
        fragmented += usize::from(list.has_fragments());
        let runs_with_media = reads_as(list, whole, &endpoint.segment());
        if list.has_fragments() {
            with_media += runs_with_media;
        }
    }
    assert!(
        with_media > 0,
        "no run of a list made of fragments held a URL"
    );
    let specimens = catalogue::model::Endpoint::all()
        .iter()
        .find(|e| e.model == Model::SpecimenRecord)
        .unwrap();
    assert!(view.list(*specimens).has_fragments());
    assert!(fragmented >= 1);
}

#[test]
fn lists_made_of_fragments_read_as_lists_without_fragments() {
    let dir = TempDir::new("fragments");
    let view = View::load(&common::generated(&dir, 12_000)).unwrap();
    every_list_reads_as_without_fragments(&view);
    // The specimens' embedded records are most of their bytes.
    assert!(view.own_bytes() < view.rendered_bytes() / 2);
    let sample = View::load(&common::sample_snapshot()).unwrap();
    every_list_reads_as_without_fragments(&sample);
}

#[test]
fn a_reload_keeps_segments_of_fragments_that_read_as_copied() {
    let dir = TempDir::new("fragments-reload");
    let before = View::load(&common::generated(&dir, 6_000)).unwrap();
    // As the served view's preparation does: only segments rendered are kept.
    assert!(before.render_rest(&|| true) > 0);
    // Two specimens' notes changed: their segment is rendered anew, the
    // other segments kept with their inserts (a person renamed touches
    // specimens in every segment of this collection).
    let other = TempDir::new("fragments-reload-after");
    let path = common::generated_with(&other, 6_000, |c| {
        c.specimen_records[100].notes.push_str(" and a note");
        let notes = &mut c.specimen_records[4_000].notes;
        notes.push_str(" and one more note");
    });
    let after = View::load_beside(&path, Some(&before)).unwrap();
    assert!(after.phases.shared_bytes > 0, "{}", after.phases);
    // The specimens' segments holding no renamed person are kept, made.
    let kept = specimens(&after).own_bytes();
    assert!(kept > 0, "{}", after.phases);
    assert!(kept < specimens(&before).own_bytes(), "{}", after.phases);
    every_list_reads_as_without_fragments(&after);
}

fn specimens(view: &View) -> &List {
    let endpoint = catalogue::model::Endpoint::all()
        .iter()
        .find(|e| e.model == Model::SpecimenRecord && !e.nested)
        .unwrap();
    view.list(*endpoint)
}

/// A view is built without rendering its lists made of fragments: a read
/// renders the segments it reads, the view's preparation the rest, and the
/// bytes are the same whichever came first.
#[test]
fn a_list_made_of_fragments_is_rendered_a_segment_at_a_time() {
    let dir = TempDir::new("fragments-lazy");
    let path = common::generated(&dir, 6_000);
    let (view, first) = (View::load(&path).unwrap(), View::load(&path).unwrap());
    let list = specimens(&view);
    assert!(list.has_fragments());
    assert_eq!(list.own_bytes(), 0, "nothing rendered when built");
    // A long slice's segments are rendered on the pool before it is cut.
    assert!(!list.made_in(1_000..1_500));
    list.make_in(1_000..1_500);
    assert!(list.made_in(1_000..1_500));
    assert!(!list.made_in(0..6_000));
    let slice = list.own_bytes();
    assert!(slice > 0);
    // A page in the middle renders its one or two segments (of 40 to 160 items).
    let page = list.run(3_000, 3_020).parts().concat();
    let rendered = list.own_bytes() - slice;
    assert!(rendered > 0);
    let whole = specimens(&first).byte_len();
    assert!(rendered * 10 < whole, "{rendered} of {whole} rendered");
    // The rest, then the same page.
    let made = view.render_rest(&|| true);
    assert!(made >= 6_000 / 160, "{made} segments");
    assert_eq!(view.render_rest(&|| true), 0, "each segment once");
    assert_eq!(list.byte_len(), whole);
    assert!(list.run(3_000, 3_020).parts().concat() == page);
    assert!(
        list.run(0, 6_000).parts().concat() == specimens(&first).run(0, 6_000).parts().concat()
    );
    // Stopped at once, a view's preparation renders nothing.
    let other = View::load(&path).unwrap();
    assert_eq!(other.render_rest(&|| false), 0);
    assert_eq!(specimens(&other).own_bytes(), 0);
}

/// A slice of the specimens longer than a page copied on the spot is copied
/// as it is sent, with the request's media base put in: it says its length,
/// and a `HEAD` says the same headers, as the slice cut from rendered bytes
/// did. Its items are those of the short pages it spans; a client that takes
/// compression gets the same bytes compressed (made whole on the pool) up to
/// the size compression stops at.
#[test]
fn a_long_slice_says_its_length_to_get_and_head_alike() {
    let dir = TempDir::new("fragments-head");
    let server = Server::start(&common::generated(&dir, 4_000), Settings::default());
    let without_date = |reply: &common::Reply| -> Vec<(String, String)> {
        let mut headers = reply.headers.clone();
        headers.retain(|(name, _)| !name.eq_ignore_ascii_case("date"));
        headers.sort();
        headers
    };
    let results = |body: &[u8]| -> Vec<serde_json::Value> {
        let page: serde_json::Value = serde_json::from_slice(body).expect("JSON");
        page["items"].as_array().expect("items").clone()
    };
    let base = "/api/v2/specimen-records/";
    // 150 items, 1,000 across segments, all 4,000 (over 8 MB: not compressed).
    for (offset, limit, compressed) in [(7, 150, true), (2999, 1000, true), (0, 4000, false)] {
        let path = format!("{base}?limit={limit}&offset={offset}");
        let get = server.get(&path);
        assert_eq!(get.status, 200, "{path}");
        let length = get.header("content-length").expect("a length");
        assert_eq!(length, get.body.len().to_string(), "{path}");
        assert!(
            get.body.windows(9).any(|w| w == b"http://t/"),
            "{path}: media URLs"
        );
        let head = server.send("HEAD", &path, &[]);
        assert_eq!(without_date(&head), without_date(&get), "{path}");
        assert!(head.body.is_empty(), "{path}");

        let mut pages = Vec::new();
        let end = (offset + limit).min(4000);
        for from in (offset..end).step_by(100) {
            let short = (end - from).min(100);
            let page = server.get(&format!("{base}?limit={short}&offset={from}"));
            pages.extend(results(&page.body));
        }
        assert_eq!(results(&get.body).len(), end - offset, "{path}");
        assert!(
            results(&get.body) == pages,
            "{path}: the short pages' items"
        );

        let gzip = server.send("GET", &path, &[("Accept-Encoding", "gzip")]);
        assert_eq!(gzip.status, 200, "{path}");
        let coding = gzip.header("content-encoding");
        let body = match coding {
            Some("gzip") => {
                let mut body = Vec::new();
                let mut decoder = flate2::read::GzDecoder::new(&gzip.body[..]);
                std::io::Read::read_to_end(&mut decoder, &mut body).expect("gzip");
                body
            }
            _ => gzip.body.clone(),
        };
        assert_eq!(coding.is_some(), compressed, "{path}: {coding:?}");
        assert!(body == get.body, "{path}: the same bytes compressed");
    }
}
