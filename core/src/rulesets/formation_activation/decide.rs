//! The rules of formation activation: every refusal and every roll.
//!
//! Each rule quotes the sentence of `docs/rules/formation-activation.en.md` (the
//! translation of `formation-activation.ru.txt`) it enforces. `decide` builds
//! its facts on a scratch copy of the state, evolving it as it goes, so a
//! later step of an activation (command, rally) sees the earlier ones.
//!
//! Dice are addressed by what they are for: `cup` for the chit drawn,
//! `morale:<hex>` for a hex's command test, `rally:<unit>` for a unit's rally
//! test (`rally:<hex>` under `rally-per-hex`).

use std::collections::BTreeMap;

use crate::dice::Dice;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::{
    Activation, Chit, Decision, Fact, Formation, Hex, Modifier, Refused, State, TestReason, Unit, UnitDistance,
};
use crate::rulesets::begun;

type Facts<'s> = crate::ruleset::Facts<'s, super::FormationActivation>;

/// How many dice a morale test rolls: "rolling two dice (2d6)".
const MORALE_DICE: u32 = 2;

pub(super) fn decide(state: &State, decision: &Decision, dice: &mut Dice) -> Result<Vec<Fact>, Violation> {
    let mut facts = Facts::new(state);
    match decision {
        Decision::BeginTurn => begin_turn(state, &mut facts)?,
        Decision::DrawChit => draw_chit(state, dice, &mut facts)?,
        Decision::Move { unit, to } => operate(state, unit, Operation::Move(*to), &mut facts)?,
        Decision::Fire { unit, at } => operate(state, unit, Operation::Fire(*at), &mut facts)?,
        Decision::Assault { unit, at } => operate(state, unit, Operation::Assault(*at), &mut facts)?,
        Decision::EndActivation => {
            let a = activation(state)?;
            facts.push(Fact::ActivationEnded { formation: a.formation.clone(), chit: a.chit.clone() });
        }
        Decision::ReactionFire { unit, at } => reaction_fire(state, unit, *at, &mut facts)?,
        Decision::Disrupt { unit, reason } => disrupt(state, unit, reason, &mut facts)?,
        Decision::Eliminate { unit, reason } => eliminate(state, unit, reason, &mut facts)?,
        Decision::Place { unit, hex } => place(state, unit, *hex, &mut facts)?,
        Decision::Relocate { unit, to, reason } => relocate(state, unit, *to, reason, &mut facts)?,
    }
    Ok(facts.into_facts())
}

fn find<'a>(state: &'a State, id: &str) -> Result<&'a Unit, Violation> {
    match state.units.get(id) {
        Some(u) => Ok(u),
        None => refuse!(Shared::Unknown, "there is no unit {id:?} in this game"),
    }
}

/// A unit that is on the map, and its hex.
fn on_map<'a>(state: &'a State, id: &str) -> Result<(&'a Unit, Hex), Violation> {
    let u = find(state, id)?;
    if u.eliminated {
        refuse!(Shared::OutOfPlay, "{id} has been eliminated");
    }
    match u.hex {
        Some(hex) => Ok((u, hex)),
        None => refuse!(Refused::NotOnMap, "{id} is not on the map: the referee places it first"),
    }
}

fn formation<'a>(state: &'a State, id: &str) -> &'a Formation {
    state.formations.get(id).expect("units belong to formations of the scenario")
}

fn activation(state: &State) -> Result<&Activation, Violation> {
    let t = begun(&state.turn)?;
    match &t.activation {
        Some(a) => Ok(a),
        None if t.over => {
            refuse!(Shared::TurnOver, "turn {} is over and no formation is active: begin the next turn", t.number)
        }
        None => refuse!(Shared::NothingActive, "no formation is active: draw a chit first"),
    }
}

/// The units of a formation on the map, by id.
fn units_of<'a>(state: &'a State, formation: &str) -> impl Iterator<Item = &'a Unit> {
    let formation = formation.to_string();
    state.units.values().filter(move |u| u.formation == formation && u.on_map().is_some())
}

/// Units of the active formation that may still conduct operations.
fn may_act(state: &State, formation: &str) -> Vec<String> {
    units_of(state, formation).filter(|u| !u.out_of_command && !u.operations_complete).map(|u| u.id.clone()).collect()
}

