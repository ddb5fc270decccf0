//! The rules of Combat HQ command: every refusal and every roll.
//!
//! Each rule quotes the sentence it enforces: from
//! `docs/rules/battle-group-command-dice.txt` (the rule change), or from the
//! Combat HQ context of `docs/rules/INTERPRETATIONS.md` (the designer's published
//! rules the excerpt relies on). Where the two versions differ, the rule
//! asks [`Version`] and the difference is quoted there. `decide` builds its
//! facts on a scratch copy of the state, so a later fact (who has the next
//! pulse, whether artillery may follow a company in) sees the earlier ones.

use std::collections::BTreeMap;

use crate::dice::Dice;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::text::faces;
use super::{
    BattleGroup, CommandGroup, Decision, Fact, FirstPulseBy, GroupKind, NoRoll, OnCommandFailure, Order, Payment,
    Refused, State, Turn, UnitInRange,
};
use crate::rulesets::begun;

type Facts<'s> = crate::ruleset::Facts<'s, super::CombatHq>;

pub(super) fn decide(state: &State, decision: &Decision, dice: &mut Dice) -> Result<Vec<Fact>, Violation> {
    let mut facts = Facts::new(state);
    match decision {
        Decision::BeginTurn { first } => begin_turn(state, first, dice, &mut facts)?,
        Decision::Pulse { battle_group, number, sixes, wild_dice, orders } => pulse(
            state,
            Chain { battle_group, number: *number, sixes: *sixes, wild_dice: *wild_dice },
            orders,
            &mut facts,
        )?,
        Decision::EnterReserve { command_group, staff_orders_from } => {
            enter_by_staff_orders(state, command_group, staff_orders_from.as_deref(), &mut facts)?
        }
        Decision::EndTurn {} => end_turn(state, &mut facts)?,
        Decision::Move { unit, to_tenths } => {
            let Some(u) = state.units.get(unit) else {
                refuse!(Shared::Unknown, "there is no unit {unit:?} in this game");
            };
            let cg = &state.command_groups[&u.command_group];
            if cg.in_reserve {
                refuse!(
                    Refused::InReserve,
                    "{unit} is in reserve with {}: its command group enters the table before it moves",
                    cg.id
                );
            }
            facts.push(Fact::UnitMoved { unit: unit.clone(), from_tenths: u.at_tenths, to_tenths: *to_tenths });
        }
    }
    Ok(facts.into_facts())
}

/// The turn in progress, refusing once it has ended.
fn open_turn<'a>(state: &'a State, what: &str) -> Result<&'a Turn, Violation> {
    let t = begun(&state.turn)?;
    if t.ended {
        refuse!(Shared::TurnOver, "turn {} has ended: {what} in a turn; begin the next turn", t.number);
    }
    Ok(t)
}

fn other_side(state: &State, side: &str) -> String {
    let other = if state.sides[0].id == side { 1 } else { 0 };
    state.sides[other].id.clone()
}

fn side_ids(state: &State) -> String {
    state.sides.iter().map(|s| s.id.as_str()).collect::<Vec<_>>().join(", ")
}

fn find_battle_group<'a>(state: &'a State, id: &str) -> Result<&'a BattleGroup, Violation> {
    match state.battle_groups.get(id) {
        Some(b) => Ok(b),
        None => refuse!(
            Shared::Unknown,
            "there is no battle group {id:?} in this game (battle groups: {})",
            state.battle_groups.keys().cloned().collect::<Vec<_>>().join(", ")
        ),
    }
}

fn find_command_group<'a>(state: &'a State, id: &str) -> Result<&'a CommandGroup, Violation> {
    match state.command_groups.get(id) {
        Some(c) => Ok(c),
        None => refuse!(Shared::Unknown, "there is no command group {id:?} in this game"),
    }
}

/// Whether a battle group has a command group other than artillery on the
/// table: "If all of its units (excluding artillery) are held in Reserve,
/// it doesn't roll any Command Dice." (C2: artillery does not count as
/// deployed.)
fn deployed(state: &State, bg: &BattleGroup) -> bool {
    bg.command_groups.iter().any(|id| {
        let cg = &state.command_groups[id];
        !cg.in_reserve && cg.kind != GroupKind::Artillery
    })
}

