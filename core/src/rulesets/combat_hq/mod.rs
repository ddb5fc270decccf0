//! `combat-hq`: the command layer of Jim Bambra's Combat HQ — Command Dice,
//! Dice Chains, Command Pulses, Staff Orders and reserves — in two rule
//! versions over one code base (`docs/rules/battle-group-command-dice.txt`, and
//! the Combat HQ section of `docs/rules/INTERPRETATIONS.md`, C1–C5).
//!
//! - `combat-hq@base` (the default): each side has one battle group, which
//!   rolls every Command Die every turn; on a Command Failure (more 1s than
//!   6s) the 1s go to the opponent as Wild Dice.
//! - `combat-hq@multi-bg`: the rule change of the text. A CO commands one or
//!   more battle groups; each Reserve Command Group holds back one Command
//!   Die until it enters; a battle group with nothing but artillery on the
//!   table does not roll; a Command Failure gives the failing group's 1s to
//!   the enemy CO as Staff Orders and holds its reserves back unless the CO
//!   pays 2 Staff Orders per Reserve Command Group.
//!
//! Every place where the versions differ is a method of [`Version`], quoting
//! the sentence that makes the difference; the rules are in [`decide`], the
//! narrative and the rendered state in [`text`]. Positions are in tenths of
//! an inch, so "within 6\"" is an exact integer test (60 tenths).

mod decide;
mod moves;
mod refusals;
mod sides;
#[cfg(test)]
mod tests;
mod text;

pub use refusals::Refused;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::bounds::Bound;
use crate::dice::Dice;
use crate::geometry::Point;
use crate::rules::{RuleVersion, Setting, VersionSpec};
use crate::ruleset::{Ruleset, ScenarioError, Violation};

/// The ruleset.
pub struct CombatHq;

/// Which of the two rule versions a game is played under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Version {
    /// `combat-hq@base`: the single-battle-group game.
    Base,
    /// `combat-hq@multi-bg`: the multiple-battle-group rule change.
    MultiBg,
}

/// What a Command Failure does to the failing battle group's 1s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnCommandFailure {
    /// They go to the opponent as Wild Dice, to join his chains this turn.
    WildDiceToOpponent,
    /// They go to the enemy CO as Staff Orders, and the failing group's
    /// reserves are held back unless the CO pays for each of them.
    StaffOrdersToEnemyCo,
}

/// The rule change, in small named places. Each method is one difference
/// between the versions and quotes the sentence that makes it.
impl Version {
    /// The version part of `combat-hq@<version>`.
    pub fn name(self) -> &'static str {
        match self {
            Version::Base => "base",
            Version::MultiBg => "multi-bg",
        }
    }

    fn of(rules: &RuleVersion) -> Option<Version> {
        match rules.version.split_once('@') {
            Some((_, "base")) => Some(Version::Base),
            Some((_, "multi-bg")) => Some(Version::MultiBg),
            _ => None,
        }
    }

    /// How many battle groups a side may have, if limited.
    ///
    /// Base: no text says it in so many words. The excerpt is the rule
    /// change for a CO with several battle groups ("Game Set-Up for Multiple
    /// Battle Groups – Rule Change"), so the game without the change is, as
    /// C5 reads it, "the single-battle-group game (all dice active from turn
    /// 1)": this project's reading is one battle group a side.
    /// Multi-bg: "He may have Command Groups from any or all of battle groups
    /// present on the table, or may decide to just have Command Groups from a
    /// single battle group on on the table."
    pub fn battle_groups_per_side(self) -> Option<usize> {
        match self {
            Version::Base => Some(1),
            Version::MultiBg => None,
        }
    }

    /// How many of a battle group's Command Dice its reserves hold back.
    ///
    /// Multi-bg: "Each Reserve Command Group is allocated one Command Dice."
    /// and "After Command Dice have been allocated to Reserve Command Groups,
    /// any remaining Command Dice are used to form the battle group's Active
    /// Dice Pool." — one die per reserve group (C1: command groups, not
    /// battle groups), artillery included (C2), never more than there are
    /// dice (C4: the pool floors at 0; surplus groups hold no die).
    /// Base: every Command Die is rolled every turn (C5): reserves hold none.
    pub fn dice_held_by_reserves(self, reserve_groups: u32, command_dice: u32) -> u32 {
        match self {
            Version::Base => 0,
            Version::MultiBg => reserve_groups.min(command_dice),
        }
    }

    /// Whether a battle group rolls while all its units other than artillery
    /// are in reserve.
    ///
    /// Multi-bg: "If all of its units (excluding artillery) are held in
    /// Reserve, it doesn't roll any Command Dice." (C3: the pool exists, but
    /// is not rolled.) Base: every Command Die is rolled every turn (C5).
    pub fn rolls_while_all_in_reserve(self) -> bool {
        match self {
            Version::Base => true,
            Version::MultiBg => false,
        }
    }

    /// What a Command Failure (more 1s than 6s) does with the 1s.
    ///
    /// Base: "the 1s go to the opponent as Wild Dice". Multi-bg: "the failing
    /// group's 1s go to the enemy CO as Staff Orders, and the failure stops
    /// that group's reserves from entering unless the CO pays 2 Staff Orders
    /// per Reserve Command Group." (INTERPRETATIONS.md, Combat HQ context.)
    pub fn on_command_failure(self) -> OnCommandFailure {
        match self {
            Version::Base => OnCommandFailure::WildDiceToOpponent,
            Version::MultiBg => OnCommandFailure::StaffOrdersToEnemyCo,
        }
    }
}

