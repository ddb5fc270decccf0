//! The house rules of the code, checked so that they stay true:
//!
//! - **rollcall-core does no I/O** (ARCHITECTURE.md): its dependencies, direct
//!   and transitive, are on an allow-list, and its source uses none of the
//!   standard library's doors to the world (files, network, processes, the
//!   environment, clocks, threads, printing).
//! - **No non-test function is over 70 lines** (100 in rollcall-core, until
//!   its longest are split): a reader can hold each one.
//!
//! Both read the source as text (`tests/support/source.rs`): a lexer blanks
//! out comments, strings and character literals, so a word in a doc comment
//! or a brace in a string does not count.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../tests/support/source.rs"]
mod source;
use source::{code_only, functions, is_test_file, item_end, rust_files};

/// The crates rollcall-core may depend on directly. A new one is reviewed
/// before it is added here: it must not touch files, the network, the clock,
/// the operating system's randomness or threads.
const DIRECT: &[&str] = &[
    "base64",
    "blake3",
    "ed25519-dalek",
    "rand_chacha",
    "rand_core",
    // JSON Schemas of the files core reads (`rollcall_core::schema`): a
    // derive and a value builder over serde_json; no I/O.
    "schemars",
    "serde",
    "serde_json",
    "serde_path_to_error",
    "thiserror",
];

/// Every crate in rollcall-core's normal dependency tree (`cargo tree -e
/// normal`, on this host), reviewed: hashing, serialisation, signatures, and
/// the proc-macros behind them. None does I/O. Notably absent: `getrandom`
/// (the OS's randomness), `libc`, and the store's and the CLI's crates.
const TREE: &[&str] = &[
    "arrayvec",
    "base64",
    "blake3",
    "block-buffer",
    "cfg-if",
    "constant_time_eq",
    "cpufeatures",
    "crypto-common",
    "curve25519-dalek",
    "curve25519-dalek-derive",
    "digest",
    "dyn-clone",
    "ed25519",
    "ed25519-dalek",
    "generic-array",
    "itoa",
    "memchr",
    "ppv-lite86",
    "proc-macro2",
    "quote",
    "rand_chacha",
    "rand_core",
    "ref-cast",
    "ref-cast-impl",
    "rollcall-core",
    "schemars",
    "schemars_derive",
    "serde",
    "serde_core",
    "serde_derive",
    "serde_derive_internals",
    "serde_json",
    "serde_path_to_error",
    "sha2",
    "signature",
    "subtle",
    "syn",
    "thiserror",
    "thiserror-impl",
    "typenum",
    "unicode-ident",
    "zerocopy",
    "zeroize",
    "zmij",
];

/// What core's source must not name: the standard library's files, network,
/// processes, environment, clocks and threads, and printing.
const FORBIDDEN: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::env",
    "std::time",
    "std::thread",
    "std::io::stdin",
    "std::io::stdout",
    "std::io::stderr",
    "eprintln!",
    "println!",
    "eprint!",
    "print!",
    "dbg!",
];

/// Modules a grouped import (`use std::{fs, io}`) must not name.
const FORBIDDEN_MODULES: &[&str] = &["fs", "net", "process", "env", "time", "thread"];

/// The longest a non-test function may be, in lines, signature and closing
/// brace included, in each crate's source: 70, which a reader holds at once;
/// the kernel and the rulesets still have longer ones (a ruleset's
/// `evolve`, settings and narration, diff's decision step), held at 100
/// until they are split.
const MAX_LINES: &[(&str, usize)] = &[("core/src", 100), ("store/src", 70), ("server/src", 70), ("cli/src", 70)];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn relative(path: &Path) -> String {
    path.strip_prefix(workspace()).unwrap().to_string_lossy().replace('\\', "/")
}

