//! IIIF: the photographs as the International Image Interoperability
//! Framework serves them, so any IIIF viewer zooms into them.
//!
//! The Image API 3.0 at level 2: `params` (a request's region, size, rotation,
//! quality and format as types, resolved against an image), `raster` (pixels
//! decoded, cut, scaled, turned and encoded, in pure Rust), `pyramid` (tiles
//! made once per original on disk, keyed by its `file_hash`, from which every
//! region is cut) and `info` (`info.json`). Knowing nothing of HTTP: the
//! server's `routes::iiif` answers with them.
//!
//! The Presentation API 3.0: `presentation` (a manifest per photographed
//! specimen, and collections by taxon from the top one down), and the
//! Change Discovery API 1.0: `activity` (the manifests' activities, from the
//! versions).

pub mod activity;
pub mod info;
pub mod params;
pub mod presentation;
pub mod pyramid;
pub mod raster;