/// What a command group is: a company, a support group, or artillery (a
/// support group marked as such: it takes a reserve die but does not count
/// as deployed, C2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GroupKind {
    Company,
    Support,
    Artillery,
}

impl GroupKind {
    pub fn name(self) -> &'static str {
        match self {
            GroupKind::Company => "company",
            GroupKind::Support => "support group",
            GroupKind::Artillery => "artillery",
        }
    }
}

/// Where a command group starts: "The CO may decide which units to have on
/// the table and which ones to hold in Reserve."
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Start {
    Table,
    Reserve,
}

/// A unit as the scenario gives it. Positions are in tenths of an inch.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnitSetup {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    /// `[x, y]` in tenths of an inch. For a unit in reserve: where it will
    /// come on (the engine only measures units on the table).
    pub at_tenths: Point,
}

/// A company or support group as the scenario gives it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommandGroupSetup {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    pub kind: GroupKind,
    pub start: Start,
    /// The unit the group's other units activate around (one of `units`).
    pub command_unit: String,
    pub units: Vec<UnitSetup>,
}

/// A battle group as the scenario gives it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BattleGroupSetup {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    pub command_dice: u32,
    /// Initial Staff Orders (scenario data: no text gives the number).
    pub staff_orders: u32,
    pub morale_points: u32,
    pub command_groups: Vec<CommandGroupSetup>,
}

/// The ranges of the scenario's counts (every other number: ±10⁹).
pub const SCENARIO_BOUNDS: &[Bound] = &[
    Bound::new("sides[].battle_groups[].command_dice", 0, 100),
    Bound::new("sides[].battle_groups[].staff_orders", 0, 1000),
    Bound::new("sides[].battle_groups[].morale_points", 0, 1000),
];

/// A side's Commanding Officer.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoSetup {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// A side: its CO and its battle groups.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SideSetup {
    pub id: String,
    pub co: CoSetup,
    pub battle_groups: Vec<BattleGroupSetup>,
}

/// Two sides. Every id (side, CO, battle group, command group, unit) is
/// unique in the scenario. Positions are in tenths of an inch.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub sides: Vec<SideSetup>,
}

/// A side in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Side {
    pub id: String,
    pub co: String,
    pub co_name: Option<String>,
    pub battle_groups: Vec<String>,
    /// Staff Orders the CO holds of his own: the 1s of an enemy Command
    /// Failure under `combat-hq@multi-bg`. Not a battle group's pool, so not
    /// under a battle group's cap.
    pub co_staff_orders: u32,
}

/// A battle group in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BattleGroup {
    pub id: String,
    pub name: Option<String>,
    pub side: String,
    pub command_dice: u32,
    pub morale_points: u32,
    /// Staff Orders usable now.
    pub staff_orders: u32,
    /// Staff Orders restocked this turn, usable from the next.
    pub staff_orders_next_turn: u32,
    /// Command Dice its Reserve Command Groups hold (always 0 under base).
    pub dice_held_by_reserves: u32,
    /// The Active Dice Pool of the current turn (as allocated before the
    /// first turn): dice released by a group entering join it next turn.
    pub active_pool: u32,
    pub command_groups: Vec<String>,
}

