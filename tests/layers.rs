//! The module layers of `ARCHITECTURE.md`, checked against the code: a module
//! imports only from layers below its own, and only `serve` (with the command
//! line above it) knows HTTP. Reads `src/` as text: every `crate::<module>` path
//! outside comments counts as an import.

use std::path::{Path, PathBuf};

/// The layers, bottom first; modules on one layer may not import each other.
const LAYERS: &[&[&str]] = &[
    &["encoding"],
    &["model"],
    &["snapshot"],
    &["ingest", "view"],
    &["query"],
    &["export", "html"],
    &["serve"],
    &["cli"],
];

/// Crates that speak HTTP or run the async runtime, and the top-level modules
/// allowed to use them.
const RESTRICTED: &[(&str, &[&str])] = &[
    ("warp", &["serve"]),
    ("hyper", &["serve"]),
    ("hyper_util", &["serve"]),
    ("tokio", &["serve", "cli", "ingest"]),
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level module a source file belongs to: `src/view/rows.rs` is `view`,
/// `src/cli.rs` is `cli`; `lib.rs` and `main.rs` belong to none.
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main")).then(|| name.to_string())
}

/// Every way a file of `module` breaks the layers, one message each.
fn violations(module: &str, source: &str) -> Vec<String> {
    let Some(own) = layer(module) else {
        return vec![format!("{module} is on no layer: add it to LAYERS")];
    };
    let mut out = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let target: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            match layer(&target) {
                Some(theirs) if theirs > own || (theirs == own && target != module) => {
                    out.push(format!(
                        "line {}: {module} (layer {own}) imports {target} (layer {theirs})",
                        n + 1
                    ));
                }
                _ => {}
            }
        }
        for (krate, allowed) in RESTRICTED {
            let uses = code
                .match_indices(krate)
                .any(|(at, _)| code[at + krate.len()..].starts_with("::"));
            if uses && !allowed.contains(&module) {
                out.push(format!("line {}: {module} uses {krate}", n + 1));
            }
        }
    }
    out
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn modules_import_only_from_layers_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(&src).unwrap();
        let Some(module) = module_of(relative) else {
            continue;
        };
        let source = std::fs::read_to_string(path).unwrap();
        for v in violations(&module, &source) {
            problems.push(format!("src/{}: {v}", relative.display()));
        }
    }
    assert!(files.len() > 30, "only {} source files found", files.len());
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_check_sees_upward_sideways_and_http_imports() {
    assert!(violations("view", "use crate::model::Model;\nuse super::table::Table;").is_empty());
    assert_eq!(
        violations("view", "use crate::query::Plan;"),
        ["line 1: view (layer 3) imports query (layer 4)"]
    );
    assert_eq!(
        violations("ingest", "    let v = crate::view::View::load(p);"),
        ["line 1: ingest (layer 3) imports view (layer 3)"]
    );
    assert_eq!(
        violations("query", "use tokio::sync::OnceCell;"),
        ["line 1: query uses tokio"]
    );
    assert!(violations("query", "// crate::serve is above us; tokio:: too").is_empty());
    assert!(violations("serve", "use crate::query::Plan; use warp::Filter;").is_empty());
    assert_eq!(
        violations("nowhere", ""),
        ["nowhere is on no layer: add it to LAYERS"]
    );
}
