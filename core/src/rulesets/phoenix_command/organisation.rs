//! 2.2 Unit Organization: consolidating sub-units into a larger unit,
//! detaching them again, and reorganising a mauled organisation.
//!
//! Each is an order the active unit's leader pays for in CP. It does not by
//! itself begin the unit's expenditure: "the Squad leader would have his
//! original CP less 2 for the consolidation leaving (4-2 =) 2 CP", so the
//! unit may then spend what is left, accumulate, or pass. Its CP are spent
//! as any others in an ambusher's line of sight: each calls for the
//! ambushers' command checks (N19).

use std::collections::{BTreeMap, BTreeSet};

use crate::dice::Dice;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::interrupts::premature_checks;
use super::lookup::{
    self, active_unit_between_steps, children, inches, is_within, list, members, members_of_organisation,
    refuse_before_composure, refuse_while_taking_command, Facts,
};
use super::{
    DetachedUnit, Fact, Figure, FormedPlatoon, FormedSquad, FormedTeam, NewSquad, NewTeam, Refused, State, Unit,
    UnitMorale,
};

/// The active unit's leader, who gives the order.
fn leader_of<'a>(state: &'a State, u: &Unit) -> Result<&'a Figure, Violation> {
    match lookup::leader(state, u) {
        Some(l) => Ok(l),
        None => refuse!(Refused::NoLeader, "{} has no leader to give orders", u.id),
    }
}

/// Refuses unless every figure is within `leader`'s command distance.
fn refuse_beyond_command_distance(leader: &Figure, figures: &[&Figure], quote: &str) -> Result<(), Violation> {
    let range = leader.command_distance_tenths;
    let beyond: Vec<String> = figures
        .iter()
        .filter(|f| !leader.at.within(f.at, range))
        .map(|f| format!("{} ({}) is {} away", f.id, f.unit, inches(leader.at.distance_ceil(f.at))))
        .collect();
    if !beyond.is_empty() {
        refuse!(
            Refused::BeyondCommandDistance,
            "not within {}'s command distance of {}: {}; {quote}",
            leader.id,
            inches(range),
            list(&beyond)
        );
    }
    Ok(())
}

/// The ambushers' checks for the CP an order spends, one round for each CP,
/// before the order takes effect.
///
/// "Each CP the target spends after entering the ambusher's LOS requires a
/// Command Check to be done for each figure under the ambush team leader's
/// control. … A failed roll means that the figures that failed perform
/// ragged fire on the target before the target begins its action." An
/// organisation order spends CP like any other order (N19): the order takes
/// effect in the same decision, and a blown ambush fires straight after.
/// Version 1 made no checks for it.
fn checks_for_each_cp(facts: &mut Facts, unit: &str, cost: u32, dice: &mut Dice) -> Result<(), Violation> {
    if !facts.state().config.organisation_orders_checked {
        return Ok(());
    }
    for _ in 0..cost {
        premature_checks(facts, unit, dice)?;
    }
    Ok(())
}

/// An ambush its checks blew follows the consolidated unit's figures into
/// the unit they now act with, whose id is the organisation's: its nervous
/// figures' fire is still to come ("before the target begins its action").
/// An ambush still watching lapses with the unit it watched (N21).
fn follow_blown_ambushes(facts: &mut Facts, units: &BTreeSet<String>, org: &str) {
    let Some(t) = &facts.state().turn else { return };
    let blown: Vec<(String, String)> = t
        .ambushes
        .iter()
        .filter(|a| !a.fired && !a.nervous.is_empty() && a.target != org && units.contains(&a.target))
        .map(|a| (a.by.clone(), a.target.clone()))
        .collect();
    for (by, from) in blown {
        facts.push(Fact::AmbushFollowed { by, from, to: org.to_string() });
    }
}

fn refuse_short_of_cp(u: &Unit, cost: u32, what: &str) -> Result<(), Violation> {
    if u.cp < cost {
        refuse!(Refused::NoCp, "{what} costs {cost} CP and {} has {}", u.id, u.cp);
    }
    Ok(())
}

