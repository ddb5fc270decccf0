//! Records what a fact says. No rule logic: every consequence — who acts
//! next, what a check gave, which CP were lost — is in the fact.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::{
    Action, Activation, Ambush, BrevetDue, Fact, Figure, Organisation, PendingInjury, PendingMelee, Phase, Posture,
    Spend, State, Step, Succession, Turn, Unit, UnitMorale,
};

fn turn(state: &mut State) -> &mut Turn {
    state.turn.as_mut().expect("a turn is in progress")
}

fn activation(state: &mut State) -> &mut Activation {
    turn(state).activation.as_mut().expect("an activation is in progress")
}

fn ambush<'a>(state: &'a mut State, by: &str) -> &'a mut Ambush {
    turn(state).ambushes.iter_mut().find(|a| a.by == by).expect("facts name ambushes lying in wait")
}

/// The figures to change: the map is copied first if a copy of the state
/// shares it (each figure stays shared until it is changed itself).
fn figures_mut(state: &mut State) -> &mut BTreeMap<Arc<str>, Arc<Figure>> {
    Arc::make_mut(&mut state.figures)
}

/// A figure to change: copied first if a copy of the state shares it.
fn figure_mut<'a>(state: &'a mut State, id: &str) -> &'a mut Figure {
    Arc::make_mut(figures_mut(state).get_mut(id).expect("facts name figures of the scenario"))
}

/// Changes each figure `which` picks, copying the map (and each such
/// figure) first if a copy of the state shares it; nothing is copied when
/// none is picked.
fn change_figures(state: &mut State, which: impl Fn(&Figure) -> bool, change: impl Fn(&mut Figure)) {
    if state.figures.values().any(|f| which(f)) {
        figures_mut(state).values_mut().filter(|f| which(f)).for_each(|f| change(Arc::make_mut(f)));
    }
}

/// [`change_figures`] for units.
fn change_units(state: &mut State, which: impl Fn(&Unit) -> bool, change: impl Fn(&mut Unit)) {
    if state.units.values().any(|u| which(u)) {
        units_mut(state).values_mut().filter(|u| which(u)).for_each(|u| change(Arc::make_mut(u)));
    }
}

/// Takes unit `id` out of play, and out of every other unit's contacts.
fn remove_unit(state: &mut State, id: &str) {
    units_mut(state).remove(id);
    change_units(
        state,
        |u| u.contact.contains(id),
        |u| {
            u.contact.remove(id);
        },
    );
}

/// The units to change: the map is copied first if a copy of the state
/// shares it (each unit stays shared until it is changed itself).
fn units_mut(state: &mut State) -> &mut BTreeMap<Arc<str>, Arc<Unit>> {
    Arc::make_mut(&mut state.units)
}

/// The organisations to change: copied first if a copy of the state shares them.
fn organisations_mut(state: &mut State) -> &mut BTreeMap<String, Organisation> {
    Arc::make_mut(&mut state.organisations)
}

fn unit<'a>(state: &'a mut State, id: &str) -> &'a mut Unit {
    Arc::make_mut(units_mut(state).get_mut(id).expect("facts name units in play"))
}

fn remove_figure(state: &mut State, figure: &str, reason: String, organisations: &[String]) {
    figure_mut(state, figure).removed = Some(reason);
    for o in organisations {
        if let Some(o) = organisations_mut(state).get_mut(o) {
            o.leader = None;
        }
    }
}

/// Replaces unit ids in every contact set: `old` ids go, `new` comes in
/// where any of them was.
fn rename_contacts(state: &mut State, old: &[String], new: &str) {
    change_units(
        state,
        |u| u.contact.iter().any(|c| old.contains(c)),
        |u| {
            u.contact.retain(|c| !old.contains(c));
            u.contact.insert(new.to_string());
        },
    );
}

fn new_unit(state: &State, id: &str, side: &str, leader: &str, contact: BTreeSet<String>) -> Unit {
    Unit {
        id: id.to_string(),
        side: side.to_string(),
        leader: Some(leader.to_string()),
        cp: 0,
        held_interrupt_cp: 0,
        activated: true,
        strategic: false,
        brevet_due: None,
        taking_command: false,
        hero: state.organisations.get(id).is_some_and(|o| o.hero),
        contact,
        morale: UnitMorale::Steady,
        restored: false,
        restored_against: Default::default(),
        ragged_interrupt_used: false,
        rout_due: false,
        in_cover: false,
    }
}

