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
use source::{code_only, functions, is_test_file, rust_files};

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