fn reserve_groups(state: &State, bg: &BattleGroup) -> Vec<String> {
    bg.command_groups.iter().filter(|id| state.command_groups[*id].in_reserve).cloned().collect()
}

/// Starts a turn and rolls the Command Dice.
///
/// "Command Dice are rolled at the start of each turn, per battle group, COs
/// alternating." Who rolls first is not in the text: it is named here. A
/// turn begins only once the last one has ended. Staff Orders restocked last
/// turn become usable: "restocked orders are usable from the next turn".
fn begin_turn(state: &State, first: &str, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    if !state.sides.iter().any(|s| s.id == first) {
        refuse!(
            Shared::NotASide,
            "{first:?} is not a side of this game ({}): name the side whose CO rolls first",
            side_ids(state)
        );
    }
    if let Some(t) = &state.turn {
        if !t.ended {
            refuse!(
                Shared::TurnNotOver,
                "turn {} has not ended: end it first (end-turn){}",
                t.number,
                match &t.pulse {
                    Some(side) => format!(", though {side} may still play a Command Pulse"),
                    None => String::new(),
                }
            );
        }
    }
    let number = state.turn.as_ref().map_or(1, |t| t.number + 1);
    let released = state
        .battle_groups
        .values()
        .filter(|b| b.staff_orders_next_turn > 0)
        .map(|b| (b.id.clone(), b.staff_orders_next_turn))
        .collect();
    let staff_orders =
        state.battle_groups.values().map(|b| (b.id.clone(), b.staff_orders + b.staff_orders_next_turn)).collect();
    facts.push(Fact::TurnBegan { turn: number, first: first.to_string(), released, staff_orders });
    for bg in roll_order(state, first) {
        roll_command_dice(&bg, dice, facts)?;
    }
    first_pulse(dice, facts)?;
    Ok(())
}

/// "per battle group, COs alternating": the first side's first battle group,
/// the other side's first, the first side's second, …; a side with no
/// battle group left to roll leaves the rest to the other.
fn roll_order(state: &State, first: &str) -> Vec<String> {
    let a = &state.sides.iter().find(|s| s.id == first).expect("a side").battle_groups;
    let other = other_side(state, first);
    let b = &state.sides.iter().find(|s| s.id == other).expect("a side").battle_groups;
    let mut order = Vec::new();
    for i in 0..a.len().max(b.len()) {
        order.extend(a.get(i).cloned());
        order.extend(b.get(i).cloned());
    }
    order
}

/// One battle group's roll.
///
/// "If one or more command groups are deployed on the table at the start of
/// a game, the battle group rolls its Active Dice Pool each turn. If all of
/// its units (excluding artillery) are held in Reserve, it doesn't roll any
/// Command Dice." (multi-bg; base rolls every die, see
/// [`super::Version::rolls_while_all_in_reserve`]). Each battle group's dice
/// are addressed by its own label, `command-dice:<battle group>`, so two
/// versions agree on every die they both roll.
///
/// "If a roll shows more 1s than 6s it is a Command Failure" — on a normal
/// roll the 1s are discarded; on a failure they go to the enemy, as the
/// version says ([`super::Version::on_command_failure`]).
fn roll_command_dice(id: &str, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let state = facts.state();
    let version = state.config.version;
    let bg = &state.battle_groups[id];
    let held = bg.dice_held_by_reserves;
    let pool = bg.command_dice - held;
    let reason = if !deployed(state, bg) && !version.rolls_while_all_in_reserve() {
        Some(NoRoll::AllInReserve)
    } else if pool == 0 {
        Some(NoRoll::EmptyPool)
    } else {
        None
    };
    if let Some(reason) = reason {
        let fact = Fact::CommandDiceNotRolled {
            battle_group: id.to_string(),
            side: bg.side.clone(),
            active_pool: pool,
            held_by_reserves: held,
            reason,
        };
        facts.push(fact);
        return Ok(());
    }
    let rolled = dice.nd6(&format!("command-dice:{id}"), pool)?;
    let ones = rolled.iter().filter(|&&d| d == 1).count() as u32;
    let sixes = rolled.iter().filter(|&&d| d == 6).count() as u32;
    let command_failure = ones > sixes;
    let mut kept: Vec<u32> = rolled.iter().copied().filter(|&d| d != 1).collect();
    kept.sort_unstable_by(|a, b| b.cmp(a));
    let side = bg.side.clone();
    let reserves = reserve_groups(state, bg);
    facts.push(Fact::CommandDiceRolled {
        battle_group: id.to_string(),
        side: side.clone(),
        active_pool: pool,
        held_by_reserves: held,
        dice: rolled,
        ones,
        sixes,
        command_failure,
        kept,
    });
    if !command_failure {
        return Ok(());
    }
    let enemy = other_side(facts.state(), &side);
    match version.on_command_failure() {
        // Base: "the 1s go to the opponent as Wild Dice".
        OnCommandFailure::WildDiceToOpponent => {
            let held = facts.state().turn.as_ref().and_then(|t| t.wild_dice.get(&enemy).copied()).unwrap_or(0);
            facts.push(Fact::WildDiceGiven {
                from_battle_group: id.to_string(),
                to_side: enemy,
                wild_dice: ones,
                total: held + ones,
            });
        }
        // Multi-bg: "the failing group's 1s go to the enemy CO as Staff
        // Orders, and the failure stops that group's reserves from entering
        // unless the CO pays 2 Staff Orders per Reserve Command Group."
        OnCommandFailure::StaffOrdersToEnemyCo => {
            let state = facts.state();
            let co = state.sides.iter().find(|s| s.id == enemy).expect("a side");
            let fact = Fact::StaffOrdersCaptured {
                from_battle_group: id.to_string(),
                to_side: enemy.clone(),
                co: co.co.clone(),
                staff_orders: ones,
                total: co.co_staff_orders + ones,
            };
            let cost = state
                .config
                .reserve_entry_staff_orders_after_failure
                .expect("multi-bg declares the cost after a failure");
            facts.push(fact);
            facts.push(Fact::ReservesHeldBack {
                battle_group: id.to_string(),
                reserve_groups: reserves,
                staff_orders_per_group: cost,
            });
        }
    }
    Ok(())
}

