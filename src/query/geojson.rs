//! GeoJSON answers (`format=geojson`): the lists whose records have a place on the
//! map (GPS coordinates, and specimen records through their GPS record) as a
//! FeatureCollection of Points. A record's `properties` are its item exactly as the
//! JSON list gives it; its point comes from the view's [`Points`](crate::view::Points).

use crate::encoding::json::write_int;
use crate::model::Endpoint;
use crate::view::points::{has_points, Point};

use super::envelope;

/// The media type of a GeoJSON answer (RFC 7946).
pub const MEDIA_TYPE: &str = "application/geo+json";

/// The end of a FeatureCollection, after its last feature.
pub const TAIL: &[u8] = b"]}";

/// Whether an endpoint's records have points, and so answer `format=geojson`.
pub fn supports(endpoint: Endpoint) -> bool {
    has_points(endpoint.model)
}

/// The start of a FeatureCollection, up to its first feature: `meta` carries the
/// total the page was cut from and what else the request asked for.
pub fn head(total: usize, more_meta: &[u8]) -> Vec<u8> {
    envelope::list_head(
        b"{\"type\":\"FeatureCollection\",",
        total,
        more_meta,
        b"features",
    )
}

/// Appends one Point feature whose properties are an item's rendered JSON.
pub fn write_feature(out: &mut Vec<u8>, id: i64, point: Point, properties: &[u8]) {
    out.extend_from_slice(b"{\"type\":\"Feature\",\"id\":");
    write_int(out, id);
    out.extend_from_slice(b",\"geometry\":{\"type\":\"Point\",\"coordinates\":[");
    // Display gives the shortest text that reads back as the same number.
    use std::io::Write;
    let _ = write!(out, "{},{}", point[0], point[1]);
    out.extend_from_slice(b"]},\"properties\":");
    out.extend_from_slice(properties);
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_feature() {
        let mut out = Vec::new();
        write_feature(&mut out, 7, [-84.5, 38.25], b"{\"id\":7}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"type\":\"Feature\",\"id\":7,\"geometry\":{\"type\":\"Point\",\"coordinates\":[-84.5,38.25]},\"properties\":{\"id\":7}}"
        );
    }
}