/// A company or support group in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommandGroup {
    pub id: String,
    pub name: Option<String>,
    pub battle_group: String,
    pub kind: GroupKind,
    pub command_unit: String,
    pub units: Vec<String>,
    pub in_reserve: bool,
}

/// A unit in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Unit {
    pub id: String,
    pub name: Option<String>,
    pub command_group: String,
    pub at_tenths: Point,
}

/// A turn in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Turn {
    pub number: u32,
    /// The side whose CO rolled first.
    pub first: String,
    /// The side whose Command Pulse it is; none when no pulse is left.
    pub pulse: Option<String>,
    /// The turn has been ended: the next may begin.
    pub ended: bool,
    /// Each battle group's rolled dice not yet played (1s never: they are
    /// discarded or given away when rolled), highest first.
    pub dice: BTreeMap<String, Vec<u32>>,
    /// Wild Dice each side received this turn and has not played (base).
    pub wild_dice: BTreeMap<String, u32>,
    /// Battle groups whose reserves a Command Failure holds back (multi-bg),
    /// with the Staff Orders each Reserve Command Group costs to enter.
    pub reserves_held_back: BTreeMap<String, u32>,
}

/// The settings of a rule version, typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Config {
    pub version: Version,
    pub activation_range_tenths: u64,
    pub units_per_activation: usize,
    pub reserve_entry_staff_orders: u32,
    /// Multi-bg only: the cost per Reserve Command Group after a Command Failure.
    pub reserve_entry_staff_orders_after_failure: Option<u32>,
    /// Multi-bg only, the option `artillery-waits-for-a-command-group` (CN9):
    /// the example's "Its artillery is held in reserve until one command
    /// group enters the table." read as a rule for every battle group.
    pub artillery_waits_for_a_command_group: bool,
}

impl Config {
    fn from_rules(r: &RuleVersion) -> Result<Config, ScenarioError> {
        let version = Version::of(r)
            .ok_or_else(|| ScenarioError::new("rules", format!("{} is not a combat-hq version", r.version)))?;
        let non_negative = |name: &str| {
            u64::try_from(r.int(name))
                .map_err(|_| ScenarioError::new(format!("rules.constants.{name}"), "must not be negative"))
        };
        let small = |name: &str| {
            non_negative(name).and_then(|v| {
                u32::try_from(v).map_err(|_| ScenarioError::new(format!("rules.constants.{name}"), "is too large"))
            })
        };
        Ok(Config {
            version,
            activation_range_tenths: non_negative("activation-range-tenths")?,
            units_per_activation: usize::try_from(small("units-per-activation")?).unwrap_or(usize::MAX),
            reserve_entry_staff_orders: small("reserve-entry-staff-orders")?,
            reserve_entry_staff_orders_after_failure: match version {
                Version::Base => None,
                Version::MultiBg => Some(small("reserve-entry-staff-orders-after-failure")?),
            },
            artillery_waits_for_a_command_group: version == Version::MultiBg
                && r.flag("artillery-waits-for-a-command-group"),
        })
    }
}

/// The game so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub config: Config,
    /// The two sides, in scenario order.
    pub sides: Vec<Side>,
    pub battle_groups: BTreeMap<String, BattleGroup>,
    pub command_groups: BTreeMap<String, CommandGroup>,
    pub units: BTreeMap<String, Unit>,
    /// The current turn; none before the first `begin-turn`.
    pub turn: Option<Turn>,
}

/// What one die of a chain does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "do", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Order {
    /// Activates a command group on the table: its command unit and the
    /// named units (at most 3, each within 6" of the command unit).
    Activate {
        command_group: String,
        #[serde(default)]
        units: Vec<String>,
    },
    /// Spends the die to bring a Reserve Command Group onto the table.
    Enter { command_group: String },
}

