//! One line of narrative per fact (from the fact alone), and the state as text.

use crate::geometry::Point;

use super::lookup::{inches, list};
use super::{
    Action, Check, Fact, Figure, FireMode, InitiativeBy, NextUp, Phase, Posture, Spend, State, Succession, Unit,
    UnitMorale,
};

fn next_text(next: &Option<NextUp>) -> String {
    match next {
        None => "No unit is left to activate.".into(),
        Some(n) => {
            let units = n.units.join(" or ");
            let why = match &n.ahead_of {
                Some(waiting) => {
                    format!(" ({} holds the initiative, so its {} CP units act before {waiting}'s)", n.side, n.cp)
                }
                None => String::new(),
            };
            format!("Next: {} with {} CP: {units}{why}.", n.side, n.cp)
        }
    }
}

fn counts_text(counts: &std::collections::BTreeMap<String, u32>) -> String {
    counts.iter().map(|(s, n)| format!("{s} {n}")).collect::<Vec<_>>().join(", ")
}

fn action_text(action: &Action, from: Option<Point>, distance: Option<u64>) -> String {
    match action {
        Action::DoubleTime { figure, to } => match (from, distance) {
            (Some(from), Some(d)) => format!("{figure} double-time advances from {from} to {to} ({}).", inches(d)),
            _ => format!("{figure} double-time advances to {to}."),
        },
        Action::Flee { figure, to, reached_cover, left_battlefield } => {
            let d = distance.map(|d| format!(" ({})", inches(d))).unwrap_or_default();
            let end = if *reached_cover {
                ", reaching cover"
            } else if *left_battlefield {
                ", off the battlefield"
            } else {
                ""
            };
            format!("{figure} flees to {to}{d}{end}.")
        }
        Action::Fire { figure, move_to, weapon, target, mode, line, odds, cover_pf, .. } => {
            let moved = match (move_to, from, distance) {
                (Some(to), Some(from), Some(d)) => {
                    format!("{figure} moves from {from} to {to} ({}) and ", inches(d))
                }
                _ => format!("{figure} "),
            };
            let line = match (mode, line) {
                (FireMode::Ragged, _) | (_, None) => String::new(),
                (_, Some(l)) => format!(" on the {l} shot line"),
            };
            let cover = if *cover_pf > 0 { format!(", through cover of PF {cover_pf}") } else { String::new() };
            format!("{moved}opens {} with his {weapon} at {target}{line}, odds {odds}{cover}.", mode.name())
        }
        Action::Move { figure, to } => match (from, distance) {
            (Some(from), Some(d)) => format!("{figure} moves from {from} to {to} ({}).", inches(d)),
            _ => format!("{figure} moves to {to}."),
        },
        Action::Melee { figure, target, move_to } => match (move_to, from, distance) {
            (Some(to), Some(from), Some(d)) => format!(
                "{figure} moves from {from} to {to} ({}) into base contact with {target} and declares a melee attack.",
                inches(d)
            ),
            _ => format!("{figure} declares a melee attack on {target}."),
        },
        Action::Hold { figure } => format!("{figure} holds his position."),
        Action::Other { figure, what } => format!("{figure}: {what}."),
    }
}

/// One line of narrative for a fact.
pub(super) fn narrate(fact: &Fact) -> String {
    turn_text(fact)
        .or_else(|| organisation_text(fact))
        .or_else(|| cp_text(fact))
        .or_else(|| leadership_text(fact))
        .or_else(|| figure_action_text(fact))
        .or_else(|| fire_text(fact))
        .or_else(|| interrupt_text(fact))
        .or_else(|| morale_text(fact))
        .expect("every fact has its narration")
}

