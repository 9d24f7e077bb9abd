//! An Image API 3.0 request's path parameters as types:
//! `{region}/{size}/{rotation}/{quality}.{format}`, read by [`ImageRequest::parse`]
//! (what is not the grammar is a 400, what is the grammar but not served a
//! 501), then [`ImageRequest::resolve`]d against an image's size and the
//! server's limits into the pixels to cut and the size to send (a region past
//! the image, a size past the limits or upscaled without `^`: 400). Nothing
//! here allocates by what a request says.

use std::fmt;

/// The widest, tallest and largest (in pixels) image the server sends, as
/// `info.json` says them (`maxWidth`, `maxHeight`, `maxArea`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_width: u32,
    pub max_height: u32,
    pub max_area: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_width: 4096,
            max_height: 4096,
            max_area: 4096 * 4096,
        }
    }
}

/// Why a request is refused: its status and a message a client can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

impl Refusal {
    fn bad(message: impl Into<String>) -> Refusal {
        Refusal {
            status: 400,
            message: message.into(),
        }
    }

    fn unimplemented(message: impl Into<String>) -> Refusal {
        Refusal {
            status: 501,
            message: message.into(),
        }
    }
}

/// The part of the image asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Region {
    Full,
    /// The largest centred square.
    Square,
    /// `x,y,w,h` in pixels of the full image.
    Pixels {
        x: u32,
        y: u32,
        w: u32,
        h: u32,
    },
    /// `pct:x,y,w,h` in percent of the full image.
    Percent {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
    },
}

/// How large the region is sent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeKind {
    /// `max`: as large as the region and the limits allow.
    Max,
    /// `w,`: this wide, its height in proportion.
    Width(u32),
    /// `,h`: this tall, its width in proportion.
    Height(u32),
    /// `pct:n`: scaled by n percent.
    Percent(f64),
    /// `w,h`: exactly, the proportions not kept.
    Exact(u32, u32),
    /// `!w,h`: as large as fits within w by h, the proportions kept.
    Confined(u32, u32),
}

/// A size, and whether it may be larger than the region (`^`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size {
    pub kind: SizeKind,
    pub upscale: bool,
}

/// A quarter turn count clockwise, after mirroring where `mirror` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rotation {
    pub mirror: bool,
    /// 0, 1, 2 or 3 quarter turns clockwise.
    pub quarters: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quality {
    Default,
    Color,
    Gray,
    Bitonal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Jpg,
    Png,
}

impl Format {
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Jpg => "image/jpeg",
            Format::Png => "image/png",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Jpg => "jpg",
            Format::Png => "png",
        }
    }
}

/// A request's four parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImageRequest {
    pub region: Region,
    pub size: Size,
    pub rotation: Rotation,
    pub quality: Quality,
    pub format: Format,
}

/// A rectangle of the full image, in its pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

/// What a request asks of an image of a known size: the pixels to cut, the
/// size they are scaled to (before rotation), and how they are turned,
/// coloured and encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub region: Rect,
    pub width: u32,
    pub height: u32,
    pub rotation: Rotation,
    pub quality: Quality,
    pub format: Format,
}

impl Resolved {
    /// The canonical form of the request (Image API 3.0, 4.7), which its
    /// answer's `Link: rel="canonical"` names.
    pub fn canonical(&self, full_width: u32, full_height: u32) -> String {
        let r = self.region;
        let region = match (r.x, r.y, r.w, r.h) == (0, 0, full_width, full_height) {
            true => "full".to_string(),
            false => format!("{},{},{},{}", r.x, r.y, r.w, r.h),
        };
        let size = match (self.width, self.height) == (r.w, r.h) {
            true => "max".to_string(),
            false => format!("{},{}", self.width, self.height),
        };
        format!(
            "{region}/{size}/{}/{}.{}",
            self.rotation,
            self.quality,
            self.format.extension()
        )
    }
}

impl fmt::Display for Rotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mirror {
            f.write_str("!")?;
        }
        write!(f, "{}", u32::from(self.quarters) * 90)
    }
}

impl fmt::Display for Quality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Quality::Default => "default",
            Quality::Color => "color",
            Quality::Gray => "gray",
            Quality::Bitonal => "bitonal",
        })
    }
}