/// The organisation leader consolidates his sub-units into one unit.
///
/// "To consolidate sub-units into a larger unit or organization, all
/// sub-units to be consolidated must be within the Organization Leader's
/// Command Radius. Consolidation requires 1 CP per sub-unit to be
/// consolidated. Once consolidated, any CP not belonging to the organization
/// Leader are lost." — "If the intent were to consolidate to a platoon, all
/// the units would first have to be consolidated into squads, and then the
/// squads consolidated into a platoon." — "Only units in the same
/// organizational structure can consolidate". The leader pays from the unit
/// he leads, the one being activated. A sub-unit that has already been
/// activated this turn, or moved strategically, cannot join: "Once a unit has
/// been activated in a turn, it cannot become activated again in the turn."
///
/// `named`: the sub-units to be consolidated (N46), by default all of them;
/// under `consolidate-whole-organisation` they must be all of them. Sub-units
/// already consolidated into the organisation's unit come with it, at no
/// cost; the others cost 1 CP each.
pub(super) fn consolidate(
    state: &State,
    org: &str,
    named: Option<&[String]>,
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "consolidate")?;
    refuse_while_taking_command(u, "consolidate")?;
    refuse_before_composure(state, a, u, "consolidate")?;
    let o = lookup::organisation(state, org)?;
    let leader = leader_of(state, u)?;
    if o.side != u.side {
        refuse!(Shared::NotFriendly, "{org} is {}'s, not {}'s", o.side, u.side);
    }
    if o.leader.as_deref() != Some(leader.id.as_str()) {
        refuse!(
            Refused::NotTheLeader, "{org} is led by {}, not by {}: \"To consolidate sub-units into a larger unit or organization, all sub-units to be consolidated must be within the Organization Leader's Command Radius\" — the organisation leader's own unit consolidates it",
            o.leader.as_deref().unwrap_or("nobody"),
            leader.id
        );
    }
    let subs = sub_units_to_consolidate(state, org, named)?;
    let (units, joining) = consolidated_units(state, org, u, &subs)?;
    let figures: Vec<&Figure> = units.iter().flat_map(|x| members(state, x)).collect();
    refuse_beyond_command_distance(
        leader,
        &figures,
        "\"all sub-units to be consolidated must be within the Organization Leader's Command Radius\"",
    )?;
    let cost =
        state.config.consolidation_cp_per_sub_unit.saturating_mul(u32::try_from(joining.len()).unwrap_or(u32::MAX));
    refuse_short_of_cp(
        u,
        cost,
        &format!("consolidating {org} (\"1 CP per sub-unit to be consolidated\": {})", list(&joining)),
    )?;
    let lost: BTreeMap<String, u32> =
        units.iter().filter(|x| **x != u.id).map(|x| (x.clone(), cp_of(state, x))).collect();
    let contact: BTreeSet<String> =
        units.iter().flat_map(|x| state.units[x.as_str()].contact.iter().cloned()).collect();
    let ragged_interrupt_used = units.iter().any(|x| state.units[x.as_str()].ragged_interrupt_used);
    checks_for_each_cp(facts, &u.id, cost, dice)?;
    let merged = units.clone();
    facts.push(Fact::Consolidated {
        organisation: org.to_string(),
        kind: o.kind.clone(),
        side: o.side.clone(),
        leader: leader.id.clone(),
        by: u.id.clone(),
        units: units.into_iter().collect(),
        sub_units: joining,
        cost,
        cp_before: u.cp,
        cp_after: u.cp - cost,
        lost,
        contact,
        ragged_interrupt_used,
    });
    follow_blown_ambushes(facts, &merged, org);
    Ok(())
}

/// The sub-units named to be consolidated, or every sub-unit with figures in
/// play; under `consolidate-whole-organisation` every one of them (N46).
fn sub_units_to_consolidate(state: &State, org: &str, named: Option<&[String]>) -> Result<Vec<String>, Violation> {
    let all: Vec<String> = children(state, org)
        .iter()
        .filter(|c| !members_of_organisation(state, &c.id).is_empty())
        .map(|c| c.id.clone())
        .collect();
    if all.is_empty() {
        refuse!(Refused::NothingToConsolidate, "{org} has no sub-units left to consolidate");
    }
    let Some(named) = named else { return Ok(all) };
    for (i, sub) in named.iter().enumerate() {
        if !all.contains(sub) {
            refuse!(Refused::NotASubUnit, "{sub} is not a sub-unit of {org} with figures in play ({})", list(&all));
        }
        if named[..i].contains(sub) {
            refuse!(Shared::NamedTwice, "{sub} is named twice");
        }
    }
    let left: Vec<String> = all.iter().filter(|s| !named.contains(s)).cloned().collect();
    if !left.is_empty() && state.config.consolidate_whole_organisation {
        refuse!(
            Refused::ConsolidateWhole, "{} would be left out of {org} (consolidate-whole-organisation): \"units can be consolidated into larger organizations … so the entire larger organization acts at the same time\"",
            list(&left)
        );
    }
    Ok(named.to_vec())
}

