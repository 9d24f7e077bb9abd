//! What the operator chose for the pages, and where the docs page is.

/// The API docs page.
pub const DOCS_PATH: &str = "/api/v2/docs";

/// What the operator chose for the pages.
#[derive(Clone, Debug, Default)]
pub struct Site {
    /// A tile URL template (`https://tile.example.org/{z}/{x}/{y}.png`) for maps;
    /// `None`: markers without tiles, so no page calls another host.
    pub map_tiles: Option<String>,
    /// What the maps credit for their tiles (`© OpenStreetMap contributors`),
    /// shown as text.
    pub map_attribution: Option<String>,
}

impl Site {
    /// The origin maps load tiles from, for the Content-Security-Policy
    /// (`{s}` subdomains become a wildcard).
    pub fn tile_origin(&self) -> Option<String> {
        let url = self.map_tiles.as_deref()?;
        let (scheme, rest) = url.split_once("://")?;
        let host = rest.split('/').next()?;
        Some(format!("{scheme}://{}", host.replace("{s}", "*")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tile_origin_is_the_templates_host() {
        let site = |t: &str| Site {
            map_tiles: Some(t.to_string()),
            map_attribution: None,
        };
        assert_eq!(
            site("https://{s}.tile.example.org/{z}/{x}/{y}.png").tile_origin(),
            Some("https://*.tile.example.org".into())
        );
        assert_eq!(
            site("http://127.0.0.1:9000/t/{z}/{x}/{y}.png").tile_origin(),
            Some("http://127.0.0.1:9000".into())
        );
        assert_eq!(Site::default().tile_origin(), None);
    }
}
