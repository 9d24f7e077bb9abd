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
    &["quality"],
    &["query"],
    &["html"],
    &[
        "checklists",
        "iiif",
        "labels",
        "suggest",
        "versions",
        "wagtail",
    ],
    &["export"],
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
        for target in crate_imports(code) {
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

/// The top-level modules a line names through `crate::`: `crate::view::View`,
/// and each of a group's, `crate::{view::View, model::Model}`.
fn crate_imports(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            None => out.push(ident(rest)),
            Some(group) => out.extend(group_heads(group)),
        }
    }
    out
}

/// The identifier `s` starts with.
fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The first name of each item of a `{...}` group (given without its `{`), at
/// the group's own depth: `a::{x, y}, b` gives `a` and `b`.
fn group_heads(group: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, true);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => start = true,
            c if start && depth == 0 && (c.is_alphanumeric() || c == '_') => {
                out.push(ident(&group[i..]));
                start = false;
            }
            _ => {}
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
        ["line 1: view (layer 3) imports query (layer 5)"]
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
    assert_eq!(
        violations("view", "use crate::{model::Model, query::{Plan, Page}};"),
        ["line 1: view (layer 3) imports query (layer 5)"]
    );
    assert!(violations("serve", "use crate::query::Plan; use warp::Filter;").is_empty());
    assert_eq!(
        violations("nowhere", ""),
        ["nowhere is on no layer: add it to LAYERS"]
    );
}

/// The code of a source that builds the program: comments and, from its first
/// `#[cfg(test)]` on, its tests (whose `super::` is the file itself) left out.
fn program(source: &str) -> String {
    let code = source.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names a path prefix leads to in `code`: for `super::`, each `super::x`
/// and each head of `super::{x, y::z}`.
fn named_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        // `crate::serve::x` also holds `serve::x`: only whole path starts count.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        match rest.strip_prefix('{') {
            None => out.push(ident(rest)),
            Some(group) => out.extend(group_heads(group)),
        }
    }
    out
}

/// The children of a folder (`module` its path from the crate, `serve::routes`)
/// that `code` names, from the child `child`: a file names its siblings as
/// `super::x` and anything of `mod.rs` as `super::Item`; `mod.rs` names its
/// children as `x::...` or `self::x`; any may name them from the crate's root.
/// Each as its name, `mod.rs` as `mod`.
fn children_named(
    code: &str,
    child: &str,
    folder: bool,
    module: &str,
    children: &[String],
) -> Vec<String> {
    let mut names = named_after(code, &format!("crate::{module}::"));
    match child {
        // A subfolder's `super::` is its own face.
        _ if folder => {}
        "mod" => {
            names.extend(named_after(code, "self::"));
            for c in children {
                if !named_after(code, &format!("{c}::")).is_empty() {
                    names.push(c.clone());
                }
            }
        }
        _ => names.extend(named_after(code, "super::")),
    }
    let mut out: Vec<String> = Vec::new();
    for name in names {
        let name = match children.contains(&name) {
            true => name,
            // An item of the folder's face (`super::View`), not `super::super`.
            false if name != "super" && !name.is_empty() && children.iter().any(|c| c == "mod") => {
                "mod".to_string()
            }
            false => continue,
        };
        if name != child && !out.contains(&name) {
            out.push(name);
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

/// A folder and, for each of its children, the children it names.
type Folder = (PathBuf, Vec<(String, Vec<String>)>);

/// The program's code of every source under `dir`, one after another.
fn all_code(dir: &Path) -> String {
    let mut files = Vec::new();
    sources(dir, &mut files);
    files
        .iter()
        .map(|f| program(&std::fs::read_to_string(f).unwrap()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every folder of `src/` below its root (whose modules `LAYERS` orders) with
/// its children's edges: its files (`mod.rs` as `mod`) and its subfolders, each
/// naming the others.
fn folders(dir: &Path, module: &str, out: &mut Vec<Folder>) {
    let mut children: Vec<(String, bool, String)> = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let inner = match module.is_empty() {
                true => name.clone(),
                false => format!("{module}::{name}"),
            };
            folders(&path, &inner, out);
            children.push((name, true, all_code(&path)));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let code = program(&std::fs::read_to_string(&path).unwrap());
            children.push((name, false, code));
        }
    }
    if module.is_empty() {
        return;
    }
    let names: Vec<String> = children.iter().map(|(n, _, _)| n.clone()).collect();
    let edges = children
        .iter()
        .map(|(name, folder, code)| {
            let named = children_named(code, name, *folder, module, &names);
            (name.clone(), named)
        })
        .collect();
    out.push((dir.to_path_buf(), edges));
}

#[test]
fn no_circles_between_files_of_a_folder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    folders(&src, "", &mut all);
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
    let children = ["list", "links", "form", "mod"].map(String::from);
    let named = |code: &str, child: &str| children_named(code, child, false, "html", &children);
    assert_eq!(
        named(
            "use super::links::Linker; // super::form\nuse super::{list::{a, b}, Other};",
            "form"
        ),
        ["links", "list", "mod"]
    );
    // The face names its children by their own paths; tests are left out.
    assert_eq!(
        named(
            &program("pub use list::List;\nmod form;\nfn f() { crate::html::links::x() }\n#[cfg(test)]\nuse form::F;"),
            "mod"
        ),
        ["links", "list"]
    );
    assert_eq!(
        children_named(
            "use super::View; use crate::html::list::L;",
            "s",
            true,
            "html",
            &children
        ),
        ["list"]
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

/// `ARCHITECTURE.md`'s layer table is `LAYERS`: the same modules on the same
/// layers, so the map the people read is the one the code is held to.
#[test]
fn the_architectures_layer_table_is_the_checked_one() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .unwrap();
    let mut table: Vec<(usize, Vec<String>)> = doc
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
            let [layer, modules] = cells[..] else {
                return None;
            };
            let layer: usize = layer.trim().parse().ok()?;
            let mut names: Vec<String> = modules
                .split('`')
                .filter(|m| !m.trim().is_empty())
                .map(|m| m.trim().to_string())
                .collect();
            names.sort();
            Some((layer, names))
        })
        .collect();
    table.sort();
    let checked: Vec<(usize, Vec<String>)> = LAYERS
        .iter()
        .enumerate()
        .map(|(layer, modules)| {
            let mut names: Vec<String> = modules.iter().map(|m| m.to_string()).collect();
            names.sort();
            (layer, names)
        })
        .collect();
    assert_eq!(table, checked);
}