/// 2.1: the turn, strategic movement, initiative, activations.
fn turn_text(fact: &Fact) -> Option<String> {
    Some(match fact {
        Fact::TurnBegan { turn } => format!("Turn {turn} begins: strategic movement."),
        Fact::UnitWithdrew { unit, side, figures, .. } => format!(
            "{unit} ({side}) is still Broken: it breaks from the battlefield, and {} leave play.",
            figures.join(", ")
        ),
        Fact::ContactChanged { unit, enemy, in_contact } => {
            if *in_contact {
                format!("{unit} and {enemy} are in contact (referee).")
            } else {
                format!("{unit} and {enemy} are no longer in contact (referee).")
            }
        }
        Fact::MovedStrategically { unit, side, continued: true, .. } => {
            format!("{unit} ({side}) moves on strategically.")
        }
        Fact::MovedStrategically { unit, side, cp_lost, .. } => format!(
            "{unit} ({side}) moves strategically: it loses its {cp_lost} CP and may not act in operations this turn."
        ),
        Fact::FigureMoved { figure, from, to, distance_tenths } => {
            format!("{figure} moves from {from} to {to} ({}).", inches(*distance_tenths))
        }
        Fact::InitiativeCounted { turn, counts, holder, by } => {
            let how = match by {
                InitiativeBy::Count => format!("{holder} has more and takes the initiative"),
                InitiativeBy::Kept => format!("a tie: {holder}, who held it, keeps the initiative"),
                InitiativeBy::RollOff { rounds } => {
                    let rolls: Vec<String> = rounds
                        .iter()
                        .map(|r| r.iter().map(|(s, v)| format!("{s} {v}")).collect::<Vec<_>>().join(" v "))
                        .collect();
                    format!("a tie, rolled off ({}): {holder} takes the initiative", rolls.join("; "))
                }
            };
            format!("Turn {turn} initiative: active combatants {}; {how}.", counts_text(counts))
        }
        Fact::InitiativeRecounted { counts, previous, holder, before } => {
            // When the other side has more and yet the holder keeps the
            // initiative, it had more already as the interrupt opened fire
            // (N58): say so.
            let ahead = |c: &std::collections::BTreeMap<String, u32>| {
                c.iter().any(|(side, n)| side != previous && Some(n) > c.get(previous))
            };
            if let Some(b) = before.as_ref().filter(|b| holder == previous && ahead(counts) && ahead(b)) {
                format!(
                    "Initiative recounted: active combatants {} ({} as the interrupt opened fire); {holder} keeps the initiative: the interrupt did not cause the change.",
                    counts_text(counts),
                    counts_text(b)
                )
            } else if holder == previous {
                format!(
                    "Initiative recounted: active combatants {}; {holder} keeps the initiative.",
                    counts_text(counts)
                )
            } else {
                format!(
                    "Initiative recounted: active combatants {}; {holder} seizes the initiative from {previous}.",
                    counts_text(counts)
                )
            }
        }
        Fact::OperationsBegan { turn, next } => {
            format!("Turn {turn} operations begin. {}", next_text(next))
        }
        Fact::UnitActivated { unit, side, cp } => {
            format!("{unit} ({side}) is activated with {cp} CP.")
        }
        Fact::ActivationEnded { unit, next, .. } => {
            format!("{unit}'s activation ends. {}", next_text(next))
        }
        Fact::TurnEnded { turn } => {
            format!("Every unit has been activated: turn {turn} ends.")
        }
        _ => return None,
    })
}

