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

/// What the form, the preview and a sheet's `X-Label-Warning` say while
/// [`LabelCodes::FromRequest`] (ASCII, as a header must be).
pub const CODES_FROM_REQUEST: &str = "QR codes point at the address a sheet is asked at, as the \
     server was started without --public-url or --label-url. Labels last: a sheet printed from \
     this machine points here for good. Before printing, start the server with --public-url \
     (CATALOGUE_PUBLIC_URL) set to the collection's public address.";

/// Where label sheets' codes point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LabelCodes {
    /// Where the operator said (`--public-url` or `--label-url`).
    Settled,
    /// At the address each sheet was asked at: a sheet printed from the
    /// machine itself points there for as long as the label lasts.
    #[default]
    FromRequest,
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