/// Each line (1-based) of core-style source that names a door to the world,
/// with what it names.
fn io_uses(source: &str) -> Vec<(usize, String)> {
    let code = code_only(source);
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if let Some(what) = FORBIDDEN.iter().find(|w| compact.contains(*w)) {
            found.push((n + 1, what.to_string()));
            continue;
        }
        if let Some(start) = compact.find("std::{") {
            let group = &compact[start + 6..];
            let group = &group[..group.find('}').unwrap_or(group.len())];
            if let Some(module) =
                group.split(',').map(|m| m.split("::").next().unwrap_or(m)).find(|m| FORBIDDEN_MODULES.contains(m))
            {
                found.push((n + 1, format!("std::{module}")));
            }
        }
    }
    found
}

#[test]
fn core_depends_only_on_crates_that_do_no_io() {
    let manifest = std::fs::read_to_string(workspace().join("core/Cargo.toml")).unwrap();
    let mut direct: Vec<&str> = manifest
        .split("\n[")
        .find(|section| section.starts_with("dependencies]"))
        .expect("core/Cargo.toml has a [dependencies] section")
        .lines()
        .skip(1)
        .filter_map(|line| {
            line.split(['=', '.']).next().map(str::trim).filter(|name| !name.is_empty() && !name.starts_with('#'))
        })
        .collect();
    direct.sort();
    let unknown: Vec<&&str> = direct.iter().filter(|d| !DIRECT.contains(d)).collect();
    assert!(
        unknown.is_empty(),
        "rollcall-core does no I/O, and it gained the dependencies {unknown:?}: check that they touch no files, network, \
         clock, OS randomness or threads, and add them to DIRECT in core/tests/house.rs"
    );

    let output = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-p", "rollcall-core", "-e", "normal", "--prefix", "none", "-f", "{p}"])
        .current_dir(workspace())
        .output()
        .expect("cargo runs");
    assert!(output.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&output.stderr));
    let tree = String::from_utf8(output.stdout).unwrap();
    let names: Vec<&str> = tree.lines().filter_map(|line| line.split_whitespace().next()).collect();
    assert!(names.contains(&"blake3"), "cargo tree lists core's dependencies:\n{tree}");
    let mut unknown: Vec<&str> = names.into_iter().filter(|n| !TREE.contains(n)).collect();
    unknown.sort();
    unknown.dedup();
    assert!(
        unknown.is_empty(),
        "rollcall-core does no I/O, and its dependency tree gained {unknown:?}: check that they touch no files, network, \
         clock, OS randomness or threads, and add them to TREE in core/tests/house.rs"
    );
}