/// The units the sub-units act with, each sub-unit wholly one unit, the
/// active unit among them and each other able to join; and the sub-units
/// that join now (those not already consolidated into `org`'s unit).
fn consolidated_units(
    state: &State,
    org: &str,
    u: &Unit,
    subs: &[String],
) -> Result<(BTreeSet<String>, Vec<String>), Violation> {
    let mut units: BTreeSet<String> = BTreeSet::new();
    let mut joining = Vec::new();
    for sub in subs {
        let acting: BTreeSet<String> = members_of_organisation(state, sub).iter().map(|f| f.unit.clone()).collect();
        let whole = acting.len() == 1 && acting.iter().all(|a| a.as_str() == sub.as_str() || a.as_str() == org);
        if !whole {
            refuse!(
                Refused::NotOneUnit, "{sub} is not one unit (its figures act with {}): \"If the intent were to consolidate to a platoon, all the units would first have to be consolidated into squads, and then the squads consolidated into a platoon.\"",
                acting.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        if !acting.contains(org) {
            joining.push(sub.clone());
        }
        units.extend(acting);
    }
    if !units.contains(&u.id) {
        refuse!(Refused::NotASubUnit, "{} is not part of {org}", u.id);
    }
    if units.len() == 1 {
        refuse!(Refused::NothingToConsolidate, "{org} is already one unit: there is nothing to consolidate");
    }
    for other in units.iter().filter(|x| **x != u.id) {
        let x = &state.units[other.as_str()];
        if x.activated {
            refuse!(Refused::ActivatedOnce, "{other} has already been activated this turn and cannot join {org}: \"Once a unit has been activated in a turn, it cannot become activated again in the turn.\"");
        }
        if x.strategic {
            refuse!(Refused::StrategicMovementBarsOperations, "{other} moved strategically this turn and cannot join {org}: it \"may not act in the operations phase\"");
        }
        if x.morale == UnitMorale::Broken {
            refuse!(Refused::BrokenTakesNoOrders, "{other} is broken and takes no orders");
        }
    }
    Ok((units, joining))
}

/// A consolidated unit detaches sub-units.
///
/// "A consolidated unit can detach units. Doing so costs 1 CP per unit
/// detached. A detached unit begins with no CP." — "A US infantry squad
/// breaks itself into two fire teams. Doing so requires 1 CP … since
/// officially, only one unit was detached". The sub-unit holding the leader
/// stays: it is what is left of the unit. A detached unit was part of the
/// unit activated this turn, so it counts as activated.
pub(super) fn detach(state: &State, subs: &[String], dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "detach units")?;
    refuse_while_taking_command(u, "detach units")?;
    refuse_before_composure(state, a, u, "detach units")?;
    let leader = leader_of(state, u)?;
    if subs.is_empty() {
        refuse!(Shared::NothingNamed, "name the sub-units to detach");
    }
    let own: Vec<String> = children(state, &u.id)
        .iter()
        .filter(|c| members_of_organisation(state, &c.id).iter().all(|f| f.unit == u.id))
        .filter(|c| !members_of_organisation(state, &c.id).is_empty())
        .map(|c| c.id.clone())
        .collect();
    let mut detached = Vec::new();
    for sub in subs {
        if detached.iter().any(|d: &DetachedUnit| &d.unit == sub) {
            refuse!(Shared::NamedTwice, "{sub} is named twice");
        }
        let o = lookup::organisation(state, sub)?;
        if o.parent.as_deref() != Some(u.id.as_str()) || !own.contains(sub) {
            refuse!(
                Refused::NotASubUnit,
                "{sub} is not a sub-unit of {} that it can detach (it can detach {})",
                u.id,
                if own.is_empty() { "none: it is not a consolidated unit".to_string() } else { list(&own) }
            );
        }
        if is_within(state, &leader.team, sub) {
            refuse!(
                Refused::LeaderStays,
                "{sub} holds {}'s leader {}: the leader stays with his unit; detach the other sub-units",
                u.id,
                leader.id
            );
        }
        let Some(sub_leader) = o
            .leader
            .as_ref()
            .and_then(|l| state.figures.get(l.as_str()))
            .filter(|l| l.in_play() && is_within(state, &l.team, sub))
        else {
            refuse!(Refused::NoLeader, "{sub} has no leader in play to lead it once detached");
        };
        detached.push(DetachedUnit {
            unit: sub.clone(),
            leader: sub_leader.id.clone(),
            figures: members_of_organisation(state, sub).iter().map(|f| f.id.clone()).collect(),
            contact: u.contact.clone(),
            ragged_interrupt_used: u.ragged_interrupt_used,
        });
    }
    let cost = state.config.detachment_cp_per_unit.saturating_mul(u32::try_from(detached.len()).unwrap_or(u32::MAX));
    refuse_short_of_cp(u, cost, &format!("detaching {} (\"1 CP per unit detached\")", list(subs)))?;
    let watching = ambushes_watching(state, &u.id);
    checks_for_each_cp(facts, &u.id, cost, dice)?;
    let units: Vec<String> = detached.iter().map(|d| d.unit.clone()).collect();
    facts.push(Fact::Detached { unit: u.id.clone(), detached, cost, cp_before: u.cp, cp_after: u.cp - cost });
    keep_detached_in_blown_ambushes(facts, &watching, &u.id, &units);
    Ok(())
}

/// The ambushers lying in wait for `unit` whose figures have held their
/// fire so far.
fn ambushes_watching(state: &State, unit: &str) -> Vec<String> {
    let Some(t) = &state.turn else { return Vec::new() };
    t.ambushes.iter().filter(|a| !a.fired && a.nervous.is_empty() && a.target == unit).map(|a| a.by.clone()).collect()
}

/// An ambush the detachment's checks blew (one of `watching` before them)
/// still fires on the units detached: "A failed roll means that the figures
/// that failed perform ragged fire on the target before the target begins
/// its action", and the target is the unit as it stood when it spent the
/// CP, detached figures included (N59). Not under
/// `detached-units-leave-the-target`, nor in versions 1 and 2: there the
/// detached figures have left the target.
fn keep_detached_in_blown_ambushes(facts: &mut Facts, watching: &[String], unit: &str, units: &[String]) {
    let state = facts.state();
    let Some(t) = state.turn.as_ref().filter(|_| state.config.detached_units_stay_the_target) else { return };
    let blown: Vec<String> = t
        .ambushes
        .iter()
        .filter(|a| watching.contains(&a.by) && !a.fired && !a.nervous.is_empty() && a.target == unit)
        .map(|a| a.by.clone())
        .collect();
    for by in blown {
        facts.push(Fact::AmbushKeepsDetached { by, target: unit.to_string(), detached: units.to_vec() });
    }
}

/// A leader two levels above reorganises mauled units.
///
/// "The reorganization requires expenditures of command points from two
/// levels above the units subject to reorganization. So, a Platoon leader
/// would be necessary to give reorganization orders to units under his
/// command" — "Reorganization requires the expenditures of 2 CP for each
/// sub-unit affected. In the event that the reorganization results in the
/// elimination of sub-units from the command structure, CP are only expended
/// on the remaining sub-units. As with consolidation, the units being
/// reorganized must be within the Reorganizing leader's Command Distance."
///
/// `replaces` names the squads (directly under the reorganising organisation,
/// made of fire teams) whose figures are regrouped; `into` gives the squads
/// and fire teams that result, every figure of the replaced squads in exactly
/// one team. The cost is per resulting fire team. As with consolidation, CP
/// of the units reorganised are lost; each resulting fire team is a unit that
/// begins with no CP, activated this turn (its figures were ordered by the
/// activated leader).
pub(super) fn reorganise(
    state: &State,
    org: &str,
    replaces: &[String],
    into: &[NewSquad],
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "reorganise")?;
    refuse_while_taking_command(u, "reorganise")?;
    refuse_before_composure(state, a, u, "reorganise")?;
    let leader = reorganising_leader(state, org, u)?;
    if replaces_platoons(state, replaces) {
        let (cost, reorganised) = reorganise_squads(state, org, u, leader, replaces, into)?;
        checks_for_each_cp(facts, &u.id, cost, dice)?;
        facts.push(reorganised);
        return Ok(());
    }
    let replaced = replaced_organisations(state, org, leader, replaces)?;
    let pool: Vec<&Figure> = replaces.iter().flat_map(|r| members_of_organisation(state, r)).collect();
    if pool.is_empty() {
        refuse!(Shared::OutOfPlay, "{} have no figures left in play to reorganise", list(replaces));
    }
    let old_units = whole_units(state, u, replaces, &pool)?;
    let squads = form_squads(state, org, replaces, &replaced, &pool, into)?;
    refuse_beyond_command_distance(
        leader,
        &pool,
        "\"the units being reorganized must be within the Reorganizing leader's Command Distance\"",
    )?;
    let teams_count = squads.iter().map(|s| s.teams.len() as u32).sum::<u32>();
    let cost = state.config.reorganisation_cp_per_sub_unit.saturating_mul(teams_count);
    refuse_short_of_cp(
        u,
        cost,
        &format!("reorganising into {teams_count} fire teams (\"2 CP for each sub-unit affected\")"),
    )?;
    let dissolved = old_units.iter().map(|x| (x.clone(), cp_of(state, x))).collect();
    checks_for_each_cp(facts, &u.id, cost, dice)?;
    facts.push(Fact::Reorganised {
        organisation: org.to_string(),
        by: u.id.clone(),
        leader: leader.id.clone(),
        cost,
        cp_before: u.cp,
        cp_after: u.cp - cost,
        replaced,
        squads,
        dissolved,
    });
    Ok(())
}

