//! `phoenix-command@3` (the default), `phoenix-command@2` and
//! `phoenix-command@1`: every option (an open point of
//! `docs/rules/INTERPRETATIONS.md`, P1–P12, or of
//! `docs/book/src/rulesets/phoenix-command.md`, N-numbered) and every
//! constant (a number a group might change), each quoting the sentence it
//! settles. Version 1 is the first reading, kept so that the records played
//! under it verify as they were played; version 2 reads four sentences it
//! misread (N19, N23, N27, N58) and has two options more; version 3 reads
//! "the target" of a blown ambush as the unit that spent the CP, units it
//! detached on that CP included (N59), and has one option more. Versions 1
//! and 2 are kept as they were, for their records.

use serde::{Deserialize, Serialize};

use crate::rules::{RuleVersion, Setting, VersionSpec};
use crate::ruleset::ScenarioError;

/// The settings of a rule version, typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Config {
    /// P1: a command check passes on a roll equal to the target too.
    pub command_check_equal_passes: bool,
    /// P4: an initiative tie is rolled off instead of kept by the holder.
    pub initiative_tie_roll_off: bool,
    /// P3: a majority is more than half, not half rounded up.
    pub strict_majority: bool,
    /// P11: the optional stray fire rule.
    pub stray_fire: bool,
    /// P7: no command checks when the target enters LOS, only before its CP.
    pub no_check_on_entering_los: bool,
    pub take_cover_tenths: u64,
    pub forced_rally_check_modifier: i64,
    pub morale_cp: u32,
    pub melee_escape_bonus: i64,
    pub explosive_deviation_tenths: u64,
    /// N15: a figure that double-timed may not fire for the rest of the turn.
    pub double_time_bars_fire_for_the_turn: bool,
    /// N40: initiative is recounted whenever the count changes, not only
    /// after an interrupt.
    pub initiative_recount_on_any_change: bool,
    /// N42: a 1 Shot/Action or 1 Use weapon may be fired after an advance.
    pub one_shot_weapons_after_an_advance: bool,
    /// N47: disciplined fire may follow an advance in the same action.
    pub disciplined_fire_after_an_advance: bool,
    /// N52: a restored unit stays Bold for the turn whatever befalls its
    /// figures, short of a new Panicked majority.
    pub restored_unit_stays_bold_for_the_turn: bool,
    /// N46: a consolidation takes every sub-unit of the organisation.
    pub consolidate_whole_organisation: bool,
    /// N48: a hero has no unit morale apart from his own.
    pub hero_without_unit_morale: bool,
    /// N50: a target who escapes a melee does not move at once.
    pub melee_escape_without_moving: bool,
    pub double_time_multiplier: u64,
    pub disciplined_extra_shots: u32,
    pub ragged_fire_modifier: i64,
    pub shaken_check_modifier: i64,
    pub accumulate_cp: u32,
    pub brevet_rating_loss: i64,
    pub brevet_minimum_rating: i64,
    pub take_command_cp: u32,
    pub consolidation_cp_per_sub_unit: u32,
    pub detachment_cp_per_unit: u32,
    pub reorganisation_cp_per_sub_unit: u32,
    pub standard_move_tenths: u64,
    // What version 2 reads differently. Each is off under version 1 and
    // left out of its serialised state then, so that version 1's states
    // (and their digests) are what they were.
    /// N58: after an interrupt, initiative changes hands only if the
    /// interrupt's fire gave the other side more active combatants (off
    /// under `interrupt-recount-counts-every-change`).
    #[serde(default, skip_serializing_if = "super::is_false")]
    pub recount_only_the_interrupts_change: bool,
    /// N23: taking cover may bring a figure nearer no enemy figure (off
    /// under `take-cover-away-from-interrupters-only`).
    #[serde(default, skip_serializing_if = "super::is_false")]
    pub take_cover_away_from_every_enemy: bool,
    /// N19: every CP an order spends in an ambusher's line of sight calls
    /// for its round of command checks: organisation orders' CP, as every
    /// other, and each CP of an order the rules make cost several.
    #[serde(default, skip_serializing_if = "super::is_false")]
    pub organisation_orders_checked: bool,
    /// N27: a superior officer rallies a unit (not routing) only when its
    /// leader has no CP.
    #[serde(default, skip_serializing_if = "super::is_false")]
    pub superior_only_when_the_leader_has_no_cp: bool,
    // What version 3 reads differently, off under versions 1 and 2 and left
    // out of their serialised states.
    /// N59: a blown ambush fires on the target as it stood when it spent the
    /// CP: units it detached on that CP stay the target (off under
    /// `detached-units-leave-the-target`).
    #[serde(default, skip_serializing_if = "super::is_false")]
    pub detached_units_stay_the_target: bool,
}

