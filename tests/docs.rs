//! The documents say only what exists: every relative link leads to a file (and a
//! heading) that is there, every `catalogue <command>` and every flag of one is in
//! the command line's `--help`, and every image tag is the package's version.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Flags the documents name that belong to other programs' commands.
/// Floors under what the documents hold today, well below it: a parser
/// that stops finding links or invocations fails rather than checks nothing.
const LINKS_AT_LEAST: usize = 40;
const INVOCATIONS_AT_LEAST: usize = 25;

const OTHER_PROGRAMS: &[&str] = &[
    // `manage.py dumpdata`'s, which the catalogue must not be given.
    "--natural-primary",
    // tests/browser/browser.py's.
    "--screenshots",
    // benches/fixture_to_sqlite.py's.
    "--force",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, ARCHITECTURE.md and docs/*.md.
fn documents() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn name(path: &Path) -> String {
    path.strip_prefix(root()).unwrap().display().to_string()
}

/// The text's lines outside fenced code blocks, and those inside, apart.
fn prose_and_code(text: &str) -> (Vec<&str>, Vec<&str>) {
    let (mut prose, mut code, mut fenced) = (Vec::new(), Vec::new(), false);
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if fenced {
            code.push(line);
        } else {
            prose.push(line);
        }
    }
    (prose, code)
}

/// The inline code spans of prose (a span may not cross a paragraph).
fn spans(prose: &[&str]) -> Vec<String> {
    let text = prose.join("\n");
    let mut out = Vec::new();
    for paragraph in text.split("\n\n") {
        let mut parts = paragraph.split('`');
        parts.next();
        while let (Some(span), Some(_)) = (parts.next(), parts.next()) {
            out.push(span.replace('\n', " "));
        }
    }
    out
}

/// The targets of `[text](target)` links in prose.
fn links(prose: &[&str]) -> Vec<String> {
    let text = prose.join("\n");
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            rest.find(')').map(|end| rest[..end].to_string())
        })
        .collect()
}

/// GitHub's anchor of a heading: lowercase, punctuation dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    prose_and_code(text)
        .0
        .iter()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

#[test]
fn relative_links_lead_to_files_and_headings_that_exist() {
    let (mut broken, mut checked) = (Vec::new(), 0);
    for doc in documents() {
        let text = read(&doc);
        for target in links(&prose_and_code(&text).0) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, heading) = target.split_once('#').unwrap_or((&target, ""));
            let path = match file.is_empty() {
                true => doc.clone(),
                false => doc.parent().unwrap().join(file),
            };
            if !path.exists() {
                broken.push(format!("{}: {target}: no such file", name(&doc)));
            } else if !heading.is_empty() && !anchors(&read(&path)).contains(heading) {
                broken.push(format!("{}: {target}: no such heading", name(&doc)));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    // The links were found at all (an unclosed fence would hide the rest of a file).
    assert!(
        checked >= LINKS_AT_LEAST,
        "only {checked} relative links found"
    );
}

/// `catalogue <words> --help`.
fn help(words: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1")
        .args(words)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "catalogue {words:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands a help text lists under `Commands:`.
fn subcommands(help: &str) -> BTreeSet<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The long flags a help text lists.
fn flags(help: &str) -> BTreeSet<String> {
    help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']' || c == '=')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches(|c: char| !c.is_alphanumeric())
                .to_string()
        })
        .collect()
}

/// Every `catalogue <command> [<subcommand>] ... --flag` in code, as the words
/// after `catalogue` up to a shell operator.
fn invocations(code: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in code {
        let words: Vec<&str> = line.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            if !(*w == "catalogue" || w.ends_with("/catalogue")) {
                continue;
            }
            let rest: Vec<String> = words[i + 1..]
                .iter()
                .take_while(|w| !matches!(**w, "|" | ">" | "&&" | "&" | "#" | "||" | ";"))
                .map(|w| w.to_string())
                .collect();
            if rest
                .first()
                .is_some_and(|c| c.starts_with(|c: char| c.is_ascii_lowercase()))
            {
                out.push(rest);
            }
        }
    }
    out
}

#[test]
fn every_command_and_flag_named_exists() {
    let top = help(&[]);
    let commands = subcommands(&top);
    assert!(
        commands.contains("serve") && commands.contains("build"),
        "{top}"
    );
    let mut all_flags = BTreeSet::new();
    for c in &commands {
        let h = help(&[c]);
        all_flags.extend(flags(&h));
        for sub in subcommands(&h) {
            all_flags.extend(flags(&help(&[c, &sub])));
        }
    }
    let (mut wrong, mut checked) = (Vec::new(), 0);
    for doc in documents() {
        let text = read(&doc);
        let (prose, code) = prose_and_code(&text);
        let spans = spans(&prose);
        let code: Vec<String> = code
            .iter()
            .map(|l| l.to_string())
            .chain(spans.iter().cloned())
            .collect();
        for words in invocations(&code) {
            checked += 1;
            let command = words[0].as_str();
            if !commands.contains(command) {
                wrong.push(format!("{}: no command `catalogue {command}`", name(&doc)));
                continue;
            }
            let mut path = vec![command];
            let h = help(&path);
            let subs = subcommands(&h);
            if let Some(sub) = words.get(1).filter(|_| !subs.is_empty()) {
                if !subs.contains(sub) {
                    wrong.push(format!("{}: no `catalogue {command} {sub}`", name(&doc)));
                    continue;
                }
                path.push(sub);
            }
            let known = flags(&help(&path));
            for w in &words {
                let flag = w.split('=').next().unwrap();
                if flag.starts_with("--") && flag.len() > 2 && !known.contains(flag) {
                    wrong.push(format!(
                        "{}: `catalogue {}` has no {flag}",
                        name(&doc),
                        path.join(" ")
                    ));
                }
            }
        }
        // A flag named alone (`--no-watch`, `--max-limit N`) is one of some command.
        for span in &spans {
            let Some(flag) = span
                .split_whitespace()
                .next()
                .filter(|w| w.starts_with("--"))
            else {
                continue;
            };
            if flag.len() > 2 && !all_flags.contains(flag) && !OTHER_PROGRAMS.contains(&flag) {
                wrong.push(format!("{}: no command has {flag}", name(&doc)));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The invocations were found at all.
    assert!(
        checked >= INVOCATIONS_AT_LEAST,
        "only {checked} `catalogue ...` invocations found in the documents"
    );
}

#[test]
fn image_tags_are_the_package_version() {
    let version = env!("CARGO_PKG_VERSION");
    let mut files = documents();
    for dir in ["deploy", "deploy/kubernetes"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                files.push(path);
            }
        }
    }
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in files {
        let text = read(&file);
        for (at, _) in text.match_indices("catalogue:") {
            let before = text[..at].chars().last().unwrap_or(' ');
            let tag: String = text[at + "catalogue:".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_'))
                .collect();
            // An image reference: `catalogue:<tag>` as a word of its own or after a
            // registry's `/`, with a tag starting with a digit.
            if !(before.is_whitespace() || before == '/')
                || !tag.starts_with(|c: char| c.is_ascii_digit())
            {
                continue;
            }
            seen += 1;
            if tag != version {
                wrong.push(format!("{}: catalogue:{tag}", name(&file)));
            }
        }
    }
    assert!(
        seen >= 4,
        "the image tags are where they were ({seen} found)"
    );
    assert!(wrong.is_empty(), "not {version}: {}", wrong.join(", "));
}

#[test]
fn the_readme_fits_a_first_read() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(
        lines < 300,
        "README.md has {lines} lines; move detail to docs/"
    );
    // The first screen: what it needs, the two commands, how to install it.
    let first: String = readme.lines().take(50).collect::<Vec<_>>().join("\n");
    for said in [
        "## What it needs",
        "rust-version",
        "C compiler",
        "cargo run --release",
        "cargo test",
        // Installing the binary just built, not building it again.
        "install -m 755 target/release/catalogue",
        "cargo install --locked --path .",
    ] {
        assert!(
            first.contains(said),
            "the README's first 50 lines lack {said:?}"
        );
    }
}

/// The files a text names by a path (`tests/layers.rs`, `serve/mod.rs`,
/// `export/openapi*.rs`): words with a slash that end in a file's extension.
fn file_names(text: &str) -> BTreeSet<String> {
    let path_char = |c: char| c.is_ascii_alphanumeric() || "_./*-".contains(c);
    text.split(|c: char| !path_char(c))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| w.contains('/') && !w.contains("//"))
        .filter(|w| {
            let ext = w.rsplit('.').next().unwrap_or_default();
            w.contains('.') && ["rs", "md", "sh", "toml", "yaml", "json", "py"].contains(&ext)
        })
        .map(String::from)
        .collect()
}

/// Every file under `dir`, as paths from the root.
fn files_under(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(name(&path));
        }
    }
}

/// Whether `named` (from the root, or from `src/` or a folder of it, with a
/// `*` standing for any characters) is one of `files`.
fn names_a_file(named: &str, files: &[String]) -> bool {
    let matches = |file: &str| match named.split_once('*') {
        None => file == named || file.ends_with(&format!("/{named}")),
        Some((start, end)) => {
            let Some(at) = file
                .rfind(start)
                .filter(|&at| at == 0 || file[..at].ends_with('/'))
            else {
                return false;
            };
            file[at + start.len()..].ends_with(end) && !file[at + start.len()..].contains('/')
        }
    };
    files.iter().any(|f| matches(f))
}

#[test]
fn the_architecture_names_only_files_that_exist() {
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches", "docs", "deploy"] {
        files_under(&root().join(dir), &mut files);
    }
    let text = read(&root().join("ARCHITECTURE.md"));
    let named = file_names(&text);
    assert!(named.len() > 20, "only {named:?} found");
    let missing: Vec<&String> = named.iter().filter(|n| !names_a_file(n, &files)).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {missing:?}"
    );
    // The check sees a file that is not there.
    assert!(!names_a_file("view/render.rs", &files));
    assert!(names_a_file("export/openapi*.rs", &files));
}