#[test]
fn core_source_uses_no_io() {
    let mut files = Vec::new();
    rust_files(&workspace().join("core/src"), &mut files);
    assert!(files.len() > 40, "core/src is read");
    let mut found = Vec::new();
    for path in &files {
        for (line, what) in io_uses(&std::fs::read_to_string(path).unwrap()) {
            found.push(format!("{}:{line}: {what}", relative(path)));
        }
    }
    assert!(
        found.is_empty(),
        "rollcall-core does no I/O; only the CLI prints, reads and writes:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_io_check_finds_each_door_and_not_words_about_it() {
    for (source, what) in [
        ("let s = std::fs::read_to_string(p);", "std::fs"),
        ("use std::net::TcpStream;", "std::net"),
        ("std::process::exit(1);", "std::process"),
        ("let v = std :: env :: var(\"X\");", "std::env"),
        ("let t = std::time::Instant::now();", "std::time"),
        ("std::thread::spawn(f);", "std::thread"),
        ("use std::{collections::BTreeMap, fs};", "std::fs"),
        ("use std::{io::Write, env::args};", "std::env"),
        ("println!(\"{x}\");", "println!"),
        ("eprintln!(\"{x}\");", "eprintln!"),
        ("dbg!(x);", "dbg!"),
    ] {
        assert_eq!(io_uses(source), vec![(1, what.to_string())], "{source}");
    }
    for quiet in [
        "// core never calls std::fs",
        "/// no println! here",
        "let s = \"std::process\";",
        "let s = r#\"println!\"#;",
        "use std::{collections::BTreeMap, fmt::Write};",
        "write!(out, \"{x}\")?;",
    ] {
        assert_eq!(io_uses(quiet), vec![], "{quiet}");
    }
}

#[test]
fn no_function_is_over_its_crates_limit() {
    let mut long = Vec::new();
    for (dir, most) in MAX_LINES {
        let mut files = Vec::new();
        if !workspace().join(dir).is_dir() {
            continue;
        }
        rust_files(&workspace().join(dir), &mut files);
        for path in &files {
            let path_text = relative(path);
            if is_test_file(&path_text) {
                continue;
            }
            for (name, line, length) in functions(&std::fs::read_to_string(path).unwrap()) {
                if length > *most {
                    long.push(format!("{path_text}:{line}: fn {name} is {length} lines (at most {most} in {dir})"));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "no function outside tests is over its crate's limit; split these by step or by fact family \
         (the match in the parent, helpers after it):\n{}",
        long.join("\n")
    )
}

#[test]
fn the_length_check_counts_bodies_and_skips_tests() {
    let body = |n: usize| "    x += 1;\n".repeat(n);
    let source = format!(
        "pub(crate) fn short() -> u32 {{\n{}}}\n\nfn long<'a>(s: &'a str) {{\n    let brace = '{{';\n    let text = \"}}}}\";\n{}}}\n\
         trait T {{\n    fn declared(&self);\n}}\n#[cfg(test)]\nmod tests {{\n    fn in_tests() {{\n{}    }}\n}}\n",
        body(98),
        body(97),
        body(200)
    );
    let found = functions(&source);
    assert_eq!(
        found,
        vec![("short".to_string(), 1, 100), ("long".to_string(), 102, 101)],
        "a 100-line function, a 101-line one with braces in literals, a declaration and a test module"
    );
}

/// Every kind of refusal a ruleset declares (in its `refusals.rs`) is one
/// its decide code gives: a kind nothing refuses with is a name `--json`
/// consumers would wait for in vain.
#[test]
fn every_declared_kind_of_refusal_is_given_somewhere() {
    let rulesets = workspace().join("core/src/rulesets");
    let mut unused = Vec::new();
    for entry in std::fs::read_dir(&rulesets).unwrap() {
        let dir = entry.unwrap().path();
        let declared = dir.join("refusals.rs");
        if !declared.exists() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        let code: String = files
            .iter()
            .filter(|p| !is_test_file(&relative(p)) && !p.ends_with("refusals.rs"))
            .map(|p| code_only(&std::fs::read_to_string(p).unwrap()))
            .collect();
        for line in std::fs::read_to_string(&declared).unwrap().lines() {
            let Some((variant, _)) = line.trim().split_once(" = \"") else { continue };
            if !code.contains(&format!("Refused::{variant},")) {
                unused.push(format!("{}: {variant}", relative(&declared)));
            }
        }
    }
    assert!(unused.is_empty(), "kinds of refusal no decision is refused with:\n{}", unused.join("\n"));
}

/// Lines of `file` that name `module`.
fn naming(file: &str, module: &str) -> Vec<(usize, String)> {
    let source = std::fs::read_to_string(workspace().join(file)).unwrap();
    source.lines().enumerate().filter(|(_, l)| l.contains(module)).map(|(i, l)| (i + 1, l.to_string())).collect()
}

/// Layers point one way: the kernel does not know which rulesets
/// there are (the registry and the look-ups by id live above it, in
/// `registry.rs`). The CLI's layers are held in `tests/house.rs`.
#[test]
fn lower_layers_do_not_name_higher_ones() {
    let kernel = naming("core/src/ruleset.rs", "rulesets::");
    assert!(kernel.is_empty(), "core/src/ruleset.rs names the rulesets: {kernel:?}");
}

// ---------------------------------------------------------------------------
// The floors of core: imports point down, never round

/// The modules above the kernel: the rulesets, the registry of them, and
/// what is built over them (the JSON Schemas of each ruleset's files, the
/// simulated players of each). Every other module of core is the kernel,
/// which knows the shape of a ruleset but not which rulesets there are.
const ABOVE_THE_KERNEL: &[&str] = &["registry", "rulesets", "schema", "sim"];

/// The module graph of `core/src`, as its non-test code imports: the
/// modules it is cut into ([`module_of`]) and, for each import between two
/// of them, the first place it is made (`file:line`).
struct Graph {
    modules: Vec<String>,
    edges: std::collections::BTreeMap<(String, String), String>,
}

/// The module a file of `core/src` belongs to, at the graph's grain: a
/// top-level module (`game`, for `game.rs` and everything under `game/`);
/// but under `rulesets/`, its `mod.rs` (`rulesets`), each ruleset's
/// `mod.rs` (`rulesets::phoenix_command`) and each of a ruleset's own files
/// (a section of its rules: `rulesets::phoenix_command::fire`, files under
/// a section's folder with it). `None` for `lib.rs`, the crate's root.
fn module_of(path: &[String]) -> Option<String> {
    match path.first().map(String::as_str) {
        None => None,
        Some("rulesets") => Some(path.iter().take(3).cloned().collect::<Vec<_>>().join("::")),
        Some(top) => Some(top.to_string()),
    }
}

/// A file's module path (`core/src/moves/form.rs` is `moves::form`; a
/// `mod.rs` is its folder's).
fn module_path(relative: &str) -> Vec<String> {
    let mut path: Vec<String> = relative.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(path.last().map(String::as_str), Some("mod" | "lib")) {
        path.pop();
    }
    path
}

/// The source with every `#[cfg(test)]` item blanked (lines kept), from
/// [`code_only`]'s output.
fn without_tests(code: &str) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim().starts_with("#[cfg(test)]") {
            let end = item_end(&lines, i + 1).unwrap_or(i + 1);
            out.extend(std::iter::repeat_n("", end + 1 - i));
            i = end + 1;
            continue;
        }
        out.push(lines[i]);
        i += 1;
    }
    out.join("\n")
}

/// Every path a `use` tree names, each as its segments
/// (`crate::{a::{b, c as d}, e}` gives `crate::a::b`, `crate::a::c`,
/// `crate::e`; `self` in a group names the group's own path).
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    fn walk(chars: &[char], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut current = String::new();
        let push = |current: &mut String, out: &mut Vec<Vec<String>>| {
            let text = current.split(" as ").next().unwrap_or("").trim().to_string();
            if !text.is_empty() {
                let mut path = prefix.to_vec();
                if text != "self" {
                    path.extend(text.split("::").filter(|s| !s.is_empty()).map(str::to_string));
                }
                out.push(path);
            }
            current.clear();
        };
        while *i < chars.len() {
            let c = chars[*i];
            *i += 1;
            match c {
                '{' => {
                    let mut path = prefix.to_vec();
                    path.extend(current.split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_string));
                    current.clear();
                    walk(chars, i, &path, out);
                }
                '}' => break,
                ',' => push(&mut current, out),
                c => current.push(c),
            }
        }
        push(&mut current, out);
    }
    let chars: Vec<char> = tree.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
    let mut out = Vec::new();
    walk(&chars, &mut 0, &[], &mut out);
    out.into_iter().filter(|p| !p.iter().any(|s| s == "*") || p.len() > 1).collect()
}

