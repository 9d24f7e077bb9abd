//! Pixels in memory: an image's original decoded (JPEG by zune-jpeg, PNG by
//! png), a part of it cut, scaled (fast_image_resize), made gray or bitonal,
//! mirrored and turned, and encoded (JPEG by jpeg-encoder, PNG by png). Every
//! raster is 8-bit RGB or gray; nothing is decoded that is larger than
//! [`MAX_PIXELS`], so no header can make it allocate much.

use std::io::{BufRead, Seek};

use fast_image_resize::images::Image;
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};

use super::params::{Format, Quality, Rotation};

/// The most pixels an original may have to be decoded (a 100-megapixel
/// photograph; 300 MB as RGB).
pub const MAX_PIXELS: u64 = 100_000_000;

/// The JPEG quality of what is sent and of the pyramid's tiles.
pub const JPEG_QUALITY: u8 = 88;

/// An image in memory: rows of 8-bit samples, `channels` (1: gray, 3: RGB)
/// a pixel, with no padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Raster {
    pub width: u32,
    pub height: u32,
    pub channels: u8,
    pub pixels: Vec<u8>,
}

/// Why an image could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RasterError {
    #[error("not a JPEG or PNG file")]
    Unknown,
    #[error("the image is {0}x{1}, larger than {MAX_PIXELS} pixels")]
    TooLarge(u32, u32),
    #[error("the image could not be decoded: {0}")]
    Decode(String),
    #[error("the image could not be encoded: {0}")]
    Encode(String),
}

/// The encodings an original may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coded {
    Jpeg,
    Png,
}

impl Coded {
    /// What the file's first bytes say it is.
    pub fn sniff(head: &[u8]) -> Option<Coded> {
        match head {
            [0xFF, 0xD8, 0xFF, ..] => Some(Coded::Jpeg),
            [0x89, b'P', b'N', b'G', ..] => Some(Coded::Png),
            _ => None,
        }
    }

    /// The format a pyramid of such originals stores its tiles in: lossless
    /// for a lossless original.
    pub fn format(self) -> Format {
        match self {
            Coded::Jpeg => Format::Jpg,
            Coded::Png => Format::Png,
        }
    }
}

fn checked(width: u32, height: u32) -> Result<(), RasterError> {
    match u64::from(width) * u64::from(height) {
        0 => Err(RasterError::Decode("an empty image".into())),
        n if n > MAX_PIXELS => Err(RasterError::TooLarge(width, height)),
        _ => Ok(()),
    }
}

/// The width and height a file says in its header, read without its pixels.
pub fn dimensions<R: BufRead + Seek>(coded: Coded, reader: R) -> Result<(u32, u32), RasterError> {
    let decode = |e: &dyn std::fmt::Display| RasterError::Decode(e.to_string());
    match coded {
        Coded::Jpeg => {
            let mut d = zune_jpeg::JpegDecoder::new(reader);
            d.decode_headers().map_err(|e| decode(&e))?;
            let info = d.info().ok_or(RasterError::Unknown)?;
            let (w, h) = (info.width, info.height);
            Ok((w as u32, h as u32))
        }
        Coded::Png => {
            let r = png::Decoder::new(reader)
                .read_info()
                .map_err(|e| decode(&e))?;
            Ok((r.info().width, r.info().height))
        }
    }
}