impl Config {
    pub fn from_rules(r: &RuleVersion) -> Result<Config, ScenarioError> {
        let count = |name: &str| {
            u32::try_from(r.int(name))
                .map_err(|_| ScenarioError::new(format!("rules.constants.{name}"), "must be a whole number from 0"))
        };
        // Version 1 declares neither option of version 2's, nor version 2
        // the option of version 3's: read each only under a version that
        // declares it.
        let second = r.version != FIRST_VERSION;
        let third = second && r.version != SECOND_VERSION;
        Ok(Config {
            detached_units_stay_the_target: third && !r.flag("detached-units-leave-the-target"),
            recount_only_the_interrupts_change: second && !r.flag("interrupt-recount-counts-every-change"),
            take_cover_away_from_every_enemy: second && !r.flag("take-cover-away-from-interrupters-only"),
            organisation_orders_checked: second,
            superior_only_when_the_leader_has_no_cp: second,
            command_check_equal_passes: r.flag("command-check-equal-passes"),
            initiative_tie_roll_off: r.flag("initiative-tie-roll-off"),
            strict_majority: r.flag("strict-majority"),
            stray_fire: r.flag("stray-fire"),
            no_check_on_entering_los: r.flag("no-check-on-entering-los"),
            take_cover_tenths: u64::from(count("take-cover-tenths")?),
            forced_rally_check_modifier: r.int("forced-rally-check-modifier"),
            morale_cp: count("morale-cp")?,
            melee_escape_bonus: r.int("melee-escape-bonus"),
            explosive_deviation_tenths: u64::from(count("explosive-deviation-tenths")?),
            double_time_bars_fire_for_the_turn: r.flag("double-time-bars-fire-for-the-turn"),
            initiative_recount_on_any_change: r.flag("initiative-recount-on-any-change"),
            one_shot_weapons_after_an_advance: r.flag("one-shot-weapons-after-an-advance"),
            disciplined_fire_after_an_advance: r.flag("disciplined-fire-after-an-advance"),
            restored_unit_stays_bold_for_the_turn: r.flag("restored-unit-stays-bold-for-the-turn"),
            consolidate_whole_organisation: r.flag("consolidate-whole-organisation"),
            hero_without_unit_morale: r.flag("hero-without-unit-morale"),
            melee_escape_without_moving: r.flag("melee-escape-without-moving"),
            double_time_multiplier: u64::from(count("double-time-multiplier")?),
            disciplined_extra_shots: count("disciplined-extra-shots")?,
            ragged_fire_modifier: r.int("ragged-fire-modifier"),
            shaken_check_modifier: r.int("shaken-check-modifier"),
            accumulate_cp: count("accumulate-cp")?,
            brevet_rating_loss: r.int("brevet-rating-loss"),
            brevet_minimum_rating: r.int("brevet-minimum-rating"),
            take_command_cp: count("take-command-cp")?,
            consolidation_cp_per_sub_unit: count("consolidation-cp-per-sub-unit")?,
            detachment_cp_per_unit: count("detachment-cp-per-unit")?,
            reorganisation_cp_per_sub_unit: count("reorganisation-cp-per-sub-unit")?,
            standard_move_tenths: u64::from(count("standard-move-tenths")?),
        })
    }
}

