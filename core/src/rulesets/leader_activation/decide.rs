//! The rules of leader activation: every refusal and every roll.
//!
//! Each rule quotes the sentence of `docs/rules/leader-activation.txt` it enforces.
//! `decide` builds its facts on a scratch copy of the state, evolving it as it
//! goes, so a later fact (who activates next) sees the earlier ones.

use crate::dice::Dice;
use crate::geometry::Point;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::{Activation, Decision, Fact, Name, Piece, Refused, Role, Skill, State};
use crate::rulesets::begun;

type Facts<'s> = crate::ruleset::Facts<'s, super::LeaderActivation>;

pub(super) fn decide(state: &State, decision: &Decision, dice: &mut Dice) -> Result<Vec<Fact>, Violation> {
    let mut facts = Facts::new(state);
    match decision {
        Decision::BeginTurn { first } => begin_turn(state, first, &mut facts)?,
        Decision::Activate { leader } => activate(state, leader, &mut facts)?,
        Decision::SelfRally {} => self_rally(state, dice, &mut facts)?,
        Decision::Command { unit } => command(state, unit, &mut facts)?,
        Decision::UnitAction { unit, action } => unit_action(state, unit, action, &mut facts)?,
        Decision::LeaderAction { action } => leader_action(state, action, &mut facts)?,
        Decision::Rally { units } => rally(state, units, dice, &mut facts)?,
        Decision::EndActivation {} => {
            let a = activation(state)?;
            end_activation(a.leader.clone(), a.side.clone(), true, &mut facts);
        }
        Decision::Skip { side } => skip(state, side, &mut facts)?,
        Decision::Break { piece, reason } => {
            let p = find(state, piece)?;
            if p.broken {
                refuse!(Shared::NoChange, "{piece} is already broken");
            }
            facts.push(Fact::Broke { piece: piece.clone(), reason: reason.clone() });
        }
        Decision::LockInCloseCombat { leader } => {
            let p = find_leader(state, leader)?;
            if p.locked {
                refuse!(Shared::NoChange, "{leader} is already locked in close combat");
            }
            if active_leader(state) == Some(&**leader) {
                refuse!(
                    Refused::LockMidActivation,
                    "{leader} is in the middle of his activation: end it before locking him in close combat"
                );
            }
            facts.push(Fact::LockedInCloseCombat { leader: leader.clone() });
            pass_slot_if_stuck(&mut facts);
        }
        Decision::FreeFromCloseCombat { leader } => {
            if !find_leader(state, leader)?.locked {
                refuse!(Shared::NoChange, "{leader} is not locked in close combat");
            }
            facts.push(Fact::FreedFromCloseCombat { leader: leader.clone() });
        }
        Decision::Move { piece, to, displaced } => move_piece(state, piece, *to, *displaced, &mut facts)?,
        Decision::Remove { piece, reason } => remove(state, piece, reason, &mut facts)?,
    }
    Ok(facts.into_facts())
}

fn find<'a>(state: &'a State, id: &str) -> Result<&'a Piece, Violation> {
    match state.pieces.get(id) {
        Some(p) => Ok(p),
        None => match state.removed.get(id) {
            Some(r) => refuse!(Shared::OutOfPlay, "{id} has been removed from play ({})", r.reason),
            None => refuse!(Shared::Unknown, "there is no leader or unit {id:?} in this game"),
        },
    }
}

/// "A (an) Elite unit": the article a skill rating takes.
fn a_or_an(skill: Skill) -> &'static str {
    match skill {
        Skill::Elite => "an",
        Skill::Trained | Skill::Conscript => "a",
    }
}

fn find_leader<'a>(state: &'a State, id: &str) -> Result<&'a Piece, Violation> {
    let p = find(state, id)?;
    if p.role != Role::Leader {
        refuse!(Refused::NotALeader, "{id} is a unit, not a leader");
    }
    Ok(p)
}