/// A whole number of ASCII digits (no sign, no space), within `u32`.
fn whole(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > 10 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A decimal number as the Image API writes one: digits, at most one point,
/// no sign, no exponent; finite.
fn decimal(text: &str) -> Option<f64> {
    let digits = text.bytes().filter(u8::is_ascii_digit).count();
    let points = text.bytes().filter(|&b| b == b'.').count();
    if digits == 0 || digits + points != text.len() || points > 1 || text.len() > 32 {
        return None;
    }
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

fn four<T>(text: &str, each: impl Fn(&str) -> Option<T>) -> Option<[T; 4]> {
    let mut parts = text.split(',');
    let a = each(parts.next()?)?;
    let b = each(parts.next()?)?;
    let c = each(parts.next()?)?;
    let d = each(parts.next()?)?;
    parts.next().is_none().then_some([a, b, c, d])
}

impl Region {
    pub fn parse(text: &str) -> Result<Region, Refusal> {
        let bad = || {
            Refusal::bad(format!(
                "region {text:?} is not full, square, x,y,w,h or pct:x,y,w,h"
            ))
        };
        match text {
            "full" => return Ok(Region::Full),
            "square" => return Ok(Region::Square),
            _ => {}
        }
        if let Some(pct) = text.strip_prefix("pct:") {
            let [x, y, w, h] = four(pct, decimal).ok_or_else(bad)?;
            if w <= 0.0 || h <= 0.0 {
                return Err(Refusal::bad(format!("region {text:?} is empty")));
            }
            return Ok(Region::Percent { x, y, w, h });
        }
        let [x, y, w, h] = four(text, whole).ok_or_else(bad)?;
        if w == 0 || h == 0 {
            return Err(Refusal::bad(format!("region {text:?} is empty")));
        }
        Ok(Region::Pixels { x, y, w, h })
    }

    /// The pixels of a `width` by `height` image the region names, cut at its
    /// edges; a region wholly outside it is a 400.
    pub fn resolve(self, width: u32, height: u32) -> Result<Rect, Refusal> {
        let outside = || Refusal::bad("the region lies outside the image");
        let (x, y, w, h) = match self {
            Region::Full => (0, 0, u64::from(width), u64::from(height)),
            Region::Square => {
                let side = width.min(height);
                (
                    (width - side) / 2,
                    (height - side) / 2,
                    side.into(),
                    side.into(),
                )
            }
            Region::Pixels { x, y, w, h } => (x, y, w.into(), h.into()),
            Region::Percent { x, y, w, h } => {
                let at = |p: f64, of: u32| {
                    (p / 100.0 * f64::from(of)).round().min(u32::MAX as f64) as u64
                };
                let (px, py) = (at(x, width), at(y, height));
                if px >= u64::from(width) || py >= u64::from(height) {
                    return Err(outside());
                }
                (
                    px as u32,
                    py as u32,
                    at(w, width).max(1),
                    at(h, height).max(1),
                )
            }
        };
        if x >= width || y >= height {
            return Err(outside());
        }
        let w = w.min(u64::from(width - x)) as u32;
        let h = h.min(u64::from(height - y)) as u32;
        if w == 0 || h == 0 {
            return Err(outside());
        }
        Ok(Rect { x, y, w, h })
    }
}

impl Size {
    pub fn parse(text: &str) -> Result<Size, Refusal> {
        let (upscale, rest) = match text.strip_prefix('^') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let bad = || {
            Refusal::bad(format!(
                "size {text:?} is not max, w,, ,h, pct:n, w,h or !w,h (each maybe after ^)"
            ))
        };
        let zero = || Refusal::bad(format!("size {text:?} is empty"));
        let kind = if rest == "max" {
            SizeKind::Max
        } else if let Some(pct) = rest.strip_prefix("pct:") {
            let n = decimal(pct).ok_or_else(bad)?;
            if n <= 0.0 {
                return Err(zero());
            }
            if n > 100.0 && !upscale {
                return Err(Refusal::bad(format!(
                    "size {text:?} is larger than the region: ask ^pct:"
                )));
            }
            SizeKind::Percent(n)
        } else {
            let (confined, wh) = match rest.strip_prefix('!') {
                Some(wh) => (true, wh),
                None => (false, rest),
            };
            let (w, h) = wh.split_once(',').ok_or_else(bad)?;
            let (w, h) = match (w.is_empty(), h.is_empty()) {
                (true, true) => return Err(bad()),
                (false, true) if !confined => (Some(whole(w).ok_or_else(bad)?), None),
                (true, false) if !confined => (None, Some(whole(h).ok_or_else(bad)?)),
                (false, false) => (
                    Some(whole(w).ok_or_else(bad)?),
                    Some(whole(h).ok_or_else(bad)?),
                ),
                _ => return Err(bad()),
            };
            if w == Some(0) || h == Some(0) {
                return Err(zero());
            }
            match (w, h, confined) {
                (Some(w), None, _) => SizeKind::Width(w),
                (None, Some(h), _) => SizeKind::Height(h),
                (Some(w), Some(h), false) => SizeKind::Exact(w, h),
                (Some(w), Some(h), true) => SizeKind::Confined(w, h),
                (None, None, _) => return Err(bad()),
            }
        };
        Ok(Size { kind, upscale })
    }

    /// The size a `w` by `h` region is sent at, within `limits`.
    pub fn resolve(self, w: u32, h: u32, limits: Limits) -> Result<(u32, u32), Refusal> {
        let (rw, rh) = (f64::from(w), f64::from(h));
        // The largest scale the limits allow for this region.
        let limit_scale = (f64::from(limits.max_width) / rw)
            .min(f64::from(limits.max_height) / rh)
            .min((limits.max_area as f64 / (rw * rh)).sqrt());
        let scaled = |s: f64| {
            let at = |v: f64| ((v * s).round().max(1.0)).min(f64::from(u32::MAX)) as u32;
            (at(rw), at(rh))
        };
        let (ow, oh) = match self.kind {
            SizeKind::Max => match self.upscale {
                true => fit(scaled(limit_scale), limits),
                false => fit(scaled(limit_scale.min(1.0)), limits),
            },
            SizeKind::Width(ow) => (ow, scaled(f64::from(ow) / rw).1),
            SizeKind::Height(oh) => (scaled(f64::from(oh) / rh).0, oh),
            SizeKind::Percent(n) => scaled(n / 100.0),
            SizeKind::Exact(ow, oh) => (ow, oh),
            SizeKind::Confined(cw, ch) => {
                // Without `^`, a box larger than the region is refused as
                // every other upscaling is (IIIF's validator asks a 400).
                let (ow, oh) = scaled((f64::from(cw) / rw).min(f64::from(ch) / rh));
                (ow.min(cw), oh.min(ch))
            }
        };
        if !self.upscale && (ow > w || oh > h) {
            return Err(Refusal::bad(format!(
                "the size {ow}x{oh} is larger than the region's {w}x{h}: ask with ^ to scale it up"
            )));
        }
        if ow > limits.max_width
            || oh > limits.max_height
            || u64::from(ow) * u64::from(oh) > limits.max_area
        {
            return Err(Refusal::bad(format!(
                "the size {ow}x{oh} is larger than the server sends (maxWidth {}, maxHeight {}, maxArea {})",
                limits.max_width, limits.max_height, limits.max_area
            )));
        }
        Ok((ow, oh))
    }
}

/// A size cut down, proportions about kept, until it is within `limits`
/// (rounding may have put it a pixel past).
fn fit((mut w, mut h): (u32, u32), limits: Limits) -> (u32, u32) {
    w = w.min(limits.max_width);
    h = h.min(limits.max_height);
    while u64::from(w) * u64::from(h) > limits.max_area {
        if w >= h {
            w -= 1;
        } else {
            h -= 1;
        }
    }
    (w.max(1), h.max(1))
}

impl Rotation {
    pub fn parse(text: &str) -> Result<Rotation, Refusal> {
        let (mirror, degrees) = match text.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let bad = || {
            Refusal::bad(format!(
                "rotation {text:?} is not a number of degrees from 0 to 360, maybe after !"
            ))
        };
        let value = decimal(degrees).ok_or_else(bad)?;
        if !(0.0..=360.0).contains(&value) {
            return Err(bad());
        }
        if value % 90.0 != 0.0 {
            return Err(Refusal::unimplemented(format!(
                "rotation {text:?}: only multiples of 90 degrees are served"
            )));
        }
        // 360 is a whole turn: as 0.
        let quarters = (value / 90.0) as u8 % 4;
        Ok(Rotation { mirror, quarters })
    }
}

impl Quality {
    pub fn parse(text: &str) -> Result<Quality, Refusal> {
        Ok(match text {
            "default" => Quality::Default,
            "color" => Quality::Color,
            "gray" => Quality::Gray,
            "bitonal" => Quality::Bitonal,
            _ => {
                return Err(Refusal::bad(format!(
                    "quality {text:?} is not default, color, gray or bitonal"
                )))
            }
        })
    }
}

impl Format {
    pub fn parse(text: &str) -> Result<Format, Refusal> {
        match text {
            "jpg" => Ok(Format::Jpg),
            "png" => Ok(Format::Png),
            "tif" | "gif" | "pdf" | "jp2" | "webp" => Err(Refusal {
                status: 415,
                message: format!("format {text:?} is not served: ask jpg or png"),
            }),
            _ => Err(Refusal::bad(format!("format {text:?} is not jpg or png"))),
        }
    }
}

impl ImageRequest {
    /// The four path segments after the identifier.
    pub fn parse(
        region: &str,
        size: &str,
        rotation: &str,
        file: &str,
    ) -> Result<ImageRequest, Refusal> {
        let (quality, format) = file
            .rsplit_once('.')
            .ok_or_else(|| Refusal::bad(format!("{file:?} is not quality.format (default.jpg)")))?;
        Ok(ImageRequest {
            region: Region::parse(region)?,
            size: Size::parse(size)?,
            rotation: Rotation::parse(rotation)?,
            quality: Quality::parse(quality)?,
            format: Format::parse(format)?,
        })
    }

    /// The request against a `width` by `height` image within `limits`.
    pub fn resolve(self, width: u32, height: u32, limits: Limits) -> Result<Resolved, Refusal> {
        let region = self.region.resolve(width, height)?;
        let (w, h) = self.size.resolve(region.w, region.h, limits)?;
        Ok(Resolved {
            region,
            width: w,
            height: h,
            rotation: self.rotation,
            quality: self.quality,
            format: self.format,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn req(path: &str) -> Result<ImageRequest, Refusal> {
        let p: Vec<&str> = path.split('/').collect();
        ImageRequest::parse(p[0], p[1], p[2], p[3])
    }

    fn resolve(path: &str, w: u32, h: u32) -> Result<Resolved, u16> {
        req(path)
            .and_then(|r| r.resolve(w, h, Limits::default()))
            .map_err(|e| e.status)
    }

    fn cut(path: &str, w: u32, h: u32) -> (Rect, u32, u32) {
        let r = resolve(path, w, h).unwrap();
        (r.region, r.width, r.height)
    }

    const fn rect(x: u32, y: u32, w: u32, h: u32) -> Rect {
        Rect { x, y, w, h }
    }

    #[test]
    fn regions_are_cut_at_the_image_edges() {
        assert_eq!(
            cut("full/max/0/default.jpg", 1000, 500),
            (rect(0, 0, 1000, 500), 1000, 500)
        );
        assert_eq!(
            cut("square/max/0/default.jpg", 1000, 500),
            (rect(250, 0, 500, 500), 500, 500)
        );
        assert_eq!(
            cut("900,400,500,500/max/0/default.jpg", 1000, 500),
            (rect(900, 400, 100, 100), 100, 100)
        );
        assert_eq!(
            cut("pct:10,20,50,50/max/0/default.jpg", 1000, 500),
            (rect(100, 100, 500, 250), 500, 250)
        );
        assert_eq!(
            resolve("1000,0,10,10/max/0/default.jpg", 1000, 500),
            Err(400)
        );
        assert_eq!(
            resolve("pct:100,0,10,10/max/0/default.jpg", 1000, 500),
            Err(400)
        );
        assert_eq!(resolve("0,0,0,10/max/0/default.jpg", 1000, 500), Err(400));
    }

    #[test]
    fn sizes_keep_proportions_and_refuse_upscaling_without_a_caret() {
        assert_eq!(
            cut("full/500,/0/default.jpg", 1000, 500),
            (rect(0, 0, 1000, 500), 500, 250)
        );
        assert_eq!(
            cut("full/,100/0/default.jpg", 1000, 500),
            (rect(0, 0, 1000, 500), 200, 100)
        );
        assert_eq!(
            cut("full/pct:25/0/default.jpg", 1000, 500),
            (rect(0, 0, 1000, 500), 250, 125)
        );
        assert_eq!(
            cut("full/!100,100/0/default.jpg", 1000, 500),
            (rect(0, 0, 1000, 500), 100, 50)
        );
        assert_eq!(
            cut("full/300,20/0/default.jpg", 1000, 500),
            (rect(0, 0, 1000, 500), 300, 20)
        );
        assert_eq!(resolve("full/2000,/0/default.jpg", 1000, 500), Err(400));
        assert_eq!(resolve("full/pct:200/0/default.jpg", 1000, 500), Err(400));
        assert_eq!(
            cut("full/^2000,/0/default.jpg", 1000, 500),
            (rect(0, 0, 1000, 500), 2000, 1000)
        );
        assert_eq!(
            resolve("full/!2000,2000/0/default.jpg", 1000, 500),
            Err(400)
        );
        assert_eq!(cut("full/!1000,1000/0/default.jpg", 1000, 500).1, 1000);
        assert_eq!(cut("full/^!2000,2000/0/default.jpg", 1000, 500).1, 2000);
        // max stays within the limits.
        assert_eq!(
            cut("full/max/0/default.jpg", 8000, 4000),
            (rect(0, 0, 8000, 4000), 4096, 2048)
        );
        assert_eq!(resolve("full/^5000,/0/default.jpg", 1000, 500), Err(400));
        assert_eq!(resolve("full/0,/0/default.jpg", 1000, 500), Err(400));
        assert_eq!(resolve("full/,/0/default.jpg", 1000, 500), Err(400));
        assert_eq!(resolve("full/!100,/0/default.jpg", 1000, 500), Err(400));
    }

    #[test]
    fn rotations_qualities_and_formats() {
        assert_eq!(
            req("full/max/!90/gray.png").unwrap().rotation,
            Rotation {
                mirror: true,
                quarters: 1
            }
        );
        assert_eq!(
            req("full/max/360/default.jpg").unwrap().rotation.quarters,
            0
        );
        assert_eq!(req("full/max/22.5/default.jpg").unwrap_err().status, 501);
        assert_eq!(req("full/max/361/default.jpg").unwrap_err().status, 400);
        assert_eq!(req("full/max/-90/default.jpg").unwrap_err().status, 400);
        assert_eq!(req("full/max/0/fancy.jpg").unwrap_err().status, 400);
        assert_eq!(req("full/max/0/default.gif").unwrap_err().status, 415);
        assert_eq!(req("full/max/0/default.xyz").unwrap_err().status, 400);
        assert_eq!(req("full/max/0/default").unwrap_err().status, 400);
        assert_eq!(
            req("full/max/0/bitonal.png").unwrap().quality,
            Quality::Bitonal
        );
    }

    #[test]
    fn the_canonical_form() {
        let r = resolve("pct:0,0,100,100/pct:50/!0/color.png", 1000, 500).unwrap();
        assert_eq!(r.canonical(1000, 500), "full/500,250/!0/color.png");
        let r = resolve("0,0,512,512/512,/0/default.jpg", 1000, 500).unwrap();
        assert_eq!(r.canonical(1000, 500), "0,0,512,500/max/0/default.jpg");
    }

    proptest! {
        /// Whatever the path says, parsing and resolving either refuse or
        /// give a region inside the image and a size within the limits.
        #[test]
        fn any_request_is_refused_or_bounded(
            region in "(full|square|pct:[0-9.]{1,6},[0-9.]{1,6},[0-9.]{1,6},[0-9.]{1,6}|[0-9]{1,11},[0-9]{1,11},[0-9]{1,11},[0-9]{1,11}|.{0,12})",
            size in "\\^?(max|[0-9]{0,11},[0-9]{0,11}|![0-9]{1,11},[0-9]{1,11}|pct:[0-9.]{1,8}|.{0,8})",
            rotation in "!?([0-9.]{1,6}|.{0,4})",
            file in "(default|color|gray|bitonal|x)\\.(jpg|png|gif|x)",
            width in 1u32..20_000,
            height in 1u32..20_000,
        ) {
            let limits = Limits::default();
            if let Ok(r) = ImageRequest::parse(&region, &size, &rotation, &file)
                .and_then(|r| r.resolve(width, height, limits))
            {
                prop_assert!(r.region.w >= 1 && r.region.h >= 1);
                prop_assert!(r.region.x + r.region.w <= width);
                prop_assert!(r.region.y + r.region.h <= height);
                prop_assert!(r.width >= 1 && r.height >= 1);
                prop_assert!(r.width <= limits.max_width && r.height <= limits.max_height);
                prop_assert!(u64::from(r.width) * u64::from(r.height) <= limits.max_area);
            }
        }

        /// A region of pixels inside the image is cut as asked.
        #[test]
        fn a_region_inside_is_kept(x in 0u32..1000, y in 0u32..1000, w in 1u32..1000, h in 1u32..1000) {
            let path = format!("{x},{y},{w},{h}/max/0/default.jpg");
            let r = resolve(&path, 2000, 2000).unwrap();
            prop_assert_eq!(r.region, rect(x, y, w, h));
            prop_assert_eq!((r.width, r.height), (w, h));
        }
    }
}
