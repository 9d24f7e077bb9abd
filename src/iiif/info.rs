//! An image's `info.json` (Image API 3.0, level 2): its size, the pyramid's
//! levels as `sizes` and its tiles' `scaleFactors`, the server's limits, and
//! what it serves beyond level 2.

use serde_json::{json, Value};

use super::params::Limits;
use super::pyramid::{Levels, TILE};

/// The Image API 3.0 context, which `info.json` names and its JSON-LD media
/// type's profile is.
pub const CONTEXT: &str = "http://iiif.io/api/image/3/context.json";

/// The compliance level said.
pub const PROFILE: &str = "level2";

/// `info.json` for the image service at `id` (an absolute URI) of a
/// `width` by `height` image.
pub fn document(id: &str, width: u32, height: u32, limits: Limits) -> Value {
    let levels = Levels { width, height };
    let count = levels.count();
    let sizes: Vec<Value> = (0..count)
        .rev()
        .map(|k| levels.size(k))
        .filter(|&(w, h)| {
            w <= limits.max_width
                && h <= limits.max_height
                && u64::from(w) * u64::from(h) <= limits.max_area
        })
        .map(|(w, h)| json!({"type": "Size", "width": w, "height": h}))
        .collect();
    let factors: Vec<u32> = (0..count).map(|k| 1 << k).collect();
    json!({
        "@context": CONTEXT,
        "id": id,
        "type": "ImageService3",
        "protocol": "http://iiif.io/api/image",
        "profile": PROFILE,
        "width": width,
        "height": height,
        "maxWidth": limits.max_width,
        "maxHeight": limits.max_height,
        "maxArea": limits.max_area,
        "sizes": sizes,
        "tiles": [{"type": "Tile", "width": TILE, "height": TILE, "scaleFactors": factors}],
        "extraQualities": ["color", "gray", "bitonal"],
        "extraFeatures": ["mirroring", "sizeUpscaling"],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_the_levels_within_the_limits_smallest_first() {
        let doc = document("http://h/iiif/1", 6000, 4000, Limits::default());
        assert_eq!(doc["sizes"].as_array().unwrap().len(), 4);
        assert_eq!(
            doc["sizes"][0],
            json!({"type": "Size", "width": 375, "height": 250})
        );
        assert_eq!(doc["sizes"][3]["width"], 3000);
        assert_eq!(doc["tiles"][0]["scaleFactors"], json!([1, 2, 4, 8, 16]));
        assert_eq!(doc["maxArea"], 4096 * 4096);
        assert_eq!(doc["profile"], "level2");
    }
}
