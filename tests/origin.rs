//! Where links point: `--public-url` starts every absolute link; without it the
//! request's address, which only a `--trusted-proxy` may correct with
//! `X-Forwarded-Proto` and `X-Forwarded-Host`; and label sheets printed at the
//! request's address say so on the form, the preview and the sheet.

use crate::common;

use catalogue::html::CODES_FROM_REQUEST;
use catalogue::labels::Template;
use catalogue::serve::origin::{PublicUrl, TrustedProxies};
use catalogue::serve::Settings;
use common::Server;

const LABELS: &str = "/api/v2/specimen-records/labels/";
const IMAGE: &str = "/media/original_images/monarch-milkweed.jpg";
const FORWARDED: [(&str, &str); 2] = [
    ("X-Forwarded-Proto", "https"),
    ("X-Forwarded-Host", "specimens.example.org"),
];

/// Order 1's featured image's URL, asked with `headers`.
fn image_url(s: &Server, headers: &[(&str, &str)]) -> String {
    let r = s.send("GET", "/api/v2/orders/1/", headers);
    assert_eq!(r.status, 200);
    r.json()["featured_image"]["file"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The first label's code on a data sheet's CSV, asked with `headers`.
fn first_code(s: &Server, headers: &[(&str, &str)]) -> String {
    let r = s.send(
        "GET",
        &format!("{LABELS}?format=csv&limit=1&kind=data&qr=1"),
        headers,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.text()
        .lines()
        .nth(1)
        .unwrap()
        .rsplit(',')
        .next()
        .unwrap()
        .to_string()
}

fn trusting(networks: &[&str]) -> Settings {
    let networks = networks
        .iter()
        .map(|n| TrustedProxies::parse_one(n).unwrap())
        .collect();
    Settings {
        trusted_proxies: TrustedProxies::new(networks),
        ..Settings::default()
    }
}

#[test]
fn a_trusted_proxy_says_the_scheme_and_host_and_no_one_else_does() {
    let sample = common::sample_snapshot();
    // The tests' client is 127.0.0.1: trusted here, and each answer asked
    // twice (the second replayed) says the same.
    let proxied = Server::start(&sample, trusting(&["127.0.0.1"]));
    for _ in 0..2 {
        assert_eq!(
            image_url(&proxied, &FORWARDED),
            format!("https://specimens.example.org{IMAGE}")
        );
        assert_eq!(
            image_url(&proxied, &FORWARDED[..1]),
            format!("https://t{IMAGE}")
        );
        assert_eq!(image_url(&proxied, &[]), format!("http://t{IMAGE}"));
    }
    assert_eq!(
        first_code(&proxied, &FORWARDED),
        "https://specimens.example.org/s/000001"
    );
    // A forwarded host that is not a host is not taken.
    assert_eq!(
        image_url(&proxied, &[("X-Forwarded-Host", "evil.example/x?")]),
        format!("http://t{IMAGE}")
    );
    // Anyone else's headers change nothing, asked first or after the plain
    // request, and the plain request is not answered with them after.
    for settings in [Settings::default(), trusting(&["10.0.0.0/8", "::1"])] {
        let s = Server::start(&sample, settings);
        for _ in 0..2 {
            assert_eq!(image_url(&s, &FORWARDED), format!("http://t{IMAGE}"));
            assert_eq!(image_url(&s, &[]), format!("http://t{IMAGE}"));
        }
        assert_eq!(first_code(&s, &FORWARDED), "http://t/s/000001");
    }
}

#[test]
fn a_public_url_starts_every_link_whatever_the_request_says() {
    let settings = Settings {
        public_url: Some(PublicUrl::parse("https://specimens.example.org/collection/").unwrap()),
        ..trusting(&["127.0.0.1"])
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    let public = "https://specimens.example.org/collection";
    for headers in [&[][..], &FORWARDED[..], &[("Host", "127.0.0.1:19000")][..]] {
        assert_eq!(image_url(&s, headers), format!("{public}{IMAGE}"));
        assert_eq!(first_code(&s, headers), format!("{public}/s/000001"));
    }
    // The answer no longer depends on the Host, and no sheet warns.
    let r = s.get("/api/v2/orders/1/");
    assert_eq!(r.header("vary"), Some("Accept, Accept-Encoding"));
    let r = Server::sample().get("/api/v2/orders/1/");
    assert_eq!(r.header("vary"), Some("Accept, Accept-Encoding, Host"));
    let r = s.get(&format!("{LABELS}?format=csv&limit=1"));
    assert_eq!(r.header("x-label-warning"), None);
}

#[test]
fn sheets_printed_at_the_requests_address_say_so_on_the_form_preview_and_sheet() {
    let html = [("Accept", "text/html")];
    let warned = |s: &Server| {
        let sheet = s.get(&format!("{LABELS}?limit=1"));
        let csv = s.send(
            "HEAD",
            &format!("{LABELS}?format=csv&limit=1&kind=data&qr=1"),
            &[],
        );
        let preview = s.get(&format!("{LABELS}?format=html&limit=1")).text();
        // Labels without codes have nothing to warn of.
        let plain = s.get(&format!("{LABELS}?kind=data&format=html&limit=1"));
        assert!(plain.header("x-label-warning").is_none());
        assert!(!plain.text().contains("The codes point at"));
        let form = s.send("GET", "/api/v2/specimen-records/", &html).text();
        [
            sheet.header("x-label-warning") == Some(CODES_FROM_REQUEST),
            csv.header("x-label-warning") == Some(CODES_FROM_REQUEST),
            preview.contains("The codes point at <code>http://t</code>")
                && preview.contains("start the server with --public-url"),
            form.contains("start the server with --public-url"),
        ]
    };
    assert_eq!(warned(&Server::sample()), [true; 4]);
    let template = Template::parse("www.memcollection.com/s/{digits}").unwrap();
    let told = Settings {
        label_url: Some(template),
        ..Settings::default()
    };
    assert_eq!(
        warned(&Server::start(&common::sample_snapshot(), told)),
        [false; 4]
    );
}

/// Whether `text` is well-formed XML as far as escaping decides it: every
/// `&` begins an entity XML knows, no `<` stands in text or an attribute,
/// attribute values are quoted, and every element closes in order.
fn well_formed(text: &str) -> Result<(), String> {
    let entity = |rest: &str| {
        let Some(end) = rest.find(';') else {
            return false;
        };
        let name = &rest[1..end];
        matches!(name, "amp" | "lt" | "gt" | "quot" | "apos")
            || name
                .strip_prefix("#x")
                .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
            || name
                .strip_prefix('#')
                .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
    };
    let mut open: Vec<&str> = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let at = rest.find(['<', '&']).unwrap_or(rest.len());
        rest = &rest[at..];
        if rest.is_empty() {
            break;
        }
        if rest.starts_with('&') {
            if !entity(rest) {
                return Err(format!("a bare & at {:?}", &rest[..rest.len().min(40)]));
            }
            rest = &rest[1..];
            continue;
        }
        // A tag: up to its `>`, outside quotes.
        let mut quote = None;
        let mut end = None;
        for (i, c) in rest.char_indices().skip(1) {
            match (quote, c) {
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (Some(_), '<') => return Err(format!("< in an attribute: {rest:.60}")),
                (Some(_), '&') if !entity(&rest[i..]) => {
                    return Err(format!("a bare & in an attribute: {rest:.60}"))
                }
                (None, '>') => {
                    end = Some(i);
                    break;
                }
                (None, '<') => return Err(format!("< inside a tag: {rest:.60}")),
                _ => {}
            }
        }
        let end = end.ok_or_else(|| format!("a tag that never ends: {rest:.60}"))?;
        let tag = &rest[1..end];
        let name = |t: &'_ str| -> String {
            t.split(|c: char| c.is_whitespace() || c == '/')
                .next()
                .unwrap_or("")
                .to_string()
        };
        if tag.starts_with('?') || tag.starts_with('!') {
            // A declaration or comment holds no element.
        } else if let Some(closing) = tag.strip_prefix('/') {
            match open.pop() {
                Some(o) if name(o) == name(closing) => {}
                other => return Err(format!("</{closing}> closes {other:?}")),
            }
        } else if !tag.ends_with('/') {
            open.push(tag);
        }
        rest = &rest[end + 1..];
    }
    match open.is_empty() {
        true => Ok(()),
        false => Err(format!("never closed: {open:?}")),
    }
}

#[test]
fn the_checker_of_well_formed_xml_finds_what_breaks_it() {
    assert!(well_formed("<a b=\"x&amp;y\"><c/>t &lt; &#x27; &#39;</a>").is_ok());
    for bad in [
        "<a>x&y</a>",
        "<a b=\"x&y\"/>",
        "<a><b></a></b>",
        "<a>",
        "<a b=\"<\"/>",
    ] {
        assert!(well_formed(bad).is_err(), "{bad}");
    }
}

/// A Host may hold `&` and `'` (RFC 3986's sub-delimiters): every XML answer
/// holding the request's address stays well-formed, and says `Vary: Host`.
#[test]
fn a_hostile_host_leaves_every_xml_answer_well_formed_and_varied_by_it() {
    let s = Server::sample();
    for host in ["evil&x", "evil'x:8080", "a&lt"] {
        for path in [
            "/versions.rss",
            "/versions.atom",
            "/api/v2/citation/?format=datacite",
            "/eml.xml",
        ] {
            let r = s.send("GET", path, &[("Host", host)]);
            assert_eq!(r.status, 200, "{path}: {}", r.text());
            let text = r.text();
            if let Err(why) = well_formed(&text) {
                panic!("{path} under Host {host}: {why}\n{text}");
            }
            assert!(
                text.contains("evil&amp;x")
                    || text.contains("evil&#x27;x")
                    || text.contains("a&amp;lt"),
                "{path}: {text}"
            );
            let vary = r.header("vary").unwrap_or_default();
            assert!(vary.contains("Host"), "{path}: Vary {vary}");
        }
    }
    // The archive's links are the request's too.
    let r = s.send("GET", "/dwca.zip", &[("Host", "evil&x")]);
    assert!(r.header("vary").unwrap_or_default().contains("Host"));
    // Under --public-url the links are fixed, and no answer varies by Host.
    let settings = Settings {
        public_url: Some(PublicUrl::parse("https://specimens.example.org").unwrap()),
        ..Settings::default()
    };
    let s = Server::start(&common::sample_snapshot(), settings);
    let r = s.send("GET", "/versions.rss", &[("Host", "evil&x")]);
    assert!(!r.header("vary").unwrap_or_default().contains("Host"));
    assert!(!r.text().contains("evil"));
}