const VERSION_SUMMARY: &str = "Phoenix Command Basic Miniatures v.001 as written, with the defaults of its open points P1-P12 and N1 onward (docs/book/src/reference/open-points.md#phoenix-command).";

const SECOND_SUMMARY: &str = "The second reading, kept so that its records verify: a blown ambush fires only on the figures still in the unit that spent the CP, not on the units it detached on that CP, and an ambush whose nervous figures could reach only those is not blown (N59 in docs/book/src/reference/open-points.md#phoenix-command).";

const FIRST_SUMMARY: &str = "The first reading, kept so that its records verify: an interrupt's initiative recount counts every change since the last count, taking cover keeps away from the interrupting unit only, organisation orders spend CP in an ambusher's line of sight without command checks, and a superior officer rallies a unit whose leader still has CP (N58, N23, N19, N27 in docs/book/src/reference/open-points.md#phoenix-command).";

/// The version every record made before version 2 names.
const FIRST_VERSION: &str = "phoenix-command@1";

/// The version every record made between version 2 and version 3 names.
const SECOND_VERSION: &str = "phoenix-command@2";

/// `phoenix-command@3` (the default), then `phoenix-command@2` and
/// `phoenix-command@1`: every option and constant.
pub fn versions() -> Vec<VersionSpec> {
    vec![
        VersionSpec {
            ruleset: "phoenix-command",
            version: "3",
            summary: VERSION_SUMMARY,
            settings: [options(), second_options(), third_options(), command_constants(), table_constants()].concat(),
        },
        VersionSpec {
            ruleset: "phoenix-command",
            version: "2",
            summary: SECOND_SUMMARY,
            settings: [options(), second_options(), command_constants(), table_constants()].concat(),
        },
        VersionSpec {
            ruleset: "phoenix-command",
            version: "1",
            summary: FIRST_SUMMARY,
            settings: [options(), command_constants(), table_constants()].concat(),
        },
    ]
}

/// The options version 2 adds: each keeps version 1's reading of a
/// sentence it reads otherwise.
fn second_options() -> Vec<Setting> {
    vec![
        Setting::option(
            "interrupt-recount-counts-every-change",
            "N58",
            "\"The Side which has the most active combatants has initiative until the turn ends, or an interrupt causes a change in initiative.\" — \"if sufficient casualties are inflicted, it may also cause the enemy side to lose initiative\"",
            "After an interrupt, the side with more active combatants takes the initiative whatever made the difference since the last count (casualties of ordinary fire, stragglers, the referee's casualties), as version 1 did. By default it changes hands only if the interrupt's fire gave the other side more: an interrupt that changes no count changes no initiative.",
        ),
        Setting::option(
            "take-cover-away-from-interrupters-only",
            "N23",
            "\"Each figure can move up to 3\" towards the nearest cover, but they cannot advance towards an enemy to do so.\"",
            "A figure taking cover may not come nearer any figure of the unit that interrupted it, and may come nearer other enemies, as version 1 read it. By default it may come nearer no enemy figure in play.",
        ),
    ]
}

/// The option version 3 adds: it keeps versions 1 and 2's reading of the
/// sentence it reads otherwise.
fn third_options() -> Vec<Setting> {
    vec![Setting::option(
        "detached-units-leave-the-target",
        "N59",
        "\"A failed roll means that the figures that failed perform ragged fire on the target before the target begins its action.\" — \"This weapons fire is resolved before Jason's unit begins performing their actions on the current CP.\" — against 2.2: \"A consolidated unit can detach units. Doing so costs 1 CP per unit detached.\"",
        "A unit detached on the CP whose command checks blew the ambush has left the target by the time the nervous figures fire: they fire only on the figures still in the unit that spent the CP, and an ambush whose nervous figures could reach only the detached figures is not blown, as versions 1 and 2 read it. By default the target is the unit as it stood when it spent the CP: the nervous figures (and the ambushers who join them) may fire on the detached units' figures too, and must before anything else.",
    )]
}

