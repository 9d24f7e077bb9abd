//! Every snapshot an earlier release of this repository wrote loads, or is
//! refused as a format too old to read, saying how to rebuild it: one file of
//! each layout in `tests/fixtures/formats/` (its README says which commit
//! wrote which).

use std::path::{Path, PathBuf};

use catalogue::model::Model;
use catalogue::view::View;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formats")
        .join(name)
}

/// Each layout still read loads into a view serving the sample's specimens,
/// and reads as records (`inspect`, `build --previous`, `sync` do).
#[test]
fn every_format_still_read_loads() {
    let bundled = crate::common::sample_snapshot();
    let files: Vec<(PathBuf, u32)> = [
        ("format-3.bin", 3),
        ("format-4.bin", 4),
        ("format-5.bin", 5),
        ("format-6-early.bin", 6),
        ("format-6.bin", 6),
        ("format-7.bin", 7),
        ("format-8.bin", 8),
        ("format-9.bin", 9),
        ("format-11-early.bin", 11),
    ]
    .into_iter()
    .map(|(name, format)| (fixture(name), format))
    .chain([(bundled, catalogue::snapshot::FORMAT_VERSION)])
    .collect();
    for (path, format) in files {
        let view = View::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(view.header.format_version, format, "{}", path.display());
        let specimens = view.table(Model::SpecimenRecord).len();
        assert!(specimens > 0, "{}", path.display());
        let (_, collection) =
            catalogue::snapshot::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(collection.specimen_records.len(), specimens);
    }
    // What the early layouts held is read, not dropped.
    let (_, six) = catalogue::snapshot::read(&fixture("format-6-early.bin")).unwrap();
    assert!(!six.wagtail.sites.is_empty() && !six.wagtail.pages.is_empty());
    let (_, eleven) = catalogue::snapshot::read(&fixture("format-11-early.bin")).unwrap();
    assert_eq!(eleven.dataset.title, "Insects of the catalogue sample");
    assert_eq!(eleven.dataset.occurrence_id, "");
}

/// A layout no longer read is refused as too old, with how to rebuild it;
/// never a panic nor a view of wrong values.
#[test]
fn a_format_too_old_is_refused_saying_how_to_rebuild() {
    for name in ["format-2.bin", "format-3-early.bin"] {
        let path = fixture(name);
        for said in [
            View::load(&path).err().map(|e| e.to_string()),
            catalogue::snapshot::read(&path)
                .err()
                .map(|e| e.to_string()),
        ] {
            let said = said.unwrap_or_else(|| panic!("{name} is read"));
            assert!(
                said.contains("too old to read") && said.contains("catalogue build"),
                "{name}: {said}"
            );
        }
    }
}
