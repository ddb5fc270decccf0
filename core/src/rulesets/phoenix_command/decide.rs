//! The dispatcher: each decision goes to the section of the text that rules
//! it (`turn.rs`, `organisation.rs`, `command.rs`, `actions.rs`, ...), and
//! the one rule that comes before all others: a unit whose leader fell
//! brevets "immediately". What the sections share lies below them all, in
//! `lookup.rs` (finding things, shared refusals) and `consequences.rs` (what
//! follows a fact, whichever section gave it); the sections import those
//! and, downwards only, one another — never this file.
//!
//! `decide` builds its facts on a scratch copy of the state, evolving it as
//! it goes, so a later fact (who acts next) sees the earlier ones.

use crate::dice::Dice;
use crate::refuse;
use crate::ruleset::Violation;

use super::lookup::{members, Facts};
use super::{actions, command, fire, interrupts, melee, morale, organisation, turn, Refused};
use super::{Decision, Fact, State};

pub(super) fn decide(state: &State, decision: &Decision, dice: &mut Dice) -> Result<Vec<Fact>, Violation> {
    refuse_while_inputs_due(state, decision)?;
    let mut facts = Facts::new(state);
    match decision {
        Decision::BeginTurn => turn::begin_turn(state, &mut facts)?,
        Decision::StrategicMove { unit, moves } => turn::strategic_move(state, unit, moves, &mut facts)?,
        Decision::Contact { unit, enemy, in_contact } => turn::contact(state, unit, enemy, *in_contact, &mut facts)?,
        Decision::BeginOperations => turn::begin_operations(state, dice, &mut facts)?,
        Decision::Activate { unit } => turn::activate(state, unit, &mut facts)?,
        Decision::Accumulate => command::accumulate(state, &mut facts)?,
        Decision::Pass => command::pass(state, &mut facts)?,
        Decision::SpendCp => command::spend_cp(state, dice, &mut facts)?,
        Decision::Actions { actions } => actions::actions(state, actions, dice, &mut facts)?,
        Decision::Stop => command::stop(state, &mut facts)?,
        Decision::TakeCommand => command::take_command(state, dice, &mut facts)?,
        Decision::SetInterrupt => interrupts::set_interrupt(state, dice, &mut facts)?,
        Decision::Sighted { target, by } => interrupts::sighted(state, target, by, dice, &mut facts)?,
        Decision::Interrupt { by, fire, no_line_of_sight } => {
            interrupts::interrupt(state, by, fire, no_line_of_sight, dice, &mut facts)?
        }
        Decision::TakeCover { moves } => interrupts::take_cover(state, moves, &mut facts)?,
        Decision::SelfRally => morale::self_rally(state, dice, &mut facts)?,
        Decision::SteadyUnit { unit } => morale::steady_unit(state, unit.as_deref(), dice, &mut facts)?,
        Decision::Rally { unit } => morale::rally(state, unit.as_deref(), dice, &mut facts)?,
        Decision::RallyPanicked { figure, unit } => {
            morale::rally_panicked(state, figure, unit.as_deref(), dice, &mut facts)?
        }
        Decision::Abandon => morale::abandon(state, dice, &mut facts)?,
        Decision::ForcedRally { figure, in_sight } => morale::forced_rally(state, figure, in_sight, dice, &mut facts)?,
        Decision::Rout { unit, moves, reached_cover } => morale::rout(state, unit, moves, *reached_cover, &mut facts)?,
        Decision::Consolidate { organisation, sub_units } => {
            organisation::consolidate(state, organisation, sub_units.as_deref(), dice, &mut facts)?
        }
        Decision::Detach { units } => organisation::detach(state, units, dice, &mut facts)?,
        Decision::Reorganise { organisation, replaces, into } => {
            organisation::reorganise(state, organisation, replaces, into, dice, &mut facts)?
        }
        Decision::CommandCheck { unit, figures, reason } => {
            command::command_check(state, unit, figures.as_deref(), reason, dice, &mut facts)?
        }
        Decision::Brevet { unit, leader } => command::brevet(state, unit, leader, &mut facts)?,
        Decision::MeleeResponse { escape, escape_to } => melee::respond(state, *escape, *escape_to, dice, &mut facts)?,
        Decision::Injury { target, effect } => fire::rule_injury(state, target, *effect, dice, &mut facts)?,
        Decision::Casualty { figure, effect, reason } => command::casualty(state, figure, *effect, reason, &mut facts)?,
    }
    super::consequences::settle_unit_morale(&mut facts);
    interrupts::lapse_orphaned_ambushes(&mut facts);
    interrupts::settle_interrupts(&mut facts);
    melee::settle_melee(&mut facts);
    actions::settle_step(&mut facts);
    super::consequences::settle_initiative(&mut facts);
    turn::settle_turn_end(&mut facts);
    Ok(facts.into_facts())
}