/// Each path of non-test code that starts `crate::`, `super::` or
/// `self::` (in a `use` tree or written inline), with its line (1-based).
fn paths_named(source: &str) -> Vec<(usize, Vec<String>)> {
    let code = without_tests(&code_only(source));
    let mut found = Vec::new();
    let line_at = |at: usize| code[..at].matches('\n').count() + 1;
    let mut rest = 0;
    while let Some(start) = code[rest..].find("use ").map(|s| s + rest) {
        rest = start + 4;
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = code[rest..].find(';').map(|e| e + rest) else { break };
        for path in use_paths(&code[rest..end]) {
            if matches!(path.first().map(String::as_str), Some("crate" | "super" | "self")) {
                found.push((line_at(start), path));
            }
        }
    }
    let chars: Vec<char> = code.chars().collect();
    let mut at = 0;
    let mut byte = 0;
    while at < chars.len() {
        let word_start = at == 0 || !(chars[at - 1].is_alphanumeric() || chars[at - 1] == '_' || chars[at - 1] == ':');
        let head =
            ["crate::", "super::", "self::"].iter().find(|h| chars[at..].starts_with(&h.chars().collect::<Vec<_>>()));
        if let (true, Some(_)) = (word_start, head) {
            let mut segments = Vec::new();
            let mut j = at;
            loop {
                let ident: String = chars[j..].iter().take_while(|c| c.is_alphanumeric() || **c == '_').collect();
                if ident.is_empty() {
                    break;
                }
                j += ident.chars().count();
                segments.push(ident);
                if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
                    j += 2;
                } else {
                    break;
                }
            }
            // `crate::{…}` is a `use` tree, read above.
            if segments.len() > 1 {
                found.push((line_at(byte), segments));
            }
            for c in &chars[at..j] {
                byte += c.len_utf8();
            }
            at = j;
            continue;
        }
        byte += chars[at].len_utf8();
        at += 1;
    }
    found
}

