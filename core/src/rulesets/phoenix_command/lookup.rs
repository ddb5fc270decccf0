//! Finding things in the state, and the refusals several sections of the
//! rules share: the floor every section stands on. It imports no section,
//! so a section reads it knowing nothing of the others.

use std::collections::BTreeMap;

use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;
use crate::rulesets::begun;

use super::{Activation, Figure, Morale, Organisation, Refused, State, Unit, UnitMorale};

/// The facts a decision is decided into, on a scratch copy of the state.
pub(super) type Facts<'s> = crate::ruleset::Facts<'s, super::PhoenixCommand>;

pub(super) fn activation(state: &State) -> Result<&Activation, Violation> {
    let t = begun(&state.turn)?;
    match &t.activation {
        Some(a) => Ok(a),
        None => refuse!(Shared::NothingActive, "no unit is activated: activate the next unit first"),
    }
}

pub(super) fn unit<'a>(state: &'a State, id: &str) -> Result<&'a Unit, Violation> {
    match state.units.get(id) {
        Some(u) => Ok(u),
        None => {
            if state.organisations.contains_key(id) {
                let acting: Vec<&str> = members_of_organisation(state, id)
                    .iter()
                    .map(|f| f.unit.as_str())
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect();
                if acting.is_empty() {
                    refuse!(Shared::OutOfPlay, "{id} is not a unit on the battlefield: it has no figures left in play")
                }
                refuse!(
                    Refused::NotAUnitNow,
                    "{id} is not acting as a unit now: its figures act with {}",
                    acting.join(", ")
                )
            }
            refuse!(Shared::Unknown, "there is no unit {id:?} in this game")
        }
    }
}

pub(super) fn figure<'a>(state: &'a State, id: &str) -> Result<&'a Figure, Violation> {
    match state.figures.get(id) {
        Some(f) => Ok(f),
        None => refuse!(Shared::Unknown, "there is no figure {id:?} in this game"),
    }
}

pub(super) fn organisation<'a>(state: &'a State, id: &str) -> Result<&'a Organisation, Violation> {
    match state.organisations.get(id) {
        Some(o) => Ok(o),
        None => refuse!(Shared::Unknown, "there is no organisation {id:?} in this game"),
    }
}

/// The figures in play acting with `unit`, in the order of their ids.
pub(super) fn acting_with<'a, 'u>(state: &'a State, unit: &'u str) -> impl Iterator<Item = &'a Figure> + use<'a, 'u> {
    state.figures_in_order().filter(move |f| f.in_play() && f.unit == unit)
}

/// The figures in play acting with `unit`.
pub(super) fn members<'a>(state: &'a State, unit: &str) -> Vec<&'a Figure> {
    acting_with(state, unit).collect()
}

/// Whether any figure in play acts with `unit` ([`members`] is not empty).
pub(super) fn has_members(state: &State, unit: &str) -> bool {
    acting_with(state, unit).next().is_some()
}

/// Whether organisation `inner` is `outer` or below it.
pub(super) fn is_within(state: &State, inner: &str, outer: &str) -> bool {
    let mut at = Some(inner);
    while let Some(id) = at {
        if id == outer {
            return true;
        }
        at = state.organisations.get(id).and_then(|o| o.parent.as_deref());
    }
    false
}

/// The figures in play of an organisation and everything below it.
pub(super) fn members_of_organisation<'a>(state: &'a State, org: &str) -> Vec<&'a Figure> {
    state.figures_in_order().filter(|f| f.in_play() && is_within(state, &f.team, org)).collect()
}

/// The direct sub-units of an organisation.
pub(super) fn children<'a>(state: &'a State, org: &str) -> Vec<&'a Organisation> {
    state.organisations.values().filter(|o| o.parent.as_deref() == Some(org)).collect()
}

/// A unit's leader figure, when it has one in play.
pub(super) fn leader<'a>(state: &'a State, unit: &Unit) -> Option<&'a Figure> {
    unit.leader.as_ref().and_then(|l| state.figures.get(l.as_str())).map(|f| &**f).filter(|f| f.in_play())
}