/// The options: each an open point of the text, with its sentence.
fn options() -> Vec<Setting> {
    vec![
        Setting::option(
            "command-check-equal-passes",
            "P1",
            "\"The command check is performed by making a 0-9 roll and trying to get under the sum of the figure's Troop Quality and the leader's Command Rating.\" — the example: \"Both rolls were below the Command Check Target 5\".",
            "A command check also passes when the roll equals the Command Check Target (roll <= target); by default it must be under it (roll < target).",
        ),
        Setting::option(
            "initiative-tie-roll-off",
            "P4",
            "\"The Side which has the most active combatants has initiative until the turn ends, or an interrupt causes a change in initiative.\"",
            "At the initiative count, a tie is rolled off (each side a d10 labelled initiative:<side>, higher wins, ties rolled again) instead of the side that held initiative keeping it.",
        ),
        Setting::option(
            "strict-majority",
            "P3",
            "\"If the majority (rounded up) of figures in a unit are Shaken, then the Unit becomes Shaken\" — and the forced rally's \"If the majority of his unit (rounded up) passes\".",
            "A majority is more than half (3 of 4); by default it is half rounded up (2 of 4).",
        ),
        Setting::option(
            "stray-fire",
            "P11",
            "\"Optional Stray Fire Rule: Where a shooter is firing at a target, and the shooter's Odds of Hitting are less than zero (0), have the shooter roll 0-9. Take the difference between the shooter's 0-9 roll, and the odds of hitting, and subtract this from the hit location and injury roll.\"",
            "Play the optional stray fire rule: a shot at odds below 0 strikes, its hit location and injury roll reduced by (its 0-9 roll - the odds). Off by default: such a shot misses.",
        ),
        Setting::option(
            "no-check-on-entering-los",
            "P7",
            "\"Each CP the target spends after entering the ambusher's LOS requires a Command Check\" — the example also checks \"as soon as Jason's unit enters Alex's team's line of sight\".",
            "No command checks when the target enters the ambushers' line of sight; only before each CP it spends after.",
        ),
        Setting::option(
            "double-time-bars-fire-for-the-turn",
            "N15",
            "\"Units which have performed strategic movement in the turn or units which have used the Double-time advance in their action are not eligible to fire.\" — yet in the 2.4 example the fireteam double-times on its second CP and fires on its third.",
            "A figure that double-time advanced may not fire for the rest of the turn. By default (following the 2.4 example) he only may not fire in the same action, which one action per CP already ensures.",
        ),
        Setting::option(
            "initiative-recount-on-any-change",
            "N40",
            "\"The Side which has the most active combatants has initiative until the turn ends, or an interrupt causes a change in initiative.\" — and the 2.5 example: \"Alex calls to check initiative and both sides quickly count their active combatants\" after the ambush.",
            "Initiative is recounted whenever the number of active combatants changes during operations (ordinary fire, stragglers, a referee's casualty). By default it is recounted only when an interrupt has been resolved.",
        ),
        Setting::option(
            "one-shot-weapons-after-an-advance",
            "N42",
            "\"Note that a weapon listed as having 1 Shot/Action or 1 Use takes the shooter his entire action to aim and fire. A Shooter, even if willing, cannot use the 2 shot or 3 shot lines on the Odds of Hitting Tables with these weapons.\"",
            "A 1 Shot/Action or 1 Use weapon may be fired after a standard move in the same action (\"his entire action\" read as explaining the single shot). By default aiming and firing it is the whole action: no advance before it.",
        ),
        Setting::option(
            "consolidate-whole-organisation",
            "N46",
            "\"To consolidate sub-units into a larger unit or organization, all sub-units to be consolidated must be within the Organization Leader's Command Radius. Consolidation requires 1 CP per sub-unit to be consolidated.\" — against \"so the entire larger organization acts at the same time\".",
            "A consolidation takes every sub-unit of the organisation with figures in play. By default the leader names the sub-units to be consolidated (all of them if he names none), and the others stay units of their own until they join.",
        ),
        Setting::option(
            "disciplined-fire-after-an-advance",
            "N47",
            "\"one figure in a unit could be performing a double-time advance, at the same time as another is performing disciplined fire, while others in the unit are advancing and firing\" — disciplined fire and advancing and firing listed as different actions.",
            "Disciplined fire (and its extra shot) may follow a standard move in the same action. By default a figure who advances and fires fires aimed (or ragged); disciplined fire is an action of its own, from where he stands.",
        ),
        Setting::option(
            "hero-without-unit-morale",
            "N48",
            "\"Heroes accumulate CP and perform actions in the same way as other, larger units.\" — \"the heroes have no special abilities and act in the same way as other, larger units with the sole exception of being immune to command distance requirements\" — against \"The morale of figures in a unit can have a ripple effect on others in the same unit.\"",
            "Unit morale effects do not apply to a hero: his morale is his unit's, and composing himself is all a Shaken or Panicked hero must do. By default a hero is a unit of one like any other: Shaken (or Panicked), his unit is Shaken (or Broken), and he restores it after composing himself.",
        ),
        Setting::option(
            "melee-escape-without-moving",
            "N50",
            "\"If the target instead wishes to escape, there is an additional +5 to the attacker's Melee Attack Value. If the target survives this attack, the target can then perform actions normally.\" — against 2.4: \"Units can only perform actions by expending accumulated CP.\"",
            "A target who escapes a melee and survives moves only with his own unit's CP (\"can then perform actions normally\"). By default he gets away at once, a standard move at most.",
        ),
        Setting::option(
            "restored-unit-stays-bold-for-the-turn",
            "N52",
            "\"the leader must expend a CP to restore the Unit Morale to Bold for the turn\" — against \"If the majority (rounded up) of figures in a unit are Shaken, then the Unit becomes Shaken\" and \"If an ambusher's actions are sufficient to cause the morale of the unit to become Shaken, then the interrupt is successful\".",
            "A unit restored to Bold stays Bold for the rest of the turn whatever befalls its figures; only a new Panicked majority breaks it. By default the restoring answers the figures Shaken at that moment, and a figure who is Shaken or Panicked since makes the unit Shaken again when most of its figures are.",
        ),
    ]
}

