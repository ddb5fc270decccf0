//! `rollcall view`: a game as one self-contained HTML page that steps
//! through it and draws the table at every step.
//!
//! [`render`] is a pure function of a record and [`ViewOptions`]: the
//! command writes its result to a file, and `serve` will send it for
//! `/games/{id}/view`. The page embeds the record itself, byte for byte (so
//! the page is also the evidence: it saves the record back out), the result
//! of a real `verify` run when the page was made, and, per event, what the
//! engine makes of it: its narration, the turn, how the state changed (a
//! small patch; see [`patch`]) and, for a die, its proof status. The page's
//! JavaScript only draws: it never re-folds facts, so no rule is written
//! twice.
//!
//! With [`Compare`], the record's decisions are run under two rule versions,
//! as `diff` does, and the page shows both runs side by side, stepping
//! together by decision, with every divergence marked.

mod patch;

use std::convert::Infallible;

use rollcall_core::diff::{diff, DiffError};
use rollcall_core::game::{verify, Decide, Game, OpenError, Verified, VerifyFailure};
use rollcall_core::record::{self, DecisionBody, Event, Header, Kind, SeedMode};
use rollcall_core::rules::RuleVersion;
use rollcall_core::ruleset::{Refusal, Violation};
use rollcall_core::sealed::RevealBody;
use serde::Serialize;
use serde_json::{json, Value};

use crate::args::Bookmark;

const TEMPLATE: &str = include_str!("../../../assets/viewer.html");
/// The viewer's style, which the play page builds on.
pub(crate) const STYLE: &str = include_str!("../../../assets/viewer.css");
const SCRIPT: &str = include_str!("../../../assets/viewer.js");
/// The table drawing the viewer and the play page share.
pub(crate) const BOARD: &str = include_str!("../../../assets/board.js");

/// The version of the page's embedded data (`rollcall-view`).
pub const VIEW_FORMAT_VERSION: u32 = 1;

/// Two rule versions to show side by side (`view --diff`).
#[derive(Debug, Clone)]
pub struct Compare {
    pub a: RuleVersion,
    pub b: RuleVersion,
}

/// What the page shows beyond the record.
#[derive(Debug, Clone, Default)]
pub struct ViewOptions {
    pub bookmarks: Vec<Bookmark>,
    pub compare: Option<Compare>,
}

/// Why a page cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    #[error("{0}")]
    Open(#[from] OpenError),
    #[error("--bookmark {seq}:{label}: the record has {events} events (seq 0 is the state before the first)")]
    Bookmark { seq: u64, label: String, events: u64 },
    #[error("--diff: {0}")]
    Diff(#[from] DiffError),
}

/// How far a die is proven, as the page shows it (the page labels each; a
/// word it does not know is shown as it is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DieProof {
    /// Re-drawn from the committed seed (or, sealed, from the revealed chain
    /// value of its turn) when the page was made, and equal.
    Proven,
    /// A sealed die whose turn the record has not revealed yet: "sealed until
    /// its turn ends".
    Sealed,
    /// Rolled by hand at a table: legal, but nobody can prove the face.
    Unproven,
    /// At or after the first event where verify failed: not checked.
    Unchecked,
}

/// What decides a die's proof in a record: its seed mode, where verify
/// failed, and (sealed) which decisions the record's reveals cover.
pub(crate) struct Proofs {
    mode: SeedMode,
    failed_at: Option<u64>,
    revealed: Vec<(u64, u64)>,
}

impl Proofs {
    pub(crate) fn of(header: &Header, events: &[Event], failed_at: Option<u64>) -> Proofs {
        let revealed = events
            .iter()
            .filter(|e| e.kind == Kind::Reveal)
            .filter_map(|e| serde_json::from_value::<RevealBody>(e.body.clone()).ok())
            .map(|r| (r.first, r.last))
            .collect();
        Proofs { mode: header.mode, failed_at, revealed }
    }

    /// The proof of the die at `seq` rolled for decision `decision`.
    pub(crate) fn of_die(&self, seq: u64, decision: u64) -> DieProof {
        if self.failed_at.is_some_and(|bad| seq >= bad) && self.mode != SeedMode::Table {
            return DieProof::Unchecked;
        }
        match self.mode {
            SeedMode::Table => DieProof::Unproven,
            SeedMode::Open => DieProof::Proven,
            SeedMode::Sealed if self.revealed.iter().any(|(first, last)| (*first..=*last).contains(&decision)) => {
                DieProof::Proven
            }
            SeedMode::Sealed => DieProof::Sealed,
        }
    }
}