/// Puts every chit into the cup and starts a turn.
///
/// Context (INTERPRETATIONS.md): "formation markers are chit-pull (chits
/// drawn at random from a cup, with end-turn markers)". The cup is kept in
/// canonical (sorted) order so that a draw is an index into it.
fn begin_turn(state: &State, facts: &mut Facts) -> Result<(), Violation> {
    if let Some(t) = &state.turn {
        if let Some(a) = &t.activation {
            refuse!(
                Shared::TurnNotOver, "turn {} is not over: {} is active (chit {}); end its activation and draw until the end-turn chit ends the turn",
                t.number,
                a.formation,
                a.chit
            );
        }
        if !t.over {
            refuse!(
                Shared::TurnNotOver, "turn {} is not over: draw chits until the end-turn chit ends it ({} end-turn chit(s) drawn of {}; in the cup: {})",
                t.number,
                t.end_turn_drawn,
                state.end_turn_after,
                t.cup.join(", ")
            );
        }
    }
    let number = state.turn.as_ref().map_or(1, |t| t.number + 1);
    facts.push(Fact::TurnBegan { turn: number, cup: state.chits.keys().cloned().collect() });
    Ok(())
}

/// Draws a chit from the cup: a seeded pick among the chits left, recorded
/// as the roll `cup`.
///
/// "Note that some formations have two formation markers and can be
/// activated twice per turn." — "This does not mean the player must choose
/// when to activate the formation: it may be activated both times." Each
/// formation chit drawn activates its formation; the end-turn chits end the
/// turn as the scenario sets (`end_turn_after`).
fn draw_chit(state: &State, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let t = begun(&state.turn)?;
    if t.over {
        refuse!(Shared::TurnOver, "turn {} is over: begin the next turn", t.number);
    }
    if let Some(a) = &t.activation {
        refuse!(
            Shared::StillActive,
            "{} is still active (chit {}): end its activation before drawing the next chit",
            a.formation,
            a.chit
        );
    }
    if t.cup.is_empty() {
        refuse!(Refused::CupEmpty, "the cup is empty: begin the next turn");
    }
    let index = dice.pick_from("cup", &t.cup)?;
    let chit = t.cup[index].clone();
    facts.push(Fact::ChitDrawn { turn: t.number, chit: chit.clone(), cup_size: t.cup.len() as u32 });
    match state.chits.get(&chit).expect("the cup holds chits of the game") {
        Chit::EndTurn => {
            let drawn = t.end_turn_drawn + 1;
            facts.push(Fact::EndTurnChitDrawn { chit, drawn, needed: state.end_turn_after });
            if drawn >= state.end_turn_after {
                let undrawn = facts.state().turn.as_ref().map(|t| t.cup.clone()).unwrap_or_default();
                facts.push(Fact::TurnEnded { turn: t.number, undrawn });
            }
        }
        Chit::Formation { formation: f } => activate(state, f, chit.clone(), dice, facts)?,
    }
    Ok(())
}

/// A formation chit activates its formation: cleanup, command, rally, then
/// operations, in that order.
///
/// "All actions must be performed in the sequence set out below." —
/// "Important: if a formation has two formation markers, each of its units
/// may act twice per turn."
fn activate(
    state: &State,
    formation_id: &str,
    chit: String,
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let f = formation(state, formation_id);
    let number = begun(&state.turn)?.activations.get(&f.id).copied().unwrap_or(0) + 1;
    facts.push(Fact::ActivationBegan { formation: f.id.clone(), side: f.side.clone(), chit, number });
    cleanup(f, facts);
    command(f, dice, facts)?;
    rally(f, dice, facts)?;
    let now = facts.state();
    let out_of_command = units_of(now, &f.id).filter(|u| u.out_of_command).map(|u| u.id.clone()).collect();
    let may_act = may_act(now, &f.id);
    facts.push(Fact::OperationsBegan { formation: f.id.clone(), may_act, out_of_command });
    Ok(())
}

/// Cleanup.
///
/// "Remove all \"operations complete\" and \"out of command\" markers from
/// the formation." (Уберите все маркеры завершения операций и «вне
/// командования» с соединения.) Only the active formation's units (F7).
fn cleanup(f: &Formation, facts: &mut Facts) {
    let now = facts.state();
    let units: Vec<&Unit> = units_of(now, &f.id).collect();
    let ids =
        |pick: fn(&Unit) -> bool| -> Vec<String> { units.iter().filter(|u| pick(u)).map(|u| u.id.clone()).collect() };
    let fact = Fact::CleanedUp {
        formation: f.id.clone(),
        units: ids(|_| true),
        operations_complete_removed: ids(|u| u.operations_complete),
        out_of_command_removed: ids(|u| u.out_of_command),
    };
    facts.push(fact);
}