/// Decodes a whole file into RGB (gray kept gray, alpha dropped).
pub fn decode<R: BufRead + Seek>(coded: Coded, reader: R) -> Result<Raster, RasterError> {
    let decode = |e: &dyn std::fmt::Display| RasterError::Decode(e.to_string());
    match coded {
        Coded::Jpeg => {
            use zune_core::colorspace::ColorSpace;
            use zune_core::options::DecoderOptions;
            let options = DecoderOptions::default()
                .jpeg_set_out_colorspace(ColorSpace::RGB)
                .set_max_width(1 << 16)
                .set_max_height(1 << 16);
            let mut d = zune_jpeg::JpegDecoder::new_with_options(reader, options);
            d.decode_headers().map_err(|e| decode(&e))?;
            let info = d.info().ok_or(RasterError::Unknown)?;
            let (w, h) = (info.width, info.height);
            checked(w as u32, h as u32)?;
            let pixels = d.decode().map_err(|e| decode(&e))?;
            let channels = match d.output_colorspace() {
                Some(ColorSpace::Luma) => 1,
                Some(ColorSpace::RGB) => 3,
                other => return Err(RasterError::Decode(format!("colour space {other:?}"))),
            };
            Ok(Raster {
                width: w as u32,
                height: h as u32,
                channels,
                pixels,
            })
            .and_then(Raster::sized)
        }
        Coded::Png => {
            let mut decoder = png::Decoder::new_with_limits(
                reader,
                png::Limits {
                    bytes: (MAX_PIXELS * 8) as usize,
                },
            );
            decoder.set_transformations(png::Transformations::normalize_to_color8());
            let mut r = decoder.read_info().map_err(|e| decode(&e))?;
            let (w, h) = (r.info().width, r.info().height);
            checked(w, h)?;
            let mut buf = vec![0; r.output_buffer_size().ok_or(RasterError::TooLarge(w, h))?];
            let info = r.next_frame(&mut buf).map_err(|e| decode(&e))?;
            buf.truncate(info.buffer_size());
            let (color, _) = r.output_color_type();
            let raster = |channels, pixels| Raster {
                width: w,
                height: h,
                channels,
                pixels,
            };
            let raster = match color {
                png::ColorType::Grayscale => raster(1, buf),
                png::ColorType::Rgb => raster(3, buf),
                png::ColorType::GrayscaleAlpha => {
                    raster(1, buf.chunks_exact(2).map(|p| p[0]).collect())
                }
                png::ColorType::Rgba => raster(
                    3,
                    buf.chunks_exact(4)
                        .flat_map(|p| [p[0], p[1], p[2]])
                        .collect(),
                ),
                png::ColorType::Indexed => {
                    return Err(RasterError::Decode("an indexed PNG left unexpanded".into()))
                }
            };
            raster.sized()
        }
    }
}

impl Raster {
    /// A blank raster.
    pub fn new(width: u32, height: u32, channels: u8) -> Raster {
        let len = width as usize * height as usize * channels as usize;
        Raster {
            width,
            height,
            channels,
            pixels: vec![0; len],
        }
    }

    fn stride(&self) -> usize {
        self.width as usize * self.channels as usize
    }

    /// The raster if its pixels fill it exactly.
    fn sized(self) -> Result<Raster, RasterError> {
        match self.pixels.len() == self.stride() * self.height as usize {
            true => Ok(self),
            false => Err(RasterError::Decode(
                "fewer pixels than the size says".into(),
            )),
        }
    }

    /// The raster as RGB (gray spread to three samples).
    pub fn rgb(self) -> Raster {
        match self.channels {
            3 => self,
            _ => Raster {
                pixels: self.pixels.iter().flat_map(|&v| [v, v, v]).collect(),
                channels: 3,
                ..self
            },
        }
    }

    /// The part at `x`, `y`, `w` by `h` (inside the raster).
    pub fn crop(&self, x: u32, y: u32, w: u32, h: u32) -> Raster {
        let mut out = Raster::new(w, h, self.channels);
        self.copy_to(x, y, &mut out, 0, 0, w, h);
        out
    }

    /// Copies `w` by `h` pixels at `x`, `y` of this raster to `dx`, `dy` of
    /// `out` (the same channels; both rectangles inside).
    #[allow(clippy::too_many_arguments)]
    pub fn copy_to(&self, x: u32, y: u32, out: &mut Raster, dx: u32, dy: u32, w: u32, h: u32) {
        let c = self.channels as usize;
        let (from, to) = (self.stride(), out.stride());
        let len = w as usize * c;
        for row in 0..h as usize {
            let s = (y as usize + row) * from + x as usize * c;
            let d = (dy as usize + row) * to + dx as usize * c;
            out.pixels[d..d + len].copy_from_slice(&self.pixels[s..s + len]);
        }
    }