/// The active unit's leader, who must lead the organisation reorganised.
fn reorganising_leader<'a>(state: &'a State, org: &str, u: &Unit) -> Result<&'a Figure, Violation> {
    let o = lookup::organisation(state, org)?;
    let leader = leader_of(state, u)?;
    if o.side != u.side {
        refuse!(Shared::NotFriendly, "{org} is {}'s, not {}'s", o.side, u.side);
    }
    if o.leader.as_deref() != Some(leader.id.as_str()) {
        refuse!(
            Refused::NotTheLeader, "{org} is led by {}, not by {}: reorganisation orders come from the leader two levels above the units reorganised",
            o.leader.as_deref().unwrap_or("nobody"),
            leader.id
        );
    }
    Ok(leader)
}

/// The squads named, and their fire teams: every organisation replaced.
fn replaced_organisations(
    state: &State,
    org: &str,
    leader: &Figure,
    replaces: &[String],
) -> Result<Vec<String>, Violation> {
    if replaces.is_empty() {
        refuse!(Shared::NothingNamed, "name the squads of {org} to reorganise");
    }
    let mut replaced: Vec<String> = Vec::new();
    for (i, r) in replaces.iter().enumerate() {
        if replaces[..i].contains(r) {
            refuse!(Shared::NamedTwice, "{r} is named twice");
        }
        let ro = lookup::organisation(state, r)?;
        if ro.parent.as_deref() != Some(org) {
            refuse!(Refused::TwoLevelsBelow, "{r} is not directly under {org}: reorganisation orders reach units two levels below the leader who gives them");
        }
        let teams = children(state, r);
        if teams.is_empty() {
            refuse!(
                Refused::TwoLevelsBelow,
                "{r} has no sub-units: reorganisation orders reach units two levels below the leader who gives them"
            );
        }
        if is_within(state, &leader.team, r) {
            refuse!(
                Refused::TwoLevelsBelow,
                "{} is in {r}: the reorganising leader stands two levels above the units he reorganises",
                leader.id
            );
        }
        replaced.push(r.clone());
        replaced.extend(teams.iter().map(|t| t.id.clone()));
    }
    Ok(replaced)
}