/// The module a path names from a file at `from` (its module path), among
/// `modules`: the longest of its prefixes that is one, after `super` and
/// `self` are taken off; an item of the crate's root (`crate::Game`,
/// `crate::refuse!`) is its module's, by `roots`.
fn module_named(
    from: &[String],
    path: &[String],
    modules: &[String],
    roots: &std::collections::BTreeMap<String, String>,
) -> Option<String> {
    let mut full: Vec<String> = Vec::new();
    let mut segments = path.iter().peekable();
    match segments.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segments.next();
        }
        Some("super" | "self") => {
            full = from.to_vec();
            while let Some(s) = segments.peek() {
                match s.as_str() {
                    "super" => full.pop(),
                    "self" => None,
                    _ => break,
                };
                segments.next();
            }
        }
        _ => return None,
    }
    full.extend(segments.cloned());
    for take in (1..=full.len().min(3)).rev() {
        let candidate = full[..take].join("::");
        if modules.contains(&candidate) && module_of(&full[..take]).as_deref() == Some(candidate.as_str()) {
            return Some(candidate);
        }
    }
    full.first().and_then(|root| roots.get(root)).cloned()
}

/// Whether `module` is `ancestor` or one of its descendants.
fn within(module: &str, ancestor: &str) -> bool {
    module == ancestor || module.starts_with(&format!("{ancestor}::"))
}