fn activation(state: &State) -> Result<&Activation, Violation> {
    match &begun(&state.turn)?.activation {
        Some(a) => Ok(a),
        None => refuse!(Shared::NothingActive, "no leader is being activated: activate a leader first"),
    }
}

fn active_leader(state: &State) -> Option<&str> {
    state.turn.as_ref()?.activation.as_ref().map(|a| &*a.leader)
}

fn other(state: &State, side: &str) -> Name {
    if *state.sides[0] == *side {
        state.sides[1].clone()
    } else {
        state.sides[0].clone()
    }
}

/// Leaders of `side` that may still be activated this turn.
///
/// "Leaders locked in close combat do count towards your total number of
/// leaders. You do not get a skip activation for a leader locked in close
/// combat although you are not allowed to activate him."
fn to_activate<'a>(state: &'a State, side: &str) -> Vec<&'a Piece> {
    state
        .pieces
        .values()
        .map(|p| &**p)
        .filter(|p| p.role == Role::Leader && *p.side == *side && !p.activated && !p.locked)
        .collect()
}

/// Who has the next slot after `side` has activated or skipped.
///
/// Leader activations alternate; and, from the text on skips, "instead of
/// activating a command team you pass on to your opponent and let him
/// activate two leaders or even more in sequence": when one side has no
/// leader left to activate, the other activates the rest in sequence.
///
/// `settled` is the leader whose activation ends, with his mark as it will
/// be (whether he stays activated).
fn next_after(state: &State, side: &Name, settled: (&str, bool)) -> Option<Name> {
    let left = |s: &str| {
        state.pieces.iter().any(|(id, p)| {
            let activated = if **id == *settled.0 { settled.1 } else { p.activated };
            p.role == Role::Leader && *p.side == *s && !activated && !p.locked
        })
    };
    let other = other(state, side);
    if left(&other) {
        Some(other)
    } else if left(side) {
        Some(side.clone())
    } else {
        None
    }
}

/// A lock can leave the side whose slot it is with no leader to activate:
/// the slot then passes on as it would after an activation.
fn pass_slot_if_stuck(facts: &mut Facts) {
    let state = facts.state();
    let Some(turn) = &state.turn else { return };
    let (Some(side), None) = (&turn.next, &turn.activation) else { return };
    if !to_activate(state, side).is_empty() {
        return;
    }
    let other = other(state, side);
    let next = if to_activate(state, &other).is_empty() { None } else { Some(other) };
    let side = side.clone();
    facts.push(Fact::SlotPassed { side, next });
    end_turn_if_over(facts);
}

/// The turn ends once no leader is left to activate; it says which leaders
/// were left unactivated because they are locked in close combat.
fn end_turn_if_over(facts: &mut Facts) {
    let state = facts.state();
    if let Some(t) = &state.turn {
        if t.next.is_none() && t.activation.is_none() {
            let turn = t.number;
            let locked = state
                .pieces
                .values()
                .filter(|p| p.role == Role::Leader && p.locked && !p.activated)
                .map(|p| p.id.clone())
                .collect();
            facts.push(Fact::TurnEnded { turn, locked });
        }
    }
}

