//! A photograph without its embedded metadata: the EXIF and XMP a camera or
//! an editor writes, which may say where it was taken (EXIF's GPS block,
//! XMP's `exif:GPSLatitude`). Whole blocks are removed, never edited, so no
//! byte of a location is left behind; the picture itself is untouched.
//!
//! JPEG (APP1 `Exif` and XMP segments), PNG (`eXIf`, and the XMP text
//! chunk) and WebP (`EXIF` and `XMP ` chunks) are read; any other format, or
//! a file that does not parse as its format, is `None`: not served rather
//! than served with what it may hold.

/// `bytes` without their EXIF and XMP, by the format their first bytes say;
/// `None` where the format is none of those read, or the file is malformed.
pub fn without_location(bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.starts_with(&[0xFF, 0xD8]) {
        jpeg(bytes)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        png(bytes)
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        webp(bytes)
    } else {
        None
    }
}

const XMP: &[u8] = b"http://ns.adobe.com/xap/1.0/\0";
const XMP_EXTENDED: &[u8] = b"http://ns.adobe.com/xmp/extension/\0";

fn jpeg(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..2]);
    let mut at = 2;
    loop {
        // Fill bytes before a marker are allowed.
        while bytes.get(at) == Some(&0xFF) && bytes.get(at + 1) == Some(&0xFF) {
            at += 1;
        }
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        let marker = *bytes.get(at + 1)?;
        match marker {
            // Standalone markers: no length.
            0x01 | 0xD0..=0xD7 => {
                out.extend_from_slice(&bytes[at..at + 2]);
                at += 2;
                continue;
            }
            // The end, or the scan: the rest is the picture.
            0xD9 | 0xDA => {
                out.extend_from_slice(&bytes[at..]);
                return Some(out);
            }
            _ => {}
        }
        let len = u16::from_be_bytes([*bytes.get(at + 2)?, *bytes.get(at + 3)?]) as usize;
        let end = at + 2 + len;
        if len < 2 || end > bytes.len() {
            return None;
        }
        let body = &bytes[at + 4..end];
        let dropped = marker == 0xE1
            && (body.starts_with(b"Exif\0")
                || body.starts_with(XMP)
                || body.starts_with(XMP_EXTENDED));
        if !dropped {
            out.extend_from_slice(&bytes[at..end]);
        }
        at = end;
    }
}

fn png(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = bytes[..8].to_vec();
    let mut at = 8;
    while at < bytes.len() {
        let len = u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        let end = at.checked_add(12)?.checked_add(len)?;
        if end > bytes.len() {
            return None;
        }
        let kind = &bytes[at + 4..at + 8];
        let data = &bytes[at + 8..at + 8 + len];
        let xmp_text =
            matches!(kind, b"iTXt" | b"tEXt" | b"zTXt") && data.starts_with(b"XML:com.adobe.xmp\0");
        let raw_profile = matches!(kind, b"iTXt" | b"tEXt" | b"zTXt")
            && (data.starts_with(b"Raw profile type exif\0")
                || data.starts_with(b"Raw profile type APP1\0")
                || data.starts_with(b"Raw profile type xmp\0"));
        if !(kind == b"eXIf" || xmp_text || raw_profile) {
            out.extend_from_slice(&bytes[at..end]);
        }
        at = end;
        if kind == b"IEND" {
            break;
        }
    }
    Some(out)
}

fn webp(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = bytes[..12].to_vec();
    let mut at = 12;
    while at < bytes.len() {
        let kind = bytes.get(at..at + 4)?;
        let len = u32::from_le_bytes(bytes.get(at + 4..at + 8)?.try_into().ok()?) as usize;
        let end = at
            .checked_add(8)?
            .checked_add(len + (len & 1))?
            .min(bytes.len());
        if at + 8 + len > bytes.len() {
            return None;
        }
        match kind {
            b"EXIF" | b"XMP " => {}
            b"VP8X" => {
                let mut chunk = bytes[at..end].to_vec();
                // The flags no longer say EXIF (bit 3) or XMP (bit 2).
                if let Some(flags) = chunk.get_mut(8) {
                    *flags &= !0b0000_1100;
                }
                out.extend_from_slice(&chunk);
            }
            _ => out.extend_from_slice(&bytes[at..end]),
        }
        at = end;
    }
    let size = u32::try_from(out.len() - 8).ok()?;
    out[4..8].copy_from_slice(&size.to_le_bytes());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JPEG's head with an APP0, an Exif APP1 holding a GPS latitude, an
    /// XMP APP1, then a scan.
    fn jpeg_with_gps() -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8];
        let segment = |b: &mut Vec<u8>, marker: u8, body: &[u8]| {
            b.extend_from_slice(&[0xFF, marker]);
            b.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
            b.extend_from_slice(body);
        };
        segment(&mut b, 0xE0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        segment(&mut b, 0xE1, b"Exif\0\0MM\0*GPS 41.123456");
        segment(&mut b, 0xE1, &[XMP, b"<exif:GPSLatitude>41,7.4N<"].concat());
        b.extend_from_slice(&[0xFF, 0xDA, 0, 2, 1, 2, 3, 0xFF, 0xD9]);
        b
    }

    #[test]
    fn a_jpeg_loses_its_exif_and_xmp_and_keeps_the_rest() {
        let b = jpeg_with_gps();
        let out = without_location(&b).unwrap();
        let text = String::from_utf8_lossy(&out);
        assert!(
            !text.contains("41.123456") && !text.contains("GPS"),
            "{text}"
        );
        assert!(text.contains("JFIF"));
        assert!(out.ends_with(&[0xFF, 0xDA, 0, 2, 1, 2, 3, 0xFF, 0xD9]));
        assert_eq!(without_location(&out).unwrap(), out);
    }

    #[test]
    fn a_png_loses_its_exif_chunk_and_an_unknown_format_is_not_served() {
        let chunk = |kind: &[u8], data: &[u8]| {
            let mut c = (data.len() as u32).to_be_bytes().to_vec();
            c.extend_from_slice(kind);
            c.extend_from_slice(data);
            c.extend_from_slice(&[0; 4]);
            c
        };
        let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
        b.extend(chunk(b"IHDR", &[0; 13]));
        b.extend(chunk(b"eXIf", b"MM\0*GPS 41.123456"));
        b.extend(chunk(b"IEND", b""));
        let out = without_location(&b).unwrap();
        assert!(!String::from_utf8_lossy(&out).contains("GPS"));
        assert!(String::from_utf8_lossy(&out).contains("IHDR"));
        assert_eq!(without_location(b"GIF89a..."), None);
        assert_eq!(without_location(&[0xFF, 0xD8, 0xFF, 0xE1, 0, 200]), None);
    }
}