/// The constants of command and control: CP costs, ratings, checks.
fn command_constants() -> Vec<Setting> {
    vec![
        Setting::constant(
            "shaken-check-modifier",
            -2,
            "\"Shaken troops suffer a penalty of –2 to their Command Check Target.\"",
            "Added to a Shaken figure's Command Check Target (P2: it changes the target, not the roll).",
        )
        .range(-20, 20),
        Setting::constant(
            "accumulate-cp",
            1,
            "\"Accumulate another CP\"",
            "CP an activated unit gains when it accumulates (never above its leader's Command Rating).",
        )
        .range(0, 20),
        Setting::constant(
            "brevet-rating-loss",
            1,
            "\"The new leader has a Command Rating one less than his predecessor.\"",
            "How much lower a breveted leader's Command Rating is than his predecessor's.",
        )
        .range(0, 20),
        Setting::constant(
            "brevet-minimum-rating",
            1,
            "\"If the new leader's command rating is less than 1, then the unit cannot brevet a new leader and breaks.\"",
            "The lowest Command Rating a breveted leader may have; below it the unit breaks.",
        )
        .range(0, 20),
        Setting::constant(
            "take-command-cp",
            1,
            "\"The new leader must accumulate and spend 1 CP to take command of the unit. In the advanced rules, a nation's command and control doctrine can raise or lower this CP cost\"",
            "CP a breveted leader spends to take command of his unit.",
        )
        .range(0, 20),
        Setting::constant(
            "consolidation-cp-per-sub-unit",
            1,
            "\"Consolidation requires 1 CP per sub-unit to be consolidated.\"",
            "CP the organisation leader spends per sub-unit consolidated.",
        )
        .range(0, 20),
        Setting::constant(
            "detachment-cp-per-unit",
            1,
            "\"A consolidated unit can detach units. Doing so costs 1 CP per unit detached.\"",
            "CP a consolidated unit spends per unit it detaches.",
        )
        .range(0, 20),
        Setting::constant(
            "reorganisation-cp-per-sub-unit",
            2,
            "\"Reorganization requires the expenditures of 2 CP for each sub-unit affected.\"",
            "CP the reorganising leader spends per sub-unit (fire team) the reorganisation leaves.",
        )
        .range(0, 20),
    ]
}

