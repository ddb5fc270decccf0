//! 2.1 Turn Sequence: strategic movement, initiative, operations — and the
//! activation order of operations: the unactivated unit with the most CP acts
//! next, the side with initiative first on equal CP.

use std::collections::BTreeMap;

use crate::dice::Dice;
use crate::geometry::Point;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::consequences::{next_in_order, next_up};
use super::lookup::{self, active_combatants, list, members, Facts};
use super::Refused;
use super::{Fact, InitiativeBy, NextUp, Phase, State, UnitMorale};
use crate::rulesets::begun;

/// A roll-off that ties this many rounds running leaves initiative where it
/// was: a guard against an endless loop, never met with fair dice.
const ROLL_OFF_ROUNDS: usize = 100;

/// Starts the next turn with its strategic movement.
///
/// "The game is played in a series of turns" — a turn begins once every unit
/// of the last one has been activated. A unit still Broken "will, during the
/// next strategic movement phase, move back to its Forming Up Point, or off
/// the battlefield" (2.8): it leaves play now — as does a unit that could not
/// brevet, which "breaks from the battlefield" (N7).
pub(super) fn begin_turn(state: &State, facts: &mut Facts) -> Result<(), Violation> {
    if let Some(t) = &state.turn {
        match t.phase {
            Phase::Over => {}
            Phase::StrategicMovement => refuse!(
                Shared::TurnNotOver,
                "turn {} is in its strategic movement: begin operations and activate every unit before the next turn",
                t.number
            ),
            Phase::Operations => {
                if let Some(a) = &t.activation {
                    refuse!(Shared::TurnNotOver, "turn {} is not over: {} is still active", t.number, a.unit);
                }
                let next = next_up(state);
                refuse!(
                    Shared::TurnNotOver, "turn {} is not over: \"The decision then passes to the unit with the next highest number of CP, and so forth until all units have been activated.\" {}",
                    t.number,
                    whose_turn(next.as_ref())
                );
            }
        }
    }
    let number = state.turn.as_ref().map_or(1, |t| t.number + 1);
    facts.push(Fact::TurnBegan { turn: number });
    let leaving: Vec<(String, String)> = state
        .units
        .values()
        .filter(|u| u.morale == UnitMorale::Broken)
        .map(|u| (u.id.clone(), u.side.clone()))
        .collect();
    for (unit, side) in leaving {
        let figures: Vec<String> = members(facts.state(), &unit).iter().map(|f| f.id.clone()).collect();
        let organisations = figures.iter().flat_map(|f| lookup::led_by(facts.state(), f)).collect();
        facts.push(Fact::UnitWithdrew { unit, side, figures, organisations });
    }
    Ok(())
}

/// A unit moves strategically, or moves on.
///
/// "Move any units that are designated for strategic movement—that unit may
/// not act in the operations phase and loses any CP it may have accumulated
/// over prior turns. The unit must not be in contact with the enemy before it
/// engages in strategic movement, and its movement may not bring it into
/// enemy contact. Its movement may, however, be subject to an interrupt if it
/// passes through an ambush or enemy overwatch." Contact is a referee input
/// (`contact`); where the figures go is too. A move may be given in legs, so
/// that an ambush can interrupt it where it triggers (N43): a further leg is
/// refused once the unit has been successfully interrupted ("The target unit
/// loses its entire remaining CP and ceases its turn") or has come into
/// contact (N49). Its figures are then checked for stragglers, as at the end
/// of any of the unit's turns (P12, N10).
pub(super) fn strategic_move(
    state: &State,
    unit: &str,
    moves: &BTreeMap<String, Point>,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let t = begun(&state.turn)?;
    if t.phase != Phase::StrategicMovement {
        refuse!(
            Refused::StrategicMovementOver,
            "strategic movement is over in turn {}: units move strategically before operations begin",
            t.number
        );
    }
    let u = lookup::unit(state, unit)?;
    refuse_unable_to_move_strategically(u)?;
    for figure in moves.keys() {
        let f = lookup::figure(state, figure)?;
        if f.unit != unit || !f.in_play() {
            refuse!(
                Refused::NotAFigureOfTheUnit,
                "{figure} is not a figure of {unit} in play: only the unit's own figures move with it"
            );
        }
    }
    facts.push(Fact::MovedStrategically {
        unit: unit.to_string(),
        side: u.side.clone(),
        cp_lost: u.cp + u.held_interrupt_cp,
        continued: u.strategic,
    });
    for (figure, to) in moves {
        let from = state.figures[figure.as_str()].at;
        facts.push(Fact::FigureMoved {
            figure: figure.clone(),
            from,
            to: *to,
            distance_tenths: from.distance_ceil(*to),
        });
    }
    super::consequences::remove_stragglers(facts, unit);
    Ok(())
}