crate::untagged::tagged_enum! {
    "Decision";
    /// What a CO or the referee asks.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Decision {
        /// Starts a turn: every battle group rolls its Active Dice Pool, the
        /// COs alternating, `first` rolling first; then the first Command Pulse
        /// is settled.
        BeginTurn { first: String },
        /// The side whose Command Pulse it is plays one Dice Chain of one battle
        /// group: every die it has left showing `number`, plus `sixes` wild 6s
        /// and `wild_dice` Wild Dice; `orders` says what each die does (dice
        /// left without an order are spent doing nothing).
        Pulse {
            battle_group: String,
            number: u32,
            #[serde(default)]
            sixes: u32,
            #[serde(default)]
            wild_dice: u32,
            #[serde(default)]
            orders: Vec<Order>,
        },
        /// The CO brings a Reserve Command Group on by Staff Orders, paid from
        /// `staff_orders_from` (a battle group of his side, or the CO's own id
        /// for the Staff Orders he holds himself); by default from the group's
        /// own battle group.
        EnterReserve {
            command_group: String,
            #[serde(default)]
            staff_orders_from: Option<String>,
        },
        /// The turn is over: dice not played are lost.
        EndTurn {},
        /// Referee: a unit on the table moves (tenths of an inch).
        Move { unit: String, to_tenths: Point },
    }
}

/// Why a battle group did not roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NoRoll {
    /// All its units other than artillery are in reserve (multi-bg).
    AllInReserve,
    /// Its Active Dice Pool is empty: its reserves hold every die (C4).
    EmptyPool,
}

/// How the first Command Pulse of a turn was settled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "by", rename_all = "kebab-case", deny_unknown_fields)]
pub enum FirstPulseBy {
    /// Most dice showing `face`, the highest face on which the sides differ.
    MostDice { face: u32, counts: BTreeMap<String, u32> },
    /// Only one side has dice to chain.
    OnlySideWithDice,
    /// The sides rolled alike: a D6 each, again until they differ.
    RollOff { rolls: Vec<BTreeMap<String, u32>> },
    /// No side has dice to chain: there are no pulses this turn.
    NoDice,
}

/// How a Reserve Command Group paid to enter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "with", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Payment {
    /// Staff Orders from a battle group's pool or the CO's own; `left` is
    /// what that pool holds afterwards.
    StaffOrders { count: u32, from: String, left: u32 },
    /// One die of a chain of `chain`s.
    Die { chain: u32 },
}

/// A unit activated with its command unit, and how far from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UnitInRange {
    pub unit: String,
    pub distance_tenths: u64,
}

crate::untagged::tagged_enum! {
    "Fact";
    /// What happened.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Fact {
        /// A turn began; Staff Orders restocked last turn became usable
        /// (`released`), leaving each battle group with `staff_orders`.
        TurnBegan {
            turn: u32,
            first: String,
            released: BTreeMap<String, u32>,
            staff_orders: BTreeMap<String, u32>,
        },
        /// A battle group rolled its Active Dice Pool. `kept` are the dice it
        /// may chain (everything but the 1s, highest first).
        CommandDiceRolled {
            battle_group: String,
            side: String,
            active_pool: u32,
            held_by_reserves: u32,
            dice: Vec<u32>,
            ones: u32,
            sixes: u32,
            command_failure: bool,
            kept: Vec<u32>,
        },
        CommandDiceNotRolled {
            battle_group: String,
            side: String,
            active_pool: u32,
            held_by_reserves: u32,
            reason: NoRoll,
        },
        /// Base: a Command Failure's 1s go to the opponent as Wild Dice; `total`
        /// is what the receiving side now holds this turn.
        WildDiceGiven {
            from_battle_group: String,
            to_side: String,
            wild_dice: u32,
            total: u32,
        },
        /// Multi-bg: a Command Failure's 1s go to the enemy CO as Staff Orders;
        /// `total` is what that CO now holds of his own.
        StaffOrdersCaptured {
            from_battle_group: String,
            to_side: String,
            co: String,
            staff_orders: u32,
            total: u32,
        },
        /// Multi-bg: after a Command Failure the group's reserves enter this
        /// turn only if the CO pays `staff_orders_per_group` for each.
        ReservesHeldBack {
            battle_group: String,
            reserve_groups: Vec<String>,
            staff_orders_per_group: u32,
        },
        /// Who has the first Command Pulse (none: no pulses this turn).
        FirstPulse {
            side: Option<String>,
            decided: FirstPulseBy,
        },
        /// A Dice Chain is played: `dice` are the battle group's dice in it
        /// (wild 6s included), `wild_dice` the Wild Dice that joined it.
        ChainPlayed {
            side: String,
            battle_group: String,
            number: u32,
            dice: Vec<u32>,
            wild_dice: u32,
            dice_left: Vec<u32>,
            wild_dice_left: u32,
        },
        CommandGroupActivated {
            battle_group: String,
            command_group: String,
            command_unit: String,
            units: Vec<UnitInRange>,
            range_tenths: u64,
        },
        /// A Reserve Command Group entered the table. `held_by_reserves` is what
        /// its battle group's reserves hold afterwards; `die_released` says
        /// whether its die joins the Active Dice Pool, which from the next turn
        /// is `pool_from_next_turn`.
        ReserveEntered {
            battle_group: String,
            command_group: String,
            paid: Payment,
            die_released: bool,
            held_by_reserves: u32,
            pool_from_next_turn: u32,
        },
        /// A chain of `chain_dice` earned `earned` Staff Orders, of which
        /// `restocked` fit under the cap; usable `at_once` (a chain of 6s) or
        /// from the next turn. The pools afterwards are given.
        StaffOrdersRestocked {
            battle_group: String,
            chain_dice: u32,
            earned: u32,
            restocked: u32,
            at_once: bool,
            cap: u32,
            staff_orders: u32,
            staff_orders_next_turn: u32,
        },
        /// The pulse is over; `unused_dice` of its chain did nothing.
        PulseEnded {
            side: String,
            unused_dice: u32,
            next: Option<String>,
        },
        /// The turn ended; dice and Wild Dice not played are lost.
        TurnEnded {
            turn: u32,
            unplayed: BTreeMap<String, Vec<u32>>,
            wild_dice_lost: BTreeMap<String, u32>,
        },
        UnitMoved {
            unit: String,
            from_tenths: Point,
            to_tenths: Point,
        },
    }
}