/// The units the figures reorganised act with, each wholly among them.
fn whole_units(state: &State, u: &Unit, replaces: &[String], pool: &[&Figure]) -> Result<BTreeSet<String>, Violation> {
    let old_units: BTreeSet<String> = pool.iter().map(|f| f.unit.clone()).collect();
    for x in &old_units {
        let outside: Vec<String> =
            members(state, x).iter().filter(|f| !pool.iter().any(|p| p.id == f.id)).map(|f| f.id.clone()).collect();
        if !outside.is_empty() || *x == u.id {
            refuse!(
                Refused::WholeUnits,
                "unit {x} reaches outside {}: {} would be left behind; reorganise whole units",
                list(replaces),
                list(&outside)
            );
        }
    }
    Ok(old_units)
}

/// The squads and fire teams `into` forms: every figure of the pool in
/// exactly one team, every id new or one of those replaced.
fn form_squads(
    state: &State,
    org: &str,
    replaces: &[String],
    replaced: &[String],
    pool: &[&Figure],
    into: &[NewSquad],
) -> Result<Vec<FormedSquad>, Violation> {
    if into.is_empty() {
        refuse!(Shared::NothingNamed, "name the squads the reorganisation forms");
    }
    let mut assigned: BTreeSet<String> = BTreeSet::new();
    let mut squads = Vec::new();
    for squad in into {
        if squad.teams.is_empty() {
            refuse!(Shared::NothingNamed, "squad {} has no fire teams", squad.id);
        }
        let mut teams = Vec::new();
        for team in &squad.teams {
            teams.push(form_team(state, org, replaces, replaced, pool, team, &mut assigned)?);
        }
        if !teams.iter().any(|t| t.figures.contains(&squad.leader)) {
            refuse!(
                Refused::LeadFromWithin,
                "{} is not in squad {}: a leader leads from within his squad",
                squad.leader,
                squad.id
            );
        }
        if state.figures[squad.leader.as_str()].command_rating.is_none() {
            refuse!(
                Refused::NoCommandRating,
                "{} has no command rating and cannot lead squad {}",
                squad.leader,
                squad.id
            );
        }
        squads.push(FormedSquad {
            id: squad.id.clone(),
            kind: squad
                .kind
                .clone()
                .or_else(|| state.organisations.get(&squad.id).map(|k| k.kind.clone()))
                .unwrap_or_else(|| "squad".into()),
            leader: squad.leader.clone(),
            teams,
        });
    }
    let mut ids: BTreeSet<&str> = BTreeSet::new();
    for id in into.iter().flat_map(|s| std::iter::once(&s.id).chain(s.teams.iter().map(|t| &t.id))) {
        if !ids.insert(id) {
            refuse!(Shared::NamedTwice, "{id} is named twice among the new squads and teams");
        }
        if state.organisations.contains_key(id) && !replaced.contains(id) {
            refuse!(Refused::NameTaken, "{id} is already an organisation outside {}", list(replaces));
        }
    }
    let left_out: Vec<String> = pool.iter().filter(|f| !assigned.contains(&f.id)).map(|f| f.id.clone()).collect();
    if !left_out.is_empty() {
        refuse!(
            Refused::LeftOut,
            "{} would be left out: every figure of {} goes into one of the new teams",
            list(&left_out),
            list(replaces)
        );
    }
    Ok(squads)
}

