//! Finds PostgreSQL's server binaries for the database tests, once, when the
//! package is built: where they are, `cfg(postgres)` is set and
//! `CATALOGUE_PG_BINDIR` names them; where they are not, a test that needs them
//! is reported ignored, saying how to install them, rather than passing without
//! having run. `CATALOGUE_REQUIRE_POSTGRES` sets `cfg(postgres)` whatever is
//! found, so those tests run and fail (CI sets it). The program itself reads
//! none of this.

use std::path::{Path, PathBuf};

/// Where Debian and Ubuntu install each PostgreSQL version's binaries.
const VERSIONS: &str = "/usr/lib/postgresql";

/// A folder holding the server's binaries: `PG_BINDIR`, else the newest
/// version's under [`VERSIONS`].
fn server_binaries() -> Option<PathBuf> {
    let has_server = |d: &Path| d.join("initdb").exists() && d.join("pg_ctl").exists();
    if let Some(dir) = std::env::var_os("PG_BINDIR") {
        return Some(PathBuf::from(dir)).filter(|d| has_server(d));
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(VERSIONS)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, bin)| has_server(bin))
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(postgres)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=PG_BINDIR");
    println!("cargo::rerun-if-env-changed=CATALOGUE_REQUIRE_POSTGRES");
    if Path::new(VERSIONS).exists() {
        println!("cargo::rerun-if-changed={VERSIONS}");
    }
    let found = server_binaries();
    if let Some(bin) = &found {
        println!("cargo::rustc-env=CATALOGUE_PG_BINDIR={}", bin.display());
    }
    if found.is_some() || std::env::var_os("CATALOGUE_REQUIRE_POSTGRES").is_some() {
        println!("cargo::rustc-cfg=postgres");
    }
}