const SETTLES_RANGE: &str = "\"each die activates one command group (a command unit and up to 3 units within 6\")\" (INTERPRETATIONS.md, Combat HQ context)";

fn common_settings() -> Vec<Setting> {
    vec![
        Setting::constant(
            "activation-range-tenths",
            60,
            SETTLES_RANGE,
            "How far (tenths of an inch, inclusive) a unit may be from its command unit to activate with it.",
        )
        .range(0, 10_000),
        Setting::constant(
            "units-per-activation",
            3,
            SETTLES_RANGE,
            "How many units besides the command unit one die activates.",
        )
        .range(0, 100),
        Setting::constant(
            "reserve-entry-staff-orders",
            1,
            "\"a single Reserve Command Group enters by a CO Staff Order or by spending one die of the Active Dice Pool\" (INTERPRETATIONS.md, Combat HQ context)",
            "Staff Orders a Reserve Command Group costs to enter.",
        )
        .range(0, 100),
    ]
}

const BASE_SUMMARY: &str = "The single-battle-group game: each side has one battle group, which rolls every Command Die every turn; on a Command Failure the 1s go to the opponent as Wild Dice. Open points: docs/book/src/reference/open-points.md#combat-hq.";
const MULTI_BG_SUMMARY: &str = "The multiple-battle-group rule change: each Reserve Command Group holds one Command Die until it enters; a battle group with only artillery on the table does not roll; a Command Failure gives the failing group's 1s to the enemy CO as Staff Orders and holds its reserves back unless the CO pays 2 Staff Orders each. Open points: docs/book/src/reference/open-points.md#combat-hq.";

/// `combat-hq@base` (the default) and `combat-hq@multi-bg`.
pub fn versions() -> Vec<VersionSpec> {
    let mut multi = common_settings();
    multi.push(Setting::option(
        "artillery-waits-for-a-command-group",
        "CN9",
        "\"For example, Max's German infantry battle group consist of 24 units with eight Command Dice.\" … \"Its artillery is held in reserve until one command group enters the table.\"",
        "Read the example's sentence on Max's artillery as a rule for every battle group: artillery starts on the table, or enters from reserve, only once another of its battle group's command groups is on the table. Off (the default), the sentence describes that one battle group: artillery deploys and enters like any command group, and a battle group with only artillery on the table does not roll (\"If all of its units (excluding artillery) are held in Reserve, it doesn't roll any Command Dice.\").",
    ));
    multi.push(Setting::constant(
        "reserve-entry-staff-orders-after-failure",
        2,
        "\"the failure stops that group's reserves from entering unless the CO pays 2 Staff Orders per Reserve Command Group\" (INTERPRETATIONS.md, Combat HQ context)",
        "Staff Orders a Reserve Command Group costs to enter in a turn its battle group had a Command Failure.",
    )
    .range(0, 100));
    vec![
        VersionSpec { ruleset: "combat-hq", version: "base", summary: BASE_SUMMARY, settings: common_settings() },
        VersionSpec { ruleset: "combat-hq", version: "multi-bg", summary: MULTI_BG_SUMMARY, settings: multi },
    ]
}