/// What the page says about the record's integrity.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
enum Integrity {
    Verified { events: u64, decisions: u64, turn: u32, guarantee: &'static str },
    Failed { seq: Option<u64>, reason: String },
}

/// A page, and what verify said of its record when it was made.
pub struct Page {
    pub html: String,
    pub verified: Result<Verified, VerifyFailure>,
}

/// The page for a record: one self-contained HTML document. Pure: the same
/// record and options give the same bytes. What `serve` sends for
/// `/games/{id}/view`.
pub fn render(header: &Header, events: &[Event], options: &ViewOptions) -> Result<String, ViewError> {
    render_page(header, events, options).map(|page| page.html)
}

/// [`render`], also handing back the verification the page reports.
pub fn render_page(header: &Header, events: &[Event], options: &ViewOptions) -> Result<Page, ViewError> {
    let last = events.last().map_or(0, |e| e.seq);
    for b in &options.bookmarks {
        if b.seq > last {
            return Err(ViewError::Bookmark { seq: b.seq, label: b.label.clone(), events: last });
        }
    }
    let verified = verify(header, events.iter().cloned().map(Ok::<_, Infallible>), rollcall_core::registry::builtin());
    let data = page_data(header, events, options, &verified)?;
    let title = format!("{} · {} · rollcall", header.game, header.rules.label());
    Ok(Page { html: fill_template(&title, &data), verified })
}

fn page_data(
    header: &Header,
    events: &[Event],
    options: &ViewOptions,
    verified: &Result<Verified, VerifyFailure>,
) -> Result<Value, ViewError> {
    let last = events.last().map_or(0, |e| e.seq);
    let failed_at = match &verified {
        Ok(_) => None,
        Err(f) => Some(f.seq.unwrap_or(0)),
    };
    let integrity = match verified {
        Ok(v) => {
            Integrity::Verified { events: v.events, decisions: v.decisions, turn: v.turn, guarantee: v.guarantee() }
        }
        Err(f) => Integrity::Failed { seq: f.seq, reason: f.reason.clone() },
    };
    let mut record = String::new();
    record.push_str(&record::encode_header(header).map_err(|e| OpenError::Header(e.to_string()))?);
    record.push('\n');
    for e in events {
        record.push_str(&record::encode_event(e).map_err(|e| OpenError::Header(e.to_string()))?);
        record.push('\n');
    }
    let proofs = Proofs::of(header, events, failed_at);
    let runs = match &options.compare {
        None => vec![record_run(header, events, &proofs)?],
        Some(c) => compare_runs(header, events, c, &proofs)?,
    };
    let divergences = match &options.compare {
        None => Value::Null,
        Some(c) => {
            let report = diff(
                header,
                events.iter().cloned().map(Ok::<_, Infallible>),
                &c.a,
                &c.b,
                true,
                rollcall_core::registry::builtin(),
            )?;
            json!({"summary": report.summary(), "decisions": report.divergences.iter().map(|d| d.number).collect::<Vec<_>>()})
        }
    };
    Ok(json!({
        "format": "rollcall-view",
        "format_version": VIEW_FORMAT_VERSION,
        "made_by": concat!("rollcall ", env!("CARGO_PKG_VERSION")),
        "game": header.game,
        "ruleset": header.rules.ruleset(),
        "rules": header.rules.label(),
        "rules_hash": header.rules_hash.to_string(),
        "mode": header.mode,
        "parties": header.parties.iter().map(|p| json!({"name": p.name, "commitment": p.commitment.map(|c| c.to_string())})).collect::<Vec<_>>(),
        "head": events.last().map_or_else(|| record::header_hash(header).map(|h| h.to_string()).unwrap_or_default(), |e| e.hash.to_string()),
        "events": last,
        "integrity": integrity,
        "bookmarks": options.bookmarks,
        "divergences": divergences,
        "runs": runs,
        "record": record,
    }))
}

/// The record's own events, replayed: narration, turn, state patch, proof.
/// A record that stops folding (a broken link) is shown up to the event
/// before; the integrity banner says why.
fn record_run(header: &Header, events: &[Event], proofs: &Proofs) -> Result<Value, ViewError> {
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin())?;
    let initial = game.state();
    let mut before = initial.clone();
    let mut steps = Vec::with_capacity(events.len());
    for e in events {
        if game.apply(e).is_err() {
            break;
        }
        steps.push(step(&game, e, &mut before, proofs));
    }
    Ok(json!({"label": header.rules.label(), "initial": initial, "steps": steps}))
}

