//! "Report a problem" on every record's page: the dataset's `report_url`
//! template, else a `mailto:` to its contact naming the record.

use crate::common;

use common::{catalogue, Server, TempDir};

fn page(s: &Server, path: &str) -> String {
    let r = s.send(
        "GET",
        path,
        &[("Accept", "text/html"), ("Host", "t.example")],
    );
    assert_eq!(r.status, 200, "{path}");
    r.text()
}

/// The page's report link, where it has one.
fn report(text: &str) -> Option<String> {
    let at = text.find(r#"<p class="report"><a href=""#)?;
    let rest = &text[at + r#"<p class="report"><a href=""#.len()..];
    Some(rest[..rest.find('"').unwrap()].replace("&amp;", "&"))
}

/// The sample built with this dataset file (TOML).
fn built(dir: &TempDir, dataset: &str) -> Result<std::path::PathBuf, String> {
    // Each build its own file: a second build over one keeps its versions.
    let (file, out) = (
        dir.path("dataset.toml"),
        dir.path(&format!("report-{}.bin", dataset.len())),
    );
    std::fs::write(&file, dataset).unwrap();
    let o = catalogue(&[
        "build",
        common::sample_fixture().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--dataset-config",
        file.to_str().unwrap(),
    ]);
    match o.status.success() {
        true => Ok(out),
        false => Err(String::from_utf8_lossy(&o.stderr).into_owned()),
    }
}

#[test]
fn a_records_page_links_a_report_naming_its_usi() {
    // The sample's dataset file: its first contact's address.
    let s = Server::sample();
    let link = report(&page(&s, "/api/v2/specimen-records/1/")).unwrap();
    assert_eq!(
        link,
        "mailto:collections@example.org?subject=A%20problem%20with%20specimen%20UMMZ-000001\
         %20%28version%201%29&body=USI%3A%20UMMZ-000001%0D%0ARecord%3A%20http%3A%2F%2F\
         t.example%2Fapi%2Fv2%2Fspecimen-records%2F1%2F%0D%0AVersion%3A%201%0D%0A%0D%0A\
         What%20is%20wrong%3A%0D%0A"
    );
    // Every record's page shares the frame: a person's names its id.
    let person = report(&page(&s, "/api/v2/people/2/")).unwrap();
    assert!(
        person.contains("subject=A%20problem%20with%20record%202%20")
            && person.contains("people%2F2%2F"),
        "{person}"
    );

    // The dataset's template, each place percent-encoded.
    let dir = TempDir::new("report");
    let template = "title = \"T\"\nreport_url = \
        \"https://issues.example.org/new?usi={usi}&id={id}&v={version}&at={url}\"\n";
    let s = Server::start(&built(&dir, template).unwrap(), Default::default());
    assert_eq!(
        report(&page(&s, "/api/v2/specimen-records/3/")).unwrap(),
        "https://issues.example.org/new?usi=UMMZ-000003&id=3&v=1\
         &at=http%3A%2F%2Ft.example%2Fapi%2Fv2%2Fspecimen-records%2F3%2F"
    );
    // Neither a template nor a contact's e-mail: no link.
    let s = Server::start(&built(&dir, "title = \"T\"\n").unwrap(), Default::default());
    assert_eq!(report(&page(&s, "/api/v2/specimen-records/3/")), None);
    // A template that is not one is refused, naming the key.
    let e = built(
        &dir,
        "title = \"T\"\nreport_url = \"https://x.org/{name}\"\n",
    )
    .unwrap_err();
    assert!(e.contains("report_url: is not a report address"), "{e}");
}
