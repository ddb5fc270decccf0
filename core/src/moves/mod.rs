//! What may I do now: the decisions a side may make in a state, grouped by
//! type, each ready to send, with what the engine knows of it before its
//! dice fall.
//!
//! A ruleset proposes ([`crate::ruleset::Ruleset::proposals`]) the
//! decisions worth listing in a state: the members of each that are fixed,
//! and the free fields a player or the referee fills in (a move's
//! destination, an action's text, the odds read from a table), each with an
//! example value. Nothing here judges legality: `decide` does, as for every
//! decision. A proposal is listed when its example is decided without
//! refusal on the state, with dice that are not the game's ([`PROBES`]
//! fixed seeds): so a listing depends only on the written state, and in a
//! sealed game tells nothing of the dice to come. What those probes draw is
//! listed as the dice a decision will draw (label and kind, never a face);
//! what its facts say before any die falls (a command range, a CP cost, a
//! target number) is read from them by the ruleset
//! ([`crate::ruleset::Ruleset::known`]) and kept where every probe agrees.
//!
//! A [`Listing`] is what `rollcall moves` prints, what `rollcall play
//! --pick` picks from ([`Listing::pick`], [`Entry::fill`]) and what
//! `GET /games/{id}/moves` answers: a terminal menu and a web page render
//! it without knowing the ruleset ([`form`] describes every kind of field).

mod pick;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a ruleset proposes and knows, and the fields a listed decision is
/// filled in with: listed here, defined in [`crate::proposal`].
pub use crate::proposal::{form, Choice, Cost, DiceDrawn, Field, Form, Known, Passes, Proposal, Range, Shape, Target};
pub use pick::{FillError, PickError};

use crate::dice::{Dice, Roll, Seed};
use crate::game::Game;
use crate::record::SeedMode;
use crate::ruleset::Actor;

/// How many times a proposal's example is decided, each with dice of its
/// own fixed seed: the first decides whether it is listed; the others find
/// dice drawn only on some outcomes, and what the facts say whatever the
/// dice (kept only where every probe agrees).
pub const PROBES: u32 = 3;

/// The dice of probe `i`: a public, fixed seed, never a game's.
fn probe_seed(i: u32) -> Seed {
    Seed(*blake3::hash(format!("rollcall/moves/probe/{i}").as_bytes()).as_bytes())
}

// ---------------------------------------------------------------------------
// The listing

/// The decisions legal now for a side (or the referee), grouped by type and
/// numbered: what `moves --json` prints and `GET /games/{id}/moves`
/// answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Listing {
    pub game: String,
    /// The seq of the head the listing was made on.
    pub seq: u64,
    /// The head's hash: send decisions on it (`expected_head`).
    pub head: String,
    pub turn: u32,
    pub mode: SeedMode,
    /// The side listed for (with the referee's inputs, which either side
    /// may enter); none: the referee's inputs alone.
    pub side: Option<String>,
    /// Whose decision the game awaits: a side, or "referee".
    pub awaited: String,
    /// Groups of one decision type each: the side's own first, then the
    /// referee's; entries are numbered from 1 across them.
    pub groups: Vec<Group>,
}

/// The entries of one decision type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Group {
    /// The decision type ("command").
    #[serde(rename = "type")]
    pub kind: String,
    /// Its heading in the rules' words.
    pub title: String,
    /// Referee inputs: what the engine cannot compute, entered by either side.
    pub referee: bool,
    pub entries: Vec<Entry>,
}

/// One decision legal now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    /// Its number in the listing, from 1: what `play --pick N` takes.
    pub n: usize,
    /// The decision, ready to send once its fields are filled in (a field
    /// left out here is one of `fields`).
    pub decision: Value,
    /// Its text for `play --pick`: `command unit=rifles-1`.
    pub pick: String,
    /// What it does, in words.
    pub says: String,
    /// Who makes it: a side, or "referee".
    pub by: String,
    pub referee: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// Rolls made against a number.
    #[serde(default)]
    pub targets: Vec<Target>,
    /// The dice it draws (their labels and kinds, never a face); for an
    /// entry with fields, those its fields' examples draw.
    #[serde(default)]
    pub dice: Vec<DiceDrawn>,
    /// What must (or may) be filled in before it is sent.
    #[serde(default)]
    pub fields: Vec<Field>,
}

/// A side the game does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{side:?} is not a side of this game ({})", sides.join(", "))]
pub struct UnknownSide {
    pub side: String,
    pub sides: Vec<String>,
}

/// Who a listing is for when none is named: the side whose decision the
/// game awaits, or (when it awaits the referee) none.
pub fn awaited_side(game: &Game) -> Option<String> {
    match game.awaited() {
        Actor::Side(side) => Some(side),
        Actor::Referee => None,
    }
}

/// The decisions legal now for `side` (its own and the referee's inputs),
/// or, with none, the referee's inputs alone.
pub fn list(game: &Game, side: Option<&str>) -> Result<Listing, UnknownSide> {
    if let Some(side) = side {
        let sides = game.sides();
        if !sides.iter().any(|s| s == side) {
            return Err(UnknownSide { side: side.to_string(), sides });
        }
    }
    let entries: Vec<(Proposal, Actor, Entry)> =
        game.proposals().into_iter().filter_map(|p| listed(game, side, p)).collect();
    Ok(Listing {
        game: game.header().game.clone(),
        seq: game.seq(),
        head: game.head().to_string(),
        turn: game.turn(),
        mode: game.header().mode,
        side: side.map(str::to_string),
        awaited: actor_name(&game.awaited()),
        groups: grouped(entries),
    })
}