/// Whether a unit may begin (or go on with) a strategic move.
fn refuse_unable_to_move_strategically(u: &super::Unit) -> Result<(), Violation> {
    let unit = &u.id;
    if u.activated {
        refuse!(Refused::Interrupted, "{unit} has been successfully interrupted: it \"loses its entire remaining CP and ceases its turn\" — it moves no further this turn");
    }
    if u.morale == UnitMorale::Broken {
        refuse!(Refused::BrokenTakesNoOrders, "{unit} is broken: it cannot be given orders");
    }
    if !u.contact.is_empty() {
        let enemies: Vec<String> = u.contact.iter().cloned().collect();
        if u.strategic {
            refuse!(
                Refused::EnemyContact, "{unit} has come into contact with {}: \"its movement may not bring it into enemy contact\" — it moves no further",
                list(&enemies)
            );
        }
        refuse!(
            Refused::EnemyContact, "{unit} is in contact with {}: \"The unit must not be in contact with the enemy before it engages in strategic movement\"",
            list(&enemies)
        );
    }
    Ok(())
}

/// Referee: two enemy units are, or are no longer, in contact.
///
/// "Units are in contact if they are in weapons range of each other and are
/// able to draw a Line of Sight to each other." Range and line of sight are
/// on the table, not in the record: the referee says.
pub(super) fn contact(
    state: &State,
    unit: &str,
    enemy: &str,
    in_contact: bool,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let u = lookup::unit(state, unit)?;
    let e = lookup::unit(state, enemy)?;
    if u.side == e.side {
        refuse!(Shared::NotAnEnemy, "{unit} and {enemy} are both {}'s: contact is between enemy units", u.side);
    }
    if u.contact.contains(enemy) == in_contact {
        refuse!(Shared::NoChange, "{unit} and {enemy} are {} in contact", if in_contact { "already" } else { "not" });
    }
    facts.push(Fact::ContactChanged { unit: unit.to_string(), enemy: enemy.to_string(), in_contact });
    Ok(())
}

/// Ends strategic movement: initiative is counted and operations begin.
///
/// "Count the number of active combatants on each side. The Side which has
/// the most active combatants has initiative until the turn ends, or an
/// interrupt causes a change in initiative." A tie (P4): the side that held
/// initiative keeps it (the scenario names it for turn 1), or, with
/// `initiative-tie-roll-off`, each side rolls a d10 and the higher wins,
/// ties rolled again.
pub(super) fn begin_operations(state: &State, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let t = begun(&state.turn)?;
    match t.phase {
        Phase::StrategicMovement => {}
        Phase::Operations => refuse!(Shared::NoChange, "turn {}'s operations have already begun", t.number),
        Phase::Over => refuse!(
            Shared::TurnOver,
            "turn {} is over: begin the next turn, whose strategic movement comes first",
            t.number
        ),
    }
    let counts = active_combatants(state);
    let [a, b] = &state.sides;
    let (holder, by) = if counts[a] != counts[b] {
        let more = if counts[a] > counts[b] { a } else { b };
        (more.clone(), InitiativeBy::Count)
    } else if state.config.initiative_tie_roll_off {
        let mut rounds = Vec::new();
        let mut holder = state.initiative.clone();
        for _ in 0..ROLL_OFF_ROUNDS {
            let mut round = BTreeMap::new();
            for side in &state.sides {
                round.insert(side.clone(), dice.d10(&format!("initiative:{side}"))?);
            }
            let (ra, rb) = (round[a], round[b]);
            rounds.push(round);
            if ra != rb {
                holder = if ra > rb { a.clone() } else { b.clone() };
                break;
            }
        }
        (holder, InitiativeBy::RollOff { rounds })
    } else {
        (state.initiative.clone(), InitiativeBy::Kept)
    };
    // Ambushes of the strategic movement lapse with it.
    let lapsed: Vec<String> = t.ambushes.iter().filter(|a| !a.fired).map(|a| a.target.clone()).collect();
    for target in lapsed {
        super::consequences::lapse_ambushes_on(facts, &target);
    }
    facts.push(Fact::InitiativeCounted { turn: t.number, counts, holder, by });
    let next = next_in_order(facts.state());
    facts.push(Fact::OperationsBegan { turn: t.number, next: next.clone() });
    if next.is_none() {
        facts.push(Fact::TurnEnded { turn: t.number });
    }
    Ok(())
}