/// Dice a side may still chain this turn, by face (2–6).
fn counts(state: &State, side: &str) -> BTreeMap<u32, u32> {
    let mut out = BTreeMap::new();
    let Some(t) = &state.turn else { return out };
    for (bg, left) in &t.dice {
        if state.battle_groups[bg].side == side {
            for &d in left {
                *out.entry(d).or_insert(0) += 1;
            }
        }
    }
    out
}

fn has_dice(state: &State, side: &str) -> bool {
    !counts(state, side).is_empty()
}

/// Settles the first Command Pulse of the turn.
///
/// "The first Command Pulse goes to the side with most 6s, then most 5s,
/// and so on". Only the sides' own dice count (Wild Dice show no number of
/// their own). The text does not say what happens when the sides rolled
/// alike: each rolls a D6 (`first-pulse-roll-off:<side>`), again until they
/// differ, and the higher has the first pulse.
fn first_pulse(dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let state = facts.state();
    let sides: Vec<String> = state.sides.iter().map(|s| s.id.clone()).collect();
    let with_dice: Vec<&String> = sides.iter().filter(|s| has_dice(state, s)).collect();
    let (side, decided) = match with_dice.as_slice() {
        [] => (None, FirstPulseBy::NoDice),
        [only] => (Some((*only).clone()), FirstPulseBy::OnlySideWithDice),
        _ => {
            let a = counts(state, &sides[0]);
            let b = counts(state, &sides[1]);
            let differs = (2..=6).rev().find(|face| a.get(face) != b.get(face));
            match differs {
                Some(face) => {
                    let (na, nb) = (a.get(&face).copied().unwrap_or(0), b.get(&face).copied().unwrap_or(0));
                    let winner = if na > nb { &sides[0] } else { &sides[1] };
                    (
                        Some(winner.clone()),
                        FirstPulseBy::MostDice {
                            face,
                            counts: [(sides[0].clone(), na), (sides[1].clone(), nb)].into(),
                        },
                    )
                }
                None => {
                    let mut rolls = Vec::new();
                    loop {
                        let ra = dice.d6(&format!("first-pulse-roll-off:{}", sides[0]))?;
                        let rb = dice.d6(&format!("first-pulse-roll-off:{}", sides[1]))?;
                        rolls.push([(sides[0].clone(), ra), (sides[1].clone(), rb)].into());
                        if ra != rb {
                            let winner = if ra > rb { &sides[0] } else { &sides[1] };
                            break (Some(winner.clone()), FirstPulseBy::RollOff { rolls });
                        }
                    }
                }
            }
        }
    };
    facts.push(Fact::FirstPulse { side, decided });
    Ok(())
}

