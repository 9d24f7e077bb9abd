//! Where a reader reports a problem with a record: the dataset file's
//! `report_url` template, else a `mailto:` to its contact.

use super::description::Dataset;
use crate::encoding::percent::segment_encode;

/// The places a `report_url` template may name.
pub const PLACES: [&str; 4] = ["{usi}", "{id}", "{version}", "{url}"];

/// The record a report is of.
#[derive(Clone, Copy, Debug)]
pub struct Reported<'a> {
    /// Its USI (a specimen's), or empty.
    pub usi: &'a str,
    /// Its id in its list.
    pub id: i64,
    /// The version of the collection it was seen in.
    pub version: u64,
    /// Its page's address.
    pub url: &'a str,
}

/// Whether `template` is a report address: `https://`, `http://` or
/// `mailto:`, then no spaces, quotes or angle brackets, and braces only
/// around the four places.
pub(super) fn is_template(template: &str) -> bool {
    let schemed = ["https://", "http://", "mailto:"]
        .iter()
        .any(|s| template.starts_with(s) && template.len() > s.len());
    let mut rest = template.to_string();
    for place in PLACES {
        rest = rest.replace(place, "");
    }
    schemed
        && !rest
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "{}\"<>\\`".contains(c))
}

/// An e-mail address as a `mailto:` URI's `to` (RFC 6068): what an address
/// may hold as it is, every other byte percent-encoded.
fn mailbox(out: &mut String, address: &str) {
    for &b in address.trim().as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'@' | b'+' => {
                out.push(b as char)
            }
            _ => {
                out.push('%');
                out.push_str(&format!("{b:02X}"));
            }
        }
    }
}

impl Dataset {
    /// The address a reader reports a problem with `record` at: the
    /// `report_url` template with each place's value percent-encoded, else a
    /// `mailto:` to the first contact (else creator) with an e-mail, the
    /// record's USI, address and version in its subject and body; `None`
    /// without either.
    pub fn report_link(&self, record: &Reported) -> Option<String> {
        let encoded = |value: &str| {
            let mut out = String::new();
            segment_encode(&mut out, value);
            out
        };
        let template = self.report_url.trim();
        if !template.is_empty() {
            return Some(
                template
                    .replace("{usi}", &encoded(record.usi))
                    .replace("{id}", &record.id.to_string())
                    .replace("{version}", &record.version.to_string())
                    .replace("{url}", &encoded(record.url)),
            );
        }
        let email = (self.contacts.iter().chain(&self.creators))
            .map(|p| p.email.trim())
            .find(|e| !e.is_empty())?;
        let named = match record.usi {
            "" => format!("record {}", record.id),
            usi => format!("specimen {usi}"),
        };
        let subject = format!("A problem with {named} (version {})", record.version);
        let mut body = String::new();
        if !record.usi.is_empty() {
            body += &format!("USI: {}\r\n", record.usi);
        }
        body += &format!(
            "Record: {}\r\nVersion: {}\r\n\r\nWhat is wrong:\r\n",
            record.url, record.version
        );
        let mut out = String::from("mailto:");
        mailbox(&mut out, email);
        out += "?subject=";
        segment_encode(&mut out, &subject);
        out += "&body=";
        segment_encode(&mut out, &body);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::dataset::Party;

    const RECORD: Reported = Reported {
        usi: "UMMZ 1/2",
        id: 7,
        version: 3,
        url: "https://x.org/api/v2/specimen-records/7/",
    };

    #[test]
    fn a_template_takes_each_place_percent_encoded() {
        let d = Dataset {
            report_url: "https://issues.example.org/new?usi={usi}&id={id}&v={version}&at={url}"
                .into(),
            ..Dataset::default()
        };
        assert_eq!(
            d.report_link(&RECORD).unwrap(),
            "https://issues.example.org/new?usi=UMMZ%201%2F2&id=7&v=3\
             &at=https%3A%2F%2Fx.org%2Fapi%2Fv2%2Fspecimen-records%2F7%2F"
        );
        assert!(is_template(&d.report_url));
        for bad in [
            "ftp://x/{usi}",
            "https://x/{name}",
            "https://x/ a",
            "https://",
            "x",
        ] {
            assert!(!is_template(bad), "{bad}");
        }
    }

    #[test]
    fn by_default_a_mail_to_the_contact_or_nothing() {
        let mut d = Dataset::default();
        assert_eq!(d.report_link(&RECORD), None);
        d.creators = vec![Party {
            email: "rosa@example.org".into(),
            ..Party::default()
        }];
        assert_eq!(
            d.report_link(&RECORD).unwrap(),
            "mailto:rosa@example.org?subject=A%20problem%20with%20specimen%20UMMZ%201%2F2\
             %20%28version%203%29&body=USI%3A%20UMMZ%201%2F2%0D%0ARecord%3A%20https%3A%2F%2F\
             x.org%2Fapi%2Fv2%2Fspecimen-records%2F7%2F%0D%0AVersion%3A%203%0D%0A%0D%0A\
             What%20is%20wrong%3A%0D%0A"
        );
    }
}
