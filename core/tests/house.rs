//! The house rules of the code, checked so that they stay true:
//!
//! - **rollcall-core does no I/O** (ARCHITECTURE.md): its dependencies, direct
//!   and transitive, are on an allow-list, and its source uses none of the
//!   standard library's doors to the world (files, network, processes, the
//!   environment, clocks, threads, printing).
//! - **No non-test function is over 100 lines**: a reader can hold
//!   each one.
//!
//! Both read the source as text: a lexer blanks out comments, strings and
//! character literals, so a word in a doc comment or a brace in a string does
//! not count.

use std::path::{Path, PathBuf};
use std::process::Command;

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
/// brace included.
const MAX_LINES: usize = 100;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn relative(path: &Path) -> String {
    path.strip_prefix(workspace()).unwrap().to_string_lossy().replace('\\', "/")
}

/// The source with every comment, string and character literal replaced by
/// spaces (newlines kept, so line numbers hold).
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && !ident_before && matches!(next, Some('"') | Some('#')) && raw_string_start(&chars, i + 1)
        {
            let mut hashes = 0;
            i += 1;
            out.push(' ');
            while chars[i] == '#' {
                hashes += 1;
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    out.push_str(&" ".repeat(hashes + 1));
                    i += hashes + 1;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('{', '\n', '\u{7b}'); otherwise a lifetime.
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn raw_string_start(chars: &[char], mut i: usize) -> bool {
    while chars.get(i) == Some(&'#') {
        i += 1;
    }
    chars.get(i) == Some(&'"')
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

/// Every function of the source outside test code: its name, first line
/// (1-based) and length in lines. Test code is a `#[cfg(test)]` item (a
/// module, a function) and is skipped whole.
fn functions(source: &str) -> Vec<(String, usize, usize)> {
    let code = code_only(source);
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if line.starts_with("#[cfg(test)]") {
            i = item_end(&lines, i + 1).map_or(i + 1, |end| end + 1);
            continue;
        }
        if let Some(name) = fn_name(line) {
            if let Some(end) = item_end(&lines, i) {
                found.push((name, i + 1, end - i + 1));
            }
        }
        i += 1;
    }
    found
}

/// The name of the function a line declares, if it does.
fn fn_name(line: &str) -> Option<String> {
    let mut rest = line;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("pub(") {
            rest = &r[r.find(')')? + 1..];
        } else if let Some(r) =
            ["pub ", "const ", "async ", "unsafe ", "extern \"C\" "].iter().find_map(|p| rest.strip_prefix(p))
        {
            rest = r;
        } else {
            break;
        }
    }
    let rest = rest.strip_prefix("fn ")?;
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!name.is_empty()).then_some(name)
}

/// The line (0-based) where the item starting at `start` ends: the brace
/// that closes its body, or None for an item without one (`fn f();`, `mod m;`).
fn item_end(lines: &[&str], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut opened = false;
    for (n, line) in lines.iter().enumerate().skip(start) {
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth = depth.saturating_sub(1),
                ';' if !opened => return None,
                _ => {}
            }
            if opened && depth == 0 {
                return Some(n);
            }
        }
    }
    None
}

/// A file of test code as a whole: a `tests.rs` or anything under `tests/`.
fn is_test_file(path: &str) -> bool {
    path.ends_with("/tests.rs") || path.contains("/tests/")
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
fn no_function_is_over_100_lines() {
    let mut files = Vec::new();
    for dir in ["core/src", "store/src", "cli/src"] {
        rust_files(&workspace().join(dir), &mut files);
    }
    let mut long = Vec::new();
    for path in &files {
        let path_text = relative(path);
        if is_test_file(&path_text) {
            continue;
        }
        for (name, line, length) in functions(&std::fs::read_to_string(path).unwrap()) {
            if length > MAX_LINES {
                long.push(format!("{path_text}:{line}: fn {name} is {length} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "no function outside tests is over {MAX_LINES} lines; split these by step or by fact family \
         (the match in the parent, helpers after it):\n{}",
        long.join("\n")
    );
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
/// `registry.rs`), and the CLI's store code does not reach up into its
/// commands (what both need, a game being created, is the store's).
#[test]
fn lower_layers_do_not_name_higher_ones() {
    let kernel = naming("core/src/ruleset.rs", "rulesets::");
    assert!(kernel.is_empty(), "core/src/ruleset.rs names the rulesets: {kernel:?}");
    let store = naming("cli/src/input/store.rs", "commands::");
    assert!(store.is_empty(), "cli/src/input/store.rs names the commands: {store:?}");
}
