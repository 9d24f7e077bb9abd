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