/// The HQ, if it is still on the map.
fn hq_hex(state: &State, f: &Formation) -> Option<Hex> {
    state.units.get(&f.hq).and_then(Unit::on_map)
}

/// Command.
///
/// "Units within the command radius of their HQ are in command. Units
/// outside that radius (including those whose HQ has been destroyed
/// (1.3.3.3)) must pass an ordinary morale test by rolling two dice (2d6)" —
/// "The morale test is taken per hex, not per individual unit in it. If the
/// test is passed (a result less than or equal to the value printed on the
/// HQ counter) all units in the hex are in command. If it is failed, all
/// units in the hex are out of command and the hex is marked \"Out of
/// command\"." — "All units newly placed on the map are in command during
/// their first action phase." (F6: the formation's first activation after
/// the unit is placed.) The radius is in hexes, inclusive (F5); a pass is
/// 2d6 ≤ morale (F1); only the formation's own units test (F7).
fn command(f: &Formation, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let now = facts.state();
    let hq = hq_hex(now, f);
    let mut within = Vec::new();
    let mut newly = Vec::new();
    let mut testing: BTreeMap<Hex, Vec<String>> = BTreeMap::new();
    for u in units_of(now, &f.id) {
        let hex = u.on_map().expect("units_of yields units on the map");
        if u.newly_placed {
            newly.push(u.id.clone());
            continue;
        }
        match hq {
            Some(hq_hex) if hq_hex.distance(hex) <= f.command_radius_hexes => {
                within.push(UnitDistance { unit: u.id.clone(), hex, distance_hexes: hq_hex.distance(hex) })
            }
            _ => testing.entry(hex).or_default().push(u.id.clone()),
        }
    }
    if let Some(hq_hex) = hq {
        facts.push(Fact::InCommandWithinRadius {
            formation: f.id.clone(),
            hq: f.hq.clone(),
            hq_hex,
            radius_hexes: f.command_radius_hexes,
            units: within,
        });
    }
    if !newly.is_empty() {
        facts.push(Fact::NewlyPlacedInCommand { formation: f.id.clone(), units: newly });
    }
    for (hex, units) in testing {
        let reason = match hq {
            Some(hq_hex) => TestReason::OutsideRadius {
                hq: f.hq.clone(),
                distance_hexes: hq_hex.distance(hex),
                radius_hexes: f.command_radius_hexes,
            },
            None => TestReason::HqDestroyed { hq: f.hq.clone() },
        };
        let rolled = dice.nd6(&format!("morale:{hex}"), MORALE_DICE)?;
        let roll: u32 = rolled.iter().sum();
        facts.push(Fact::MoraleTested {
            formation: f.id.clone(),
            hex,
            units,
            reason,
            dice: rolled,
            roll,
            morale: f.morale,
            passed: roll <= f.morale,
        });
    }
    Ok(())
}

/// One unit's rally test: its modifiers written on the roll, the modified
/// roll, and whether it passes.
///
/// "Out-of-command units add one to the 2d6 roll. Units in the same hex as
/// the HQ modify the morale test by the HQ's leadership value." F2: by
/// default the leadership is taken off the roll (a roll-under test); under
/// `leadership-adds-to-rating` it is added to the rating instead. The two
/// readings are computed separately here and always agree (a property test
/// proves it), so the record writes one form and diff never parts on them.
fn rally_test(state: &State, f: &Formation, u: &Unit, roll: u32) -> (Vec<Modifier>, i64, bool) {
    let mut terms = Vec::new();
    let out_of_command = if u.out_of_command { state.config.out_of_command_rally_modifier } else { 0 };
    if u.out_of_command {
        terms.push(Modifier { what: "out of command".into(), value: out_of_command });
    }
    let stacked_with_hq = hq_hex(state, f).is_some_and(|hq| u.on_map() == Some(hq));
    let leadership = if stacked_with_hq && f.leadership > 0 { i64::from(f.leadership) } else { 0 };
    if leadership > 0 {
        terms.push(Modifier { what: format!("HQ {} leadership", f.hq), value: -leadership });
    }
    let roll = i64::from(roll);
    let morale = i64::from(f.morale);
    let modified_roll = roll + out_of_command - leadership;
    let rallied = if state.config.leadership_adds_to_rating {
        roll + out_of_command <= morale + leadership
    } else {
        modified_roll <= morale
    };
    (terms, modified_roll, rallied)
}

