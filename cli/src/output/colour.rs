//! Colour for the verdict lines of verify, diff and impact: green when all
//! is well, red when it is not. Printed through anstream, as clap prints its
//! own help: the colour reaches a terminal only, and `NO_COLOR`,
//! `CLICOLOR=0` and `TERM=dumb` turn it off (`CLICOLOR_FORCE` turns it on).

use anstyle::{AnsiColor, Style};

/// How a verdict went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Good,
    Bad,
}

fn style(verdict: Verdict) -> Style {
    let colour = match verdict {
        Verdict::Good => AnsiColor::Green,
        Verdict::Bad => AnsiColor::Red,
    };
    Style::new().fg_color(Some(colour.into())).bold()
}

/// `text`, escaped as `say!` escapes it, in the verdict's colour.
pub fn styled(text: &str, verdict: Verdict) -> String {
    let style = style(verdict);
    format!("{style}{}{style:#}", rollcall_core::text::escape_lines(text))
}

/// Prints a verdict line on standard output (`say!` with colour).
pub fn say(text: &str, verdict: Verdict) {
    anstream::println!("{}", styled(text, verdict));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_is_wrapped_in_its_colour_and_its_text_escaped() {
        assert_eq!(styled("ok", Verdict::Good), "\u{1b}[1m\u{1b}[32mok\u{1b}[0m");
        assert_eq!(styled("bad", Verdict::Bad), "\u{1b}[1m\u{1b}[31mbad\u{1b}[0m");
        assert!(!styled("a\u{1b}[2Jb", Verdict::Bad)[9..].contains("\u{1b}[2J"), "the text's own escapes are escaped");
    }

    #[test]
    fn without_a_terminal_the_colour_is_stripped() {
        let mut out = anstream::StripStream::new(Vec::new());
        std::io::Write::write_all(&mut out, styled("verified x", Verdict::Good).as_bytes()).unwrap();
        assert_eq!(String::from_utf8(out.into_inner()).unwrap(), "verified x");
    }
}