/// The chain a pulse names.
struct Chain<'a> {
    battle_group: &'a str,
    number: u32,
    sixes: u32,
    wild_dice: u32,
}

/// One Command Pulse: one Dice Chain, each die doing one thing.
///
/// "Dice showing the same number form a Dice Chain; 6s are wild and may join
/// any chain." — "sides alternate pulses, one chain per pulse; each die
/// activates one command group". A chain of a number takes every die of
/// its battle group still showing that number, and any of its 6s the side
/// chooses to add; a chain of 6s takes the 6s left. 1s form no chain: "on a
/// normal roll, 1s are discarded". A chain is one battle group's: "each
/// battle group keeps its own Command Dice". Base: "the 1s go to the
/// opponent as Wild Dice", which join the receiving side's chains.
fn pulse(state: &State, chain: Chain, orders: &[Order], facts: &mut Facts) -> Result<(), Violation> {
    let t = open_turn(state, "Command Pulses are played")?;
    let Some(side) = &t.pulse else {
        refuse!(
            Refused::NoPulseLeft,
            "no Command Pulse is left in turn {}: no side has dice to chain; end the turn",
            t.number
        );
    };
    let bg = find_battle_group(state, chain.battle_group)?;
    if &bg.side != side {
        return Err(not_the_pulse_of(state, t, side, bg));
    }
    let (in_chain, left, wild_held) = chain_dice(state, t, side, &bg.id, &chain)?;
    let length = in_chain.len() as u32 + chain.wild_dice;
    orders_within(orders, length)?;
    let mut dice_left = left.clone();
    for d in &in_chain {
        let at = dice_left.iter().position(|x| x == d).expect("counted above");
        dice_left.remove(at);
    }
    facts.push(Fact::ChainPlayed {
        side: side.clone(),
        battle_group: bg.id.clone(),
        number: chain.number,
        dice: in_chain,
        wild_dice: chain.wild_dice,
        dice_left,
        wild_dice_left: wild_held - chain.wild_dice,
    });
    carry_out(&bg.id, chain.number, orders, facts)?;
    if length >= 2 {
        restock(&bg.id, length, chain.number == 6, facts);
    }
    let after = facts.state();
    let enemy = other_side(after, side);
    let next = if has_dice(after, &enemy) {
        Some(enemy)
    } else if has_dice(after, side) {
        Some(side.clone())
    } else {
        None
    };
    facts.push(Fact::PulseEnded { side: side.clone(), unused_dice: length - orders.len() as u32, next });
    Ok(())
}

/// A chain played by the side whose pulse it is not: the refusal names the
/// chains the side whose pulse it is could play.
fn not_the_pulse_of(state: &State, t: &Turn, side: &str, bg: &BattleGroup) -> Violation {
    let with_dice: Vec<String> = t
        .dice
        .iter()
        .filter(|(id, left)| state.battle_groups[*id].side == side && !left.is_empty())
        .map(|(id, left)| format!("{id}: {}", faces(left)))
        .collect();
    Violation::rule(
        Shared::NotYourTurn,
        format!("the Command Pulse is for {side}, not {}: {side} may play a chain ({})", bg.side, with_dice.join("; ")),
    )
}

