//! The files the pages load (style sheet, scripts, the vendored Leaflet,
//! Swagger UI and the maps' basemap), built into the binary and served under one path that names their
//! content, so a browser may keep them for a year and a new build is fetched anew.

use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::encoding::hex::hex;

/// One served file.
pub struct Asset {
    /// The path under the assets' prefix.
    pub name: &'static str,
    pub content_type: &'static str,
    pub bytes: &'static [u8],
}

macro_rules! asset {
    ($name:literal, $type:expr) => {
        Asset {
            name: $name,
            content_type: $type,
            bytes: include_bytes!(concat!("static/", $name)),
        }
    };
}

const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const PNG: &str = "image/png";
const JSON: &str = "application/json";

/// Every file, ours and vendored (`static/vendor/update.sh` refreshes those).
pub static ASSETS: &[Asset] = &[
    asset!("site.css", CSS),
    asset!("fold.js", JS),
    asset!("map.js", JS),
    asset!("docs.js", JS),
    asset!("suggest.js", JS),
    asset!("zoom.js", JS),
    asset!("vendor/leaflet/leaflet.js", JS),
    asset!("vendor/leaflet/leaflet.css", CSS),
    asset!("vendor/leaflet/images/layers.png", PNG),
    asset!("vendor/leaflet/images/layers-2x.png", PNG),
    asset!("vendor/leaflet/images/marker-icon.png", PNG),
    asset!("vendor/leaflet/images/marker-icon-2x.png", PNG),
    asset!("vendor/leaflet/images/marker-shadow.png", PNG),
    asset!("vendor/leaflet.markercluster/leaflet.markercluster.js", JS),
    asset!("vendor/leaflet.markercluster/MarkerCluster.css", CSS),
    asset!(
        "vendor/leaflet.markercluster/MarkerCluster.Default.css",
        CSS
    ),
    asset!("vendor/swagger-ui-dist/swagger-ui-bundle.js", JS),
    asset!("vendor/swagger-ui-dist/swagger-ui.css", CSS),
    asset!("vendor/openseadragon/openseadragon.min.js", JS),
    asset!("vendor/world-atlas/world.json", JSON),
];

/// Where the assets are served: `/static/<digest of them all>/`.
pub fn prefix() -> &'static str {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX.get_or_init(|| {
        let mut h = Sha256::new();
        for a in ASSETS {
            h.update(a.name.as_bytes());
            h.update((a.bytes.len() as u64).to_le_bytes());
            h.update(a.bytes);
        }
        format!("/static/{}/", hex(&h.finalize()[..6]))
    })
}

/// The URL of an asset, by its name.
pub fn url(name: &str) -> String {
    debug_assert!(ASSETS.iter().any(|a| a.name == name), "no asset {name}");
    format!("{}{name}", prefix())
}

/// The asset a request path names, if it is under the current prefix.
pub fn find(path: &str) -> Option<&'static Asset> {
    let name = path.strip_prefix(prefix())?;
    ASSETS.iter().find(|a| a.name == name)
}

/// An asset's type by its extension, for the table above.
#[cfg(test)]
fn type_of(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("css") => CSS,
        Some("js") => JS,
        Some("png") => PNG,
        Some("json") => JSON,
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_has_its_extensions_type_and_a_body() {
        for a in ASSETS {
            assert_eq!(a.content_type, type_of(a.name), "{}", a.name);
            assert!(!a.bytes.is_empty(), "{}", a.name);
        }
    }

    #[test]
    fn assets_are_found_under_the_prefix_only() {
        let p = prefix();
        assert!(p.starts_with("/static/") && p.ends_with('/') && p.len() == 21);
        assert_eq!(find(&url("map.js")).map(|a| a.name), Some("map.js"));
        assert!(find("/static/000000000000/map.js").is_none());
        assert!(find(&format!("{p}nothing.js")).is_none());
    }
}