/// Starts a turn. Who activates first is not in the text (L10): it is named here.
///
/// "If one side has more leaders than the other, the side with the fewer ones
/// has the possibility to skip the activation of a leader." — "You get as many
/// skips as you have leaders less." Leaders are counted at the start of the
/// turn, broken ones and those locked in close combat included (L9).
fn begin_turn(state: &State, first: &Name, facts: &mut Facts) -> Result<(), Violation> {
    if !state.sides.iter().any(|s| s == first) {
        refuse!(Shared::NotASide, "{first:?} is not a side of this game ({}, {})", state.sides[0], state.sides[1]);
    }
    if let Some(t) = &state.turn {
        if let Some(a) = &t.activation {
            refuse!(Shared::TurnNotOver, "turn {} is not over: {} is being activated", t.number, a.leader);
        }
        if t.next.is_some() {
            let left: Vec<Name> =
                state.sides.iter().flat_map(|s| to_activate(state, s)).map(|p| p.id.clone()).collect();
            refuse!(
                Shared::TurnNotOver,
                "turn {} is not over: {} still to activate ({})",
                t.number,
                left.len(),
                left.join(", ")
            );
        }
    }
    let count =
        |side: &str| state.pieces.values().filter(|p| p.role == Role::Leader && *p.side == *side).count() as u32;
    let leaders: std::collections::BTreeMap<Name, u32> = state.sides.iter().map(|s| (s.clone(), count(s))).collect();
    let skips = state.sides.iter().map(|s| (s.clone(), leaders[&other(state, s)].saturating_sub(leaders[s]))).collect();
    // At the start of a turn no leader is marked, so only locks matter.
    let can_start = |side: &str| state.pieces.values().any(|p| p.role == Role::Leader && *p.side == *side && !p.locked);
    let other_side = other(state, first);
    let next = if can_start(first) {
        Some(first.clone())
    } else if can_start(&other_side) {
        Some(other_side)
    } else {
        None
    };
    let number = state.turn.as_ref().map_or(1, |t| t.number + 1);
    facts.push(Fact::TurnBegan { turn: number, first: first.clone(), leaders, skips, next });
    end_turn_if_over(facts);
    Ok(())
}

/// Chooses a leader for the slot.
///
/// "Upon a leader's activation in the Command Phase, the leader may himself
/// command any three friendly units." — a leader "will count as 'activated'
/// as soon as it commands other units. It is marked accordingly. It may not be
/// activated at another time during that turn." Choosing a leader uses up his
/// activation even if he commands nobody (L6).
fn activate(state: &State, leader: &Name, facts: &mut Facts) -> Result<(), Violation> {
    let t = begun(&state.turn)?;
    if let Some(a) = &t.activation {
        refuse!(Shared::StillActive, "{} is still being activated: end his activation first", a.leader);
    }
    let p = find(state, leader)?;
    if p.role != Role::Leader {
        refuse!(Refused::NotALeader, "{leader} is a unit, not a leader: units are commanded by an active leader");
    }
    let Some(next) = &t.next else {
        refuse!(Shared::TurnOver, "turn {} is over: no leader is left to activate; begin the next turn", t.number);
    };
    if &p.side != next {
        let may: Vec<Name> = to_activate(state, next).iter().map(|p| p.id.clone()).collect();
        refuse!(Shared::NotYourTurn, "it is for {next} to activate a leader ({}), not for {}", may.join(", "), p.side);
    }
    if p.activated {
        refuse!(Refused::ActivatedOnce, "{leader} has already been activated this turn: \"It may not be activated at another time during that turn.\"");
    }
    // "You do not get a skip activation for a leader locked in close combat
    // although you are not allowed to activate him."
    if p.locked {
        refuse!(Refused::LockedInCloseCombat, "{leader} is locked in close combat and may not be activated");
    }
    // L9 option: "the side which had the first activation in a turn will never
    // have the last activation as well."
    if state.config.last_activation_rule {
        let side = &p.side;
        let other = other(state, side);
        let fewer = t.leaders[side] < t.leaders[&other];
        if fewer && to_activate(state, side).len() == 1 && !to_activate(state, &other).is_empty() && t.skips[side] > 0 {
            refuse!(
                Refused::LastActivation, "{side} must keep its last leader for the last activation (last-activation-rule): skip instead, {} skip(s) left",
                t.skips[side]
            );
        }
    }
    facts.push(Fact::LeaderActivated { leader: leader.clone(), side: p.side.clone(), broken: p.broken });
    Ok(())
}

/// Whether a D6 `roll` passes against `needed`, with the L2 options.
fn passes(state: &State, roll: u32, needed: i64) -> bool {
    if roll == 1 && state.config.natural_1_fails {
        return false;
    }
    if roll == 6 && state.config.natural_6_rallies {
        return true;
    }
    i64::from(roll) >= needed
}