fn actor_name(actor: &Actor) -> String {
    match actor {
        Actor::Side(side) => side.clone(),
        Actor::Referee => "referee".to_string(),
    }
}

/// Whether a decision by `author` is listed for `side` (none: the referee).
fn listed_for(author: &Actor, side: Option<&str>) -> bool {
    match side {
        Some(side) => author.allows(side),
        None => *author == Actor::Referee,
    }
}

/// Groups entries by decision type, the side's groups before the
/// referee's, each in the order first proposed; numbers them.
fn grouped(entries: Vec<(Proposal, Actor, Entry)>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (proposal, author, entry) in entries {
        let kind = entry.decision["type"].as_str().unwrap_or_default().to_string();
        let referee = author == Actor::Referee;
        match groups.iter_mut().find(|g| g.kind == kind && g.referee == referee) {
            Some(g) => g.entries.push(entry),
            None => groups.push(Group { kind, title: proposal.group.to_string(), referee, entries: vec![entry] }),
        }
    }
    groups.sort_by_key(|g| g.referee);
    let mut n = 0;
    for entry in groups.iter_mut().flat_map(|g| g.entries.iter_mut()) {
        n += 1;
        entry.n = n;
    }
    groups
}

/// What one probe of an example decided: its known facts and its dice.
struct Probed {
    known: Known,
    rolls: Vec<Roll>,
}

fn probe(game: &Game, decision: &Value, i: u32) -> Option<Probed> {
    let seed = probe_seed(i);
    let mut dice = Dice::seeded(&seed, game.decisions() + 1);
    let known = game.probe(decision, &mut dice).ok()?;
    Some(Probed { known, rolls: dice.rolls().to_vec() })
}

/// A proposal as listed for `side`, if it is its (or the referee's) and one
/// of its examples is decided without refusal.
fn listed(game: &Game, side: Option<&str>, mut proposal: Proposal) -> Option<(Proposal, Actor, Entry)> {
    let mut chosen = None;
    for example in proposal.candidates() {
        let Ok(author) = game.author(&example) else {
            debug_assert!(false, "a proposal that does not read as a decision: {example}");
            continue;
        };
        if !listed_for(&author, side) {
            return None;
        }
        if let Some(first) = probe(game, &example, 0) {
            chosen = Some((example, author, first));
            break;
        }
    }
    let (example, author, first) = chosen?;
    let mut probes = vec![first];
    probes.extend((1..PROBES).filter_map(|i| probe(game, &example, i)));
    for field in &mut proposal.fields {
        field.example = example.get(&field.name).cloned();
        prune_choices(game, &example, field);
    }
    let dice = dice_drawn(&probes);
    let mut fields = proposal.fields.clone();
    if game.header().mode == SeedMode::Table && !dice.is_empty() {
        fields.push(Field::table_dice(&dice, &probes[0].rolls));
    }
    let known = match proposal.fields.is_empty() || proposal.known_whatever_the_fields {
        true => probes.iter().skip(1).fold(probes[0].known.clone(), |k, p| k.agreed(&p.known)),
        false => Known::default(),
    };
    let decision = Value::Object(proposal.decision.clone());
    let entry = Entry {
        n: 0,
        pick: crate::game::describe_decision(&decision),
        decision,
        says: proposal.says.clone(),
        by: actor_name(&author),
        referee: author == Actor::Referee,
        range: known.range,
        cost: known.cost,
        targets: known.targets,
        dice,
        fields,
    };
    Some((proposal, author, entry))
}

/// Keeps, of a field's choices, those with which the example is decided
/// without refusal (for several-of: each chosen alone).
fn prune_choices(game: &Game, example: &Value, field: &mut Field) {
    if field.keep_choices {
        return;
    }
    let with = |value: Value| {
        let mut decision = example.clone();
        decision[field.name.as_str()] = value;
        probe(game, &decision, 0).is_some()
    };
    match &field.shape {
        Shape::OneOf { choices } => {
            let kept = choices.iter().filter(|c| with(c.value.clone())).cloned().collect();
            field.shape = Shape::OneOf { choices: kept };
        }
        Shape::SomeOf { choices, min, max } if *min <= 1 && *max >= 1 => {
            let kept = choices.iter().filter(|c| with(Value::Array(vec![c.value.clone()]))).cloned().collect();
            field.shape = Shape::SomeOf { choices: kept, min: *min, max: *max };
        }
        _ => {}
    }
}

/// The dice the probes drew, by label in the order first drawn: how many
/// every probe drew, and the most any drew.
fn dice_drawn(probes: &[Probed]) -> Vec<DiceDrawn> {
    let mut order: Vec<(String, String)> = Vec::new();
    let mut counts: Vec<BTreeMap<&str, u32>> = Vec::new();
    for p in probes {
        let mut count = BTreeMap::new();
        for r in &p.rolls {
            *count.entry(r.label.as_str()).or_insert(0) += 1;
            if !order.iter().any(|(label, _)| *label == r.label) {
                order.push((r.label.clone(), r.die.name()));
            }
        }
        counts.push(count);
    }
    order
        .into_iter()
        .map(|(label, die)| {
            let seen = counts.iter().map(|c| c.get(label.as_str()).copied().unwrap_or(0));
            let (min, max) = seen.fold((u32::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
            DiceDrawn { label, die, min, max }
        })
        .collect()
}

impl Listing {
    /// Every entry, in number order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.groups.iter().flat_map(|g| g.entries.iter())
    }

    /// How many entries it lists.
    pub fn len(&self) -> usize {
        self.entries().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests;