/// Rally.
///
/// "Attempt to rally (recover) disrupted units: those that pass a morale
/// test are rallied." — "The \"Disrupted\" marker is removed from every unit
/// that passes the morale test." Every disrupted unit of the active
/// formation tests, one 2d6 each (F3); under `rally-per-hex` one 2d6 per hex
/// of disrupted units, each unit judged by it with its own modifiers.
fn rally(f: &Formation, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let now = facts.state();
    let per_hex = now.config.rally_per_hex;
    let mut tested = Vec::new();
    let disrupted: Vec<&Unit> = units_of(now, &f.id).filter(|u| u.disrupted).collect();
    let mut hex_rolls: BTreeMap<Hex, Vec<u32>> = BTreeMap::new();
    if per_hex {
        for u in &disrupted {
            let hex = u.on_map().expect("on the map");
            if let std::collections::btree_map::Entry::Vacant(slot) = hex_rolls.entry(hex) {
                slot.insert(dice.nd6(&format!("rally:{hex}"), MORALE_DICE)?);
            }
        }
    }
    for u in disrupted {
        let hex = u.on_map().expect("on the map");
        let rolled = match hex_rolls.get(&hex) {
            Some(shared) => shared.clone(),
            None => dice.nd6(&format!("rally:{}", u.id), MORALE_DICE)?,
        };
        let roll: u32 = rolled.iter().sum();
        let (modifiers, modified_roll, rallied) = rally_test(now, f, u, roll);
        tested.push(Fact::RallyTested {
            formation: f.id.clone(),
            unit: u.id.clone(),
            hex,
            dice: rolled,
            roll,
            modifiers,
            modified_roll,
            morale: f.morale,
            rallied,
            per_hex,
        });
    }
    for fact in tested {
        facts.push(fact);
    }
    Ok(())
}

/// An operation a unit conducts.
#[derive(Debug, Clone, Copy)]
enum Operation {
    Move(Hex),
    Fire(Hex),
    Assault(Hex),
}

impl Operation {
    fn verb(self) -> &'static str {
        match self {
            Operation::Move(_) => "move",
            Operation::Fire(_) => "fire",
            Operation::Assault(_) => "assault",
        }
    }
}

/// Operations: movement, fire and assault by the active formation's
/// in-command units.
///
/// "Conduct operations (movement, fire, assault, etc.) with the in-command
/// units of the formation." — "Out-of-command units may not move or fire
/// during the action phase, but may take reaction fire during the opponent's
/// action phase (6.2)." A unit that has conducted its operations
/// (`operations-per-activation`) is marked operations complete until its
/// formation's next cleanup: "if a formation has two formation markers, each
/// of its units may act twice per turn." Where a move ends and what fire
/// does are the referee's.
fn operate(state: &State, unit: &str, op: Operation, facts: &mut Facts) -> Result<(), Violation> {
    let a = activation(state)?;
    let (u, from) = on_map(state, unit)?;
    let verb = op.verb();
    let allowed = || list(&may_act(state, &a.formation));
    if u.formation != a.formation {
        let own = formation(state, &u.formation);
        if own.side != a.side {
            refuse!(
                Refused::FormationNotActive, "{unit} belongs to {} ({}), and {} ({}) is active: only {}'s in-command units conduct operations ({}); {unit} may take reaction fire instead",
                own.id,
                own.side,
                a.formation,
                a.side,
                a.formation,
                allowed()
            );
        }
        refuse!(
            Refused::FormationNotActive,
            "{unit} belongs to {}, which is not active: only {}'s in-command units conduct operations now ({})",
            own.id,
            a.formation,
            allowed()
        );
    }
    if u.out_of_command {
        refuse!(
            Refused::OutOfCommand, "{unit} is out of command and may not {verb}: \"Out-of-command units may not move or fire during the action phase, but may take reaction fire during the opponent's action phase\". {}'s units that may act: {}",
            a.formation,
            allowed()
        );
    }
    if u.operations_complete {
        refuse!(
            Refused::OperationsComplete, "{unit} has completed its operations in this activation (operations complete) and acts again after {}'s next cleanup; units that may act: {}",
            a.formation,
            allowed()
        );
    }
    let operations_complete = u.operations.saturating_add(1) >= state.config.operations_per_activation;
    let unit = unit.to_string();
    let fact = match op {
        Operation::Move(to) => {
            if to == from {
                refuse!(Refused::SameHex, "{unit} is already in {to}: a move ends in another hex");
            }
            Fact::Moved { unit, from, to, operations_complete }
        }
        Operation::Fire(at) => Fact::Fired { unit, from, at, operations_complete },
        Operation::Assault(at) => {
            if at == from {
                refuse!(Refused::SameHex, "{unit} is in {at}: it assaults another hex");
            }
            Fact::Assaulted { unit, from, at, operations_complete }
        }
    };
    facts.push(fact);
    Ok(())
}

