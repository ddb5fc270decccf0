//! The house rules of the CLI's source (ARCHITECTURE.md, "cli/"), checked so
//! that its layers stay where a newcomer sees them:
//!
//! - **args/ imports nothing else of the CLI**: the command line is clap's
//!   types alone, and reads on its own.
//! - **No import cycle among the CLI's top-level modules** (`args`, `fail`,
//!   `input`, `output`, `commands`, `serve`, `tui`): a cycle found is
//!   printed, each step with the line that makes it.
//! - **No file of cli/src is over 400 lines** (its tests aside): a command,
//!   a family of them, a printer or a screen reads in one sitting.
//!
//! They read the source as text (`support/source.rs`): comments and string
//! literals are blanked out first, so a path named in a doc comment does
//! not count. How long a function may be is `core/tests/house.rs`'s rule,
//! for every crate.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[path = "support/source.rs"]
mod source;
use source::{code_only, is_test_file, rust_files, test_items};

/// The longest a file of cli/src may be, in lines outside its tests.
const MAX_FILE_LINES: usize = 400;

fn cli_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// `path` relative to cli/src, with forward slashes.
fn relative(path: &Path) -> String {
    path.strip_prefix(cli_src()).unwrap().to_string_lossy().replace('\\', "/")
}

/// The module path of a file relative to cli/src: `commands/play/stream.rs`
/// is `commands::play::stream`, `commands/play/mod.rs` is `commands::play`,
/// `main.rs` is the crate root (empty).
fn module_of(relative: &str) -> Vec<String> {
    let mut parts: Vec<String> = relative.trim_end_matches(".rs").split('/').map(String::from).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "main")) {
        parts.pop();
    }
    parts
}

/// Every module of the crate a source names, with the line (1-based) that
/// names it: each `crate::a::…` and each `use crate::{a, b::c}` gives its
/// first segment after `crate`; `super::…` is resolved from `module`, the
/// naming file's module path, to the top-level module it reaches. Read from
/// the code without its whitespace, so a path or a group written over
/// several lines counts.
fn named_modules(source: &str, module: &[String]) -> Vec<(usize, String)> {
    // The code, whitespace kept only between two words (`use crate`), each
    // byte with its line.
    let (mut compact, mut line_of) = (String::new(), Vec::new());
    let mut space = false;
    for (n, line) in code_only(source).lines().enumerate() {
        for c in line.chars().chain(['\n']) {
            if c.is_whitespace() {
                space = true;
                continue;
            }
            let word = |c: char| c.is_alphanumeric() || c == '_';
            if space && word(c) && compact.chars().last().is_some_and(word) {
                compact.push(' ');
                line_of.push(n + 1);
            }
            space = false;
            compact.push(c);
            line_of.extend(std::iter::repeat_n(n + 1, c.len_utf8()));
        }
    }
    let ident_before =
        |at: usize| compact[..at].chars().last().is_some_and(|c| c.is_alphanumeric() || "_$".contains(c));
    let mut found = Vec::new();
    for (at, _) in compact.match_indices("crate::") {
        if ident_before(at) {
            continue;
        }
        let rest = &compact[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => found.extend(group_heads(group).into_iter().map(|m| (line_of[at], m))),
            None => found.push((line_of[at], ident(rest))),
        }
    }
    let mut searched = 0;
    while let Some(found_at) = compact[searched..].find("super::") {
        let at = searched + found_at;
        let mut rest = &compact[at..];
        let mut up = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            up += 1;
            rest = r;
        }
        searched = compact.len() - rest.len();
        if ident_before(at) || up > module.len() {
            continue;
        }
        match module[..module.len() - up].first() {
            Some(top) => found.push((line_of[at], top.clone())),
            None => match rest.strip_prefix('{') {
                Some(group) => found.extend(group_heads(group).into_iter().map(|m| (line_of[at], m))),
                None => found.push((line_of[at], ident(rest))),
            },
        }
    }
    found.retain(|(_, m)| !m.is_empty() && m != "self");
    found.sort();
    found
}

/// The identifier `text` starts with.
fn ident(text: &str) -> String {
    text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// The first segment of each path of a `{a, b::c, d::{e, f}}` group whose
/// opening brace is just before `group`.
fn group_heads(group: &str) -> Vec<String> {
    let (mut heads, mut depth, mut at_start) = (Vec::new(), 0, true);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_start = true,
            _ if at_start && (c.is_alphanumeric() || c == '_') => {
                heads.push(ident(&group[i..]));
                at_start = false;
            }
            _ => {}
        }
    }
    heads
}

/// Which top-level module names which, each edge with the first place
/// (file:line) that makes it; the crate root (main.rs) aside.
fn module_graph(files: &[(String, String)]) -> BTreeMap<String, BTreeMap<String, String>> {
    let tops: Vec<String> = files.iter().filter_map(|(path, _)| module_of(path).first().cloned()).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (path, source) in files {
        let module = module_of(path);
        let Some(top) = module.first() else { continue };
        let edges = graph.entry(top.clone()).or_default();
        for (line, named) in named_modules(source, &module) {
            if &named != top && tops.contains(&named) {
                edges.entry(named).or_insert_with(|| format!("{path}:{line}"));
            }
        }
    }
    graph
}