/// "It is alex's turn: alex may activate 1a or 1b (2 CP each)".
pub(super) fn whose_turn(next: Option<&NextUp>) -> String {
    match next {
        None => "Every unit has been activated this turn: begin the next turn.".into(),
        Some(n) => {
            let units = match n.units.as_slice() {
                [one] => format!("{one} ({} CP)", n.cp),
                many => format!("{} ({} CP each; the player picks the order)", many.join(" or "), n.cp),
            };
            let why = match &n.ahead_of {
                Some(waiting) => {
                    format!("; {} holds the initiative, so its {} CP units act before {waiting}'s", n.side, n.cp)
                }
                None => String::new(),
            };
            format!("It is {}'s turn: {} may activate {units}{why}.", n.side, n.side)
        }
    }
}

/// Activates the unit whose turn it is.
pub(super) fn activate(state: &State, unit: &str, facts: &mut Facts) -> Result<(), Violation> {
    let t = begun(&state.turn)?;
    match t.phase {
        Phase::Operations => {}
        Phase::StrategicMovement => {
            refuse!(
                Refused::OperationsNotBegun,
                "turn {} is in its strategic movement: begin operations before activating units",
                t.number
            )
        }
        Phase::Over => {
            refuse!(Shared::TurnOver, "turn {} is over: every unit has been activated; begin the next turn", t.number)
        }
    }
    if let Some(a) = &t.activation {
        refuse!(
            Shared::StillActive,
            "{} is still active: it must accumulate, pass, or spend its CP before another unit is activated",
            a.unit
        );
    }
    let u = lookup::unit(state, unit)?;
    let next = next_up(state);
    if next.as_ref().is_some_and(|n| n.units.iter().any(|x| x == unit)) {
        facts.push(Fact::UnitActivated { unit: unit.to_string(), side: u.side.clone(), cp: u.cp });
        return Ok(());
    }
    let whose = whose_turn(next.as_ref());
    if u.activated {
        refuse!(Refused::ActivatedOnce, "{unit} has already been activated this turn: \"Once a unit has been activated in a turn, it cannot become activated again in the turn.\" {whose}");
    }
    if u.strategic {
        refuse!(
            Refused::StrategicMovementBarsOperations,
            "{unit} moved strategically this turn: it \"may not act in the operations phase\". {whose}"
        );
    }
    if u.leader.is_none() {
        refuse!(Refused::BrokenTakesNoOrders, "{unit} is broken and has no leader: it cannot act. {whose}");
    }
    refuse!(
        Refused::MostCpActsNext,
        "{unit} ({} CP) may not act now: the unactivated unit with the most CP acts next. {whose}",
        u.cp
    );
}

/// Ends the turn once no unit is left to activate, however the last one
/// went: "The decision then passes to the unit with the next highest number
/// of CP, and so forth until all units have been activated." Between
/// activations the unit due next can leave play (a casualty, a surrender in
/// its rout) or be marked activated by a successful interrupt (N22); when no
/// other is left, the operations phase and the turn end there — once no
/// input is due, since a brevet or a rout into cover can make a unit able to
/// act again.
pub(super) fn settle_turn_end(facts: &mut Facts) {
    let state = facts.state();
    let Some(t) = &state.turn else { return };
    if t.phase != Phase::Operations || t.activation.is_some() || !t.pending_injuries.is_empty() || t.melee.is_some() {
        return;
    }
    if state.units.values().any(|u| u.brevet_due.is_some() || u.rout_due) || next_up(state).is_some() {
        return;
    }
    let turn = t.number;
    facts.push(Fact::TurnEnded { turn });
}