/// A new turn: every unit may be activated again, and a unit is Shaken
/// only for the turn it became so.
fn begin_turn(state: &mut State, number: u32) {
    for u in units_mut(state).values_mut().map(Arc::make_mut) {
        u.activated = false;
        u.strategic = false;
        u.restored = false;
        u.restored_against.clear();
        u.ragged_interrupt_used = false;
        // A unit is Shaken for a turn; decide re-derives it from its
        // figures at the start of the next (a Broken unit stays so).
        if u.morale == UnitMorale::Shaken {
            u.morale = UnitMorale::Steady;
        }
    }
    change_figures(state, |f| f.double_timed, |f| f.double_timed = false);
    state.turn = Some(Turn {
        number,
        phase: Phase::StrategicMovement,
        counts: Default::default(),
        activation: None,
        pending_injuries: Vec::new(),
        ambushes: Vec::new(),
        melee: None,
    });
}

pub(super) fn evolve(state: &mut State, fact: &Fact) {
    let recorded = record_turn(state, fact)
        || record_organisation(state, fact)
        || record_command(state, fact)
        || record_action(state, fact)
        || record_interrupt(state, fact)
        || record_morale(state, fact);
    debug_assert!(recorded, "every fact is recorded");
}

/// 2.1: turns, strategic movement, initiative, activations. Whether the fact was one of these.
fn record_turn(state: &mut State, fact: &Fact) -> bool {
    match fact {
        Fact::TurnBegan { turn: number } => begin_turn(state, *number),
        Fact::UnitWithdrew { unit: id, figures, organisations, .. } => {
            for f in figures {
                remove_figure(state, f, "withdrew from the battlefield".into(), &[]);
            }
            for o in organisations {
                if let Some(o) = organisations_mut(state).get_mut(o) {
                    o.leader = None;
                }
            }
            remove_unit(state, id);
        }
        Fact::ContactChanged { unit: a, enemy: b, in_contact } => {
            for (x, y) in [(a, b), (b, a)] {
                let u = unit(state, x);
                if *in_contact {
                    u.contact.insert(y.clone());
                } else {
                    u.contact.remove(y);
                }
            }
        }
        Fact::MovedStrategically { unit: id, .. } => {
            let u = unit(state, id);
            u.strategic = true;
            u.cp = 0;
            u.held_interrupt_cp = 0;
        }
        Fact::FigureMoved { figure, to, .. } => {
            figure_mut(state, figure).at = *to;
        }
        Fact::StragglerRemoved { figure, distance_tenths, command_distance_tenths, organisations, .. } => {
            let reason = format!(
                "straggler: {}.{}\" from his leader, beyond the command distance of {}.{}\"",
                distance_tenths / 10,
                distance_tenths % 10,
                command_distance_tenths / 10,
                command_distance_tenths % 10
            );
            remove_figure(state, figure, reason, organisations);
        }
        Fact::InitiativeCounted { counts, holder, .. } => {
            state.initiative = holder.clone();
            turn(state).counts = counts.clone();
        }
        Fact::InitiativeRecounted { counts, holder, .. } => {
            state.initiative = holder.clone();
            turn(state).counts = counts.clone();
        }
        Fact::OperationsBegan { .. } => turn(state).phase = Phase::Operations,
        Fact::UnitActivated { unit: id, side, .. } => {
            unit(state, id).activated = true;
            turn(state).activation = Some(Activation {
                unit: id.clone(),
                side: side.clone(),
                spent: 0,
                expending: false,
                step: None,
                actions_begun: false,
                abandoned: false,
                interrupted_by: None,
            });
            // A new activation: no figure lags behind from an earlier one.
            change_figures(state, |f| &f.unit == id && f.lagging, |f| f.lagging = false);
        }
        Fact::ActivationEnded { .. } => turn(state).activation = None,
        Fact::TurnEnded { .. } => {
            let t = turn(state);
            t.phase = Phase::Over;
            t.activation = None;
        }
        _ => return false,
    }
    true
}