/// A broken leader's self-rally.
///
/// "A broken leader is allowed to self rally upon its activation. To do so,
/// the leader has to succeed a basic rally test by rolling a 3+ on a D6. If
/// successful the leader may act without restriction and command other troops,
/// perform actions of his own and also rally other troops at the end of his
/// activation. If the leader fails to self rally, he may not do anything and
/// play passes on to the opponent player."
fn self_rally(state: &State, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let a = activation(state)?;
    let leader = find(state, &a.leader)?;
    if !leader.broken {
        refuse!(Refused::SelfRallyUnbroken, "{} is not broken: only a broken leader self-rallies", a.leader);
    }
    if a.self_rally_tried {
        refuse!(Refused::SelfRallyOnce, "{} has already tried to self-rally in this activation", a.leader);
    }
    if a.leader_acted || !a.commanded.is_empty() {
        refuse!(Refused::SelfRallyFirst, "{} may only self-rally upon his activation, before anything else", a.leader);
    }
    let mut needed = state.config.self_rally_target;
    // L4 option: the leader's own skill modifies his self-rally.
    if state.config.self_rally_skill_modifier {
        needed = needed.saturating_add(skill_modifier(leader.skill));
    }
    let roll = dice.d6("self-rally")?;
    let rallied = passes(state, roll, needed);
    facts.push(Fact::SelfRallyTested { leader: a.leader.clone(), roll, needed, rallied });
    if !rallied {
        // L5: the failed leader is marked activated, unless the option says not.
        let stays = !state.config.failed_self_rally_keeps_leader_unactivated;
        end_activation(a.leader.clone(), a.side.clone(), stays, facts);
    }
    Ok(())
}

/// "-1 One or more Elite unit among rallied troops", "+1 One or more Conscript unit".
fn skill_modifier(skill: Skill) -> i64 {
    match skill {
        Skill::Elite => -1,
        Skill::Trained => 0,
        Skill::Conscript => 1,
    }
}

/// "A broken leader may not perform any action of his own and may not command
/// or rally other troops. A broken leader may only self rally".
fn refuse_if_broken(state: &State, a: &Activation, what: &str) -> Result<(), Violation> {
    if find(state, &a.leader)?.broken {
        refuse!(
            Refused::BrokenLeader,
            "{} is broken and may not {what}: \"A broken leader may only self rally\"",
            a.leader
        );
    }
    Ok(())
}

/// The active leader commands a unit.
///
/// "He may only do so if these units are not broken, in command range and
/// have not yet been activated during that turn." — "A leader may not activate
/// another leader nor may you play any other foul tricks to activate more than
/// 3 units + 1 leader per command activation." — "Note that after the leader
/// has performed any action of his own (such as moving or shooting) he may not
/// command other units any more." — "The command range depends on the unit
/// commanded rather than on the leader giving the orders." Range is measured
/// when the unit is commanded, inclusive (L8).
fn command(state: &State, unit: &Name, facts: &mut Facts) -> Result<(), Violation> {
    let a = activation(state)?;
    refuse_if_broken(state, a, "command units")?;
    if a.leader_acted {
        refuse!(
            Refused::LeaderHasActed, "{} has acted himself: \"after the leader has performed any action of his own (such as moving or shooting) he may not command other units any more\"",
            a.leader
        );
    }
    let max = state.config.max_commanded_units;
    if a.commanded.len() >= max {
        refuse!(
            Refused::CommandLimit,
            "{} has already commanded {} units ({}): a leader commands at most {max}",
            a.leader,
            a.commanded.len(),
            a.commanded.join(", ")
        );
    }
    let u = find(state, unit)?;
    if u.role == Role::Leader {
        refuse!(Refused::LeaderNotCommanded, "{unit} is a leader: \"A leader may not activate another leader\"");
    }
    if u.side != a.side {
        refuse!(Shared::NotFriendly, "{unit} is not friendly to {}: a leader commands friendly units", a.leader);
    }
    if u.broken {
        refuse!(
            Refused::BrokenNotCommanded,
            "{unit} is broken: a leader may only command units that are not broken (rally it instead)"
        );
    }
    if u.activated {
        refuse!(Refused::ActivatedOnce, "{unit} has already been activated this turn");
    }
    let leader = find(state, &a.leader)?;
    let range_mm = state.config.command_range_mm(u.skill);
    let distance_mm = leader.at.distance_ceil(u.at);
    if !leader.at.within(u.at, range_mm) {
        refuse!(
            Refused::OutOfCommandRange, "{unit} is out of command range: {distance_mm} mm from {} (rounded up), and {} {} unit's command range is {range_mm} mm",
            a.leader,
            a_or_an(u.skill),
            u.skill.name()
        );
    }
    facts.push(Fact::UnitCommanded {
        leader: a.leader.clone(),
        unit: unit.clone(),
        skill: u.skill,
        distance_mm,
        range_mm,
    });
    Ok(())
}

