//! `rollcall impact … -o report.html`: the impact report as one
//! self-contained HTML page, the same report as the text and `--json`
//! (summary counts, each parting game with its first divergence, counts per
//! decision and fact type, the final states' differing fields). Like the
//! viewer's page it needs no network: the style is inline and it has no
//! script; each parting game has an anchor the summary links to.
//!
//! [`render`] is pure: the same report gives the same bytes.

use rollcall_core::diff::Setup;
use rollcall_core::impact::{Class, GameImpact, Impact, Left};

const STYLE: &str = "
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222;background:#fff}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1em;margin-bottom:.3em}
table{border-collapse:collapse;margin:.5em 0}th,td{padding:.2em .7em;border-bottom:1px solid #eee;text-align:right}
th:first-child,td:first-child{text-align:left}pre{background:#f6f6f6;padding:.6em;overflow-x:auto;white-space:pre-wrap}
.outcome{color:#a00}.reasoning{color:#a60}.agree{color:#060}.game{margin:1em 0;padding:.2em 1em;border-left:4px solid #a00}
.game.reasoning-only{border-left-color:#a60}code{background:#f6f6f6;padding:0 .2em}
@media (prefers-color-scheme:dark){body{background:#111;color:#ddd}pre,code{background:#222}th,td{border-color:#333}}
";

/// The page for `impact` over `targets` against `b`.
pub fn render(b: &str, targets: &[String], impact: &Impact) -> String {
    let mut h = String::new();
    let title = format!("impact of --b {b} over {}", targets.join(" "));
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str(&format!("<title>{} · rollcall</title>\n<style>{STYLE}</style>\n</head>\n<body>\n", esc(&title)));
    h.push_str(&format!("<h1>{}</h1>\n", esc(&title)));
    summary(&mut h, b, impact);
    parting(&mut h, impact);
    tallies(&mut h, impact);
    for (title, list) in [
        ("Do not verify under their own rules (not compared)", &impact.unproven),
        ("Skipped (B does not apply, or diff cannot run them)", &impact.skipped),
    ] {
        left(&mut h, title, list);
    }
    h.push_str(&format!("<p><a href=\"#summary\">{}</a></p>\n", esc(&impact.summary())));
    h.push_str(concat!("<footer><small>made by rollcall ", env!("CARGO_PKG_VERSION"), "</small></footer>\n"));
    h.push_str("</body>\n</html>\n");
    h
}

/// What A and B are, the verdict, and the counts of games and decisions.
fn summary(h: &mut String, b: &str, impact: &Impact) {
    let a_b = if b.starts_with('+') {
        format!("A = each game's own rules, B = the same with {b}")
    } else {
        format!("A = each game's own rules, B = {b}")
    };
    h.push_str(&format!("<p>{}</p>\n", esc(&a_b)));
    let verdict = if impact.agree() { "agree" } else { "outcome" };
    h.push_str(&format!("<p class=\"{verdict}\" id=\"summary\"><strong>{}</strong></p>\n", esc(&impact.summary())));
    h.push_str("<table>\n<tr><th>games</th><th></th></tr>\n");
    for (label, n) in [
        ("compared", impact.games),
        ("agree", impact.agreeing),
        ("part on outcome", impact.part_on_outcome),
        ("part only in recorded reasoning", impact.part_in_reasoning_only),
        ("do not verify under their own rules", impact.unproven.len() as u64),
        ("skipped", impact.skipped.len() as u64),
        ("decisions compared", impact.decisions),
        ("decisions that part", impact.divergent_decisions),
    ] {
        h.push_str(&format!("<tr><td>{label}</td><td>{n}</td></tr>\n"));
    }
    h.push_str("</table>\n");
}

/// The games that part: a list linking to each, then those that part on
/// outcome, each with its first divergence, then those that part only in
/// reasoning.
fn parting(h: &mut String, impact: &Impact) {
    let outcome: Vec<(usize, &GameImpact)> =
        impact.parting.iter().enumerate().filter(|(_, g)| g.class == Class::Outcome).collect();
    let reasoning: Vec<(usize, &GameImpact)> =
        impact.parting.iter().enumerate().filter(|(_, g)| g.class == Class::Reasoning).collect();
    if !impact.parting.is_empty() {
        h.push_str("<h2>Games that part</h2>\n<ul>\n");
        for (i, g) in impact.parting.iter().enumerate() {
            let class = if g.class == Class::Outcome { "outcome" } else { "reasoning" };
            let what = if g.class == Class::Outcome { "on outcome" } else { "only in reasoning" };
            h.push_str(&format!(
                "<li><a href=\"#game-{i}\">{}</a> <span class=\"{class}\">{what}</span>: {} of {} decisions</li>\n",
                esc(&g.game),
                if g.class == Class::Outcome { g.divergent } else { g.reasoning_only },
                g.decisions
            ));
        }
        h.push_str("</ul>\n");
    }
    if !outcome.is_empty() {
        h.push_str("<h2>Games that part on outcome</h2>\n");
        for (i, g) in outcome {
            game_section(h, i, g);
        }
    }
    if !reasoning.is_empty() {
        h.push_str("<h2>Games that part only in the reasoning their facts record (the same outcomes)</h2>\n");
        for (i, g) in reasoning {
            h.push_str(&format!(
                "<div class=\"game reasoning-only\" id=\"game-{i}\"><h3>{}</h3><p>{} of {} decisions (A = {}, B = {})</p></div>\n",
                esc(&g.game),
                g.reasoning_only,
                g.decisions,
                esc(&g.a),
                esc(&g.b)
            ));
        }
    }
}

fn game_section(h: &mut String, i: usize, g: &GameImpact) {
    h.push_str(&format!(
        "<div class=\"game\" id=\"game-{i}\"><h3>{}</h3>\n<p>A = {}, B = {}</p>\n",
        esc(&g.game),
        esc(&g.a),
        esc(&g.b)
    ));
    let mut first = String::new();
    match (&g.first, &g.setup) {
        (_, Setup::Refused { a, b }) => {
            for (label, reason) in [("A", a), ("B", b)] {
                if let Some(reason) = reason {
                    first.push_str(&format!("{label} refuses the scenario: {reason}\n"));
                }
            }
        }
        (Some(d), setup) => {
            if matches!(setup, Setup::Differs) {
                first.push_str("the versions set the game up differently\n");
            }
            first.push_str(&crate::commands::diff::divergence_text(d));
        }
        (None, _) => first.push_str("the versions set the game up differently; every decision has the same outcome\n"),
    }
    if let Some(d) = &g.first {
        h.push_str(&format!("<p>first divergence: decision {} (seq {}), turn {}</p>\n", d.number, d.seq, d.turn));
    }
    h.push_str(&format!("<pre>{}</pre>\n", esc(first.trim_end())));
    h.push_str(&format!(
        "<p>{} of {} decisions differ in outcome; {}</p>\n</div>\n",
        g.divergent,
        g.decisions,
        esc(&super::text::end_text(g))
    ));
}

fn tallies(h: &mut String, impact: &Impact) {
    if !impact.by_decision.is_empty() {
        h.push_str("<h2>By decision type</h2>\n<table>\n<tr><th>decision</th><th>compared</th><th>part on outcome</th><th>only in reasoning</th><th>refused under A only</th><th>under B only</th></tr>\n");
        for (kind, c) in &impact.by_decision {
            h.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(kind),
                c.decisions,
                c.outcome,
                c.reasoning,
                c.refused_under_a_only,
                c.refused_under_b_only
            ));
        }
        h.push_str("</table>\n");
    }
    if !impact.by_fact.is_empty() {
        h.push_str("<h2>By fact type</h2>\n<table>\n<tr><th>fact</th><th>under A</th><th>under B</th><th>A's with another verdict under B</th><th>A's gone under B</th><th>new under B</th></tr>\n");
        for (kind, c) in &impact.by_fact {
            h.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(kind),
                c.a,
                c.b,
                c.changed,
                c.gone,
                c.new
            ));
        }
        h.push_str("</table>\n");
    }
    if !impact.end_fields.is_empty() {
        h.push_str("<h2>Final states, where A and B end differently</h2>\n<table>\n<tr><th>field</th><th>games</th><th>places</th></tr>\n");
        for (field, c) in &impact.end_fields {
            h.push_str(&format!("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", esc(field), c.games, c.places));
        }
        h.push_str("</table>\n");
    }
}

fn left(h: &mut String, title: &str, list: &[Left]) {
    if list.is_empty() {
        return;
    }
    h.push_str(&format!("<h2>{} {}</h2>\n<ul>\n", list.len(), esc(title)));
    for l in list {
        h.push_str(&format!("<li>{}: {}</li>\n", esc(&l.game), esc(&l.reason)));
    }
    h.push_str("</ul>\n");
}

/// Text as HTML text or an attribute value.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rollcall_core::impact::GameImpact;

    fn parting(game: &str, class: Class) -> GameImpact {
        GameImpact {
            game: game.into(),
            a: "leader-activation@base".into(),
            b: "leader-activation@base+natural-6-rallies".into(),
            class,
            decisions: 10,
            divergent: u64::from(class == Class::Outcome),
            reasoning_only: u64::from(class == Class::Reasoning),
            refused_under_a: 0,
            refused_under_b: 0,
            setup: Setup::Same,
            first: None,
            end: Default::default(),
            by_decision: Default::default(),
            by_fact: Default::default(),
        }
    }

    #[test]
    fn a_game_name_that_is_markup_is_shown_as_text() {
        let mut impact = Impact::default();
        impact.add(parting("<script>alert(1)</script>", Class::Outcome));
        let page = render("+x", &["dir".into()], &impact);
        assert!(!page.contains("<script>"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    #[test]
    fn every_parting_game_is_linked_from_the_list_to_its_anchor() {
        let mut impact = Impact::default();
        impact.add(parting("a.json", Class::Outcome));
        impact.add(parting("b.json", Class::Reasoning));
        let page = render("+x", &["dir".into()], &impact);
        for i in 0..impact.parting.len() {
            assert!(page.contains(&format!("href=\"#game-{i}\"")), "{page}");
            assert!(page.contains(&format!("id=\"game-{i}\"")), "{page}");
        }
        assert!(page.contains("only in reasoning"));
    }
}
