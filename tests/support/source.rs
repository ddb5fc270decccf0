//! Rust source read as text, for the house tests (`core/tests/house.rs`,
//! `tests/house.rs`): the files of a folder, the code with comments and
//! literals blanked out, the functions and their lengths, the items kept
//! for tests. Each test includes it with `#[path]`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, in order.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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

/// The source with every comment, string and character literal replaced by
/// spaces (newlines kept, so line numbers hold).
pub fn code_only(source: &str) -> String {
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

/// Every function of the source outside test code: its name, first line
/// (1-based) and length in lines. Test code is a `#[cfg(test)]` item (a
/// module, a function) and is skipped whole.
pub fn functions(source: &str) -> Vec<(String, usize, usize)> {
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
pub fn fn_name(line: &str) -> Option<String> {
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
pub fn item_end(lines: &[&str], start: usize) -> Option<usize> {
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
pub fn is_test_file(path: &str) -> bool {
    path.ends_with("/tests.rs") || path.contains("/tests/")
}

/// The lines (0-based, `start..=end`) of every `#[cfg(test)]` item of the
/// source: test code, which the length rules skip.
pub fn test_items(code: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim().starts_with("#[cfg(test)]") {
            let end = item_end(&lines, i + 1).unwrap_or(i + 1);
            found.push((i, end));
            i = end + 1;
        } else {
            i += 1;
        }
    }
    found
}
