//! What may be decided now, for the listing ([`crate::moves`]): every
//! decision worth trying in a state, and what a decision's facts say before
//! its die falls. `decide` judges which are legal; nothing here refuses.

use serde_json::{json, Value};

use super::{Fact, Piece, Role, State};
use crate::proposal::form::{choices, Choice};
use crate::proposal::{Field, Known, Passes, Proposal, Range, Shape, Target};

/// Every decision worth listing: the turn's beginning, activations and
/// skips, what an active leader may do, and the referee's inputs.
pub(super) fn proposals(state: &State) -> Vec<Proposal> {
    let mut out = Vec::new();
    let pieces: Vec<&Piece> = state.pieces.values().map(|p| &**p).collect();
    for side in &state.sides {
        out.push(Proposal::new(
            "Begin the turn",
            json!({"type": "begin-turn", "first": side}),
            format!("begin the next turn, {side} activating first"),
        ));
    }
    for p in pieces.iter().filter(|p| p.role == Role::Leader) {
        let broken = if p.broken { ", broken: he may only try to self-rally" } else { "" };
        out.push(Proposal::new(
            "Activate a leader",
            json!({"type": "activate", "leader": p.id}),
            format!("activate {} ({}{broken})", p.id, p.skill.name()),
        ));
    }
    for side in &state.sides {
        out.push(Proposal::new(
            "Skip an activation",
            json!({"type": "skip", "side": side}),
            format!("{side} skips: the opponent activates instead"),
        ));
    }
    let active = state.turn.as_ref().and_then(|t| t.activation.as_ref());
    if let Some(a) = active {
        activation(state, &pieces, &a.leader, &a.commanded, &mut out);
    }
    // Under LN4 a move of the leader being activated is his own action, his
    // side's to make; the referee moves him only as a displacement.
    let own_mover = active.filter(|_| state.config.leader_move_is_own_action).map(|a| &*a.leader);
    if let (Some(leader), Some(l)) = (own_mover, own_mover.and_then(|id| state.pieces.get(id))) {
        leader_moves(leader, l, &mut out);
    }
    referee(&pieces, own_mover, &mut out);
    out
}

/// What the active leader may do.
fn activation(state: &State, pieces: &[&Piece], leader: &str, commanded: &[super::Name], out: &mut Vec<Proposal>) {
    let Some(l) = state.pieces.get(leader) else { return };
    out.push(Proposal::new(
        "Self-rally",
        json!({"type": "self-rally"}),
        format!("{leader} tries to self-rally (a D6 test; failing ends his activation)"),
    ));
    let units: Vec<&&Piece> = pieces.iter().filter(|p| p.role == Role::Unit && p.side == l.side).collect();
    for u in &units {
        let range = state.config.command_range_mm(u.skill);
        out.push(Proposal::new(
            "Command a unit",
            json!({"type": "command", "unit": u.id}),
            format!(
                "{leader} commands {} ({}, {} mm away; its command range is {range} mm)",
                u.id,
                u.skill.name(),
                l.at.distance_ceil(u.at)
            ),
        ));
    }
    if let Some(last) = commanded.last() {
        out.push(
            Proposal::new(
                "A commanded unit acts",
                json!({"type": "unit-action", "unit": last}),
                format!("{last}, commanded last, performs an action"),
            )
            .with(Field::new("action", "what the unit does (moves, fires…)", Shape::Text, json!("moves")))
            .known_whatever_the_fields(),
        );
    }
    out.push(
        Proposal::new(
            "The leader acts himself",
            json!({"type": "leader-action"}),
            format!("{leader} performs an action of his own (he commands no unit after it)"),
        )
        .with(Field::new("action", "what the leader does (moves, fires…)", Shape::Text, json!("moves")))
        .known_whatever_the_fields(),
    );
    let broken: Vec<&&&Piece> = units.iter().filter(|u| u.broken).collect();
    for group in subsets(broken.len(), state.config.max_rallied_units) {
        let names: Vec<&str> = group.iter().map(|&i| &*broken[i].id).collect();
        out.push(Proposal::new(
            "Rally broken units (ends the activation)",
            json!({"type": "rally", "units": names}),
            format!("{leader} rallies {} (one D6 test; his activation ends)", names.join(", ")),
        ));
    }
    out.push(Proposal::new(
        "End the activation",
        json!({"type": "end-activation"}),
        format!("{} activation ends", crate::words::possessive(leader)),
    ));
}

/// The active leader's move as an action of his own, and the referee's
/// displacement of him (LN4: "after the leader has performed any action of
/// his own (such as moving or shooting) he may not command other units any
/// more").
fn leader_moves(leader: &str, l: &Piece, out: &mut Vec<Proposal>) {
    let at = json!([l.at.x, l.at.y]);
    out.push(
        Proposal::new(
            "The leader moves himself",
            json!({"type": "move", "piece": leader}),
            format!("{leader} moves, an action of his own (he commands no unit after it)"),
        )
        .with(Field::new("to", "where he ends up", Shape::Point { unit: "mm".into() }, at.clone())),
    );
    out.push(
        Proposal::new(
            "Displace the active leader",
            json!({"type": "move", "piece": leader, "displaced": true}),
            format!("the table displaces {leader} (a casualty's displacement, a retreat: not his own action)"),
        )
        .with(Field::new("to", "where he ends up", Shape::Point { unit: "mm".into() }, at).by_referee()),
    );
}