impl Ruleset for CombatHq {
    const ID: &'static str = "combat-hq";
    const TITLE: &'static str = "Combat HQ command dice: dice chains, Command Pulses, Staff Orders, reserves; base and multiple-battle-group versions";
    type Scenario = Scenario;
    type State = State;
    type Decision = Decision;
    type Fact = Fact;

    fn scenario_bounds() -> Vec<Bound> {
        SCENARIO_BOUNDS.to_vec()
    }

    fn versions() -> Vec<VersionSpec> {
        versions()
    }

    fn initial(scenario: Scenario, rules: &RuleVersion) -> Result<State, ScenarioError> {
        initial(scenario, rules)
    }

    fn decide(state: &State, decision: &Decision, dice: &mut Dice) -> Result<Vec<Fact>, Violation> {
        decide::decide(state, decision, dice)
    }

    fn evolve(state: &mut State, fact: &Fact) {
        evolve(state, fact)
    }

    fn narrate(fact: &Fact) -> String {
        text::narrate(fact)
    }

    fn render(state: &State) -> String {
        text::render(state)
    }

    fn turn(state: &State) -> u32 {
        state.turn.as_ref().map_or(0, |t| t.number)
    }

    fn sides(state: &State) -> Vec<String> {
        sides::sides(state)
    }

    fn awaited(state: &State) -> crate::ruleset::Actor {
        sides::awaited(state)
    }

    fn refusals() -> Vec<crate::refusal::RefusalKind> {
        Refused::kinds()
    }

    fn same_decided(a: &State, b: &State) -> bool {
        let State { config: _, sides, battle_groups, command_groups, units, turn } = a;
        (sides, battle_groups, command_groups, units, turn)
            == (&b.sides, &b.battle_groups, &b.command_groups, &b.units, &b.turn)
    }

    fn author(state: &State, decision: &Decision) -> crate::ruleset::Actor {
        sides::author(state, decision)
    }

    fn proposals(state: &State) -> Vec<crate::proposal::Proposal> {
        moves::proposals(state)
    }

    fn known(state: &State, facts: &[Fact]) -> crate::proposal::Known {
        moves::known(state, facts)
    }
}

/// The state before the first turn, with the Command Dice allocated.
fn initial(scenario: Scenario, rules: &RuleVersion) -> Result<State, ScenarioError> {
    let config = Config::from_rules(rules)?;
    let version = config.version;
    if scenario.sides.len() != 2 {
        return Err(ScenarioError::new("sides", format!("name exactly two sides, not {}", scenario.sides.len())));
    }
    let mut ids = Ids::default();
    let mut state = State {
        config,
        sides: Vec::new(),
        battle_groups: BTreeMap::new(),
        command_groups: BTreeMap::new(),
        units: BTreeMap::new(),
        turn: None,
    };
    for (si, side) in scenario.sides.iter().enumerate() {
        let sf = format!("sides[{si}]");
        ids.claim(&side.id, format!("{sf}.id"))?;
        ids.claim(&side.co.id, format!("{sf}.co.id"))?;
        if side.battle_groups.is_empty() {
            return Err(ScenarioError::new(format!("{sf}.battle_groups"), "a side has at least one battle group"));
        }
        if let Some(max) = version.battle_groups_per_side() {
            if side.battle_groups.len() > max {
                return Err(ScenarioError::new(
                    format!("{sf}.battle_groups"),
                    format!(
                        "combat-hq@{} is the single-battle-group game: each side has one battle group, not {} (combat-hq@multi-bg lets a CO command several)",
                        version.name(),
                        side.battle_groups.len()
                    ),
                ));
            }
        }
        for (bi, bg) in side.battle_groups.iter().enumerate() {
            add_battle_group(&mut state, &mut ids, &side.id, bg, &format!("{sf}.battle_groups[{bi}]"))?;
        }
        state.sides.push(Side {
            id: side.id.clone(),
            co: side.co.id.clone(),
            co_name: side.co.name.clone(),
            battle_groups: side.battle_groups.iter().map(|b| b.id.clone()).collect(),
            co_staff_orders: 0,
        });
    }
    Ok(state)
}