/// 2.2: consolidation, detachment, reorganisation. Whether the fact was one of these.
fn record_organisation(state: &mut State, fact: &Fact) -> bool {
    match fact {
        Fact::Consolidated {
            organisation,
            side,
            leader,
            by,
            units,
            cost,
            cp_after,
            contact,
            ragged_interrupt_used,
            ..
        } => {
            let held = state.units.get(by.as_str()).map_or(0, |u| u.held_interrupt_cp);
            for x in units {
                units_mut(state).remove(x.as_str());
            }
            let mut merged = new_unit(state, organisation, side, leader, contact.clone());
            merged.cp = *cp_after;
            merged.held_interrupt_cp = held;
            merged.ragged_interrupt_used = *ragged_interrupt_used;
            units_mut(state).insert(organisation.as_str().into(), Arc::new(merged));
            change_figures(state, |f| units.contains(&f.unit), |f| f.unit = organisation.clone());
            rename_contacts(state, units, organisation);
            let a = activation(state);
            a.unit = organisation.clone();
            a.spent += cost;
        }
        Fact::Detached { unit: id, detached, cost, cp_after, .. } => {
            let side = unit(state, id).side.clone();
            unit(state, id).cp = *cp_after;
            for d in detached {
                let mut new = new_unit(state, &d.unit, &side, &d.leader, d.contact.clone());
                new.ragged_interrupt_used = d.ragged_interrupt_used;
                units_mut(state).insert(d.unit.as_str().into(), Arc::new(new));
                for f in &d.figures {
                    figure_mut(state, f).unit = d.unit.clone();
                }
                for e in &d.contact {
                    unit(state, e).contact.insert(d.unit.clone());
                }
            }
            activation(state).spent += cost;
        }
        Fact::Reorganised { .. } => record_reorganised(state, fact),
        Fact::SquadsReorganised { .. } => record_squads_reorganised(state, fact),
        _ => return false,
    }
    true
}

/// A reorganisation: the old organisations and units go, the new squads
/// and fire teams come, each team a unit with the restrictions it inherits.
fn record_reorganised(state: &mut State, fact: &Fact) {
    let Fact::Reorganised { organisation, by, cost, cp_after, replaced, squads, dissolved, .. } = fact else {
        return;
    };
    let side = unit(state, by).side.clone();
    unit(state, by).cp = *cp_after;
    for r in replaced {
        organisations_mut(state).remove(r);
    }
    let gone: Vec<String> = dissolved.keys().cloned().collect();
    for x in &gone {
        units_mut(state).remove(x.as_str());
    }
    change_units(state, |u| u.contact.iter().any(|c| gone.contains(c)), |u| u.contact.retain(|c| !gone.contains(c)));
    for squad in squads {
        organisations_mut(state).insert(
            squad.id.clone(),
            Organisation {
                id: squad.id.clone(),
                side: side.clone(),
                kind: squad.kind.clone(),
                parent: Some(organisation.clone()),
                leader: Some(squad.leader.clone()),
                hero: false,
            },
        );
        for team in &squad.teams {
            organisations_mut(state).insert(
                team.id.clone(),
                Organisation {
                    id: team.id.clone(),
                    side: side.clone(),
                    kind: team.kind.clone(),
                    parent: Some(squad.id.clone()),
                    leader: Some(team.leader.clone()),
                    hero: false,
                },
            );
            let mut new = new_unit(state, &team.id, &side, &team.leader, team.contact.clone());
            new.strategic = team.moved_strategically;
            new.ragged_interrupt_used = team.ragged_interrupt_used;
            units_mut(state).insert(team.id.as_str().into(), Arc::new(new));
            for f in &team.figures {
                let f = figure_mut(state, f);
                f.team = team.id.clone();
                f.unit = team.id.clone();
            }
            for e in &team.contact {
                unit(state, e).contact.insert(team.id.clone());
            }
        }
    }
    activation(state).spent += cost;
}

/// A company leader's reorganisation: the old platoons go, the new come,
/// each squad moved whole under its new platoon; the squads' units lose
/// their CP and count as activated.
fn record_squads_reorganised(state: &mut State, fact: &Fact) {
    let Fact::SquadsReorganised { organisation, by, cost, cp_after, replaced, platoons, units, .. } = fact else {
        return;
    };
    let side = unit(state, by).side.clone();
    unit(state, by).cp = *cp_after;
    for r in replaced {
        organisations_mut(state).remove(r);
    }
    for p in platoons {
        organisations_mut(state).insert(
            p.id.clone(),
            Organisation {
                id: p.id.clone(),
                side: side.clone(),
                kind: p.kind.clone(),
                parent: Some(organisation.clone()),
                leader: Some(p.leader.clone()),
                hero: false,
            },
        );
        for s in &p.squads {
            if let Some(o) = organisations_mut(state).get_mut(s) {
                o.parent = Some(p.id.clone());
            }
        }
    }
    for x in units.keys() {
        let u = unit(state, x);
        u.cp = 0;
        u.held_interrupt_cp = 0;
        u.activated = true;
    }
    activation(state).spent += cost;
}

