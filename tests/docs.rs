//! The documentation as a reader meets it: every relative link of the
//! repository's Markdown leads to a file that is there (and to a heading
//! of it, when it names one); the user guide (`docs/book/`) lists every
//! page it has, links only inside itself, and has a reference page for
//! every command the binary has; the README opens with the two commands a
//! newcomer types; and the player chapter's play-by-email game runs as
//! written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::Command;

#[path = "support/binary.rs"]
mod binary;
use binary::{root, stderr, stdout};

/// The guide's sources.
fn book() -> PathBuf {
    root().join("docs/book/src")
}

/// Every Markdown file of the repository that a reader may open, as
/// paths relative to the root: not the build outputs, not the vendored
/// crate's own documents, not fuzzing's working folders.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
        let skip = ["target", ".git", "vendor", "book", "corpus", "artifacts"];
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_str().unwrap().to_string();
            let rel = rel.join(&name);
            if entry.file_type().unwrap().is_dir() {
                // `docs/book/book` is mdBook's output; `docs/book/src` is kept.
                if !skip.contains(&name.as_str()) || rel == Path::new("docs/book") {
                    walk(&entry.path(), &rel, out);
                }
            } else if name.ends_with(".md") {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), Path::new(""), &mut out);
    out.push(PathBuf::from("vendor/sled-0.34.7/ROLLCALL.md"));
    out
}

/// The lines of a Markdown text that are prose: fenced code blocks left out.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// A line without its inline code spans (a link shown as code is no link).
fn without_code(line: &str) -> String {
    let mut out = String::new();
    for (i, part) in line.split('`').enumerate() {
        if i % 2 == 0 {
            out.push_str(part);
        }
    }
    out
}

/// The targets of a text's inline links and images, `[text](target)`, with
/// their lines; and of its reference definitions, `[label]: target`.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose(text) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("").to_string();
            out.push((n, target));
            rest = &after[end..];
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            if let Some((_, target)) = trimmed.split_once("]: ") {
                out.push((n, target.trim().to_string()));
            }
        }
    }
    out
}

/// The mdBook includes of a text, `{{#include PATH[:LINES]}}`: their paths.
fn includes(text: &str) -> Vec<String> {
    text.match_indices("{{#include ")
        .map(|(at, _)| {
            let rest = &text[at + "{{#include ".len()..];
            let inner = &rest[..rest.find("}}").expect("an include is closed")];
            inner.split(':').next().unwrap().trim().to_string()
        })
        .collect()
}

/// A heading's anchor as GitHub and mdBook both write it: lowercase,
/// letters, digits, `-` and `_` kept, spaces made `-`, the rest dropped.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // A link in a heading reads as its text.
    while let Some(open) = rest.find('[') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match (after.find("]("), after.find(')')) {
            (Some(close), Some(end)) if close < end => {
                text.push_str(&after[..close]);
                rest = &after[end + 1..];
            }
            _ => {
                text.push('[');
                rest = after;
            }
        }
    }
    text.push_str(rest);
    text.to_lowercase()
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings, its includes' headings with
/// them, numbered as both renderers number a heading that repeats.
fn anchors(path: &Path) -> BTreeSet<String> {
    fn headings(path: &Path, out: &mut Vec<String>) {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (_, line) in prose(&text) {
            if let Some(heading) = line.strip_prefix('#') {
                let heading = heading.trim_start_matches('#');
                if heading.starts_with(' ') {
                    out.push(slug(heading.trim()));
                }
            }
            for include in includes(line) {
                let target = path.parent().unwrap().join(include);
                if target.extension().is_some_and(|e| e == "md") {
                    headings(&target, out);
                }
            }
        }
    }
    let mut all = Vec::new();
    headings(path, &mut all);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for anchor in all {
        let n = seen.entry(anchor.clone()).or_insert(0);
        out.insert(if *n == 0 { anchor.clone() } else { format!("{anchor}-{n}") });
        *n += 1;
    }
    out
}