/// A cycle of the graph, if it has one: the modules in order, the first
/// again at the end.
fn cycle(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeMap<String, String>>,
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.iter().any(|n| n == node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flat_map(|edges| edges.keys()) {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.push(node.to_string());
        None
    }
    let mut done = Vec::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

/// The cycle said step by step: `a -> b (file:line)`.
fn cycle_text(cycle: &[String], graph: &BTreeMap<String, BTreeMap<String, String>>) -> String {
    cycle.windows(2).map(|w| format!("  {} -> {} ({})", w[0], w[1], graph[&w[0]][&w[1]])).collect::<Vec<_>>().join("\n")
}

/// Every file of cli/src: its path relative to cli/src, and its text.
fn cli_files() -> Vec<(String, String)> {
    let mut paths = Vec::new();
    rust_files(&cli_src(), &mut paths);
    assert!(paths.len() > 40, "cli/src is read");
    paths.iter().map(|p| (relative(p), std::fs::read_to_string(p).unwrap())).collect()
}

#[test]
fn args_imports_nothing_else_of_the_cli() {
    let graph = module_graph(&cli_files());
    let named: Vec<String> =
        graph.get("args").into_iter().flatten().map(|(module, at)| format!("cli/src/{at}: names {module}")).collect();
    assert!(
        named.is_empty(),
        "args/ is the command line alone (clap's types): it names nothing else of the CLI, so no command's \
         module is needed to read it; move what it names into args/, or give the command its own argument \
         type there:\n{}",
        named.join("\n")
    );
}

#[test]
fn the_clis_top_level_modules_import_no_cycle() {
    let graph = module_graph(&cli_files());
    assert!(graph.contains_key("commands") && graph.contains_key("args"), "the modules are read: {graph:?}");
    if let Some(cycle) = cycle(&graph) {
        panic!(
            "the CLI's top-level modules import each other in a cycle, so no layer stands below another; move \
             what the lower one takes from the higher down into it (or into input/ or output/):\n{}",
            cycle_text(&cycle, &graph)
        );
    }
}

#[test]
fn no_file_of_the_cli_is_over_400_lines() {
    let mut long = Vec::new();
    for (path, source) in cli_files() {
        if is_test_file(&format!("cli/src/{path}")) {
            continue;
        }
        let code = code_only(&source);
        let tests: usize = test_items(&code).iter().map(|(start, end)| end - start + 1).sum();
        let lines = code.lines().count() - tests;
        if lines > MAX_FILE_LINES {
            long.push(format!("cli/src/{path}: {lines} lines"));
        }
    }
    assert!(
        long.is_empty(),
        "no file of cli/src is over {MAX_FILE_LINES} lines outside its tests; split it by command or by \
         part, or move what is not the command (a report's text, a reader) into output/ or input/:\n{}",
        long.join("\n")
    );
}

/// The checks above find what they look for, and not words about it.
#[test]
fn the_import_reader_finds_every_form_of_a_path() {
    let module = |path: &str| module_of(path);
    let named = |source: &str, path: &str| -> Vec<String> {
        named_modules(source, &module(path)).into_iter().map(|(_, m)| m).collect()
    };
    assert_eq!(named("use crate::output::Mode;", "args/mod.rs"), ["output"]);
    assert_eq!(named("use crate::{\n    args::Args,\n    output::Mode,\n};", "commands/mod.rs"), ["args", "output"]);
    assert_eq!(named("let x = crate :: input :: store :: open(db);", "args/play.rs"), ["input"]);
    assert_eq!(named("use crate::{fail::Fail, output::{self, Mode}, tui};", "args/mod.rs"), ["fail", "output", "tui"]);
    assert_eq!(named("use super::super::tui::Key;", "commands/play/stream.rs"), ["commands"]);
    assert_eq!(named("use super::output::Mode;", "commands/mod.rs"), ["output"]);
    assert_eq!(named("use super::{fail, input::store};", "serve/mod.rs"), ["fail", "input"]);
    assert_eq!(named("$crate::fail::Fail::msg(m)", "main.rs"), Vec::<String>::new());
    for quiet in [
        "// see crate::commands::run",
        "/// [`crate::tui::Model`]",
        "let s = \"crate::serve\";",
        "use rollcall_core::crate_name;",
        "use mycrate::commands;",
    ] {
        assert_eq!(named(quiet, "args/mod.rs"), Vec::<String>::new(), "{quiet}");
    }
    assert_eq!(module("main.rs"), Vec::<String>::new());
    assert_eq!(module("commands/play/mod.rs"), ["commands", "play"]);
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_says_each_step() {
    let files = |sources: &[(&str, &str)]| -> Vec<(String, String)> {
        sources.iter().map(|(p, s)| (p.to_string(), s.to_string())).collect()
    };
    let acyclic = files(&[
        ("args/mod.rs", ""),
        ("commands/mod.rs", "use crate::args::Args;\nuse crate::output::print;"),
        ("output/mod.rs", "use crate::fail::Fail;"),
        ("fail.rs", ""),
    ]);
    assert_eq!(cycle(&module_graph(&acyclic)), None);
    let cyclic = files(&[
        ("args/mod.rs", ""),
        ("commands/mod.rs", "use crate::serve;\n"),
        ("serve/mod.rs", "\nuse crate::tui::Key;"),
        ("tui/play/mod.rs", "fn f() { crate::commands::run(); }"),
    ]);
    let graph = module_graph(&cyclic);
    let found = cycle(&graph).expect("a cycle");
    assert_eq!(found, ["commands", "serve", "tui", "commands"]);
    assert_eq!(
        cycle_text(&found, &graph),
        "  commands -> serve (commands/mod.rs:1)\n  serve -> tui (serve/mod.rs:2)\n  tui -> commands (tui/play/mod.rs:1)"
    );
}