/// The graph of `core/src`'s modules. A module naming one within itself
/// (`rulesets::phoenix_command`, its `mod.rs`, naming its own
/// `rulesets::phoenix_command::fire`) is not an import: a folder's `mod.rs`
/// declares its files and ties them together, the root they hang from
/// rather than a floor among them; its files' naming of it is counted.
fn core_graph() -> Graph {
    let src = workspace().join("core/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let relative_to_src = |p: &Path| p.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
    let test_only = |r: &str| r == "testing.rs" || is_test_file(&format!("/{r}"));
    let mut modules: Vec<String> = files
        .iter()
        .map(|p| relative_to_src(p))
        .filter(|r| !test_only(r))
        .filter_map(|r| module_of(&module_path(&r)))
        .collect();
    modules.sort();
    modules.dedup();
    // Items the crate's root re-exports, and the macros it exports.
    let mut roots = std::collections::BTreeMap::new();
    let lib = code_only(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    for line in lib.lines().filter_map(|l| l.trim().strip_prefix("pub use ")) {
        for path in use_paths(line.trim_end_matches(';')) {
            if let (Some(module), Some(item)) = (path.first(), path.last()) {
                roots.insert(item.clone(), module.clone());
            }
        }
    }
    for path in &files {
        let code = code_only(&std::fs::read_to_string(path).unwrap());
        let module = module_of(&module_path(&relative_to_src(path)));
        for (i, _) in code.match_indices("#[macro_export]") {
            let name = code[i..].split("macro_rules!").nth(1).and_then(|r| r.split_whitespace().next());
            if let (Some(name), Some(module)) = (name, module.clone()) {
                roots.insert(name.trim_end_matches('{').to_string(), module);
            }
        }
    }
    let mut edges = std::collections::BTreeMap::new();
    for path in &files {
        let relative = relative_to_src(path);
        let from_path = module_path(&relative);
        let Some(from) = module_of(&from_path).filter(|_| !test_only(&relative)) else { continue };
        for (line, named) in paths_named(&std::fs::read_to_string(path).unwrap()) {
            let Some(to) = module_named(&from_path, &named, &modules, &roots) else { continue };
            if !within(&to, &from) {
                edges.entry((from.clone(), to)).or_insert_with(|| format!("core/src/{relative}:{line}"));
            }
        }
    }
    Graph { modules, edges }
}

impl Graph {
    fn next<'a>(&'a self, module: &'a str) -> impl Iterator<Item = &'a String> {
        self.edges.keys().filter(move |(from, _)| from == module).map(|(_, to)| to)
    }

    /// A cycle through the graph, each step with the place its import is
    /// made, if there is one (a depth-first walk finding a module already
    /// on its path).
    fn cycle(&self) -> Option<Vec<String>> {
        #[derive(Clone, Copy, PartialEq)]
        enum Seen {
            No,
            OnPath,
            Done,
        }
        fn visit(
            graph: &Graph,
            module: &str,
            seen: &mut Vec<(String, Seen)>,
            path: &mut Vec<String>,
        ) -> Option<Vec<String>> {
            let mark = |seen: &mut Vec<(String, Seen)>, m: &str, s: Seen| {
                seen.iter_mut().find(|(n, _)| n == m).expect("a module of the graph").1 = s
            };
            mark(seen, module, Seen::OnPath);
            path.push(module.to_string());
            for next in graph.next(module) {
                match seen.iter().find(|(n, _)| n == next).map_or(Seen::Done, |(_, s)| *s) {
                    Seen::OnPath => {
                        let start = path.iter().position(|m| m == next).expect("on the path");
                        let mut cycle = path[start..].to_vec();
                        cycle.push(next.clone());
                        return Some(cycle);
                    }
                    Seen::No => {
                        if let Some(cycle) = visit(graph, next, seen, path) {
                            return Some(cycle);
                        }
                    }
                    Seen::Done => {}
                }
            }
            path.pop();
            mark(seen, module, Seen::Done);
            None
        }
        let mut seen: Vec<(String, Seen)> = self.modules.iter().map(|m| (m.clone(), Seen::No)).collect();
        for module in &self.modules {
            if seen.iter().any(|(n, s)| n == module && *s == Seen::No) {
                if let Some(cycle) = visit(self, module, &mut seen, &mut Vec::new()) {
                    return Some(cycle);
                }
            }
        }
        None
    }

    /// A cycle written one import a line: `a -> b (core/src/a.rs:12)`.
    fn describe(&self, cycle: &[String]) -> String {
        cycle
            .windows(2)
            .map(|step| format!("  {} -> {}  ({})", step[0], step[1], self.edges[&(step[0].clone(), step[1].clone())]))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// **Imports in core point down, never round**: its modules (top-level
/// modules, and under `rulesets/` each ruleset and each section of its
/// rules: see [`module_of`]) import one another without a cycle, so each
/// can be read knowing only the ones below it. Reads `use crate::…`,
/// `use super::…` and paths written inline, in non-test code.
#[test]
fn core_imports_have_no_cycle() {
    let graph = core_graph();
    assert!(graph.modules.len() > 40 && graph.edges.len() > 100, "core/src is read: {:?}", graph.modules);
    if let Some(cycle) = graph.cycle() {
        panic!(
            "core's modules import one another round a cycle; move what they share below them:\n{}",
            graph.describe(&cycle)
        );
    }
}

/// **The kernel knows no ruleset**: no module of the kernel imports the
/// registry, a ruleset, or what is built over them ([`ABOVE_THE_KERNEL`]).
/// What the kernel needs of a ruleset it is handed, by its caller.
#[test]
fn the_kernel_imports_no_ruleset() {
    let graph = core_graph();
    let above = |m: &str| ABOVE_THE_KERNEL.iter().any(|a| within(m, a));
    let upward: Vec<String> = graph
        .edges
        .iter()
        .filter(|((from, to), _)| !above(from) && above(to))
        .map(|((from, to), at)| format!("  {from} -> {to}  ({at})"))
        .collect();
    assert!(upward.is_empty(), "the kernel imports what is above it:\n{}", upward.join("\n"));
}

#[test]
fn the_import_reader_finds_each_kind_of_path_and_not_words_about_them() {
    let source = "use std::fmt;\n\
        use crate::{dice::{Dice, Roll as R}, digest};\n\
        use super::{self, fire::hit};\n\
        // use crate::registry;\n\
        fn f() { let s = \"crate::rulesets\"; crate::game::Game::open(x); $crate::ruleset::Violation; }\n\
        pub(crate) use self::inner::X;\n\
        #[cfg(test)]\nmod tests {\n    use crate::sim;\n}\n";
    let named: Vec<(usize, String)> = paths_named(source).into_iter().map(|(l, p)| (l, p.join("::"))).collect();
    let expected = [
        (2, "crate::dice::Dice"),
        (2, "crate::dice::Roll"),
        (2, "crate::digest"),
        (3, "super"),
        (3, "super::fire::hit"),
        (6, "self::inner::X"),
        (5, "crate::game::Game::open"),
        (5, "crate::ruleset::Violation"),
        (6, "self::inner::X"),
    ];
    assert_eq!(named, expected.iter().map(|(l, p)| (*l, p.to_string())).collect::<Vec<_>>());

    let modules: Vec<String> =
        ["game", "rulesets", "rulesets::phoenix_command", "rulesets::phoenix_command::fire"].map(String::from).to_vec();
    let roots = std::collections::BTreeMap::from([("Game".to_string(), "game".to_string())]);
    let from: Vec<String> = ["rulesets", "phoenix_command", "actions"].map(String::from).to_vec();
    let named =
        |path: &str| module_named(&from, &path.split("::").map(String::from).collect::<Vec<_>>(), &modules, &roots);
    assert_eq!(named("super::fire::hit").as_deref(), Some("rulesets::phoenix_command::fire"));
    assert_eq!(named("super::State").as_deref(), Some("rulesets::phoenix_command"));
    assert_eq!(named("super::super::begun").as_deref(), Some("rulesets"));
    assert_eq!(named("crate::game::Game").as_deref(), Some("game"));
    assert_eq!(named("crate::Game").as_deref(), Some("game"));
    assert_eq!(named("std::fmt"), None);
}

#[test]
fn the_cycle_finder_names_a_cycle_and_the_imports_that_make_it() {
    let edge = |a: &str, b: &str| ((a.to_string(), b.to_string()), format!("{a}.rs:1"));
    let graph = Graph {
        modules: ["a", "b", "c", "d"].map(String::from).to_vec(),
        edges: [edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("a", "d")].into_iter().collect(),
    };
    let cycle = graph.cycle().expect("a -> b -> c -> a");
    assert_eq!(cycle, ["a", "b", "c", "a"]);
    assert_eq!(graph.describe(&cycle), "  a -> b  (a.rs:1)\n  b -> c  (b.rs:1)\n  c -> a  (c.rs:1)");
    let acyclic = Graph { edges: [edge("a", "b"), edge("b", "c"), edge("a", "c")].into_iter().collect(), ..graph };
    assert_eq!(acyclic.cycle(), None);
}