/// The constants of movement, fire and melee.
fn table_constants() -> Vec<Setting> {
    vec![
        Setting::constant(
            "double-time-multiplier",
            2,
            "\"a double-time advance for the entire unit, which allows each figure in the unit to move twice the figure's standard move\"",
            "How many standard moves a double-time advance (and a panicked figure's flight) covers.",
        )
        .range(1, 10),
        Setting::constant(
            "disciplined-extra-shots",
            1,
            "\"According to the rules for disciplined fire, a figure may take an additional shot without modification to their odds of hitting.\"",
            "Extra shots disciplined fire gives, at the line's odds (none with 1 Shot/Action or 1 Use weapons).",
        )
        .range(0, 20),
        Setting::constant(
            "ragged-fire-modifier",
            -2,
            "\"This means he fires at the maximum rate of fire for his weapon, in this case three shots and all are performed at a –2 penalty.\"",
            "Added to the Odds of Hitting of every ragged fire shot.",
        )
        .range(-20, 20),
        Setting::constant(
            "take-cover-tenths",
            30,
            "\"Each figure can move up to 3\" towards the nearest cover, but they cannot advance towards an enemy to do so.\"",
            "How far a figure may move when its unit takes cover, in tenths of an inch.",
        )
        .range(0, 10_000),
        Setting::constant(
            "forced-rally-check-modifier",
            2,
            "\"The leader performing the forced rally then performs a command check at +2 on each figure in his unit.\"",
            "Added to the Command Check Target of each figure after a forced rally (P2: the target).",
        )
        .range(-20, 20),
        Setting::constant(
            "morale-cp",
            1,
            "\"a leader must first spend 1 accumulated CP to rally all shaken figures\"; \"the leader must expend 1 CP composing himself\"; \"the leader must expend a CP to restore the Unit Morale\"; \"by the unit's leader expending 1 CP for each panicked figure\"; \"the unit's leader expends a CP and removes one of the Shaken troops\".",
            "CP each morale order costs: rally, self-rally, restoring or steadying the unit, rallying one panicked figure, a forced rally.",
        )
        .range(0, 20),
        Setting::constant(
            "melee-escape-bonus",
            5,
            "\"If the target instead wishes to escape, there is an additional +5 to the attacker's Melee Attack Value.\"",
            "Added to the attacker's Melee Attack Value when the target tries to escape.",
        )
        .range(-20, 20),
        Setting::constant(
            "explosive-deviation-tenths",
            40,
            "\"The explosive warhead detonates 4\" away from the target in the direction of deviation.\"",
            "How far a missed explosive deviates, in tenths of an inch.",
        )
        .range(0, 10_000),
        Setting::constant(
            "standard-move-tenths",
            60,
            "\"Jason moves the five figures of the fireteam twice their standard move of 6\"\"",
            "A figure's standard move, in tenths of an inch: the furthest a move action may take it, unless the scenario gives the figure his own (standard_move_tenths).",
        )
        .range(0, 10_000),
    ]
}
