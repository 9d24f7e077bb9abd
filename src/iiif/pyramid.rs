//! Tile pyramids on disk: each original cut once into tiles of [`TILE`]
//! pixels at every level of halving (level `k` is the original scaled by
//! 1/2^k, `ceil(width / 2^k)` wide), in a folder named by its key (the
//! image's `file_hash`, so an unchanged photograph is never cut again). A
//! region is answered from the smallest level at least as sharp as asked,
//! decoding only the tiles it covers, never the original; a region that is one
//! tile as asked is that tile's file.
//!
//! A pyramid is written whole in a temporary folder and renamed into place, so
//! one found is complete; [`Pyramids`] builds one at a time (behind a lock), so
//! memory holds one original and the same one is never cut twice at once.

use std::fs::{self, File};
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use fast_image_resize::Resizer;
use sha2::{Digest, Sha256};

use super::params::{Format, Quality, Resolved};
use super::raster::{self, Coded, Raster, RasterError};

/// The tiles' width and height.
pub const TILE: u32 = 512;

/// The first line of a pyramid's description file.
const MAGIC: &str = "catalogue iiif pyramid 1";

/// The file describing a complete pyramid, written last.
const DESCRIPTION: &str = "pyramid.txt";

/// What names a pyramid: the image's `file_hash` where it is one (hex), else
/// a digest of what identifies the file (its path, size and time).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key(String);

impl Key {
    /// The key named by an image's `file_hash`, where it is one.
    pub fn hashed(file_hash: &str) -> Option<Key> {
        let hex = file_hash.len() >= 8
            && file_hash.len() <= 128
            && file_hash.bytes().all(|b| b.is_ascii_hexdigit());
        hex.then(|| Key(file_hash.to_ascii_lowercase()))
    }

