//! The frame around a page of items: `{"meta":{"total_count":N,...},"items":[` and
//! `]}` for JSON; GeoJSON's FeatureCollection shares the same head writer.

use crate::encoding::json::write_int;

/// The start of a list answer, up to its first item.
pub fn envelope_head(total: usize, more_meta: &[u8]) -> Vec<u8> {
    list_head(b"{", total, more_meta, b"items")
}

/// `open` then `"meta":{"total_count":N...},"<key>":[`: the start of any answer
/// that is a list with a `meta` member (JSON envelope, GeoJSON FeatureCollection).
pub fn list_head(open: &[u8], total: usize, more_meta: &[u8], key: &[u8]) -> Vec<u8> {
    let mut head = Vec::with_capacity(open.len() + 48 + more_meta.len());
    head.extend_from_slice(open);
    head.extend_from_slice(b"\"meta\":{\"total_count\":");
    write_int(&mut head, total as i64);
    head.extend_from_slice(more_meta);
    head.extend_from_slice(b"},\"");
    head.extend_from_slice(key);
    head.extend_from_slice(b"\":[");
    head
}

/// The end of a list answer, after its last item.
pub const TAIL: &[u8] = b"]}";