    /// The raster scaled to `w` by `h` (a convolution, the same when the size is).
    pub fn resize(self, w: u32, h: u32, resizer: &mut Resizer) -> Raster {
        if (w, h) == (self.width, self.height) {
            return self;
        }
        let kind = match self.channels {
            1 => PixelType::U8,
            _ => PixelType::U8x3,
        };
        let channels = self.channels;
        let src = Image::from_vec_u8(self.width, self.height, self.pixels, kind)
            .expect("a raster's buffer fits its size");
        let mut dst = Image::new(w, h, kind);
        let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Bilinear));
        resizer
            .resize(&src, &mut dst, &options)
            .expect("the pixel types are the same");
        Raster {
            width: w,
            height: h,
            channels,
            pixels: dst.into_vec(),
        }
    }

    /// The raster in `quality`: gray by Rec. 601 luma, bitonal at half of it.
    pub fn quality(self, quality: Quality) -> Raster {
        let luma = |r: Raster| match r.channels {
            1 => r,
            _ => Raster {
                pixels: r
                    .pixels
                    .chunks_exact(3)
                    .map(|p| {
                        let v =
                            299 * u32::from(p[0]) + 587 * u32::from(p[1]) + 114 * u32::from(p[2]);
                        ((v + 500) / 1000) as u8
                    })
                    .collect(),
                channels: 1,
                ..r
            },
        };
        match quality {
            Quality::Default => self,
            Quality::Color => self.rgb(),
            Quality::Gray => luma(self),
            Quality::Bitonal => {
                let mut r = luma(self);
                for v in &mut r.pixels {
                    *v = if *v >= 128 { 255 } else { 0 };
                }
                r
            }
        }
    }

    /// The raster mirrored (left to right) first where asked, then turned
    /// clockwise by quarter turns.
    pub fn turn(self, rotation: Rotation) -> Raster {
        if !rotation.mirror && rotation.quarters == 0 {
            return self;
        }
        let (w, h, c) = (
            self.width as usize,
            self.height as usize,
            self.channels as usize,
        );
        let (ow, oh) = match rotation.quarters % 2 {
            0 => (w, h),
            _ => (h, w),
        };
        let mut out = vec![0; self.pixels.len()];
        for y in 0..h {
            for x in 0..w {
                let sx = if rotation.mirror { w - 1 - x } else { x };
                // Where (x, y) of the mirrored image goes once turned.
                let (tx, ty) = match rotation.quarters {
                    0 => (x, y),
                    1 => (h - 1 - y, x),
                    2 => (w - 1 - x, h - 1 - y),
                    _ => (y, w - 1 - x),
                };
                let s = (y * w + sx) * c;
                let d = (ty * ow + tx) * c;
                out[d..d + c].copy_from_slice(&self.pixels[s..s + c]);
            }
        }
        Raster {
            width: ow as u32,
            height: oh as u32,
            channels: self.channels,
            pixels: out,
        }
    }

    /// The raster encoded in `format`.
    pub fn encode(&self, format: Format) -> Result<Vec<u8>, RasterError> {
        let fail = |e: &dyn std::fmt::Display| RasterError::Encode(e.to_string());
        let mut out = Vec::with_capacity(self.pixels.len() / 8 + 1024);
        match format {
            Format::Jpg => {
                let (w, h) = (u16::try_from(self.width), u16::try_from(self.height));
                let (Ok(w), Ok(h)) = (w, h) else {
                    return Err(RasterError::Encode(
                        "wider or taller than JPEG allows".into(),
                    ));
                };
                let color = match self.channels {
                    1 => jpeg_encoder::ColorType::Luma,
                    _ => jpeg_encoder::ColorType::Rgb,
                };
                jpeg_encoder::Encoder::new(&mut out, JPEG_QUALITY)
                    .encode(&self.pixels, w, h, color)
                    .map_err(|e| fail(&e))?;
            }
            Format::Png => {
                let mut e = png::Encoder::new(&mut out, self.width, self.height);
                e.set_color(match self.channels {
                    1 => png::ColorType::Grayscale,
                    _ => png::ColorType::Rgb,
                });
                e.set_depth(png::BitDepth::Eight);
                e.set_compression(png::Compression::Fast);
                let mut w = e.write_header().map_err(|e| fail(&e))?;
                w.write_image_data(&self.pixels).map_err(|e| fail(&e))?;
                w.finish().map_err(|e| fail(&e))?;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A raster whose every pixel says where it is.
    fn numbered(w: u32, h: u32) -> Raster {
        let pixels = (0..w * h)
            .flat_map(|i| [(i % w) as u8, (i / w) as u8, 7])
            .collect();
        Raster {
            width: w,
            height: h,
            channels: 3,
            pixels,
        }
    }

    fn at(r: &Raster, x: u32, y: u32) -> &[u8] {
        let c = r.channels as usize;
        let i = (y * r.width + x) as usize * c;
        &r.pixels[i..i + c]
    }

    #[test]
    fn turns_and_mirrors_move_each_pixel() {
        let r = numbered(3, 2);
        let q = r.clone().turn(Rotation {
            mirror: false,
            quarters: 1,
        });
        assert_eq!((q.width, q.height), (2, 3));
        // The top left goes to the top right.
        assert_eq!(at(&q, 1, 0), at(&r, 0, 0));
        assert_eq!(at(&q, 0, 2), at(&r, 2, 1));
        let m = r.clone().turn(Rotation {
            mirror: true,
            quarters: 0,
        });
        assert_eq!(at(&m, 0, 0), at(&r, 2, 0));
        let h = r.clone().turn(Rotation {
            mirror: false,
            quarters: 2,
        });
        assert_eq!(at(&h, 0, 0), at(&r, 2, 1));
        let t = r.clone().turn(Rotation {
            mirror: false,
            quarters: 3,
        });
        assert_eq!(at(&t, 0, 0), at(&r, 2, 0));
        assert_eq!(r.crop(1, 1, 2, 1).pixels, [1, 1, 7, 2, 1, 7]);
    }

    #[test]
    fn encoded_rasters_decode_to_their_pixels() {
        let r = numbered(40, 30);
        let png = r.encode(Format::Png).unwrap();
        assert_eq!(Coded::sniff(&png), Some(Coded::Png));
        assert_eq!(decode(Coded::Png, Cursor::new(&png)).unwrap(), r);
        assert_eq!(dimensions(Coded::Png, Cursor::new(&png)).unwrap(), (40, 30));
        let jpg = r.encode(Format::Jpg).unwrap();
        assert_eq!(Coded::sniff(&jpg), Some(Coded::Jpeg));
        let back = decode(Coded::Jpeg, Cursor::new(&jpg)).unwrap();
        assert_eq!((back.width, back.height, back.channels), (40, 30, 3));
        let gray = r.quality(Quality::Bitonal);
        assert_eq!(gray.channels, 1);
        assert!(gray.pixels.iter().all(|&v| v == 0 || v == 255));
        assert!(decode(Coded::Jpeg, Cursor::new(b"\xff\xd8\xffnot")).is_err());
    }

    #[test]
    fn a_header_claiming_a_huge_image_is_refused_before_its_pixels() {
        let mut png = numbered(2, 2).encode(Format::Png).unwrap();
        // IHDR's width and height, past the signature and the chunk's head.
        png[16..20].copy_from_slice(&60_000u32.to_be_bytes());
        png[20..24].copy_from_slice(&60_000u32.to_be_bytes());
        assert!(decode(Coded::Png, Cursor::new(&png)).is_err());
    }
}