/// One fire team of a reorganisation: new, with its figures, or an old team
/// kept whole.
fn form_team(
    state: &State,
    org: &str,
    replaces: &[String],
    replaced: &[String],
    pool: &[&Figure],
    team: &NewTeam,
    assigned: &mut BTreeSet<String>,
) -> Result<FormedTeam, Violation> {
    let kept = state.organisations.get(&team.id);
    let figures: Vec<String> = match &team.figures {
        Some(named) => {
            for id in named {
                if !pool.iter().any(|p| &p.id == id) {
                    refuse!(Refused::NotAFigureOfTheUnit, "{id} is not a figure in play of {}", list(replaces));
                }
            }
            named.clone()
        }
        None => {
            let is_old_team = matches!(kept, Some(k) if k.parent.as_deref() != Some(org));
            if !replaced.contains(&team.id) || !is_old_team {
                refuse!(
                    Refused::NameTaken,
                    "team {} is not a fire team of {}: name the figures of a new team",
                    team.id,
                    list(replaces)
                );
            }
            members_of_organisation(state, &team.id).iter().map(|f| f.id.clone()).collect()
        }
    };
    if figures.is_empty() {
        refuse!(Shared::NothingNamed, "team {} has no figures", team.id);
    }
    for f in &figures {
        if !assigned.insert(f.clone()) {
            refuse!(Shared::NamedTwice, "{f} is put in two teams");
        }
    }
    let team_leader = match &team.leader {
        Some(l) => l.clone(),
        None => match kept.and_then(|k| k.leader.clone()).filter(|l| figures.contains(l)) {
            Some(l) => l,
            None => refuse!(Refused::NoLeader, "team {} needs a leader: name one of {}", team.id, list(&figures)),
        },
    };
    if !figures.contains(&team_leader) {
        refuse!(
            Refused::LeadFromWithin,
            "{team_leader} is not in team {}: a leader leads from within his team",
            team.id
        );
    }
    if state.figures[team_leader.as_str()].command_rating.is_none() {
        refuse!(Refused::NoCommandRating, "{team_leader} has no command rating and cannot lead team {}", team.id);
    }
    // "A unit formed by consolidation or reorganisation inherits every
    // restriction its members carried this turn" (N41).
    let old_units: Vec<&Unit> =
        figures.iter().map(|f| &*state.units[state.figures[f.as_str()].unit.as_str()]).collect();
    Ok(FormedTeam {
        id: team.id.clone(),
        kind: team.kind.clone().or_else(|| kept.map(|k| k.kind.clone())).unwrap_or_else(|| "fire team".into()),
        leader: team_leader,
        contact: old_units.iter().flat_map(|u| u.contact.iter().cloned()).collect(),
        moved_strategically: old_units.iter().any(|u| u.strategic),
        ragged_interrupt_used: old_units.iter().any(|u| u.ragged_interrupt_used),
        figures,
    })
}