/// "Commanding a unit simply means activating it. The activated unit is
/// allowed its normal actions … After all actions have been completed, choose
/// another unit to command": only the unit commanded last acts, and only
/// until the leader acts himself.
fn unit_action(state: &State, unit: &Name, action: &Name, facts: &mut Facts) -> Result<(), Violation> {
    let a = activation(state)?;
    find(state, unit)?;
    match a.commanded.last() {
        Some(last) if last == unit => {}
        Some(last) if a.commanded.iter().any(|u| u == unit) => {
            refuse!(Refused::ActionsOver, "{unit}'s actions are over: {} has since commanded {last}", a.leader)
        }
        _ => refuse!(Refused::NotCommanded, "{unit} has not been commanded by {}: command it first", a.leader),
    }
    if a.leader_acted {
        refuse!(Refused::ActionsOver, "{unit}'s actions are over: {} has acted himself", a.leader);
    }
    facts.push(Fact::UnitActed { unit: unit.clone(), action: action.clone() });
    Ok(())
}

/// "After the leader has commanded (activated) up to three units he is
/// allowed to perform actions himself." A broken leader "may not perform any
/// action of his own".
fn leader_action(state: &State, action: &Name, facts: &mut Facts) -> Result<(), Violation> {
    let a = activation(state)?;
    refuse_if_broken(state, a, "perform an action of his own")?;
    facts.push(Fact::LeaderActed { leader: a.leader.clone(), action: action.clone() });
    Ok(())
}