/// `base/rel` with `.` and `..` taken out, as a browser resolves a link.
fn resolve(base: &Path, rel: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(rel).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// Every relative link of every Markdown file leads to a file that
/// exists, and to a heading of it when it names one; a page of the guide
/// links (and includes its text) only from inside the repository, and
/// links only inside the guide, so that the built book has every page it
/// points to.
#[test]
fn every_link_of_the_documentation_leads_somewhere() {
    let root = root();
    let mut broken = Vec::new();
    let files = markdown_files();
    assert!(files.len() > 40, "{files:?}");
    for file in &files {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let dir = path.parent().unwrap().to_path_buf();
        let in_book = path.starts_with(book());
        for (line, target) in links(&text) {
            let at = format!("{}:{line}: {target}", file.display());
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file_part, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let linked = if file_part.is_empty() { path.clone() } else { resolve(&dir, file_part) };
            if !linked.exists() {
                broken.push(format!("{at}: no such file"));
                continue;
            }
            if in_book && !linked.starts_with(book()) {
                broken.push(format!("{at}: leads out of the guide (docs/book/src), which the built book lacks"));
            }
            if let Some(anchor) = anchor {
                if linked.extension().is_some_and(|e| e == "md") && !anchors(&linked).contains(anchor) {
                    broken.push(format!("{at}: no heading with that anchor"));
                }
            }
        }
        for include in includes(&text) {
            let included = resolve(&dir, &include);
            if !included.exists() || !included.starts_with(&root) {
                broken.push(format!("{}: includes {include}, which is not in the repository", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "links that lead nowhere:\n{}", broken.join("\n"));
}

/// The guide's table of contents names every page the guide has, and only
/// pages it has.
#[test]
fn the_guide_lists_every_page_it_has() {
    let summary = std::fs::read_to_string(book().join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<PathBuf> = links(&summary).into_iter().map(|(_, t)| PathBuf::from(t)).collect();
    let mut pages = BTreeSet::new();
    for file in markdown_files() {
        if let Ok(page) = root().join(&file).strip_prefix(book()) {
            if page != Path::new("SUMMARY.md") {
                pages.insert(page.to_path_buf());
            }
        }
    }
    let unlisted: Vec<_> = pages.difference(&listed).collect();
    let missing: Vec<_> = listed.difference(&pages).collect();
    assert!(unlisted.is_empty(), "pages SUMMARY.md does not list: {unlisted:?}");
    assert!(missing.is_empty(), "SUMMARY.md lists pages the guide lacks: {missing:?}");
}

/// Every command `rollcall --help` lists has its page in the guide's
/// reference, titled with its name, listed in SUMMARY.md and in the
/// commands' table; and every page there is a command's.
#[test]
fn every_command_has_its_reference_page() {
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall")).arg("--help").output().unwrap();
    let help = stdout(&out);
    let commands: BTreeSet<String> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 20, "{commands:?}");
    let dir = book().join("reference/commands");
    let summary = std::fs::read_to_string(book().join("SUMMARY.md")).unwrap();
    let table = std::fs::read_to_string(book().join("reference/commands.md")).unwrap();
    for command in &commands {
        let page = dir.join(format!("{command}.md"));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|_| {
            panic!("rollcall {command} has no page: write docs/book/src/reference/commands/{command}.md")
        });
        assert_eq!(text.lines().next(), Some(format!("# {command}").as_str()), "{}", page.display());
        let link = format!("(reference/commands/{command}.md)");
        assert!(summary.contains(&link), "SUMMARY.md does not list {link}");
        assert!(table.contains(&format!("(commands/{command}.md)")), "reference/commands.md does not list {command}");
    }
    let pages: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    let strays: Vec<_> = pages.difference(&commands).collect();
    assert!(strays.is_empty(), "pages for commands the binary does not have: {strays:?}");
}

/// The README's first block of commands is the two a newcomer types on a
/// fresh machine, exactly as written.
#[test]
fn the_readme_opens_with_the_two_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let block = readme.split("```sh\n").nth(1).expect("the README has a sh block").split("```").next().unwrap();
    let commands: Vec<&str> =
        block.lines().map(|l| l.split(" #").next().unwrap().trim()).filter(|l| !l.is_empty()).collect();
    assert_eq!(commands, ["cargo run --bin rollcall -- demo", "cargo test --workspace"], "{block}");
    let at = readme.find("cargo run --bin rollcall -- demo").unwrap();
    assert!(readme[..at].lines().count() < 40, "the two commands come near the top");
}

/// The player chapter's game on one machine runs as written, in a shell,
/// from the repository's root: two stores, the handshake, three turn files,
/// and a record both players verify. Its scratch folder is a temporary one.
#[test]
fn the_player_chapters_game_runs_as_written() {
    let chapter = std::fs::read_to_string(book().join("player.md")).unwrap();
    let section = chapter.split("## Playing it all on one machine").nth(1).expect("the chapter has the section");
    let block = section.split("```sh\n").nth(1).unwrap().split("```").next().unwrap();
    assert!(block.contains("turn apply turn-3.txt") && block.contains("verify friday.jsonl"), "{block}");
    let dir = tempfile::tempdir().unwrap();
    let scratch = dir.path().join("rollcall-pbem");
    let script = block.replace("/tmp/rollcall-pbem", scratch.to_str().unwrap());
    let bin = Path::new(env!("CARGO_BIN_EXE_rollcall")).parent().unwrap().to_str().unwrap().to_string();
    let path = format!("{bin}:{}", std::env::var("PATH").unwrap_or_default());
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("set -eu\n{script}"))
        .current_dir(root())
        .env("PATH", path)
        .env_remove("ROLLCALL_DB")
        .env_remove("ROLLCALL_STORE")
        .env_remove("CI")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let (text, errors) = (stdout(&out), stderr(&out));
    assert!(out.status.success(), "the block failed:\n{text}\n{errors}");
    assert!(text.contains("verified friday.jsonl: leader-activation@1"), "{text}");
    assert!(text.contains("signed turns: allies 2, axis 1"), "{text}");
}