/// 2.3: CP, command checks, figures leaving play, leaders, broken and eliminated units. Whether the fact was one of these.
fn record_command(state: &mut State, fact: &Fact) -> bool {
    match fact {
        Fact::CpAccumulated { unit: id, cp_after, .. } => unit(state, id).cp = *cp_after,
        Fact::Passed { .. } => {}
        Fact::CpSpent { unit: id, number, cp, on, cp_left } => {
            unit(state, id).cp = *cp_left;
            let a = activation(state);
            a.spent += cp;
            a.expending = true;
            if *on == Spend::Actions {
                a.actions_begun = true;
                a.step = Some(Step { number: *number, acted: BTreeSet::new() });
            }
        }
        Fact::CpCompleted { caught_up, .. } => {
            activation(state).step = None;
            for f in caught_up {
                figure_mut(state, f).lagging = false;
            }
        }
        Fact::CpLost { unit: id, .. } => {
            if let Some(u) = units_mut(state).get_mut(id.as_str()).map(Arc::make_mut) {
                u.cp = 0;
            }
        }
        Fact::CommandChecked { .. } => {}
        Fact::FigureRemoved { figure, reason, organisations, .. } => {
            remove_figure(state, figure, reason.clone(), organisations)
        }
        Fact::LeaderLost { unit: id, successor_rating, succession, organisations, .. } => {
            let u = unit(state, id);
            u.cp = 0;
            u.held_interrupt_cp = 0;
            u.leader = None;
            u.taking_command = false;
            if *succession == Succession::Brevet {
                u.brevet_due = Some(BrevetDue { rating: *successor_rating, organisations: organisations.clone() });
            }
        }
        Fact::Breveted { unit: id, leader, rating, organisations, .. } => {
            let u = unit(state, id);
            u.leader = Some(leader.clone());
            u.brevet_due = None;
            u.taking_command = true;
            figure_mut(state, leader).command_rating = Some(*rating);
            for o in organisations {
                if let Some(o) = organisations_mut(state).get_mut(o) {
                    o.leader = Some(leader.clone());
                }
            }
        }
        Fact::TookCommand { unit: id, .. } => unit(state, id).taking_command = false,
        Fact::UnitBroke { unit: id, rout, .. } => {
            let u = unit(state, id);
            u.morale = UnitMorale::Broken;
            u.rout_due = *rout;
        }
        Fact::UnitEliminated { unit: id, .. } => {
            remove_unit(state, id);
        }
        _ => return false,
    }
    true
}

/// 2.4, 2.6, 2.7: figure actions, fire, injuries, melee. Whether the fact was one of these.
fn record_action(state: &mut State, fact: &Fact) -> bool {
    match fact {
        Fact::FigureActed { action, .. } => {
            let figure = action.figure().to_string();
            // Where the figure moved to, and whether he double-timed: only
            // then is the figure changed (and copied, if shared).
            let moved = match action {
                Action::Move { to, .. } | Action::Flee { to, .. } => Some((*to, false)),
                Action::DoubleTime { to, .. } => Some((*to, true)),
                Action::Fire { move_to: Some(to), .. } | Action::Melee { move_to: Some(to), .. } => Some((*to, false)),
                Action::Fire { .. } | Action::Melee { .. } | Action::Hold { .. } | Action::Other { .. } => None,
            };
            if let Some((to, double_timed)) = moved {
                let f = figure_mut(state, &figure);
                f.at = to;
                f.posture = Posture::Standing;
                f.double_timed |= double_timed;
            }
            if let Some(step) = activation(state).step.as_mut() {
                step.acted.insert(figure);
            }
        }
        Fact::Fired { figure, weapon, one_use, .. } => {
            if *one_use {
                figure_mut(state, figure).used_weapons.insert(weapon.clone());
            }
        }
        Fact::InjuryRolled { target, shooter, total, effect, melee, .. } => {
            if effect.is_none() {
                turn(state).pending_injuries.push(PendingInjury {
                    target: target.clone(),
                    shooter: shooter.clone(),
                    total: *total,
                    melee: *melee,
                });
            }
        }
        Fact::InjuryRuled { .. } => {
            turn(state).pending_injuries.remove(0);
        }
        Fact::KnockoutRolled { .. } | Fact::Blast { .. } => {}
        Fact::ActionVoided { figure, action: Action::Melee { .. }, .. } => {
            // The attack waiting for its answer, if it is this one, is void.
            if let Some(t) = state.turn.as_mut().filter(|t| t.melee.as_ref().is_some_and(|m| &m.attacker == figure)) {
                t.melee = None;
            }
        }
        Fact::ActionVoided { .. } => {}
        Fact::MeleeDeclared { attacker, target } => {
            turn(state).melee = Some(PendingMelee { attacker: attacker.clone(), target: target.clone() });
        }
        Fact::MeleeRolled { .. } => turn(state).melee = None,
        Fact::Escaped { figure, to, .. } => {
            let f = figure_mut(state, figure);
            f.at = *to;
            f.posture = Posture::Standing;
        }
        Fact::MoraleChanged { figure, to, .. } => {
            let f = figure_mut(state, figure);
            f.morale = *to;
            // A figure rallied since his unit was restored: what the
            // restoring answered is his morale now.
            let unit = f.unit.clone();
            if let Some(was) = units_mut(state)
                .get_mut(unit.as_str())
                .map(Arc::make_mut)
                .and_then(|u| u.restored_against.get_mut(figure))
            {
                if to.severity() < was.severity() {
                    *was = *to;
                }
            }
        }
        _ => return false,
    }
    true
}