/// Every id of a scenario so far, with the field that gave it: ids are
/// unique across sides, COs, battle groups, command groups and units.
#[derive(Default)]
struct Ids(BTreeMap<String, String>);

impl Ids {
    fn claim(&mut self, id: &str, field: String) -> Result<(), ScenarioError> {
        if id.is_empty() {
            return Err(ScenarioError::new(field, "an id may not be empty"));
        }
        if let Some(first) = self.0.get(id) {
            return Err(ScenarioError::new(
                field,
                format!("{id:?} is already the id of {first}: every id in the scenario is different"),
            ));
        }
        self.0.insert(id.to_string(), field);
        Ok(())
    }
}

/// A battle group of the scenario (field `bf`), checked, with its command
/// groups and units, and its Command Dice allocated.
fn add_battle_group(
    state: &mut State,
    ids: &mut Ids,
    side: &str,
    bg: &BattleGroupSetup,
    bf: &str,
) -> Result<(), ScenarioError> {
    ids.claim(&bg.id, format!("{bf}.id"))?;
    if bg.command_dice == 0 {
        return Err(ScenarioError::new(format!("{bf}.command_dice"), "a battle group has at least one Command Die"));
    }
    // "Cap: one Staff Order per Command Die."
    if bg.staff_orders > bg.command_dice {
        return Err(ScenarioError::new(
            format!("{bf}.staff_orders"),
            format!(
                "{} Staff Orders is more than its {} Command Dice: a battle group never holds more Staff Orders than it has Command Dice",
                bg.staff_orders, bg.command_dice
            ),
        ));
    }
    if bg.command_groups.is_empty() {
        return Err(ScenarioError::new(
            format!("{bf}.command_groups"),
            "a battle group has at least one command group",
        ));
    }
    let mut group_ids = Vec::new();
    for (ci, cg) in bg.command_groups.iter().enumerate() {
        add_command_group(state, ids, &bg.id, cg, &format!("{bf}.command_groups[{ci}]"))?;
        group_ids.push(cg.id.clone());
    }
    // "Its artillery is held in reserve until one command group
    // enters the table.", read as a rule (multi-bg, CN9's option).
    if state.config.artillery_waits_for_a_command_group {
        let others_on_table =
            bg.command_groups.iter().any(|cg| cg.kind != GroupKind::Artillery && cg.start == Start::Table);
        if let Some(ci) =
            bg.command_groups.iter().position(|cg| cg.kind == GroupKind::Artillery && cg.start == Start::Table)
        {
            if !others_on_table {
                return Err(ScenarioError::new(
                    format!("{bf}.command_groups[{ci}].start"),
                    "\"Its artillery is held in reserve until one command group enters the table.\": artillery starts on the table only with another of its battle group's command groups",
                ));
            }
        }
    }
    let reserves = bg.command_groups.iter().filter(|cg| cg.start == Start::Reserve).count() as u32;
    let held = state.config.version.dice_held_by_reserves(reserves, bg.command_dice);
    state.battle_groups.insert(
        bg.id.clone(),
        BattleGroup {
            id: bg.id.clone(),
            name: bg.name.clone(),
            side: side.to_string(),
            command_dice: bg.command_dice,
            morale_points: bg.morale_points,
            staff_orders: bg.staff_orders,
            staff_orders_next_turn: 0,
            dice_held_by_reserves: held,
            active_pool: bg.command_dice - held,
            command_groups: group_ids,
        },
    );
    Ok(())
}

/// A command group of the scenario (field `cf`), checked, with its units.
fn add_command_group(
    state: &mut State,
    ids: &mut Ids,
    bg: &str,
    cg: &CommandGroupSetup,
    cf: &str,
) -> Result<(), ScenarioError> {
    ids.claim(&cg.id, format!("{cf}.id"))?;
    if cg.units.is_empty() {
        return Err(ScenarioError::new(
            format!("{cf}.units"),
            "a command group has at least one unit, its command unit",
        ));
    }
    let mut unit_ids = Vec::new();
    for (ui, u) in cg.units.iter().enumerate() {
        ids.claim(&u.id, format!("{cf}.units[{ui}].id"))?;
        unit_ids.push(u.id.clone());
        state.units.insert(
            u.id.clone(),
            Unit { id: u.id.clone(), name: u.name.clone(), command_group: cg.id.clone(), at_tenths: u.at_tenths },
        );
    }
    if !unit_ids.contains(&cg.command_unit) {
        return Err(ScenarioError::new(
            format!("{cf}.command_unit"),
            format!("{:?} is not one of the group's units ({})", cg.command_unit, unit_ids.join(", ")),
        ));
    }
    state.command_groups.insert(
        cg.id.clone(),
        CommandGroup {
            id: cg.id.clone(),
            name: cg.name.clone(),
            battle_group: bg.to_string(),
            kind: cg.kind,
            command_unit: cg.command_unit.clone(),
            units: unit_ids,
            in_reserve: cg.start == Start::Reserve,
        },
    );
    Ok(())
}

