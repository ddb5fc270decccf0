//! 2.4 Actions: what each figure of the active unit does with the CP being
//! spent — move, double-time advance, fire, flee, hold. Where a figure goes
//! is a referee input; how far it may go is not.

use crate::dice::Dice;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::consequences::{complete_step_if_done, remove_figure};
use super::fire::{check_fire, fire, FireOrder};
use super::lookup::{self, inches, list, waiting_to_act, Facts};
use super::{Action, Fact, Figure, FireMode, Morale, Refused, State};

/// What a figure's morale (or lagging) leaves him free to do.
///
/// Rallying: "Failure to spend the CP means that the Shaken figures will not
/// move or perform actions, and can only perform ragged fire." — "Panicked
/// figures can only use ragged fire", and flee. Abandonment: "Those that fail
/// will lag behind by 1 CP" (P6: the failed figure does nothing on the next
/// CP — he holds, even if interrupt fire has since panicked him: N37).
fn refuse_what_morale_forbids(f: &Figure, action: &Action) -> Result<(), Violation> {
    let ragged = matches!(action, Action::Fire { mode: FireMode::Ragged, .. });
    if f.lagging {
        // He sits the CP out, whatever his morale has become since.
        if !matches!(action, Action::Hold { .. }) {
            refuse!(Refused::LagsBehind, "{} failed his command check when his Shaken comrades were abandoned and lags behind by 1 CP: he holds on this CP", f.id);
        }
        return Ok(());
    }
    match f.morale {
        Morale::Shaken if !ragged && !matches!(action, Action::Hold { .. }) => refuse!(
            Refused::ShakenFigure, "{} is Shaken and was not rallied: \"the Shaken figures will not move or perform actions, and can only perform ragged fire\"",
            f.id
        ),
        Morale::Panicked
            if !(ragged
                || matches!(action, Action::Flee { .. })
                || (f.fanatic && matches!(action, Action::Melee { .. }))) =>
        {
            refuse!(
                Refused::PanickedFlees, "{} is Panicked: he flees towards cover, or fires ragged (\"Panicked figures can only use ragged fire\")",
                f.id
            )
        }
        _ => {}
    }
    if matches!(action, Action::Flee { .. }) && f.morale != Morale::Panicked {
        refuse!(Refused::PanickedFlees, "{} is {}: only a Panicked figure flees", f.id, f.morale.name());
    }
    Ok(())
}

/// Figures of the active unit act on the CP being spent.
///
/// "Each figure in the unit must perform his action before the unit's next
/// CP can be expended." — "Actions are performed by the figures in a unit,
/// and not the unit as a whole. Individual figures in a unit can perform
/// different actions on the expenditure of the same CP." — "When the unit's
/// leader begins expending command points, all members in the unit must
/// act." One action per figure per CP; the CP is complete when every figure
/// has acted, and the activation ends with the last CP. A move is at most the
/// standard move; "a double-time advance … allows each figure in the unit to
/// move twice the figure's standard move" and "each figure can only
/// double-time advance once per turn"; a Panicked figure "will retreat at a
/// double-time advance rate of movement directly away from the enemy towards
/// cover. He will do so even if he has already double-time advanced earlier
/// in the turn. If the figure reach cover, the figure will instead attempt to
/// surrender, and is removed from play."
///
/// Every action is checked before any die is rolled, on the table as the
/// decision finds it: a refusal never depends on the dice, so it never tells
/// the player how they would fall. The actions are then performed in order;
/// one that an earlier action's dice made impossible — its figure or his
/// target fell, his morale dropped, his unit's activation ended — is void
/// (N36), and a figure still in play is still to act on the CP.
pub(super) fn actions(state: &State, actions: &[Action], dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let a = lookup::activation(state)?;
    let Some(step) = &a.step else {
        refuse!(
            Refused::NotSpendingCp, "{} is not spending a CP on actions: spend its next CP first (\"Units can only perform actions by expending accumulated CP\")",
            a.unit
        );
    };
    if actions.is_empty() {
        refuse!(Shared::NothingNamed, "name at least one figure's action");
    }
    let unit = a.unit.clone();
    let number = step.number;
    let mut acting: Vec<&str> = Vec::new();
    for (i, action) in actions.iter().enumerate() {
        let id = action.figure();
        let f = lookup::figure(state, id)?;
        if f.unit != unit || !f.in_play() {
            refuse!(
                Refused::NotAFigureOfTheUnit,
                "{id} is not a figure of {unit} in play: only the active unit's figures act on its CP"
            );
        }
        if step.acted.contains(id) || acting.contains(&id) {
            refuse!(
                Refused::OneActionPerCp, "{id} has already acted on CP {number}: \"Each figure in the unit must perform his action before the unit's next CP can be expended\" — one action per figure per CP (still to act: {})",
                list(&waiting_to_act(state, a))
            );
        }
        acting.push(id);
        check_action(state, f, action, i + 1 == actions.len())?;
    }
    for (i, action) in actions.iter().enumerate() {
        let now = facts.state();
        let still = now.turn.as_ref().and_then(|t| t.activation.as_ref()).filter(|a| a.unit == unit);
        let why = match still.and_then(|a| a.step.as_ref()).filter(|s| s.number == number) {
            None => Some(format!("{unit}'s activation ended before he acted")),
            Some(_) => match now.figures.get(action.figure()).filter(|f| f.in_play() && f.unit == unit) {
                None => Some(format!("{} is no longer in play", action.figure())),
                Some(f) => check_action(now, f, action, i + 1 == actions.len()).err().map(|v| v.to_string()),
            },
        };
        match why {
            Some(reason) => {
                facts.push(Fact::ActionVoided { figure: action.figure().to_string(), action: action.clone(), reason })
            }
            None => perform(facts, &unit, number, action, dice)?,
        }
    }
    complete_step_if_done(facts);
    Ok(())
}