    pub fn of(file_hash: &str, identity: &[u8]) -> Key {
        match Key::hashed(file_hash) {
            Some(key) => key,
            None => {
                let digest = Sha256::digest(identity);
                let mut key = String::from("f");
                for b in &digest[..20] {
                    key.push_str(&format!("{b:02x}"));
                }
                Key(key)
            }
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The sizes of a pyramid's levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Levels {
    pub width: u32,
    pub height: u32,
}

impl Levels {
    /// Level `k`'s width and height.
    pub fn size(self, k: u32) -> (u32, u32) {
        let div = |v: u32| (((u64::from(v)) + (1u64 << k) - 1) >> k) as u32;
        (div(self.width).max(1), div(self.height).max(1))
    }

    /// How many levels: down to the first that is one tile.
    pub fn count(self) -> u32 {
        let mut k = 0;
        loop {
            let (w, h) = self.size(k);
            if w <= TILE && h <= TILE {
                return k + 1;
            }
            k += 1;
        }
    }
}

/// A complete pyramid on disk.
#[derive(Clone, Debug)]
pub struct Pyramid {
    dir: PathBuf,
    pub levels: Levels,
    channels: u8,
    /// The format its tiles are stored in.
    pub format: Format,
}

/// What answers a request from a pyramid.
pub enum Cut {
    /// A stored tile's file, as it is.
    Stored(PathBuf),
    /// Pixels made from the tiles, to encode.
    Made(Raster),
}

impl Pyramid {
    fn read(dir: &Path) -> Option<Pyramid> {
        let text = fs::read_to_string(dir.join(DESCRIPTION)).ok()?;
        let mut lines = text.lines();
        (lines.next()? == MAGIC).then_some(())?;
        let mut words = lines.next()?.split(' ');
        let width = words.next()?.parse().ok()?;
        let height = words.next()?.parse().ok()?;
        let channels = words.next()?.parse().ok().filter(|c| *c == 1 || *c == 3)?;
        let format = Format::parse(words.next()?).ok()?;
        Some(Pyramid {
            dir: dir.to_path_buf(),
            levels: Levels { width, height },
            channels,
            format,
        })
    }

    fn tile(&self, k: u32, col: u32, row: u32) -> PathBuf {
        self.dir
            .join(k.to_string())
            .join(format!("{col}_{row}.{}", self.format.extension()))
    }

    /// The pixels of level `k` a full-size region covers: left, top, right, bottom.
    fn covered(&self, k: u32, r: &super::params::Rect) -> (u32, u32, u32, u32) {
        let (lw, lh) = self.levels.size(k);
        let ceil = |v: u32| ((u64::from(v) + (1u64 << k) - 1) >> k) as u32;
        let (x0, y0) = (r.x >> k, r.y >> k);
        let x1 = ceil(r.x + r.w).min(lw).max(x0 + 1);
        let y1 = ceil(r.y + r.h).min(lh).max(y0 + 1);
        (x0, y0, x1, y1)
    }

    /// The smallest level whose part of the region is at least `w` by `h`.
    fn level_for(&self, asked: &Resolved) -> u32 {
        (0..self.levels.count())
            .rev()
            .find(|&k| {
                let (x0, y0, x1, y1) = self.covered(k, &asked.region);
                x1 - x0 >= asked.width && y1 - y0 >= asked.height
            })
            .unwrap_or(0)
    }

    /// The request cut from the pyramid: a stored tile where it is one as
    /// asked, else the covered tiles decoded, joined and scaled (not yet turned,
    /// coloured or encoded).
    pub fn cut(&self, asked: &Resolved, resizer: &mut Resizer) -> Result<Cut, RasterError> {
        let k = self.level_for(asked);
        let (x0, y0, x1, y1) = self.covered(k, &asked.region);
        let exact = x0 % TILE == 0
            && y0 % TILE == 0
            && asked.region.x == x0 << k
            && asked.region.y == y0 << k
            && (x1 - x0, y1 - y0) == (asked.width, asked.height)
            && x1 - x0 <= TILE
            && y1 - y0 <= TILE
            && (x1 % TILE == 0 || x1 == self.levels.size(k).0)
            && (y1 % TILE == 0 || y1 == self.levels.size(k).1)
            && asked.rotation.quarters == 0
            && !asked.rotation.mirror
            && (asked.quality == Quality::Default
                || (asked.quality == Quality::Color && self.channels == 3))
            && asked.format == self.format;
        if exact {
            return Ok(Cut::Stored(self.tile(k, x0 / TILE, y0 / TILE)));
        }
        let mut joined = Raster::new(x1 - x0, y1 - y0, self.channels);
        for row in y0 / TILE..=(y1 - 1) / TILE {
            for col in x0 / TILE..=(x1 - 1) / TILE {
                let path = self.tile(k, col, row);
                let file = File::open(&path).map_err(|e| RasterError::Decode(e.to_string()))?;
                let coded = match self.format {
                    Format::Jpg => Coded::Jpeg,
                    Format::Png => Coded::Png,
                };
                let mut tile = raster::decode(coded, BufReader::new(file))?;
                if tile.channels != self.channels {
                    tile = tile.rgb();
                }
                // The tile's place in the level, and its part in the region.
                let (tx, ty) = (col * TILE, row * TILE);
                let left = x0.max(tx);
                let top = y0.max(ty);
                let right = x1.min(tx + tile.width);
                let bottom = y1.min(ty + tile.height);
                if right <= left || bottom <= top {
                    continue;
                }
                tile.copy_to(
                    left - tx,
                    top - ty,
                    &mut joined,
                    left - x0,
                    top - y0,
                    right - left,
                    bottom - top,
                );
            }
        }
        Ok(Cut::Made(joined.resize(asked.width, asked.height, resizer)))
    }
}

/// The pyramids in a folder, and the lock that builds one at a time.
#[derive(Debug)]
pub struct Pyramids {
    root: PathBuf,
    building: Mutex<()>,
}

/// The original's encoding and size, as its first bytes and header say.
pub fn probe(file: &mut File) -> Result<(Coded, u32, u32), RasterError> {
    let mut head = [0u8; 8];
    file.read_exact(&mut head)
        .map_err(|_| RasterError::Unknown)?;
    let coded = Coded::sniff(&head).ok_or(RasterError::Unknown)?;
    file.seek(SeekFrom::Start(0))
        .map_err(|e| RasterError::Decode(e.to_string()))?;
    let (w, h) = raster::dimensions(coded, BufReader::new(&mut *file))?;
    file.seek(SeekFrom::Start(0))
        .map_err(|e| RasterError::Decode(e.to_string()))?;
    Ok((coded, w, h))
}

impl Pyramids {
    pub fn new(root: PathBuf) -> Pyramids {
        Pyramids {
            root,
            building: Mutex::new(()),
        }
    }

    /// The pyramids of the media folder `media`: in `tiles` where given,
    /// else in a folder beside it named after it (`media.tiles`).
    pub fn for_media(media: &Path, tiles: Option<&Path>) -> Pyramids {
        let root = match tiles {
            Some(dir) => dir.to_path_buf(),
            None => {
                let name = media.file_name().map(|n| n.to_string_lossy().into_owned());
                let name = name.unwrap_or_else(|| "media".into());
                media.with_file_name(format!("{name}.tiles"))
            }
        };
        Pyramids::new(root)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn dir(&self, key: &Key) -> PathBuf {
        self.root.join(&key.as_str()[..2]).join(key.as_str())
    }

    /// The complete pyramid of `key`, if it was built.
    pub fn get(&self, key: &Key) -> Option<Pyramid> {
        Pyramid::read(&self.dir(key))
    }

    /// The pyramid of `key`, built from `original` if it was not (blocking:
    /// it decodes the original; one build at a time).
    pub fn get_or_build(&self, key: &Key, original: File) -> Result<Pyramid, RasterError> {
        if let Some(p) = self.get(key) {
            return Ok(p);
        }
        let _one = self.building.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = self.get(key) {
            return Ok(p);
        }
        self.build(key, original)
    }

    fn build(&self, key: &Key, mut original: File) -> Result<Pyramid, RasterError> {
        let started = Instant::now();
        let io = |e: std::io::Error| RasterError::Encode(e.to_string());
        let (coded, _, _) = probe(&mut original)?;
        let image = raster::decode(coded, BufReader::new(original))?;
        let levels = Levels {
            width: image.width,
            height: image.height,
        };
        let format = coded.format();
        let channels = image.channels;
        let dir = self.dir(key);
        let parent = dir.parent().expect("a pyramid's folder is in the root");
        fs::create_dir_all(parent).map_err(io)?;
        let temporary = parent.join(format!(".{}.{}.tmp", key.as_str(), std::process::id()));
        let _ = fs::remove_dir_all(&temporary);
        fs::create_dir(&temporary).map_err(io)?;
        let written = write_levels(&temporary, image, format).and_then(|()| {
            let description = format!(
                "{MAGIC}\n{} {} {channels} {}\n",
                levels.width,
                levels.height,
                format.extension()
            );
            fs::write(temporary.join(DESCRIPTION), description).map_err(io)
        });
        if let Err(e) = written {
            let _ = fs::remove_dir_all(&temporary);
            return Err(e);
        }
        if fs::rename(&temporary, &dir).is_err() {
            // Another process put one there meanwhile: theirs is as good.
            let _ = fs::remove_dir_all(&temporary);
        }
        tracing::info!(
            key = key.as_str(),
            width = levels.width,
            height = levels.height,
            ms = started.elapsed().as_millis() as u64,
            "a photograph's tile pyramid made"
        );
        Pyramid::read(&dir).ok_or_else(|| RasterError::Encode("the pyramid was not kept".into()))
    }
}

/// Writes every level of `image` as tiles in `dir` (`k/col_row.ext`).
pub fn write_levels(dir: &Path, image: Raster, format: Format) -> Result<(), RasterError> {
    let io = |e: std::io::Error| RasterError::Encode(e.to_string());
    let mut resizer = Resizer::new();
    let mut level = image;
    let mut k = 0u32;
    loop {
        let folder = dir.join(k.to_string());
        fs::create_dir(&folder).map_err(io)?;
        for (col, row, tile) in tiles(&level) {
            let bytes = tile.encode(format)?;
            let name = format!("{col}_{row}.{}", format.extension());
            fs::write(folder.join(name), bytes).map_err(io)?;
        }
        if level.width <= TILE && level.height <= TILE {
            return Ok(());
        }
        let (w, h) = (level.width.div_ceil(2), level.height.div_ceil(2));
        level = level.resize(w, h, &mut resizer);
        k += 1;
    }
}

/// The tiles of one level, left to right, top to bottom.
pub fn tiles(level: &Raster) -> impl Iterator<Item = (u32, u32, Raster)> + '_ {
    let (cols, rows) = (level.width.div_ceil(TILE), level.height.div_ceil(TILE));
    (0..rows).flat_map(move |row| {
        (0..cols).map(move |col| {
            let (x, y) = (col * TILE, row * TILE);
            let w = TILE.min(level.width - x);
            let h = TILE.min(level.height - y);
            (col, row, level.crop(x, y, w, h))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::params::{ImageRequest, Limits};
    use super::*;

    #[test]
    fn levels_halve_down_to_one_tile() {
        let l = Levels {
            width: 6000,
            height: 4000,
        };
        assert_eq!(l.count(), 5);
        assert_eq!(l.size(1), (3000, 2000));
        assert_eq!(l.size(4), (375, 250));
        let odd = Levels {
            width: 1001,
            height: 3,
        };
        assert_eq!(odd.size(1), (501, 2));
        assert_eq!(odd.count(), 2);
    }

    #[test]
    fn keys_are_the_hash_or_a_digest_never_a_path() {
        assert_eq!(Key::of("ABCDEF0123", b"x").as_str(), "abcdef0123");
        let k = Key::of("../../etc", b"x");
        assert!(k.as_str().starts_with('f') && k.as_str().len() == 41);
        assert_ne!(Key::of("", b"x"), Key::of("", b"y"));
    }

    /// A photograph-like raster: a smooth gradient.
    fn gradient(w: u32, h: u32) -> Raster {
        let pixels = (0..w * h)
            .flat_map(|i| {
                let (x, y) = (i % w, i / w);
                [(x * 255 / w) as u8, (y * 255 / h) as u8, 128]
            })
            .collect();
        Raster {
            width: w,
            height: h,
            channels: 3,
            pixels,
        }
    }

    #[test]
    fn a_region_is_cut_from_the_nearest_level_and_a_tile_is_its_file() {
        let dir = std::env::temp_dir().join(format!("iiif-pyramid-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let image = gradient(1300, 700);
        let png = image.encode(Format::Png).unwrap();
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("o.png"), &png).unwrap();
        let pyramids = Pyramids::new(dir.join("tiles"));
        let key = Key::of("0123456789abcdef", b"");
        assert!(pyramids.get(&key).is_none());
        let p = pyramids
            .get_or_build(&key, File::open(dir.join("o.png")).unwrap())
            .unwrap();
        assert_eq!(p.levels.count(), 3);
        assert!(dir.join("tiles/01/0123456789abcdef/2/0_0.png").is_file());
        let mut resizer = Resizer::new();
        let ask = |path: &str| {
            let p: Vec<&str> = path.split('/').collect();
            ImageRequest::parse(p[0], p[1], p[2], p[3])
                .unwrap()
                .resolve(1300, 700, Limits::default())
                .unwrap()
        };
        // The second column's tile at level 1, as a viewer asks it.
        match p
            .cut(&ask("1024,0,276,700/138,/0/default.png"), &mut resizer)
            .unwrap()
        {
            Cut::Stored(path) => assert!(path.ends_with("1/1_0.png"), "{path:?}"),
            Cut::Made(_) => panic!("a tile as asked is its file"),
        }
        // Any region: exactly the original's pixels at level 0 (PNG is lossless).
        match p
            .cut(&ask("500,400,600,300/max/0/default.png"), &mut resizer)
            .unwrap()
        {
            Cut::Made(r) => assert_eq!(r, image.crop(500, 400, 600, 300)),
            Cut::Stored(_) => panic!("a region across tiles is made"),
        }
        match p
            .cut(&ask("full/325,/0/default.jpg"), &mut resizer)
            .unwrap()
        {
            Cut::Made(r) => assert_eq!((r.width, r.height), (325, 175)),
            Cut::Stored(_) => panic!("another format is made"),
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