/// What the page needs of an event just folded into `game`: its kind,
/// narration and turn, the patch from `before` (then moved on) for a fact,
/// and the proof of a die.
fn step(game: &Game, e: &Event, before: &mut Value, proofs: &Proofs) -> Value {
    let mut step = json!({"kind": e.kind.name(), "text": game.narrate(e).trim(), "turn": game.turn()});
    match e.kind {
        Kind::Fact => {
            let after = game.state();
            let ops = patch::diff(before, &after);
            if !ops.is_empty() {
                step["patch"] = Value::Array(ops);
            }
            *before = after;
        }
        Kind::Roll => {
            let decision = e.body.get("decision").and_then(Value::as_u64).unwrap_or(0);
            step["proof"] = json!(proofs.of_die(e.seq, decision));
        }
        Kind::Decision | Kind::Checkpoint | Kind::Reveal => {}
    }
    step
}

/// The record's decisions under two versions, as `diff` runs them: each
/// version on its own state, dice drawn by address; a refused decision is
/// skipped under that version but keeps its number.
fn compare_runs(
    header: &Header,
    events: &[Event],
    compare: &Compare,
    proofs: &Proofs,
) -> Result<Vec<Value>, ViewError> {
    // A die of a run is the record's die at the same address: its proof is
    // the record's (a version's own events have no seq in the record).
    let proofs = Proofs { mode: proofs.mode, failed_at: None, revealed: proofs.revealed.clone() };
    let mut runs = Vec::new();
    for rules in [&compare.a, &compare.b] {
        let mut h = header.clone();
        h.rules = rules.clone();
        h.rules_hash = rules.hash();
        let mut game = Game::open(h, rollcall_core::registry::builtin())?;
        game.tolerate_unused_table_dice();
        let initial = game.state();
        let mut before = initial.clone();
        let mut steps = Vec::new();
        for e in events.iter().filter(|e| e.kind == Kind::Decision) {
            let Ok(body) = serde_json::from_value::<DecisionBody>(e.body.clone()) else { break };
            match game.decide(&body.decision, Decide { dice: body.dice.as_ref(), ..Decide::default() }) {
                Ok(decided) => {
                    for d in &decided.events {
                        game.adopt(std::slice::from_ref(d));
                        let mut step = step(&game, d, &mut before, &proofs);
                        step["body"] = d.body.clone();
                        step["decision"] = json!(body.number);
                        steps.push(step);
                    }
                }
                Err(refusal) => {
                    game.pass_decision();
                    let reason = match refusal {
                        Refusal::Violation(Violation::Dice(e)) => e.to_string(),
                        other => other.to_string(),
                    };
                    let text = format!(
                        "#{} {} — REFUSED: {reason}",
                        body.number,
                        rollcall_core::game::describe_decision(&body.decision)
                    );
                    steps.push(json!({"kind": "decision", "text": text, "turn": game.turn(), "body": e.body,
                        "decision": body.number, "refused": reason}));
                }
            }
        }
        runs.push(json!({"label": rules.label(), "initial": initial, "steps": steps}));
    }
    Ok(runs)
}

/// The template with its title, style, scripts and data put in (see [`fill`]).
fn fill_template(title: &str, data: &Value) -> String {
    let title = escape_html(title);
    let json = page_json(data);
    fill(
        TEMPLATE,
        &[
            ("{{TITLE}}", &title),
            ("/*{{STYLE}}*/", STYLE),
            ("/*{{BOARD}}*/", BOARD),
            ("/*{{SCRIPT}}*/", SCRIPT),
            ("{{DATA}}", &json),
        ],
    )
}

/// Data for a `<script type="application/json">`: every `<` in it is
/// written `\u003c`, so no text of the record can close the element, and
/// `JSON.parse` gives back the very same strings.
pub(crate) fn page_json(data: &Value) -> String {
    serde_json::to_string(data).expect("page data serialises").replace('<', "\\u003c")
}

/// A template with each part put in at its one marker, in the order the
/// markers stand; nothing put in is searched again (a record's text may
/// hold a marker). Every marker must be in the template once.
pub(crate) fn fill(template: &str, parts: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + parts.iter().map(|(_, with)| with.len()).sum::<usize>());
    let mut rest = template;
    let mut filled: Vec<(usize, &str, &str)> = parts
        .iter()
        .map(|(marker, with)| (template.find(marker).expect("the template has every marker"), *marker, *with))
        .collect();
    filled.sort_by_key(|(at, _, _)| *at);
    for (_, marker, with) in filled {
        let (before, after) = rest.split_once(marker).expect("markers in order");
        out.push_str(before);
        out.push_str(with);
        rest = after;
    }
    out.push_str(rest);
    out
}

pub(crate) fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests;
