//! The frame around a page of items: `{"meta":{"total_count":N,...},"items":[` and
//! `]}` for JSON; GeoJSON's FeatureCollection shares the same head writer.

/// The start of a list answer, up to its first item.
pub fn envelope_head(total: usize, more_meta: &[u8]) -> Vec<u8> {
    list_head(b"{", total, more_meta, b"items")
}

/// `open` then `"meta":{"total_count":N...},"<key>":[`: the start of any answer
/// that is a list with a `meta` member (JSON envelope, GeoJSON FeatureCollection).
pub fn list_head(open: &[u8], total: usize, more_meta: &[u8], key: &[u8]) -> Vec<u8> {
    const META: &[u8] = b"\"meta\":{\"total_count\":";
    let mut digits = itoa::Buffer::new();
    let total = digits.format(total).as_bytes();
    // Exactly its length: a page sends it as it is, and a `Bytes` taken from a
    // vector with room to spare allocates again to share it.
    let len = open.len() + META.len() + total.len() + more_meta.len() + 3 + key.len() + 3;
    let mut head = Vec::with_capacity(len);
    head.extend_from_slice(open);
    head.extend_from_slice(META);
    head.extend_from_slice(total);
    head.extend_from_slice(more_meta);
    head.extend_from_slice(b"},\"");
    head.extend_from_slice(key);
    head.extend_from_slice(b"\":[");
    head
}

/// The end of a list answer, after its last item.
pub const TAIL: &[u8] = b"]}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_is_written_into_exactly_its_room() {
        for (total, meta) in [
            (0, &b""[..]),
            (100_000, b",\"facets\":{}"),
            (usize::MAX, b""),
        ] {
            let head = list_head(b"{", total, meta, b"features");
            assert_eq!(head.len(), head.capacity());
            let text = String::from_utf8(head).unwrap();
            let meta = std::str::from_utf8(meta).unwrap();
            assert_eq!(
                text,
                format!("{{\"meta\":{{\"total_count\":{total}{meta}}},\"features\":[")
            );
        }
    }
}