/// The dice a chain takes from its battle group (every die of its number,
/// and the 6s added), the battle group's dice before it, and the Wild Dice
/// the side holds.
fn chain_dice(
    state: &State,
    t: &Turn,
    side: &str,
    bg: &str,
    chain: &Chain,
) -> Result<(Vec<u32>, Vec<u32>, u32), Violation> {
    let number = chain.number;
    if number == 1 {
        refuse!(
            Refused::OnesFormNoChain,
            "1s form no chain: on a normal roll they are discarded, and on a Command Failure they go to the enemy"
        );
    }
    if !(2..=6).contains(&number) {
        refuse!(Refused::ChainNumber, "a chain is of one number a D6 shows, 2 to 6, not {number}");
    }
    let left = t.dice.get(bg).cloned().unwrap_or_default();
    let of_number = left.iter().filter(|&&d| d == number).count() as u32;
    if of_number == 0 {
        refuse!(Refused::NoDiceToChain, "{} has no {number} left to chain (dice left: {})", bg, faces(&left));
    }
    let sixes_left = left.iter().filter(|&&d| d == 6).count() as u32;
    if number == 6 && chain.sixes > 0 {
        refuse!(
            Refused::SixesJoinAnotherChain,
            "a chain of 6s already takes every 6 left: sixes adds wild 6s to a chain of another number"
        );
    }
    if chain.sixes > sixes_left {
        refuse!(
            Refused::NoDiceToChain,
            "{} has {sixes_left} six(es) left to join the chain, not {} (dice left: {})",
            bg,
            chain.sixes,
            faces(&left)
        );
    }
    let wild_held = t.wild_dice.get(side).copied().unwrap_or(0);
    if chain.wild_dice > wild_held {
        refuse!(
            Refused::WildDiceLimit,
            "{side} may add up to {wild_held} Wild Dice to a chain this turn, not {}{}",
            chain.wild_dice,
            match state.config.version.on_command_failure() {
                OnCommandFailure::StaffOrdersToEnemyCo =>
                    " (under combat-hq@multi-bg a Command Failure gives the enemy CO Staff Orders, not Wild Dice)",
                OnCommandFailure::WildDiceToOpponent => "",
            }
        );
    }
    let mut in_chain = vec![number; of_number as usize];
    in_chain.extend(std::iter::repeat_n(6, chain.sixes as usize));
    Ok((in_chain, left, wild_held))
}

/// "each die activates one command group": no more orders than dice.
fn orders_within(orders: &[Order], length: u32) -> Result<(), Violation> {
    if orders.len() as u32 > length {
        let (dice, at_most) = if length == 1 {
            ("1 die".to_string(), "1 order".to_string())
        } else {
            (format!("{length} dice"), format!("{length} orders"))
        };
        refuse!(
            Refused::OneGroupPerDie,
            "a chain of {dice} gives at most {at_most}, not {}: each die activates one command group",
            orders.len()
        );
    }
    Ok(())
}

/// A chain's orders, in order: each activates a different command group, or
/// brings one in from reserve.
fn carry_out(bg: &str, number: u32, orders: &[Order], facts: &mut Facts) -> Result<(), Violation> {
    let mut activated: Vec<&str> = Vec::new();
    for order in orders {
        match order {
            Order::Activate { command_group, units } => {
                if activated.contains(&command_group.as_str()) {
                    refuse!(Refused::OneGroupPerDie, "{command_group} is already activated by this chain: each die activates a different command group");
                }
                activate(bg, command_group, units, facts)?;
                activated.push(command_group);
            }
            Order::Enter { command_group } => enter_by_die(bg, command_group, number, facts)?,
        }
    }
    Ok(())
}

/// One die activates one command group.
///
/// "each die activates one command group (a command unit and up to 3 units
/// within 6")": the group must be on the table; the units are the group's
/// own, each within 6" (60 tenths, inclusive, exact) of its command unit,
/// measured from where they stand now.
fn activate(bg: &str, command_group: &str, units: &[String], facts: &mut Facts) -> Result<(), Violation> {
    let state = facts.state();
    let cg = find_command_group(state, command_group)?;
    if cg.battle_group != bg {
        refuse!(
            Refused::OtherBattleGroup,
            "{command_group} belongs to {}, not {bg}: a chain activates its own battle group's command groups",
            cg.battle_group
        );
    }
    if cg.in_reserve {
        refuse!(Refused::InReserve, "{command_group} is in reserve: it enters the table before it is activated (a die of the chain may enter it)");
    }
    let max = state.config.units_per_activation;
    if units.len() > max {
        refuse!(
            Refused::CommandGroupSize,
            "a die activates a command unit and up to {max} units, not {} ({})",
            units.len(),
            units.join(", ")
        );
    }
    let range = state.config.activation_range_tenths;
    let command_unit = &state.units[&cg.command_unit];
    let mut in_range: Vec<UnitInRange> = Vec::new();
    for id in units {
        let Some(u) = state.units.get(id) else {
            refuse!(Shared::Unknown, "there is no unit {id:?} in this game");
        };
        if u.command_group != cg.id {
            refuse!(
                Refused::NotInCommandGroup,
                "{id} is not in {command_group}: a die activates units of one command group ({})",
                cg.units.join(", ")
            );
        }
        if *id == cg.command_unit {
            refuse!(
                Refused::CommandUnitNamed,
                "{id} is {command_group}'s command unit, activated with it: name up to {max} other units"
            );
        }
        if in_range.iter().any(|r| &r.unit == id) {
            refuse!(Shared::NamedTwice, "{id} is named twice");
        }
        let distance_tenths = command_unit.at_tenths.distance_ceil(u.at_tenths);
        if !command_unit.at_tenths.within(u.at_tenths, range) {
            refuse!(
                Refused::OutOfCommandRange, "{id} is {distance_tenths} tenths of an inch from {} (rounded up): a unit activates with its command unit only within {range} tenths",
                cg.command_unit
            );
        }
        in_range.push(UnitInRange { unit: id.clone(), distance_tenths });
    }
    let command_unit = cg.command_unit.clone();
    facts.push(Fact::CommandGroupActivated {
        battle_group: bg.to_string(),
        command_group: command_group.to_string(),
        command_unit,
        units: in_range,
        range_tenths: range,
    });
    Ok(())
}