/// Every set of 1 to `max` of `n` things, smallest first, each in order.
fn subsets(n: usize, max: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut level: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    for _ in 0..max.min(n) {
        out.extend(level.iter().cloned());
        level =
            level.iter().flat_map(|s| (s[s.len() - 1] + 1..n).map(move |j| [s.as_slice(), &[j]].concat())).collect();
    }
    out
}

fn piece_choices<'a>(pieces: impl Iterator<Item = &'a &'a Piece>) -> Vec<Choice> {
    let described = |p: &Piece| {
        let role = if p.role == Role::Leader { "leader" } else { "unit" };
        let broken = if p.broken { ", broken" } else { "" };
        format!("{} ({}'s {role}{broken})", p.id, p.side)
    };
    choices(pieces.map(|p| (Value::from(&*p.id), described(p))))
}

/// The referee's inputs: breaks, close combat, moves (of every piece but
/// `own_mover`, the leader whose move is his own) and removals.
fn referee(pieces: &[&Piece], own_mover: Option<&str>, out: &mut Vec<Proposal>) {
    let Some(first) = pieces.first() else { return };
    let piece = |about: &str, of: Vec<Choice>| {
        let example = of.first().map(|c| c.value.clone()).unwrap_or(Value::Null);
        Field::new("piece", about, Shape::OneOf { choices: of }, example).by_referee()
    };
    let reason = |example: &str| Field::new("reason", "why, for the record", Shape::Text, json!(example)).by_referee();
    out.push(
        Proposal::new("Break a leader or unit", json!({"type": "break"}), "a leader or unit breaks")
            .with(piece("who breaks", piece_choices(pieces.iter().filter(|p| !p.broken))))
            .with(reason("fire")),
    );
    let leaders: Vec<&&Piece> = pieces.iter().filter(|p| p.role == Role::Leader).collect();
    for (kind, title, says, locked) in [
        ("lock-in-close-combat", "Lock a leader in close combat", "a leader is locked in close combat", false),
        ("free-from-close-combat", "Free a leader from close combat", "a leader is freed from close combat", true),
    ] {
        let of = piece_choices(leaders.iter().copied().filter(|p| p.locked == locked));
        let example = of.first().map(|c| c.value.clone()).unwrap_or(Value::Null);
        out.push(
            Proposal::new(title, json!({"type": kind}), says)
                .with(Field::new("leader", "the leader", Shape::OneOf { choices: of }, example).by_referee()),
        );
    }
    let movers: Vec<&&Piece> = pieces.iter().filter(|p| Some(&*p.id) != own_mover).collect();
    let at = movers.first().map_or(json!([first.at.x, first.at.y]), |p| json!([p.at.x, p.at.y]));
    out.push(
        Proposal::new("Move a leader or unit", json!({"type": "move"}), "a leader or unit moves on the table")
            .with(piece("who moves", piece_choices(movers.into_iter())))
            .with(Field::new("to", "where it ends up", Shape::Point { unit: "mm".into() }, at).by_referee()),
    );
    out.push(
        Proposal::new(
            "Remove a leader or unit from play",
            json!({"type": "remove"}),
            "a leader or unit is removed from play (killed, destroyed, captured)",
        )
        .with(piece("who is removed", piece_choices(pieces.iter())))
        .with(reason("killed")),
    );
}

/// A command's distance against its range; a rally's or self-rally's target.
pub(super) fn known(_state: &State, facts: &[Fact]) -> Known {
    let mut known = Known::default();
    for fact in facts {
        match fact {
            Fact::UnitCommanded { distance_mm, range_mm, .. } => {
                known.range = Some(Range { distance: *distance_mm, limit: *range_mm, unit: "mm".into() })
            }
            Fact::RallyTested { needed, .. } => known.targets.push(Target {
                what: "rally test".into(),
                roll: "d6".into(),
                needed: *needed,
                passes: Passes::AtLeast,
            }),
            Fact::SelfRallyTested { needed, .. } => known.targets.push(Target {
                what: "self-rally test".into(),
                roll: "d6".into(),
                needed: *needed,
                passes: Passes::AtLeast,
            }),
            _ => {}
        }
    }
    known
}

#[cfg(test)]
mod tests {
    #[test]
    fn subsets_are_every_set_of_one_to_max_smallest_first() {
        assert_eq!(super::subsets(3, 2), vec![vec![0], vec![1], vec![2], vec![0, 1], vec![0, 2], vec![1, 2]]);
        assert_eq!(super::subsets(2, 3).len(), 3);
        assert!(super::subsets(0, 3).is_empty());
    }
}