/// 2.5: interrupts. Whether the fact was one of these.
fn record_interrupt(state: &mut State, fact: &Fact) -> bool {
    match fact {
        Fact::InterruptSet { unit: id, cp, .. } => {
            let u = unit(state, id);
            u.held_interrupt_cp = 1;
            u.cp = *cp;
        }
        Fact::Sighted { by, target, prepared } => {
            if !*prepared {
                unit(state, by).ragged_interrupt_used = true;
            }
            turn(state).ambushes.push(Ambush {
                by: by.clone(),
                target: target.clone(),
                prepared: *prepared,
                nervous: Vec::new(),
                fired: false,
                target_shaken_before: false,
                counts_before: None,
                detached: Vec::new(),
            });
        }
        Fact::AmbushBlown { by, nervous, .. } => ambush(state, by).nervous = nervous.clone(),
        Fact::InterruptFired { by, held_cp_spent, target_shaken_before, counts_before, .. } => {
            let a = ambush(state, by);
            a.fired = true;
            a.target_shaken_before = *target_shaken_before;
            a.counts_before = counts_before.clone();
            if *held_cp_spent {
                unit(state, by).held_interrupt_cp = 0;
            }
        }
        Fact::InterruptResolved { by, target, success, target_active, .. } => {
            turn(state).ambushes.retain(|a| &a.by != by);
            if *success {
                if let Some(u) = units_mut(state).get_mut(target.as_str()).map(Arc::make_mut) {
                    u.cp = 0;
                    u.held_interrupt_cp = 0;
                    u.activated = true;
                }
                if *target_active {
                    let a = activation(state);
                    a.interrupted_by = Some(by.clone());
                    a.step = None;
                }
            }
        }
        Fact::AmbushLapsed { by, .. } => turn(state).ambushes.retain(|a| &a.by != by),
        Fact::AmbushFollowed { by, to, .. } => ambush(state, by).target = to.clone(),
        Fact::AmbushKeepsDetached { by, detached, .. } => ambush(state, by).detached.extend(detached.iter().cloned()),
        Fact::TookCover { in_cover, prone, .. } => {
            for f in in_cover {
                figure_mut(state, f).posture = Posture::InCover;
            }
            for f in prone {
                figure_mut(state, f).posture = Posture::Prone;
            }
        }
        _ => return false,
    }
    true
}

/// 2.8: unit morale. Whether the fact was one of these.
fn record_morale(state: &mut State, fact: &Fact) -> bool {
    match fact {
        Fact::UnitShaken { unit: id, .. } => {
            let u = unit(state, id);
            u.morale = UnitMorale::Shaken;
            u.restored = false;
            u.restored_against.clear();
        }
        Fact::UnitSteadied { unit: id, to, .. } => {
            let against = state
                .figures
                .values()
                .filter(|f| f.in_play() && &f.unit == id)
                .map(|f| (f.id.clone(), f.morale))
                .collect();
            let u = unit(state, id);
            u.morale = *to;
            u.restored = true;
            u.restored_against = against;
        }
        Fact::Abandoned { lagging, .. } => {
            activation(state).abandoned = true;
            for f in lagging {
                figure_mut(state, f).lagging = true;
            }
        }
        Fact::ForcedRallyChecked { .. } => {}
        Fact::Routed { unit: id, reached_cover, .. } => {
            let u = unit(state, id);
            u.rout_due = false;
            u.in_cover = *reached_cover;
        }
        _ => return false,
    }
    true
}
