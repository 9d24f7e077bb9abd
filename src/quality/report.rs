//! The flags counted, for the curator: `/api/v2/quality/` as JSON, each flag
//! with its count, what it means, how to fix it, and its records' list and CSV.

use crate::encoding::json::{write_int, write_str};
use crate::model::endpoint::API_PREFIX;

use super::flag::Flag;
use super::found::Quality;

/// The list of a flag's specimens (a flag's name needs no escaping).
pub fn records_url(flag: Flag) -> String {
    format!("{API_PREFIX}specimen-records/?issue={}", flag.name())
}

/// The Darwin Core CSV of a flag's specimens (with their `issue` column).
pub fn csv_url(flag: Flag) -> String {
    format!("{}&format=csv&columns=dwc", records_url(flag))
}

/// `{"specimens":N,"unflagged":N,"flags":[{"name":...,"count":N,"meaning":...,
/// "fix":...,"records":...,"csv":...}]}`, every flag in [`Flag::ALL`]'s order.
pub fn json(quality: &Quality) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    out.extend_from_slice(b"{\"specimens\":");
    write_int(&mut out, quality.specimens() as i64);
    out.extend_from_slice(b",\"unflagged\":");
    write_int(&mut out, quality.unflagged() as i64);
    out.extend_from_slice(b",\"flags\":[");
    for (i, flag) in Flag::ALL.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"name\":");
        write_str(&mut out, flag.name());
        out.extend_from_slice(b",\"count\":");
        write_int(&mut out, quality.count(flag) as i64);
        for (key, value) in [
            ("meaning", flag.meaning().to_string()),
            ("fix", flag.fix().to_string()),
            ("records", records_url(flag)),
            ("csv", csv_url(flag)),
        ] {
            out.push(b',');
            write_str(&mut out, key);
            out.push(b':');
            write_str(&mut out, &value);
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    out
}
