//! The module layers of `ARCHITECTURE.md`, checked against the code: a module
//! imports only from layers below its own, and only `serve` (with the command
//! line above it) knows HTTP. Reads `src/` as text: every `crate::<module>` path
//! outside comments counts as an import.

use std::path::{Path, PathBuf};

/// The layers, bottom first; modules on one layer may not import each other.
const LAYERS: &[&[&str]] = &[
    &["encoding", "memfile"],
    &["model"],
    &["snapshot"],
    &["ingest", "view"],
    &["query"],
    &["export", "html", "labels"],
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
/// `src/cli/args.rs` is `cli`; `lib.rs` and `main.rs` belong to none.
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

/// The files of one folder a source names as siblings: `super::x` (and
/// `super::{x, y::z}`) where `x` is one of `siblings`.
fn sibling_imports(source: &str, siblings: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        if siblings.iter().any(|s| s == name) && !out.iter().any(|o| o == name) {
            out.push(name.to_string());
        }
    };
    let code: String = source
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    for (at, _) in code.match_indices("super::") {
        let rest = &code[at + "super::".len()..];
        let ident = |s: &str| -> String {
            s.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        };
        match rest.strip_prefix('{') {
            None => add(&ident(rest)),
            Some(group) => {
                // The first name of each item at the group's own depth.
                let (mut depth, mut start) = (0usize, true);
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => start = true,
                        c if start && depth == 0 && (c.is_alphanumeric() || c == '_') => {
                            add(&ident(&group[i..]));
                            start = false;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    out
}

/// A circle among `edges` (file -> the siblings it imports), as the files in
/// order, if there is one.
fn circle(edges: &[(String, Vec<String>)]) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &[(String, Vec<String>)],
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.iter().any(|d| d == node) {
            return None;
        }
        path.push(node.to_string());
        let next = edges
            .iter()
            .find(|(n, _)| n == node)
            .map(|(_, to)| to.clone())
            .unwrap_or_default();
        for to in next {
            if let Some(found) = visit(&to, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.push(node.to_string());
        None
    }
    let mut done = Vec::new();
    edges
        .iter()
        .find_map(|(n, _)| visit(n, edges, &mut Vec::new(), &mut done))
}

/// A folder and, for each of its files, the siblings it imports.
type Folder = (PathBuf, Vec<(String, Vec<String>)>);

/// Every folder of `src/` with its files' sibling imports (`mod.rs`, the
/// folder's face, is left out: its children may use what it declares).
fn folders(dir: &Path, out: &mut Vec<Folder>) {
    let mut names = Vec::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            folders(&path, out);
            names.push(path.file_name().unwrap().to_string_lossy().into_owned());
        } else if path.extension().is_some_and(|e| e == "rs") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if !matches!(stem.as_str(), "mod" | "lib" | "main") {
                names.push(stem.clone());
                files.push((stem, path));
            }
        }
    }
    let edges = files
        .iter()
        .map(|(stem, path)| {
            let source = std::fs::read_to_string(path).unwrap();
            (stem.clone(), sibling_imports(&source, &names))
        })
        .collect();
    out.push((dir.to_path_buf(), edges));
}

#[test]
fn no_circles_between_files_of_a_folder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    folders(&src, &mut all);
    let serve = all.iter().find(|(d, _)| d.ends_with("serve")).unwrap();
    assert!(serve.1.len() > 10, "{:?}", serve.1);
    assert!(
        serve.1.iter().any(|(_, to)| !to.is_empty()),
        "no sibling import seen in serve"
    );
    let circles: Vec<String> = all
        .iter()
        .filter_map(|(dir, edges)| {
            let c = circle(edges)?;
            Some(format!("{}: {}", dir.display(), c.join(" -> ")))
        })
        .collect();
    assert!(circles.is_empty(), "\n{}", circles.join("\n"));
}

#[test]
fn the_circle_check_sees_circles() {
    let siblings = ["list", "links", "form"].map(String::from);
    assert_eq!(
        sibling_imports(
            "use super::links::Linker; // super::form\nuse super::{list::{a, b}, Other};",
            &siblings
        ),
        ["links", "list"]
    );
    let edges = |e: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        e.iter()
            .map(|(n, to)| (n.to_string(), to.iter().map(|t| t.to_string()).collect()))
            .collect()
    };
    assert_eq!(
        circle(&edges(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"])])),
        Some(
            vec!["a", "b", "c", "a"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    assert_eq!(
        circle(&edges(&[("a", &["b", "c"]), ("b", &["c"]), ("c", &[])])),
        None
    );
}