/// Whether `replaces` names platoons (organisations whose sub-units have
/// sub-units of their own): a company leader's reorganisation of squads.
fn replaces_platoons(state: &State, replaces: &[String]) -> bool {
    replaces.iter().any(|r| children(state, r).iter().any(|c| !children(state, &c.id).is_empty()))
}

/// A company leader reorganises squads into new platoons (N57).
///
/// "The reorganization requires expenditures of command points from two
/// levels above the units subject to reorganization. So, a Platoon leader
/// would be necessary to give reorganization orders to units under his
/// command, and a company leader would be necessary to give reorganization
/// orders to squads." `replaces` names platoons directly under the company;
/// `into` the platoons that result, each made of their squads (and
/// headquarters teams) kept whole — regrouping a squad's fire teams is its
/// platoon leader's reorganisation. "2 CP for each sub-unit affected": per
/// squad of the result. The units of the squads stay units, but lose their
/// CP and count as activated this turn, as a platoon leader's reorganised
/// fire teams do (N5). Returns the order's cost and its fact, which the
/// caller records once the ambushers have checked for its CP (N19).
fn reorganise_squads(
    state: &State,
    org: &str,
    u: &Unit,
    leader: &Figure,
    replaces: &[String],
    into: &[NewSquad],
) -> Result<(u32, Fact), Violation> {
    let squads = replaced_squads(state, org, leader, replaces)?;
    let pool: Vec<&Figure> = replaces.iter().flat_map(|r| members_of_organisation(state, r)).collect();
    let units = units_within_squads(state, u, &squads, &pool)?;
    let platoons = form_platoons(state, replaces, &squads, into)?;
    refuse_beyond_command_distance(
        leader,
        &pool,
        "\"the units being reorganized must be within the Reorganizing leader's Command Distance\"",
    )?;
    let count = platoons.iter().map(|p| p.squads.len() as u32).sum::<u32>();
    let cost = state.config.reorganisation_cp_per_sub_unit.saturating_mul(count);
    refuse_short_of_cp(u, cost, &format!("reorganising into {count} squads (\"2 CP for each sub-unit affected\")"))?;
    let reorganised = Fact::SquadsReorganised {
        organisation: org.to_string(),
        by: u.id.clone(),
        leader: leader.id.clone(),
        cost,
        cp_before: u.cp,
        cp_after: u.cp - cost,
        replaced: replaces.to_vec(),
        platoons,
        units: units.iter().map(|x| (x.clone(), cp_of(state, x))).collect(),
    };
    Ok((cost, reorganised))
}