/// Checks that a command group may enter the table now.
///
/// It must be in reserve; under multi-bg with CN9's option, the example's
/// "Its artillery is held in reserve until one command group enters the
/// table." is a rule for every battle group.
fn may_enter<'a>(state: &'a State, command_group: &str) -> Result<&'a CommandGroup, Violation> {
    let cg = find_command_group(state, command_group)?;
    if !cg.in_reserve {
        refuse!(Refused::NotInReserve, "{command_group} is not in reserve: it is already on the table");
    }
    let bg = &state.battle_groups[&cg.battle_group];
    if cg.kind == GroupKind::Artillery && state.config.artillery_waits_for_a_command_group && !deployed(state, bg) {
        refuse!(
            Refused::ArtilleryWaits, "{command_group} is artillery: \"Its artillery is held in reserve until one command group enters the table.\" (artillery-waits-for-a-command-group), and none of {}'s other command groups is on the table",
            bg.id
        );
    }
    Ok(cg)
}

/// The fact of a group entering, with what its die does.
///
/// "When a Reserve Command Group enters the table, its Command Dice is added
/// to the battle group's Active Dice Pool and is available for use on
/// subsequent turns." (multi-bg; under base reserves hold no die.)
fn entered(state: &State, cg: &CommandGroup, paid: Payment) -> Fact {
    let bg = &state.battle_groups[&cg.battle_group];
    let reserves = reserve_groups(state, bg).len() as u32 - 1;
    let held = state.config.version.dice_held_by_reserves(reserves, bg.command_dice);
    Fact::ReserveEntered {
        battle_group: bg.id.clone(),
        command_group: cg.id.clone(),
        paid,
        die_released: held < bg.dice_held_by_reserves,
        held_by_reserves: held,
        pool_from_next_turn: bg.command_dice - held,
    }
}

/// A die of the chain brings a reserve group on.
///
/// "a single Reserve Command Group enters by a CO Staff Order or by spending
/// one die of the Active Dice Pool". Multi-bg: after a Command Failure "the
/// failure stops that group's reserves from entering unless the CO pays 2
/// Staff Orders per Reserve Command Group" — so not by a die.
fn enter_by_die(bg: &str, command_group: &str, chain: u32, facts: &mut Facts) -> Result<(), Violation> {
    let state = facts.state();
    let cg = may_enter(state, command_group)?;
    if cg.battle_group != bg {
        refuse!(
            Refused::OtherBattleGroup,
            "{command_group} is a reserve of {}, not {bg}: a die enters its own battle group's reserves",
            cg.battle_group
        );
    }
    if let Some(cost) = state.turn.as_ref().and_then(|t| t.reserves_held_back.get(bg)) {
        refuse!(Refused::CommandFailureBarsReserves, "{bg} had a Command Failure this turn: its reserves cannot enter by a die; the CO may pay {cost} Staff Orders for each (enter-reserve)");
    }
    let fact = entered(state, cg, Payment::Die { chain });
    facts.push(fact);
    Ok(())
}