/// Reaction fire by a unit of the side that is not active.
///
/// "Out-of-command units may not move or fire during the action phase, but
/// may take reaction fire during the opponent's action phase (6.2)." The
/// limits of reaction fire (6.2, "Three reaction-fire phases are possible",
/// F4) are not in the excerpt and are not encoded.
fn reaction_fire(state: &State, unit: &str, at: Hex, facts: &mut Facts) -> Result<(), Violation> {
    let a = match &begun(&state.turn)?.activation {
        Some(a) => a,
        None => refuse!(
            Shared::NothingActive,
            "no formation is active: reaction fire is taken during the opponent's action phase"
        ),
    };
    let (u, from) = on_map(state, unit)?;
    let own = formation(state, &u.formation);
    if own.side == a.side {
        refuse!(
            Refused::ReactionFireActiveSide, "{unit} is on the active side ({}): reaction fire is taken during the opponent's action phase; {}'s in-command units conduct operations instead ({})",
            a.side,
            a.formation,
            list(&may_act(state, &a.formation))
        );
    }
    facts.push(Fact::ReactionFired {
        unit: unit.to_string(),
        formation: own.id.clone(),
        from,
        at,
        out_of_command: u.out_of_command,
    });
    Ok(())
}

/// Referee: a unit is disrupted. What fire and assault do is not in the
/// excerpt, so disruption is the referee's input; the rally step reads it:
/// "Attempt to rally (recover) disrupted units".
fn disrupt(state: &State, unit: &str, reason: &str, facts: &mut Facts) -> Result<(), Violation> {
    let (u, hex) = on_map(state, unit)?;
    if u.disrupted {
        refuse!(Shared::NoChange, "{unit} is already disrupted");
    }
    facts.push(Fact::Disrupted { unit: unit.to_string(), hex, reason: reason.to_string() });
    Ok(())
}

/// Referee: a unit is eliminated. An HQ eliminated is the HQ destroyed,
/// which the command step reads: "Units outside that radius (including
/// those whose HQ has been destroyed (1.3.3.3)) must pass an ordinary morale
/// test".
fn eliminate(state: &State, unit: &str, reason: &str, facts: &mut Facts) -> Result<(), Violation> {
    let (u, hex) = on_map(state, unit)?;
    facts.push(Fact::Eliminated {
        unit: unit.to_string(),
        formation: u.formation.clone(),
        hex,
        reason: reason.to_string(),
        hq: formation(state, &u.formation).hq == unit,
    });
    Ok(())
}

/// Referee: a unit ends up in another hex as the outcome of combat (an
/// advance after an assault, a retreat). No command is needed: it is not an
/// operation of the unit.
fn relocate(state: &State, unit: &str, to: Hex, reason: &str, facts: &mut Facts) -> Result<(), Violation> {
    let (_, from) = on_map(state, unit)?;
    if from == to {
        refuse!(Shared::NoChange, "{unit} is already in {to}");
    }
    facts.push(Fact::Relocated { unit: unit.to_string(), from, to, reason: reason.to_string() });
    Ok(())
}

/// Referee: a unit enters the map, newly placed.
///
/// "All units newly placed on the map are in command during their first
/// action phase." F6 reads that phase as the formation's first activation
/// after the unit is placed, so a unit of the formation now active waits for
/// its formation's next activation.
fn place(state: &State, unit: &str, hex: Hex, facts: &mut Facts) -> Result<(), Violation> {
    let u = find(state, unit)?;
    if u.eliminated {
        refuse!(Shared::OutOfPlay, "{unit} has been eliminated");
    }
    if let Some(at) = u.hex {
        refuse!(Shared::NoChange, "{unit} is already on the map, in {at}");
    }
    if let Some(a) = state.turn.as_ref().and_then(|t| t.activation.as_ref()) {
        if a.formation == u.formation {
            refuse!(
                Refused::PlaceDuringActivation, "{} is active: place {unit} after its activation ends, so that its formation's next activation is its first action phase",
                a.formation
            );
        }
    }
    facts.push(Fact::Placed { unit: unit.to_string(), formation: u.formation.clone(), hex });
    Ok(())
}

fn list(items: &[String]) -> String {
    super::list(items)
}