/// The active unit, checked to be able to give orders now: no CP open.
pub(super) fn active_unit_between_steps<'a>(
    state: &'a State,
    what: &str,
) -> Result<(&'a Activation, &'a Unit), Violation> {
    let a = activation(state)?;
    if let Some(step) = &a.step {
        let waiting = waiting_to_act(state, a);
        refuse!(
            Refused::MidCp,
            "{} is in the middle of CP {}: {} must act before it may {what} ({} still to act)",
            a.unit,
            step.number,
            "each figure",
            waiting.join(", ")
        );
    }
    let u = unit(state, &a.unit)?;
    Ok((a, u))
}

/// Whether a figure of the active unit has not yet acted on the CP being
/// spent ([`waiting_to_act`] is not empty).
pub(super) fn anyone_waiting_to_act(state: &State, a: &Activation) -> bool {
    a.step.as_ref().is_some_and(|step| acting_with(state, &a.unit).any(|f| !step.acted.contains(&f.id)))
}

/// Figures of the active unit that have not acted on the CP being spent.
pub(super) fn waiting_to_act(state: &State, a: &Activation) -> Vec<String> {
    match &a.step {
        None => Vec::new(),
        Some(step) => {
            members(state, &a.unit).into_iter().filter(|f| !step.acted.contains(&f.id)).map(|f| f.id.clone()).collect()
        }
    }
}