/// Inputs the rules need before anything else happens: the referee's effect
/// of a hit rolled without a table (P9: "a referee event after the rolled
/// 0–9"), and a brevet — "If the leader of a unit is incapacitated or killed,
/// the unit loses all accumulated CP and has to appoint (“brevet”) a new
/// leader immediately from within its ranks."
fn refuse_while_inputs_due(state: &State, decision: &Decision) -> Result<(), Violation> {
    if matches!(decision, Decision::Brevet { .. } | Decision::Injury { .. }) {
        return Ok(());
    }
    if let Some(p) = state.turn.as_ref().and_then(|t| t.pending_injuries.first()) {
        refuse!(
            Refused::InjuryDue, "the referee must first give the injury effect of the hit on {} (roll {} with modifiers; the scenario has no injury table)",
            p.target,
            p.total
        );
    }
    if let Some(m) = state.turn.as_ref().and_then(|t| t.melee.as_ref()) {
        if !matches!(decision, Decision::MeleeResponse { .. }) {
            refuse!(
                Refused::MeleeResponseDue, "{} has declared a melee attack on {}: \"The target figure then decides if he wishes to engage in melee or escape\" (melee-response) before anything else",
                m.attacker,
                m.target
            );
        }
    }
    if let Some(u) = state.units.values().find(|u| u.brevet_due.is_some()) {
        let ranks: Vec<&str> = members(state, &u.id).iter().map(|f| f.id.as_str()).collect();
        refuse!(
            Refused::BrevetDue,
            "{} must first brevet a new leader \"immediately from within its ranks\": choose one of {}",
            u.id,
            ranks.join(", ")
        );
    }
    if let Some(u) = state.units.values().find(|u| u.rout_due) {
        // A melee declared on the same CP as the fire that broke the unit
        // is answered first: it was declared with both figures in play.
        let answering = matches!(decision, Decision::MeleeResponse { .. })
            && state.turn.as_ref().is_some_and(|t| t.melee.is_some());
        if answering {
            return Ok(());
        }
        if !matches!(decision, Decision::Rout { unit, .. } if *unit == u.id) {
            refuse!(
                Refused::RoutDue, "{} is Broken and \"immediately routs, moving directly away from the enemy towards the nearest cover\": the referee moves it (rout) before anything else",
                u.id
            );
        }
        return Ok(());
    }
    let deciding = match decision {
        Decision::Interrupt { by, .. } => Some(by.as_str()),
        _ => None,
    };
    interrupts::refuse_while_ambush_blown(state, deciding)?;
    if let Some(a) = state.turn.as_ref().and_then(|t| t.activation.as_ref()) {
        if let Some(by) = &a.interrupted_by {
            // A second ambush blown by the same CP's checks fires first: its
            // nervous figures' fire is not theirs to hold.
            let compelled = matches!(decision, Decision::Interrupt { by, .. } if interrupts::is_blown(state, by));
            if !matches!(decision, Decision::TakeCover { .. } | Decision::Stop) && !compelled {
                refuse!(
                    Refused::Interrupted, "{} has been successfully interrupted by {by}: it \"must cease performing actions and end their turn\" — take cover, or stop",
                    a.unit
                );
            }
        }
    }
    Ok(())
}
