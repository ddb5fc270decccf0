//! Finding the line of a field in a JSON text.
//!
//! serde reports *which* field is wrong (`decisions[3].unit`); a person
//! fixing a file wants the line too. This walks the text along the path and
//! returns the line where the deepest part of the path that exists begins.

/// One step of a path: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

fn steps(path: &str) -> Vec<Step> {
    let mut out = Vec::new();
    for part in path.split('.') {
        if part.is_empty() || part == "$" || part == "?" {
            continue;
        }
        let mut rest = part;
        if let Some(open) = rest.find('[') {
            if open > 0 {
                out.push(Step::Key(rest[..open].to_string()));
            }
            rest = &rest[open..];
            while let Some(stripped) = rest.strip_prefix('[') {
                let Some(close) = stripped.find(']') else {
                    break;
                };
                if let Ok(i) = stripped[..close].parse() {
                    out.push(Step::Index(i));
                }
                rest = &stripped[close + 1..];
            }
        } else {
            out.push(Step::Key(rest.to_string()));
        }
    }
    out
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        if b == b'\n' {
            self.line += 1;
        }
        self.pos += 1;
        Some(b)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.bump();
        }
    }

    fn string(&mut self) -> Option<String> {
        if self.bump()? != b'"' {
            return None;
        }
        let start = self.pos;
        loop {
            match self.bump()? {
                b'\\' => {
                    self.bump()?;
                }
                b'"' => break,
                _ => {}
            }
        }
        let raw = std::str::from_utf8(&self.bytes[start - 1..self.pos]).ok()?;
        serde_json::from_str(raw).ok()
    }

    fn skip_value(&mut self) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.bump();
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.bump();
                }
            }
            _ => {
                while !matches!(self.peek(), None | Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')) {
                    self.bump();
                }
                Some(())
            }
        }
    }

    /// The line of the value at `path`, or of the deepest part found.
    fn find(&mut self, path: &[Step]) -> usize {
        self.ws();
        let here = self.line;
        let Some(step) = path.first() else {
            return here;
        };
        match (self.peek(), step) {
            (Some(b'{'), Step::Key(want)) => {
                self.bump();
                loop {
                    self.ws();
                    if self.peek() != Some(b'"') {
                        return here;
                    }
                    let Some(key) = self.string() else {
                        return here;
                    };
                    self.ws();
                    if self.bump() != Some(b':') {
                        return here;
                    }
                    if &key == want {
                        return self.find(&path[1..]);
                    }
                    if self.skip_value().is_none() {
                        return here;
                    }
                    self.ws();
                    if self.bump() != Some(b',') {
                        return here;
                    }
                }
            }
            (Some(b'['), Step::Index(want)) => {
                self.bump();
                let mut i = 0;
                loop {
                    self.ws();
                    if self.peek() == Some(b']') {
                        return here;
                    }
                    if i == *want {
                        return self.find(&path[1..]);
                    }
                    if self.skip_value().is_none() {
                        return here;
                    }
                    self.ws();
                    if self.bump() != Some(b',') {
                        return here;
                    }
                    i += 1;
                }
            }
            _ => here,
        }
    }
}

/// The 1-based line of the field at `path` (serde's `a.b[2].c` form) in `text`.
pub fn line_of(text: &str, path: &str) -> usize {
    let mut scanner = Scanner { bytes: text.as_bytes(), pos: 0, line: 1 };
    scanner.find(&steps(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"{
  "game": "g",
  "scenario": {"units": [
    {"id": "U1", "at": [0, 0]},
    {"id": "U2",
     "at": [1, 2]}
  ]},
  "decisions": [
    {"type": "begin-turn", "first": "allies"},
    {"type": "command",
     "unit": "U9"}
  ]
}"#;

    #[test]
    fn finds_the_line_of_a_field() {
        assert_eq!(line_of(TEXT, "game"), 2);
        assert_eq!(line_of(TEXT, "scenario.units[1].at"), 6);
        assert_eq!(line_of(TEXT, "decisions[1]"), 10);
        assert_eq!(line_of(TEXT, "decisions[1].unit"), 11);
        // A missing field points at the deepest part that exists.
        assert_eq!(line_of(TEXT, "decisions[1].nothing"), 10);
        assert_eq!(line_of(TEXT, "decisions[7]"), 8);
        assert_eq!(line_of(TEXT, "$"), 1);
    }
}