/// The leader's rally, which ends his activation.
///
/// "A leader is allowed a single rally action at the end of his activation."
/// "You may rally up to three units within command range. Again, command range
/// depends on the rallied unit and not on the leader." "first nominate which
/// units to rally then roll a D6 … If the roll succeeds, all designated units
/// are rallied, on a failure all units remain broken. The basic target number
/// for the rally test is 3+", +1 for 2 units, +2 for 3, −1 for "One or more
/// Elite unit", +1 for "One or more Conscript unit"; "It is not cumulative but
/// may cancel each other out" (L3). "Command teams themselves may not be
/// rallied by other command teams".
fn rally(state: &State, units: &[Name], dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let a = activation(state)?;
    refuse_if_broken(state, a, "rally other troops")?;
    let max = state.config.max_rallied_units;
    if units.is_empty() {
        refuse!(Shared::NothingNamed, "name at least one broken unit to rally");
    }
    if units.len() > max {
        refuse!(
            Refused::RallyLimit,
            "{} may rally up to {max} units, not {} ({})",
            a.leader,
            units.len(),
            units.join(", ")
        );
    }
    let leader = find(state, &a.leader)?;
    let mut rallied: Vec<&Piece> = Vec::new();
    for id in units {
        let u = find(state, id)?;
        if rallied.iter().any(|r| r.id == *id) {
            refuse!(Shared::NamedTwice, "{id} is named twice");
        }
        if u.role == Role::Leader {
            refuse!(Refused::LeaderNotRallied, "{id} is a leader: \"Command teams themselves may not be rallied by other command teams - they may instead try to self rally.\"");
        }
        if u.side != a.side {
            refuse!(Shared::NotFriendly, "{id} is not friendly to {}", a.leader);
        }
        if !u.broken {
            refuse!(Refused::RallyUnbroken, "{id} is not broken: only broken units are rallied");
        }
        let range_mm = state.config.command_range_mm(u.skill);
        if !leader.at.within(u.at, range_mm) {
            refuse!(
                Refused::OutOfCommandRange, "{id} is out of command range for a rally: {} mm from {} (rounded up), and {} {} unit's command range is {range_mm} mm",
                leader.at.distance_ceil(u.at),
                a.leader,
                a_or_an(u.skill),
                u.skill.name()
            );
        }
        rallied.push(u);
    }
    let any_elite = rallied.iter().any(|u| u.skill == Skill::Elite);
    let any_conscript = rallied.iter().any(|u| u.skill == Skill::Conscript);
    let extra_units = i64::try_from(rallied.len().saturating_sub(1)).unwrap_or(i64::MAX);
    let base = state.config.rally_target.saturating_add(extra_units);
    let skill = skill_modifier_if(any_elite, Skill::Elite) + skill_modifier_if(any_conscript, Skill::Conscript);
    let roll = dice.d6("rally")?;
    // L1: the default reads the skill modifiers as target-number modifiers;
    // the option reads the Skill Rating table's "+1"/"-1" as roll modifiers.
    // Both give the same pass or fail; `needed` is the natural roll needed.
    let (needed, success) = if state.config.skill_as_roll_modifier {
        let roll_modifier = -skill;
        (base - roll_modifier, passes_modified(state, roll, roll_modifier, base))
    } else {
        (base + skill, passes(state, roll, base + skill))
    };
    facts.push(Fact::RallyTested { leader: a.leader.clone(), units: units.to_vec(), roll, needed, rallied: success });
    if success {
        // L7 option: a rallied unit stays idle for the rest of the turn.
        facts.push(Fact::UnitsRallied { units: units.to_vec(), stay_idle: state.config.rallied_units_stay_idle });
    }
    end_activation(a.leader.clone(), a.side.clone(), true, facts);
    Ok(())
}

fn skill_modifier_if(present: bool, skill: Skill) -> i64 {
    if present {
        skill_modifier(skill)
    } else {
        0
    }
}

/// L1's other reading: the roll is modified, the target is not.
fn passes_modified(state: &State, roll: u32, modifier: i64, target: i64) -> bool {
    if roll == 1 && state.config.natural_1_fails {
        return false;
    }
    if roll == 6 && state.config.natural_6_rallies {
        return true;
    }
    i64::from(roll) + modifier >= target
}

fn end_activation(leader: Name, side: Name, stays_activated: bool, facts: &mut Facts) {
    // The state the facts lead to tells who is left, once this leader's
    // mark is settled as it will be.
    let next = next_after(facts.state(), &side, (&leader, stays_activated));
    // Once the activation has ended, the turn is over exactly when no side
    // is next: only then is the state the facts lead to needed (a copy of
    // the state, the costliest step of deciding an activation's end).
    let over = next.is_none();
    facts.push(Fact::ActivationEnded { leader, side, stays_activated, next });
    if over {
        end_turn_if_over(facts);
    }
}