/// The squads (and headquarters teams) of the platoons named, with figures
/// in play: every one a squad of fire teams, or a team.
fn replaced_squads(state: &State, org: &str, leader: &Figure, replaces: &[String]) -> Result<Vec<String>, Violation> {
    let mut squads = Vec::new();
    for (i, r) in replaces.iter().enumerate() {
        if replaces[..i].contains(r) {
            refuse!(Shared::NamedTwice, "{r} is named twice");
        }
        if lookup::organisation(state, r)?.parent.as_deref() != Some(org) {
            refuse!(Refused::TwoLevelsBelow, "{r} is not directly under {org}: reorganisation orders reach units two levels below the leader who gives them");
        }
        if is_within(state, &leader.team, r) {
            refuse!(
                Refused::TwoLevelsBelow,
                "{} is in {r}: the reorganising leader stands two levels above the units he reorganises",
                leader.id
            );
        }
        for c in children(state, r) {
            let teams = children(state, &c.id);
            if teams.iter().any(|t| !children(state, &t.id).is_empty()) {
                refuse!(Refused::TwoLevelsBelow, "{}'s sub-units are not fire teams: a company leader's reorganisation reaches squads, two levels below him", c.id);
            }
            if !members_of_organisation(state, &c.id).is_empty() {
                squads.push(c.id.clone());
            }
        }
    }
    if squads.is_empty() {
        refuse!(Shared::OutOfPlay, "{} have no figures left in play to reorganise", list(replaces));
    }
    Ok(squads)
}

/// The units the figures regrouped act with: each within one squad, and
/// not the unit giving the order.
fn units_within_squads(
    state: &State,
    u: &Unit,
    squads: &[String],
    pool: &[&Figure],
) -> Result<BTreeSet<String>, Violation> {
    let units: BTreeSet<String> = pool.iter().map(|f| f.unit.clone()).collect();
    for x in &units {
        let within_one = squads.iter().any(|s| members(state, x).iter().all(|f| is_within(state, &f.team, s)));
        if !within_one || *x == u.id {
            refuse!(
                Refused::WholeUnits,
                "unit {x} is not within one squad: detach its squads first, so that each squad moves whole"
            );
        }
    }
    Ok(units)
}

/// The platoons `into` forms, each of whole squads, every squad in one.
fn form_platoons(
    state: &State,
    replaces: &[String],
    squads: &[String],
    into: &[NewSquad],
) -> Result<Vec<FormedPlatoon>, Violation> {
    if into.is_empty() {
        refuse!(Shared::NothingNamed, "name the platoons the reorganisation forms");
    }
    let mut assigned: BTreeSet<&str> = BTreeSet::new();
    let mut platoons = Vec::new();
    for p in into {
        if into.iter().filter(|q| q.id == p.id).count() > 1 {
            refuse!(Shared::NamedTwice, "{} is named twice among the new platoons", p.id);
        }
        if state.organisations.contains_key(&p.id) && !replaces.contains(&p.id) {
            refuse!(Refused::NameTaken, "{} is already an organisation outside {}", p.id, list(replaces));
        }
        for s in &p.teams {
            if !squads.contains(&s.id) || s.figures.is_some() || s.leader.is_some() || s.kind.is_some() {
                refuse!(
                    Refused::WholeUnits,
                    "{} is not a squad of {} kept whole: a company leader regroups whole squads ({})",
                    s.id,
                    list(replaces),
                    list(squads)
                );
            }
            if !assigned.insert(&s.id) {
                refuse!(Shared::NamedTwice, "{} is put in two platoons", s.id);
            }
        }
        let within = p.teams.iter().any(|s| {
            state.figures.get(p.leader.as_str()).is_some_and(|l| l.in_play() && is_within(state, &l.team, &s.id))
        });
        if !within || state.figures[p.leader.as_str()].command_rating.is_none() {
            refuse!(
                Refused::LeadFromWithin,
                "{} cannot lead platoon {}: a leader with a command rating leads from within his platoon",
                p.leader,
                p.id
            );
        }
        platoons.push(FormedPlatoon {
            id: p.id.clone(),
            kind: p
                .kind
                .clone()
                .or_else(|| state.organisations.get(&p.id).map(|o| o.kind.clone()))
                .unwrap_or_else(|| "platoon".into()),
            leader: p.leader.clone(),
            squads: p.teams.iter().map(|s| s.id.clone()).collect(),
        });
    }
    let left_out: Vec<String> = squads.iter().filter(|s| !assigned.contains(s.as_str())).cloned().collect();
    if !left_out.is_empty() {
        refuse!(
            Refused::LeftOut,
            "{} would be left out: every squad of {} goes into one of the new platoons",
            list(&left_out),
            list(replaces)
        );
    }
    Ok(platoons)
}

/// The CP unit `id` holds, accumulated and held for an interrupt: what it
/// loses when it joins another or is dissolved.
fn cp_of(state: &State, id: &str) -> u32 {
    let u = &state.units[id];
    u.cp + u.held_interrupt_cp
}