/// 2.2: consolidation, detachment, reorganisation.
fn organisation_text(fact: &Fact) -> Option<String> {
    Some(match fact {
        Fact::Consolidated {
            organisation,
            kind,
            leader,
            by,
            units,
            sub_units,
            cost,
            cp_before,
            cp_after,
            lost,
            ..
        } => {
            let lost: Vec<String> = lost.iter().map(|(u, cp)| format!("{u} loses {cp} CP")).collect();
            format!(
                "{leader} consolidates {} into the {kind} {organisation} for {cost} CP (sub-units {}): {by}'s {cp_before} CP - {cost} = {cp_after} CP; {}.",
                units.join(" and "),
                sub_units.join(", "),
                lost.join(", ")
            )
        }
        Fact::Detached { unit, detached, cost, cp_before, cp_after } => {
            let names: Vec<String> = detached
                .iter()
                .map(|d| format!("{} (led by {}: {})", d.unit, d.leader, d.figures.join(", ")))
                .collect();
            format!(
                "{unit} detaches {} for {cost} CP ({cp_before} - {cost} = {cp_after} CP); a detached unit begins with no CP.",
                names.join(" and ")
            )
        }
        Fact::SquadsReorganised { organisation, leader, cost, cp_before, cp_after, platoons, units, by, .. } => {
            let platoons: Vec<String> = platoons
                .iter()
                .map(|p| format!("{} {} led by {} with {}", p.kind, p.id, p.leader, p.squads.join(" and ")))
                .collect();
            let lost: Vec<String> = units.iter().map(|(u, cp)| format!("{u} ({cp} CP lost)")).collect();
            format!(
                "{leader} reorganises {organisation} into {} for {cost} CP ({by}: {cp_before} - {cost} = {cp_after} CP); the squads' units lose their CP: {}.",
                platoons.join("; "),
                lost.join(", ")
            )
        }
        Fact::Reorganised { organisation, leader, cost, cp_before, cp_after, squads, dissolved, by, .. } => {
            let squads: Vec<String> = squads
                .iter()
                .map(|s| {
                    let teams: Vec<String> = s
                        .teams
                        .iter()
                        .map(|t| {
                            let moved = if t.moved_strategically { "; moved strategically this turn" } else { "" };
                            format!("{} (led by {}: {}{moved})", t.id, t.leader, t.figures.join(", "))
                        })
                        .collect();
                    format!("{} {} led by {} with {}", s.kind, s.id, s.leader, teams.join(" and "))
                })
                .collect();
            let lost: Vec<String> = dissolved.iter().map(|(u, cp)| format!("{u} ({cp} CP lost)")).collect();
            format!(
                "{leader} reorganises {organisation} into {} for {cost} CP ({by}: {cp_before} - {cost} = {cp_after} CP); units dissolved: {}; each new fire team begins with no CP.",
                squads.join("; "),
                lost.join(", ")
            )
        }
        _ => return None,
    })
}

/// 2.3: command points and command checks.
fn cp_text(fact: &Fact) -> Option<String> {
    Some(match fact {
        Fact::CpAccumulated { unit, cp_before, cp_after, held, cap } => {
            let held = if *held > 0 { format!(", {held} more held for an interrupt") } else { String::new() };
            if cp_after > cp_before {
                format!("{unit} accumulates another CP: {cp_before} -> {cp_after} CP{held} (command rating {cap}).")
            } else {
                format!(
                    "{unit} has {cp_before} CP{held}, its leader's command rating of {cap}: it gains nothing and completes its turn."
                )
            }
        }
        Fact::Passed { unit, cp } => format!("{unit} passes, doing nothing; it keeps its {cp} CP."),
        Fact::CpSpent { unit, number, cp, on, cp_left } => match on {
            Spend::Actions => format!("{unit} spends CP {number} on actions ({cp_left} CP left)."),
            Spend::TakeCommand => {
                format!("{unit} spends {cp} CP for its new leader to take command ({cp_left} CP left).")
            }
            Spend::SetInterrupt => {
                format!("{unit} spends {cp} CP to set an interrupt and holds it in reserve ({cp_left} CP left).")
            }
            Spend::SelfRally => format!("{unit}'s leader spends {cp} CP composing himself ({cp_left} CP left)."),
            Spend::SteadyUnit => format!("{unit}'s leader spends {cp} CP on a unit's morale ({cp_left} CP left)."),
            Spend::Rally => format!("{unit}'s leader spends {cp} CP to rally ({cp_left} CP left)."),
            Spend::RallyPanicked => {
                format!("{unit}'s leader spends {cp} CP to rally a panicked figure ({cp_left} CP left).")
            }
            Spend::ForcedRally => format!("{unit}'s leader spends {cp} CP on a forced rally ({cp_left} CP left)."),
        },
        Fact::CpCompleted { unit, number, cp_left, caught_up } => {
            let caught = if caught_up.is_empty() {
                String::new()
            } else {
                format!(
                    " {} {} normally from the next CP.",
                    caught_up.join(", "),
                    if caught_up.len() == 1 { "acts" } else { "act" }
                )
            };
            format!("Every figure of {unit} has acted on CP {number}; {cp_left} CP left.{caught}")
        }
        Fact::CpLost { unit, cp, reason } => {
            format!("{unit} loses its {cp} remaining CP: {reason}.")
        }
        Fact::CommandChecked { figure, reason, check, .. } => match check {
            Check::Rolled { roll, target, passed } => format!(
                "Command check for {figure} ({reason}): rolled {roll} against a target of {target}: {}.",
                if *passed { "passes" } else { "fails" }
            ),
            Check::AutomaticFail { morale } => {
                format!("Command check for {figure} ({reason}): {} troops fail automatically.", morale.name())
            }
        },
        _ => return None,
    })
}