/// "1 and 2" / "1, 2 and 3".
pub(super) fn list(items: &[String]) -> String {
    match items {
        [] => "nobody".into(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The organisations a figure leads.
pub(super) fn led_by(state: &State, figure: &str) -> Vec<String> {
    state.organisations.values().filter(|o| o.leader.as_deref() == Some(figure)).map(|o| o.id.clone()).collect()
}

/// Tenths of an inch as inches: `72` → `7.2"`.
pub(super) fn inches(tenths: u64) -> String {
    format!("{}.{}\"", tenths / 10, tenths % 10)
}

/// Whether an interrupt has been fired at `unit` and is not yet resolved.
pub(super) fn fired_on(state: &State, unit: &str) -> bool {
    state.turn.as_ref().is_some_and(|t| t.ambushes.iter().any(|a| a.target == unit && a.fired))
}

/// Active combatants per side.
///
/// "An active combatant is one who: 1. did not perform actions in the
/// Strategic Movement phase (does not include actions performed in
/// interrupts), and 2. is not panicked or incapacitated." Incapacitated
/// figures are out of play.
pub(super) fn active_combatants(state: &State) -> BTreeMap<String, u32> {
    state.sides.iter().cloned().zip(active_combatants_of_each_side(state)).collect()
}

/// [`active_combatants`] of `state.sides[0]` and `state.sides[1]`, counted
/// without building the map: every figure is on one of the two sides (its
/// organisation's, which the scenario checks).
pub(super) fn active_combatants_of_each_side(state: &State) -> [u32; 2] {
    let moved: Vec<&str> = state.units.values().filter(|u| u.strategic).map(|u| u.id.as_str()).collect();
    let mut counts = [0; 2];
    for f in state.figures_in_order() {
        if f.in_play() && f.morale != Morale::Panicked && !moved.contains(&f.unit.as_str()) {
            if let Some(i) = state.sides.iter().position(|s| *s == f.side) {
                counts[i] += 1;
            }
        }
    }
    counts
}

/// While a breveted leader has not taken command, the unit does nothing else.
///
/// "While a unit is breveting a new leader, it may not perform other actions,
/// and can only mount a ragged defence." Its CP go on nothing but taking
/// command — no morale orders either ("A rally involves performing
/// actions"); only a Shaken or Panicked new leader composes himself first
/// (N32, N53). A superior officer may still spend his own CP on it.
pub(super) fn refuse_while_taking_command(u: &Unit, what: &str) -> Result<(), Violation> {
    if u.taking_command {
        refuse!(
            Refused::TakeCommandFirst, "{} may not {what}: its breveted leader {} must first take command (\"The new leader must accumulate and spend 1 CP to take command of the unit\"; \"While a unit is breveting a new leader, it may not perform other actions\")",
            u.id,
            u.leader.as_deref().unwrap_or("?")
        );
    }
    Ok(())
}

/// Before a unit spends CP on anything else, its leader composes himself and
/// its morale is restored.
///
/// "If the leader of a unit has been Shaken or Panicked, the leader must
/// expend 1 CP composing himself before he can expend any further CP." —
/// "If the majority (rounded up) of figures in a unit are Shaken, then the
/// Unit becomes Shaken and the leader must expend a CP to restore the Unit
/// Morale to Bold for the turn. He must then rally, abandon, or force-rally
/// the individual shaken figures" — a Broken unit: "Once the unit is in
/// cover, the leader must expend a CP to steady the unit to Shaken state, and
/// then expend another CP to steady the unit to Bold state."
pub(super) fn refuse_before_composure(state: &State, _a: &Activation, u: &Unit, what: &str) -> Result<(), Violation> {
    refuse_unless_leader_composed(state, u)?;
    match u.morale {
        UnitMorale::Broken => refuse!(
            Refused::RestoreUnitMoraleFirst, "{} is Broken and may not {what}: its leader must first steady it (\"Once the unit is in cover, the leader must expend a CP to steady the unit to Shaken state, and then expend another CP to steady the unit to Bold state\")",
            u.id
        ),
        UnitMorale::Shaken => refuse!(
            Refused::RestoreUnitMoraleFirst, "{} is Shaken and may not {what}: \"the leader must expend a CP to restore the Unit Morale to Bold for the turn\" (steady-unit)",
            u.id
        ),
        UnitMorale::Steady => Ok(()),
    }
}

pub(super) fn refuse_unless_leader_composed(state: &State, u: &Unit) -> Result<(), Violation> {
    if let Some(l) = leader(state, u) {
        if matches!(l.morale, Morale::Shaken | Morale::Panicked) {
            refuse!(
                Refused::LeaderComposesFirst, "{}'s leader {} is {}: \"the leader must expend 1 CP composing himself before he can expend any further CP\" (self-rally)",
                u.id,
                l.id,
                l.morale.name()
            );
        }
    }
    Ok(())
}

/// Before CP are spent on actions, the Shaken figures are rallied,
/// abandoned, or the rally forced.
///
/// "When a unit decides to perform actions, a leader must first spend 1
/// accumulated CP to rally all shaken figures in his unit." — "a leader may
/// be tempted to abandon a Shaken figure and press on with his plan. Doing so
/// requires a successful command check for each Bold figure in the unit".
pub(super) fn refuse_unless_figures_dealt_with(state: &State, a: &Activation, u: &Unit) -> Result<(), Violation> {
    let shaken = shaken_figures(state, &u.id);
    if !shaken.is_empty() && !a.abandoned {
        refuse!(
            Refused::RallyShakenFirst, "{} has Shaken figures ({}): \"a leader must first spend 1 accumulated CP to rally all shaken figures in his unit\" — rally them, abandon them (a command check for each Bold figure), or force a rally, before spending CP on actions",
            u.id,
            list(&shaken)
        );
    }
    Ok(())
}

pub(super) fn shaken_figures(state: &State, unit: &str) -> Vec<String> {
    members(state, unit).iter().filter(|f| f.morale == Morale::Shaken).map(|f| f.id.clone()).collect()
}

/// "the majority (rounded up)": `count` of `of` is a majority when it is at
/// least half, rounded up (P3: 2 of 4 is a majority), or, with
/// `strict-majority`, more than half.
pub(super) fn majority(state: &State, count: usize, of: usize) -> bool {
    if of == 0 {
        return false;
    }
    if state.config.strict_majority {
        2 * count > of
    } else {
        2 * count >= of
    }
}

pub(super) fn other<'a>(state: &'a State, side: &str) -> &'a str {
    if state.sides[0] == side {
        &state.sides[1]
    } else {
        &state.sides[0]
    }
}