/// Records what a fact says. No rule logic: every consequence is in the fact.
pub fn evolve(state: &mut State, fact: &Fact) {
    fn bg<'a>(state: &'a mut State, id: &str) -> &'a mut BattleGroup {
        state.battle_groups.get_mut(id).expect("facts name battle groups of the scenario")
    }
    fn turn(state: &mut State) -> &mut Turn {
        state.turn.as_mut().expect("a turn is in progress")
    }
    match fact {
        Fact::TurnBegan { turn: number, first, staff_orders, .. } => {
            for (id, n) in staff_orders {
                let b = bg(state, id);
                b.staff_orders = *n;
                b.staff_orders_next_turn = 0;
            }
            state.turn = Some(Turn {
                number: *number,
                first: first.clone(),
                pulse: None,
                ended: false,
                dice: BTreeMap::new(),
                wild_dice: BTreeMap::new(),
                reserves_held_back: BTreeMap::new(),
            });
        }
        Fact::CommandDiceRolled { battle_group, active_pool, kept, .. } => {
            bg(state, battle_group).active_pool = *active_pool;
            turn(state).dice.insert(battle_group.clone(), kept.clone());
        }
        Fact::CommandDiceNotRolled { battle_group, active_pool, .. } => {
            bg(state, battle_group).active_pool = *active_pool
        }
        Fact::WildDiceGiven { to_side, total, .. } => {
            turn(state).wild_dice.insert(to_side.clone(), *total);
        }
        Fact::StaffOrdersCaptured { to_side, total, .. } => {
            if let Some(s) = state.sides.iter_mut().find(|s| &s.id == to_side) {
                s.co_staff_orders = *total;
            }
        }
        Fact::ReservesHeldBack { battle_group, staff_orders_per_group, .. } => {
            turn(state).reserves_held_back.insert(battle_group.clone(), *staff_orders_per_group);
        }
        Fact::FirstPulse { side, .. } => turn(state).pulse = side.clone(),
        Fact::ChainPlayed { side, battle_group, dice_left, wild_dice_left, .. } => {
            let t = turn(state);
            t.dice.insert(battle_group.clone(), dice_left.clone());
            t.wild_dice.insert(side.clone(), *wild_dice_left);
        }
        Fact::CommandGroupActivated { .. } => {}
        Fact::ReserveEntered { battle_group, command_group, paid, held_by_reserves, .. } => {
            if let Some(cg) = state.command_groups.get_mut(command_group) {
                cg.in_reserve = false;
            }
            bg(state, battle_group).dice_held_by_reserves = *held_by_reserves;
            if let Payment::StaffOrders { from, left, .. } = paid {
                if let Some(b) = state.battle_groups.get_mut(from) {
                    b.staff_orders = *left;
                } else if let Some(s) = state.sides.iter_mut().find(|s| &s.co == from) {
                    s.co_staff_orders = *left;
                }
            }
        }
        Fact::StaffOrdersRestocked { battle_group, staff_orders, staff_orders_next_turn, .. } => {
            let b = bg(state, battle_group);
            b.staff_orders = *staff_orders;
            b.staff_orders_next_turn = *staff_orders_next_turn;
        }
        Fact::PulseEnded { next, .. } => turn(state).pulse = next.clone(),
        Fact::TurnEnded { .. } => {
            let t = turn(state);
            t.ended = true;
            t.pulse = None;
            t.dice.clear();
            t.wild_dice.clear();
        }
        Fact::UnitMoved { unit, to_tenths, .. } => {
            if let Some(u) = state.units.get_mut(unit) {
                u.at_tenths = *to_tenths;
            }
        }
    }
}