/// 2.3: figures leaving play, leaders lost and breveted, units broken or eliminated.
fn leadership_text(fact: &Fact) -> Option<String> {
    Some(match fact {
        Fact::FigureRemoved {
            figure,
            side,
            unit,
            reason,
            ..
        } => format!("{figure} ({unit}, {side}) is removed from play: {reason}."),
        Fact::StragglerRemoved {
            figure,
            unit,
            leader,
            distance_tenths,
            command_distance_tenths,
            ..
        } => format!(
            "{figure} ends {unit}'s turn {} from his leader {leader}, beyond the command distance of {}: a straggler, removed from play.",
            inches(*distance_tenths),
            inches(*command_distance_tenths)
        ),
        Fact::LeaderLost {
            unit,
            leader,
            cp_lost,
            rating,
            successor_rating,
            succession,
            ..
        } => {
            let then = match succession {
                Succession::Brevet => format!(
                    "it must brevet a new leader now, with a command rating of {successor_rating} (his predecessor's {rating} less one)"
                ),
                Succession::Breaks => format!(
                    "a new leader would have a command rating of {successor_rating} (his predecessor's {rating} less one), less than 1"
                ),
                Succession::Eliminated => "nobody is left to lead it".into(),
            };
            format!("{unit} loses its leader {leader} and all its CP ({cp_lost}): {then}.")
        }
        Fact::Breveted {
            unit,
            leader,
            rating,
            take_command_cp,
            ..
        } => format!(
            "{leader} is breveted leader of {unit} with a command rating of {rating}; he must accumulate and spend {take_command_cp} CP to take command, and until then the unit can only mount a ragged defence."
        ),
        Fact::TookCommand { unit, leader } => {
            format!("{leader} takes command of {unit}, which may now act normally.")
        }
        Fact::UnitBroke {
            unit,
            side,
            reason,
            rout,
        } => {
            let rout = if *rout { " It must rout at once." } else { "" };
            format!("{unit} ({side}) breaks: {reason}{rout}")
        }
        Fact::UnitEliminated { unit, side } => {
            format!("{unit} ({side}) has no figure left in play: it is eliminated.")
        }
        _ => return None,
    })
}

/// 2.4 and 2.7: figure actions and melee.
fn figure_action_text(fact: &Fact) -> Option<String> {
    Some(match fact {
        Fact::FigureActed { action, from, distance_tenths, .. } => action_text(action, *from, *distance_tenths),
        Fact::ActionVoided { figure, action, reason } => {
            let what = match action {
                Action::Move { .. } => "move",
                Action::DoubleTime { .. } => "double-time advance",
                Action::Fire { .. } => "fire",
                Action::Melee { .. } => "melee attack",
                Action::Flee { .. } => "flight",
                Action::Hold { .. } => "hold",
                Action::Other { .. } => "action",
            };
            format!("{figure}'s {what} is void: {reason}.")
        }
        Fact::MeleeDeclared { attacker, target } => {
            format!("{target} must choose: engage {attacker} in melee, or escape.")
        }
        Fact::MeleeRolled { attacker, target, escape, roll, value, hit } => {
            let how = if *escape { format!("{target} tries to escape (+5)") } else { format!("{target} engages") };
            let result = if *hit { "the attack hits" } else { "it misses" };
            format!("{how}: {attacker} rolls {roll}, needing under {value}: {result}.")
        }
        Fact::Escaped { figure, from, to } => {
            format!("{figure} escapes from {from} to {to} and may act normally.")
        }
        _ => return None,
    })
}