/// Whether figure `f` (of the active unit, in play, not yet acted on the CP)
/// may perform `action`; `last`: it is the decision's last action.
fn check_action(state: &State, f: &Figure, action: &Action, last: bool) -> Result<(), Violation> {
    let id = &f.id;
    refuse_what_morale_forbids(f, action)?;
    let standard = f.standard_move(&state.config);
    let double = standard.saturating_mul(state.config.double_time_multiplier);
    match action {
        Action::Move { to, .. } => refuse_beyond(f, *to, standard, "a standard move")?,
        Action::DoubleTime { to, .. } => {
            if f.double_timed {
                refuse!(Refused::DoubleTimeOnce, "{id} has already double-time advanced this turn: \"each figure can only double-time advance once per turn\"");
            }
            refuse_beyond(f, *to, double, "a double-time advance")?;
        }
        Action::Flee { to, reached_cover, left_battlefield, .. } => {
            if *reached_cover && f.fanatic {
                refuse!(Refused::Fanatic, "{id} is a fanatic: \"Once a fanatic has panicked, he cannot be rallied out of his panic, and will attempt to leave the battlefield. If unable to do so, he will not surrender\" — he does not give himself up in cover");
            }
            if *reached_cover && *left_battlefield {
                refuse!(Refused::FleeOneWay, "{id} either reaches cover or leaves the battlefield, not both");
            }
            refuse_beyond(f, *to, double, "a double-time flight")?;
        }
        Action::Melee { target, move_to, .. } => {
            if !last {
                refuse!(Refused::MeleeLast, "{id} declares a melee attack: the target answers before anything else, so it comes last among the actions");
            }
            super::melee::check_melee(state, f, target, *move_to)?;
        }
        Action::Fire { move_to, .. } => {
            if let Some(to) = move_to {
                if matches!(f.morale, Morale::Shaken | Morale::Panicked) {
                    refuse!(
                        Refused::RaggedFireOnly,
                        "{id} is {} and cannot advance and fire: he fires ragged where he stands",
                        f.morale.name()
                    );
                }
                refuse_beyond(f, *to, standard, "a standard move")?;
            }
            check_fire(state, &fire_order(action).expect("a fire action"))?;
        }
        Action::Hold { .. } | Action::Other { .. } => {}
    }
    Ok(())
}

fn fire_order(action: &Action) -> Option<FireOrder<'_>> {
    match action {
        Action::Fire { figure, move_to, weapon, target, mode, line, odds, cover_pf, cover_at } => Some(FireOrder {
            figure,
            move_to: *move_to,
            weapon,
            target,
            mode: *mode,
            line: *line,
            odds: *odds,
            cover_pf: *cover_pf,
            cover_at: *cover_at,
        }),
        _ => None,
    }
}

/// Performs a checked action: the figure acts, and what it leads to.
fn perform(facts: &mut Facts, unit: &str, number: u32, action: &Action, dice: &mut Dice) -> Result<(), Violation> {
    let id = action.figure();
    let now = facts.state();
    let at = now.figures[id].at;
    let moved_to = match action {
        Action::Move { to, .. } | Action::DoubleTime { to, .. } | Action::Flee { to, .. } => Some(*to),
        Action::Fire { move_to, .. } | Action::Melee { move_to, .. } => *move_to,
        Action::Hold { .. } | Action::Other { .. } => None,
    };
    let volley = match fire_order(action) {
        Some(order) => {
            let v = check_fire(now, &order)?;
            Some((order, v.shots, v.odds, v.weapon.clone()))
        }
        None => None,
    };
    facts.push(Fact::FigureActed {
        unit: unit.to_string(),
        number,
        action: action.clone(),
        from: moved_to.map(|_| at),
        distance_tenths: moved_to.map(|to| at.distance_ceil(to)),
    });
    if let Some((order, shots, odds, weapon)) = volley {
        let volley = super::fire::Volley { weapon: &weapon, shots, odds };
        fire(facts, &order, &volley, dice)?;
    }
    match action {
        Action::Melee { target, .. } => {
            facts.push(Fact::MeleeDeclared { attacker: id.to_string(), target: target.clone() })
        }
        Action::Flee { reached_cover: true, .. } => {
            remove_figure(facts, id, "surrendered on reaching cover while Panicked")
        }
        Action::Flee { left_battlefield: true, .. } => remove_figure(facts, id, "fled the battlefield while Panicked"),
        _ => {}
    }
    Ok(())
}

fn refuse_beyond(f: &Figure, to: crate::geometry::Point, allowance: u64, what: &str) -> Result<(), Violation> {
    if !f.at.within(to, allowance) {
        refuse!(
            Refused::BeyondMove,
            "{} cannot move from {} to {to}: that is {} and {what} is {}",
            f.id,
            f.at,
            inches(f.at.distance_ceil(to)),
            inches(allowance)
        );
    }
    Ok(())
}

/// A CP whose last figure still to act left play outside his unit's own
/// actions — under interrupt fire, whose resolution comes first (N30) — is
/// complete once that interrupt is resolved: nobody is left to act on it.
pub(super) fn settle_step(facts: &mut Facts) {
    let state = facts.state();
    let Some(a) = state.turn.as_ref().and_then(|t| t.activation.as_ref()) else {
        return;
    };
    if !super::lookup::fired_on(state, &a.unit) {
        complete_step_if_done(facts);
    }
}
