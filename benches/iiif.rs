//! IIIF's costs on a 24-megapixel photograph (6000x4000, generated here as a
//! JPEG at the encoder's quality): decoding the original and cutting it into
//! a pyramid of 512-pixel tiles at every scale, as a server does once per
//! photograph; then answering a tile that is stored as it is asked, and a
//! region across tiles scaled down, from that pyramid.
//!
//! `cargo bench --bench iiif`.

use std::hint::black_box;
use std::io::Cursor;

use catalogue::iiif::params::{Format, ImageRequest, Limits};
use catalogue::iiif::pyramid::{self, Key, Pyramids};
use catalogue::iiif::raster::{self, Coded, Raster};
use criterion::{criterion_group, criterion_main, Criterion};
use fast_image_resize::Resizer;

/// A photograph-like image: smooth light, and a texture of fine detail the
/// encoder must keep.
fn photograph(width: u32, height: u32) -> Vec<u8> {
    let mut pixels = Vec::with_capacity((width * height * 3) as usize);
    let mut noise = 0x2545_f491_u32;
    for y in 0..height {
        for x in 0..width {
            noise ^= noise << 13;
            noise ^= noise >> 17;
            noise ^= noise << 5;
            let grain = noise & 31;
            pixels.push(((x * 200 / width) + grain) as u8);
            pixels.push(((y * 200 / height) + grain) as u8);
            pixels.push((((x + y) % 256) / 2 + grain) as u8);
        }
    }
    let raster = Raster {
        width,
        height,
        channels: 3,
        pixels,
    };
    raster.encode(Format::Jpg).unwrap()
}

fn ask(path: &str, width: u32, height: u32) -> catalogue::iiif::params::Resolved {
    let p: Vec<&str> = path.split('/').collect();
    ImageRequest::parse(p[0], p[1], p[2], p[3])
        .unwrap()
        .resolve(width, height, Limits::default())
        .unwrap()
}

fn pyramid(c: &mut Criterion) {
    let (width, height) = (6000, 4000);
    let jpeg = photograph(width, height);
    let dir = std::env::temp_dir().join(format!("catalogue-bench-iiif-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut group = c.benchmark_group("iiif 24 MP");
    group.sample_size(10);
    group.bench_function("decode the JPEG", |b| {
        b.iter(|| raster::decode(Coded::Jpeg, Cursor::new(black_box(&jpeg))).unwrap())
    });
    let mut n = 0;
    group.bench_function("decode and cut into 512 px tiles at every scale", |b| {
        b.iter(|| {
            n += 1;
            let out = dir.join(format!("cut-{n}"));
            std::fs::create_dir(&out).unwrap();
            let image = raster::decode(Coded::Jpeg, Cursor::new(&jpeg)).unwrap();
            pyramid::write_levels(&out, image, Format::Jpg).unwrap();
            std::fs::remove_dir_all(&out).unwrap();
        })
    });
    let original = dir.join("original.jpg");
    std::fs::write(&original, &jpeg).unwrap();
    let pyramids = Pyramids::new(dir.join("tiles"));
    let key = Key::of("0123456789abcdef0123", b"");
    let p = pyramids
        .get_or_build(&key, std::fs::File::open(&original).unwrap())
        .unwrap();
    let mut resizer = Resizer::new();
    let tile = ask("2048,2048,2048,1952/512,/0/default.jpg", width, height);
    group.bench_function("a tile stored as asked", |b| {
        b.iter(|| match p.cut(black_box(&tile), &mut resizer).unwrap() {
            pyramid::Cut::Stored(path) => std::fs::read(path).unwrap(),
            pyramid::Cut::Made(_) => unreachable!("a tile as asked is stored"),
        })
    });
    let region = ask("1000,1000,1500,1000/600,/0/default.jpg", width, height);
    group.bench_function("a region across tiles, scaled and encoded", |b| {
        b.iter(|| match p.cut(black_box(&region), &mut resizer).unwrap() {
            pyramid::Cut::Made(r) => r.encode(Format::Jpg).unwrap(),
            pyramid::Cut::Stored(_) => unreachable!("a region across tiles is made"),
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, pyramid);
criterion_main!(benches);