/// "Skipping means that instead of activating a command team you pass on to
/// your opponent and let him activate two leaders or even more in sequence."
/// "You get as many skips as you have leaders less." A skip passes to an
/// opponent who still has a leader to activate (L9).
fn skip(state: &State, side: &Name, facts: &mut Facts) -> Result<(), Violation> {
    let t = begun(&state.turn)?;
    if let Some(a) = &t.activation {
        refuse!(
            Shared::StillActive,
            "{} is being activated: a side skips instead of activating, not during an activation",
            a.leader
        );
    }
    let Some(next) = &t.next else {
        refuse!(Shared::TurnOver, "turn {} is over: there is nothing to skip", t.number);
    };
    if next != side {
        refuse!(Shared::NotYourTurn, "it is for {next} to activate a leader: {side} cannot skip it");
    }
    let left = t.skips.get(&**side).copied().unwrap_or(0);
    if left == 0 {
        refuse!(
            Refused::NoSkipLeft, "{side} has no skip left: \"You get as many skips as you have leaders less.\" (leaders at the start of the turn: {})",
            t.leaders.iter().map(|(s, n)| format!("{s} {n}")).collect::<Vec<_>>().join(", ")
        );
    }
    let opponent = other(state, side);
    if to_activate(state, &opponent).is_empty() {
        refuse!(Refused::NothingToPassTo, "{opponent} has no leader left to activate: {side} cannot pass to them");
    }
    facts.push(Fact::Skipped { side: side.clone(), skips_left: left - 1, next: Some(opponent) });
    Ok(())
}

/// A move: the active leader's own, or the referee's (LN4).
///
/// "Note that after the leader has performed any action of his own (such as
/// moving or shooting) he may not command other units any more." — "A broken
/// leader may not perform any action of his own". A move of the leader being
/// activated is such an action, unless it says the referee displaces him
/// (`displaced`: a casualty's displacement, a retreat the table imposes);
/// every other move is the referee's, outside anyone's activation. Once he
/// has acted (a `leader-action` saying "moves to the wall", say), a move
/// records where his actions take him: he has acted already.
/// `leader-activation@1` reads every move as the referee's.
fn move_piece(state: &State, id: &Name, to: Point, displaced: bool, facts: &mut Facts) -> Result<(), Violation> {
    let p = find(state, id)?;
    let active = active_leader(state) == Some(&**id);
    if displaced && !active {
        refuse!(
            Refused::DisplacedOnlyTheActiveLeader,
            "{id} is not the leader being activated: only his move may say `displaced`; every other move is the referee's already"
        );
    }
    if active && !displaced && state.config.leader_move_is_own_action {
        let a = activation(state)?;
        refuse_if_broken(state, a, "move as an action of his own (a referee's displacement says `displaced`)")?;
        if !a.leader_acted {
            facts.push(Fact::LeaderActed { leader: id.clone(), action: Name::from("moves") });
        }
    }
    facts.push(Fact::Moved { piece: id.clone(), from: p.at, to });
    Ok(())
}

/// The referee removes a leader or unit from play (LN3).
///
/// The text has no casualties: what kills a leader or destroys a unit is
/// outside the Command Phase, so it is a referee decision, like breaking
/// (L10). Its consequences follow from the text: a leader no longer in play
/// is not among "your total number of leaders" when the next turn's skips
/// are counted ("You get as many skips as you have leaders less"; this
/// turn's were counted at its start, L9), is never given an activation, and
/// a removed unit can be neither commanded nor rallied. A leader removed
/// while he is being activated does nothing more: his activation ends and
/// the slot passes on, as after any activation. A side left with no leader
/// to activate passes its slot on, as for a lock.
fn remove(state: &State, id: &Name, reason: &Name, facts: &mut Facts) -> Result<(), Violation> {
    let p = find(state, id)?;
    let (side, role) = (p.side.clone(), p.role);
    facts.push(Fact::Removed { piece: id.clone(), side: side.clone(), role, reason: reason.clone() });
    if active_leader(state) == Some(&**id) {
        end_activation(id.clone(), side, true, facts);
    } else {
        pass_slot_if_stuck(facts);
    }
    Ok(())
}
