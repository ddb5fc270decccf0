//! 2.8 Morale: figures' morale states, and the unit's — Shaken when most of
//! its figures are, Broken when most have panicked.

use super::decide::{members, Facts};
use super::{Fact, Morale, State, UnitMorale};

/// "A Graze result reduces the Morale of a Bold target to Shaken, and a
/// Shaken target to Panicked. It has no effect on Fanatical or Panicked
/// targets." (A Light Wound the same, for a figure who stays conscious.)
pub(super) fn drop_morale(facts: &mut Facts, figure: &str, reason: &str) {
    let from = facts.state().figures[figure].morale;
    let to = match from {
        Morale::Bold => Morale::Shaken,
        Morale::Shaken => Morale::Panicked,
        Morale::Panicked | Morale::Fanatical => return,
    };
    facts.push(Fact::MoraleChanged {
        figure: figure.to_string(),
        from,
        to,
        reason: reason.to_string(),
    });
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

/// A unit's morale follows its figures'.
///
/// "If the majority (rounded up) of figures in a unit are Shaken, then the
/// Unit becomes Shaken and the leader must expend a CP to restore the Unit
/// Morale to Bold for the turn." — "If the majority (rounded up) of figures
/// in a unit are Panicked, then the unit as a whole is Broken and
/// immediately routs". Panicked figures count as Shaken too (a unit most of
/// whose figures are Shaken or worse is Shaken). A unit restored for the
/// turn stays Bold until the turn ends.
pub(super) fn settle_unit_morale(facts: &mut Facts) {
    let state = facts.state();
    let mut changes = Vec::new();
    for u in state.units.values() {
        let figures = members(state, &u.id);
        let of = figures.len();
        let panicked = figures
            .iter()
            .filter(|f| f.morale == Morale::Panicked)
            .count();
        let shaken = figures
            .iter()
            .filter(|f| matches!(f.morale, Morale::Shaken | Morale::Panicked))
            .count();
        if u.morale != UnitMorale::Broken && majority(state, panicked, of) {
            changes.push(Fact::UnitBroke {
                unit: u.id.clone(),
                side: u.side.clone(),
                reason: format!(
                    "{panicked} of its {of} figures are Panicked: \"If the majority (rounded up) of figures in a unit are Panicked, then the unit as a whole is Broken and immediately routs\""
                ),
                rout: true,
            });
        } else if u.morale == UnitMorale::Steady && !u.restored && majority(state, shaken, of) {
            changes.push(Fact::UnitShaken {
                unit: u.id.clone(),
                side: u.side.clone(),
                shaken: shaken as u32,
                of: of as u32,
            });
        }
    }
    for fact in changes {
        facts.push(fact);
    }
}