/// The CO brings a reserve group on by Staff Orders.
///
/// "a single Reserve Command Group enters by a CO Staff Order" (cost:
/// `reserve-entry-staff-orders`); multi-bg, after a Command Failure: "unless
/// the CO pays 2 Staff Orders per Reserve Command Group"
/// (`reserve-entry-staff-orders-after-failure`). "All of a battle group's
/// initial Staff Orders, irrespective of the number of Command Groups on the
/// table at the start of the game, are available to the CO": a CO may pay
/// from any of his battle groups' pools, or from the Staff Orders he holds
/// himself. Restocked orders wait for the next turn (see [`restock`]).
fn enter_by_staff_orders(
    state: &State,
    command_group: &str,
    from: Option<&str>,
    facts: &mut Facts,
) -> Result<(), Violation> {
    open_turn(state, "reserves enter")?;
    let cg = may_enter(state, command_group)?;
    let bg = &state.battle_groups[&cg.battle_group];
    let side = state.sides.iter().find(|s| s.id == bg.side).expect("a side");
    let held_back = state.turn.as_ref().and_then(|t| t.reserves_held_back.get(&bg.id).copied());
    let cost = held_back.unwrap_or(state.config.reserve_entry_staff_orders);
    let from = from.unwrap_or(&bg.id);
    let (have, waiting) = if from == side.co {
        (side.co_staff_orders, 0)
    } else {
        match state.battle_groups.get(from) {
            Some(pool) if pool.side == side.id => (pool.staff_orders, pool.staff_orders_next_turn),
            Some(pool) => refuse!(
                Refused::StaffOrdersPayer, "{from} is a battle group of {}: the CO of {} pays from his battle groups ({}) or from his own Staff Orders ({})",
                pool.side,
                side.id,
                side.battle_groups.join(", "),
                side.co
            ),
            None => refuse!(
                Refused::StaffOrdersPayer, "{from:?} is neither a battle group of {} ({}) nor its CO ({})",
                side.id,
                side.battle_groups.join(", "),
                side.co
            ),
        }
    };
    if have < cost {
        let why =
            if held_back.is_some() { format!(" after {}'s Command Failure this turn", bg.id) } else { String::new() };
        let waiting =
            if waiting > 0 { format!(" ({waiting} more restocked, usable from the next turn)") } else { String::new() };
        refuse!(
            Refused::StaffOrdersShort,
            "{command_group} costs {cost} Staff Order(s) to enter{why}, and {from} has {have} usable{waiting}"
        );
    }
    let fact = entered(state, cg, Payment::StaffOrders { count: cost, from: from.to_string(), left: have - cost });
    facts.push(fact);
    Ok(())
}

/// A chain restocks Staff Orders.
///
/// "Staff Orders: a double chain restocks 1, a triple 2, …; restocked orders
/// are usable from the next turn (a chain of 6s: at once). Cap: one Staff
/// Order per Command Die." The cap counts the orders waiting for the next
/// turn too: a battle group never holds more than it has Command Dice.
fn restock(bg: &str, length: u32, at_once: bool, facts: &mut Facts) {
    let b = &facts.state().battle_groups[bg];
    let earned = length - 1;
    let cap = b.command_dice;
    let room = cap.saturating_sub(b.staff_orders + b.staff_orders_next_turn);
    let restocked = earned.min(room);
    let (now, next) = if at_once {
        (b.staff_orders + restocked, b.staff_orders_next_turn)
    } else {
        (b.staff_orders, b.staff_orders_next_turn + restocked)
    };
    let fact = Fact::StaffOrdersRestocked {
        battle_group: bg.to_string(),
        chain_dice: length,
        earned,
        restocked,
        at_once,
        cap,
        staff_orders: now,
        staff_orders_next_turn: next,
    };
    facts.push(fact);
}

/// Ends the turn; what was not played is lost. The engine does not make a
/// side play every die: a side that does not want a pulse lets the turn end.
fn end_turn(state: &State, facts: &mut Facts) -> Result<(), Violation> {
    let t = begun(&state.turn)?;
    if t.ended {
        refuse!(Shared::TurnOver, "turn {} has already ended: begin the next turn", t.number);
    }
    facts.push(Fact::TurnEnded {
        turn: t.number,
        unplayed: t
            .dice
            .iter()
            .filter(|(_, left)| !left.is_empty())
            .map(|(id, left)| (id.clone(), left.clone()))
            .collect(),
        wild_dice_lost: t.wild_dice.iter().filter(|(_, n)| **n > 0).map(|(s, n)| (s.clone(), *n)).collect(),
    });
    Ok(())
}