/// 2.6: fire, blasts, injuries and their effect on morale.
fn fire_text(fact: &Fact) -> Option<String> {
    Some(match fact {
        Fact::Fired { figure, target, mode, odds, shots, hits_per_shot, pen, .. } => {
            let rolls: Vec<String> = shots
                .iter()
                .map(|s| match (s.hit, s.stray) {
                    (_, Some(m)) => format!("{} (stray, {m:+})", s.roll),
                    (true, None) => format!("{} hit", s.roll),
                    (false, None) => format!("{} miss", s.roll),
                })
                .collect();
            let hits = u64::from(*hits_per_shot) * shots.iter().filter(|s| s.hit).count() as u64;
            format!(
                "{figure}'s {} at {target}: {} shot(s) against odds {odds}: {}; {hits} hit(s) at PEN {pen}.",
                mode.name(),
                shots.len(),
                rolls.join(", ")
            )
        }
        Fact::Blast { shooter, weapon, at, deviation, on_cover, caught } => {
            let where_ = match (deviation, on_cover) {
                (Some(face), _) => format!("misses and deviates 4\" (d10 face {face}) to {at}"),
                (None, true) => format!("detonates on the intervening cover at {at}"),
                (None, false) => format!("bursts on its target at {at}"),
            };
            let caught = if caught.is_empty() {
                "nobody is caught".to_string()
            } else {
                caught
                    .iter()
                    .map(|(f, d, e)| format!("{f} at {} takes {}", inches(*d), e.name()))
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            format!("{shooter}'s {weapon} {where_}: {caught}.")
        }
        Fact::InjuryRolled { target, roll, sdm, stray, total, effect, melee, .. } => {
            let stray = if *stray != 0 { format!(" {stray:+} stray") } else { String::new() };
            let table = if *melee { "melee " } else { "" };
            let effect = match effect {
                Some(e) => format!("{}.", e.name()),
                None => "the referee gives the effect (no injury table).".into(),
            };
            format!("Hit location and {table}injury roll for {target}: {roll} {sdm:+} SDM{stray} = {total}: {effect}")
        }
        Fact::InjuryRuled { target, total, effect } => {
            format!("The referee reads {} for {target}'s roll of {total}.", effect.name())
        }
        Fact::KnockoutRolled { figure, roll, chance, fanatic, under } => match (fanatic, under) {
            (false, true) => {
                format!("{figure}'s knockout roll: {roll} against a Knockout Chance of {chance}: he goes unconscious.")
            }
            (false, false) => {
                format!("{figure}'s knockout roll: {roll} against a Knockout Chance of {chance}: he stays conscious.")
            }
            (true, true) => format!("{figure}, a fanatic, rolls again: {roll} against {chance}: he panics."),
            (true, false) => format!("{figure}, a fanatic, rolls again: {roll} against {chance}: he fights on."),
        },
        Fact::MoraleChanged { figure, from, to, reason } => {
            format!("{figure} goes from {} to {} ({reason}).", from.name(), to.name())
        }
        _ => return None,
    })
}

/// 2.5: interrupts.
fn interrupt_text(fact: &Fact) -> Option<String> {
    Some(match fact {
        Fact::InterruptSet { unit, side, cp } => format!(
            "{unit} ({side}) sets an interrupt: one CP held in reserve, {cp} CP accumulated besides; its turn ends."
        ),
        Fact::Sighted { by, target, prepared } => {
            let how = if *prepared { "with its held CP" } else { "for a ragged interrupt" };
            format!("{target} enters {by}'s line of sight (referee): {by} lies in wait, {how}.")
        }
        Fact::AmbushBlown { by, target, nervous } => {
            format!("{by}'s ambush is blown: {} open ragged fire on {target} before it acts.", nervous.join(", "))
        }
        Fact::InterruptFired { by, target, held_cp_spent, joined, mode, no_line_of_sight, .. } => {
            let rest = match (joined.is_empty(), mode) {
                (true, _) | (_, None) => "the rest of the unit holds its fire".to_string(),
                (false, Some(m)) => {
                    let verb = if joined.len() == 1 { "joins" } else { "join" };
                    format!("{} {verb} with {}", joined.join(", "), m.name())
                }
            };
            let blind = if no_line_of_sight.is_empty() {
                String::new()
            } else {
                let hold = if no_line_of_sight.len() == 1 { "holds" } else { "hold" };
                format!("; {} cannot see the target and {hold}", no_line_of_sight.join(", "))
            };
            let cp = if *held_cp_spent { "; the held CP is spent" } else { "" };
            format!("{by} interrupts {target}: {rest}{blind}{cp}.")
        }
        Fact::InterruptResolved { by, target, success, reason, cp_lost, target_active } => {
            if *success {
                let then = if *target_active { " It may take cover; its turn is over." } else { "" };
                format!("{by}'s interrupt succeeds ({reason}): {target} loses its {cp_lost} remaining CP and ceases its turn.{then}")
            } else {
                // The reason may end on a quoted sentence: no second full stop.
                let stop = if reason.ends_with('.') || reason.ends_with(".\"") { "" } else { "." };
                format!("{by}'s interrupt fails: {reason}{stop}")
            }
        }
        Fact::AmbushLapsed { by, target } => {
            format!("{by} no longer lies in wait for {target}.")
        }
        Fact::AmbushFollowed { by, from, to } => {
            format!("{from} is now part of {to}: {by}'s blown ambush fires on {to}.")
        }
        Fact::AmbushKeepsDetached { by, target, detached } => {
            format!(
                "{} detached from {target} on the CP that blew {by}'s ambush: {by}'s fire on {target} may fall on {} too.",
                list(detached),
                list(detached)
            )
        }
        Fact::TookCover { unit, in_cover, prone } => {
            let mut parts = Vec::new();
            if !in_cover.is_empty() {
                parts.push(format!("{} in cover", in_cover.join(", ")));
            }
            if !prone.is_empty() {
                parts.push(format!("{} prone", prone.join(", ")));
            }
            format!("{unit} takes cover: {}.", parts.join("; "))
        }
        _ => return None,
    })
}

/// 2.8: unit morale.
fn morale_text(fact: &Fact) -> Option<String> {
    Some(match fact {
        Fact::UnitSteadied { unit, from, to } => {
            let word = |m: &UnitMorale| match m {
                UnitMorale::Steady => "Bold",
                UnitMorale::Shaken => "Shaken",
                UnitMorale::Broken => "Broken",
            };
            let turn = if *to == UnitMorale::Steady { " for the turn" } else { "" };
            format!("{unit} is steadied from {} to {}{turn}.", word(from), word(to))
        }
        Fact::Abandoned { unit, shaken, lagging } => {
            let lag = if lagging.is_empty() {
                "every Bold figure passes".to_string()
            } else {
                format!("{} {} behind by 1 CP", lagging.join(", "), if lagging.len() == 1 { "lags" } else { "lag" })
            };
            format!("{unit}'s leader abandons {} and presses on: {lag}.", shaken.join(", "))
        }
        Fact::ForcedRallyChecked { unit, leader, passed, of, holds } => {
            if *holds {
                format!("{passed} of {of} of {unit} pass: {leader} can continue expending CP.")
            } else {
                format!(
                    "Only {passed} of {of} of {unit} pass: {leader} is shot by his own side, and the unit is Broken."
                )
            }
        }
        Fact::Routed { unit, side, reached_cover, fanatics } => {
            if *reached_cover {
                format!("{unit} ({side}) routs and reaches cover.")
            } else if fanatics.is_empty() {
                format!("{unit} ({side}) routs but cannot reach cover: it attempts to surrender.")
            } else {
                format!(
                    "{unit} ({side}) routs but cannot reach cover: it attempts to surrender, but {} will not surrender.",
                    fanatics.join(", ")
                )
            }
        }
        Fact::UnitShaken { unit, side, shaken, of } => {
            format!("{unit} ({side}) is Shaken: {shaken} of its {of} figures are Shaken or worse.")
        }
        _ => return None,
    })
}

/// The state as text: the turn, the activation, each side's units and
/// figures, the organisation trees, and who is out of play.
pub(super) fn render(state: &State) -> String {
    let mut out = turn_header(state);
    for side in &state.sides {
        out.push_str(&format!("{side}:\n"));
        for u in state.units.values().filter(|u| &u.side == side) {
            out.push_str(&unit_line(state, u));
            for f in state.figures_in_order().filter(|f| f.in_play() && f.unit == u.id) {
                out.push_str(&figure_line(f));
            }
        }
    }
    out.push_str("organisation:\n");
    tree(state, None, 0, &mut out);
    let gone: Vec<_> = state.figures_in_order().filter(|f| !f.in_play()).collect();
    if !gone.is_empty() {
        out.push_str("out of play:\n");
        for f in gone {
            out.push_str(&format!("  {} ({}): {}\n", f.id, f.side, f.removed.as_deref().unwrap_or("")));
        }
    }
    out
}

/// The turn, its phase, who holds the initiative, and the activation.
fn turn_header(state: &State) -> String {
    let Some(t) = &state.turn else {
        return format!("before the first turn; {} holds the initiative\n", state.initiative);
    };
    let phase = match t.phase {
        Phase::StrategicMovement => "strategic movement",
        Phase::Operations => "operations",
        Phase::Over => "over",
    };
    let counts =
        if t.counts.is_empty() { String::new() } else { format!(" (active combatants {})", counts_text(&t.counts)) };
    let mut out = format!("turn {}, {phase}; {} holds the initiative{counts}\n", t.number, state.initiative);
    if let Some(a) = &t.activation {
        let step = match &a.step {
            Some(s) => format!(
                "; CP {} being spent, acted: {}",
                s.number,
                s.acted.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
            None => String::new(),
        };
        out.push_str(&format!(
            "active: {} ({} CP spent{}{step})\n",
            a.unit,
            a.spent,
            if a.expending { ", expending" } else { "" }
        ));
    }
    out
}

/// A unit, its leader, its CP and what marks it.
fn unit_line(state: &State, u: &Unit) -> String {
    let mut marks = Vec::new();
    let mut mark = |on: bool, text: &str| {
        if on {
            marks.push(text.to_string());
        }
    };
    mark(u.activated, "activated");
    mark(u.strategic, "moved strategically");
    mark(u.held_interrupt_cp > 0, &format!("{} CP held for an interrupt", u.held_interrupt_cp));
    mark(u.brevet_due.is_some(), "must brevet a leader");
    mark(u.taking_command, "new leader taking command");
    mark(u.morale == UnitMorale::Shaken, "Shaken");
    mark(u.morale == UnitMorale::Broken, "Broken");
    mark(u.restored, "restored to Bold for the turn");
    mark(u.rout_due, "must rout");
    mark(u.in_cover, "in cover");
    mark(u.ragged_interrupt_used, "ragged interrupt spent");
    mark(u.hero, "hero");
    if !u.contact.is_empty() {
        marks.push(format!("in contact with {}", u.contact.iter().cloned().collect::<Vec<_>>().join(", ")));
    }
    let leader = match u.leader.as_ref().and_then(|l| state.figures.get(l.as_str())) {
        Some(l) => {
            format!("leader {} (CR {}, {})", l.id, l.command_rating.unwrap_or(0), inches(l.command_distance_tenths))
        }
        None => "no leader".into(),
    };
    let marks = if marks.is_empty() { String::new() } else { format!(" [{}]", marks.join(", ")) };
    format!("  unit {}, {leader}: {} CP{marks}\n", u.id, u.cp)
}

/// A figure in play: troop quality, morale, position and notes.
fn figure_line(f: &Figure) -> String {
    let mut notes = Vec::new();
    match f.posture {
        Posture::Standing => {}
        Posture::InCover => notes.push("in cover".to_string()),
        Posture::Prone => notes.push("prone".to_string()),
    }
    if f.double_timed {
        notes.push("double-timed".into());
    }
    if f.lagging {
        notes.push("lagging".into());
    }
    for w in &f.used_weapons {
        notes.push(format!("{w} used"));
    }
    let notes = if notes.is_empty() { String::new() } else { format!(" [{}]", notes.join(", ")) };
    format!("    {:<10} TQ {} {:<9} at {}{notes}\n", f.id, f.troop_quality, f.morale.name(), f.at)
}

/// The organisation trees, indented by level.
fn tree(state: &State, parent: Option<&str>, depth: usize, out: &mut String) {
    for o in state.organisations.values().filter(|o| o.parent.as_deref() == parent) {
        out.push_str(&format!(
            "{}{} {} ({}), led by {}\n",
            "  ".repeat(depth + 1),
            o.id,
            o.kind,
            o.side,
            o.leader.as_deref().unwrap_or("nobody")
        ));
        tree(state, Some(&o.id), depth + 1, out);
    }
}
