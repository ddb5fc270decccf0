//! `phoenix-command`: Phoenix Command Basic Miniatures Rules v.001
//! (`docs/rules/phoenix-command-miniatures.txt`).
//!
//! Units accumulate command points (CP) turn by turn and spend them all at
//! once; the unit with the most CP acts next, the side with more active
//! combatants winning ties. Units consolidate, detach and reorganise along an
//! organisation tree; a unit whose leader falls brevets a weaker one; figures
//! straying beyond their leader's command distance are lost; command checks
//! are a 0–9 roll under troop quality plus command rating. Ambushers hold a
//! CP to interrupt an enemy, fire is rolled shot by shot against odds the
//! players read, wounds shake and panic figures, and leaders spend CP on
//! morale.
//!
//! The rules live in one file per section of the text, so a reader finds each
//! section's rules in one place:
//!
//! | file | section |
//! |---|---|
//! | `turn.rs` | 2.1 turn sequence: strategic movement, initiative, activation order |
//! | `organisation.rs` | 2.2 unit organisation: consolidation, detachment, reorganisation |
//! | `command.rs` | 2.3 command and control: spending CP, breveting, command distance, command checks; 2.9 heroes |
//! | `actions.rs` | 2.4 actions: what a figure does with a CP |
//! | `interrupts.rs` | 2.5 interrupts |
//! | `fire.rs` | 2.6 weapons fire, injuries, explosives |
//! | `melee.rs` | 2.7 melee |
//! | `morale.rs` | 2.8 morale |
//!
//! `decide.rs` dispatches a decision to its section and holds the lookups all
//! sections share; `evolve.rs` records facts; `narrate.rs` tells them;
//! `scenario.rs` reads and checks a scenario; `versions.rs` declares every
//! option (P1–P12 of `docs/rules/INTERPRETATIONS.md`, and the readings of the
//! page's N-points a group may take otherwise: N15, N40, N42, N46–N48, N50,
//! N52) and constant.
//! `docs/book/src/rulesets/phoenix-command.md` lists every decision, fact, option,
//! constant and open point.
//!
//! Units of measure: positions and distances are integers in **tenths of an
//! inch** (`_tenths`); the table is a plane with `[x, y]` coordinates.

mod actions;
mod command;
mod consequences;
mod decide;
mod evolve;
mod fire;
mod interrupts;
mod lookup;
mod melee;
mod morale;
mod moves;
mod narrate;
mod organisation;
mod refusals;
mod scenario;
mod sides;
#[cfg(test)]
mod tests;
mod turn;
mod versions;

pub use refusals::Refused;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::dice::Dice;
use crate::geometry::Point;
use crate::rules::{RuleVersion, VersionSpec};
use crate::ruleset::{Ruleset, ScenarioError, Violation};

pub use scenario::{
    BlastRing, FigureSetup, InjuryColumn, InjuryRow, MeleeInjuryTable, OrganisationSetup, Scenario, UnitSetup, Weapon,
};
pub use versions::{versions, Config};

/// The ruleset.
pub struct PhoenixCommand;

/// A figure's morale state (2.8): "the morale state starts with Bold";
/// Shaken, Panicked, and Fanatical for fanatics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Morale {
    Bold,
    Shaken,
    Panicked,
    Fanatical,
}

impl Morale {
    /// How far from Bold for the unit's morale: Bold and Fanatical 0,
    /// Shaken 1, Panicked 2.
    pub fn severity(self) -> u8 {
        match self {
            Morale::Bold | Morale::Fanatical => 0,
            Morale::Shaken => 1,
            Morale::Panicked => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Morale::Bold => "Bold",
            Morale::Shaken => "Shaken",
            Morale::Panicked => "Panicked",
            Morale::Fanatical => "Fanatical",
        }
    }
}

/// How a figure lies on the table: "A figure that has Taken Cover is able to
/// use the “In Cover” or “Prone” Lines" (2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Posture {
    Standing,
    InCover,
    Prone,
}

/// A unit's morale (2.8 Unit Morale Effects).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum UnitMorale {
    Steady,
    /// "If the majority (rounded up) of figures in a unit are Shaken, then the Unit becomes Shaken".
    Shaken,
    /// "If the majority (rounded up) of figures in a unit are Panicked, then the unit as a whole is Broken".
    Broken,
}

/// An injury effect of the Hit Location and Injury Table (2.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Injury {
    None,
    Graze,
    LightWound,
    CriticalWound,
}

impl Injury {
    pub fn name(self) -> &'static str {
        match self {
            Injury::None => "no effect",
            Injury::Graze => "a Graze",
            Injury::LightWound => "a Light Wound",
            Injury::CriticalWound => "a Critical Wound",
        }
    }
}

/// How a figure fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FireMode {
    /// The 1, 2 or 3 shot line, as chosen.
    Aimed,
    /// The chosen line and "an additional shot without modification to their odds of hitting".
    Disciplined,
    /// "the maximum rate of fire for his weapon … all … at a –2 penalty".
    Ragged,
}

impl FireMode {
    pub fn name(self) -> &'static str {
        match self {
            FireMode::Aimed => "aimed fire",
            FireMode::Disciplined => "disciplined fire",
            FireMode::Ragged => "ragged fire",
        }
    }
}

/// A melee attack declared, waiting for the target's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PendingMelee {
    pub attacker: String,
    pub target: String,
}

/// A hit whose injury effect the referee must give (no table in the scenario, P9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PendingInjury {
    pub target: String,
    pub shooter: String,
    /// The hit location and injury roll with every modifier.
    pub total: i64,
    pub melee: bool,
}

/// A figure on the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Figure {
    pub id: String,
    /// A name for people (the id when the scenario gives none).
    pub name: String,
    pub side: String,
    /// The lowest organisation the figure belongs to (a fire team, a hero).
    pub team: String,
    /// The unit the figure acts with now (its team, or a consolidation of it).
    pub unit: String,
    pub troop_quality: i64,
    /// Leaders only (and a breveted leader, one less than his predecessor).
    pub command_rating: Option<i64>,
    /// The distance this figure's unit must stay within if he leads it (P8).
    pub command_distance_tenths: u64,
    /// His own standard move, if the scenario gives one: "twice the
    /// figure's standard move" (N51). Without it, the constant
    /// `standard-move-tenths` (kept in the config alone: see
    /// [`Figure::standard_move`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard_move_tenths: Option<u64>,
    pub morale: Morale,
    /// Began the battle Fanatical: "can never be changed to a Bold or Shaken morale state".
    pub fanatic: bool,
    pub at: Point,
    /// Why the figure left play; none while it is in play.
    pub removed: Option<String>,
    /// Ids of the weapons he carries (scenario data, 2.6).
    pub weapons: Vec<String>,
    /// Knockout Chance (2.6), scenario data.
    pub knockout_chance: Option<i64>,
    /// Melee Attack Value (2.7), scenario data.
    pub melee_attack_value: Option<i64>,
    /// Armour PF (scenario data), compared with a weapon's PEN.
    pub armour_pf: u32,
    /// Double-time advanced this turn: no second one, and no fire.
    pub double_timed: bool,
    pub posture: Posture,
    /// 1 Use weapons he has fired.
    pub used_weapons: BTreeSet<String>,
    /// Failed the abandonment check: sits out the next CP (P6).
    pub lagging: bool,
}

impl Figure {
    pub fn in_play(&self) -> bool {
        self.removed.is_none()
    }

    /// His standard move (N51): his own, else the constant.
    pub fn standard_move(&self, config: &Config) -> u64 {
        self.standard_move_tenths.unwrap_or(config.standard_move_tenths)
    }
}

/// A node of a side's organisation tree: platoon, squad, fire team, hero.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Organisation {
    pub id: String,
    pub side: String,
    /// What it is called: "platoon", "squad", "fire team", "hero", …
    pub kind: String,
    pub parent: Option<String>,
    /// The organisation leader; none once he has fallen and nobody took over.
    pub leader: Option<String>,
    /// A hero (2.9): a unit of one, "immune to command distance requirements".
    pub hero: bool,
}

/// A unit on the battlefield: an organisation acting as one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Unit {
    /// The organisation it is.
    pub id: String,
    pub side: String,
    /// None when the leader fell and the unit could not brevet a new one.
    pub leader: Option<String>,
    /// Accumulated CP.
    pub cp: u32,
    /// The CP held in reserve by a set interrupt (2.5), 0 or 1.
    pub held_interrupt_cp: u32,
    /// Activated in this turn's operations.
    pub activated: bool,
    /// Moved strategically this turn: it may not act in operations.
    pub strategic: bool,
    /// The leader fell: the unit must brevet a new one now.
    pub brevet_due: Option<BrevetDue>,
    /// A breveted leader who has not yet spent CP to take command.
    pub taking_command: bool,
    pub hero: bool,
    /// Enemy units it is in contact with (a referee input).
    pub contact: BTreeSet<String>,
    pub morale: UnitMorale,
    /// The leader restored the unit's morale to Bold for this turn (or
    /// steadied it from Broken).
    pub restored: bool,
    /// Its figures' morale when it was restored, each lowered when the
    /// figure was rallied since: what the restoring answered. A figure worse
    /// off than this is a new morale event (N52).
    #[serde(default)]
    pub restored_against: BTreeMap<String, Morale>,
    /// Its one ragged interrupt of the turn is spent.
    pub ragged_interrupt_used: bool,
    /// Broken: it must rout now (where it goes is a referee input).
    pub rout_due: bool,
    /// Broken and in cover after its rout: its leader may steady it.
    pub in_cover: bool,
}

/// A brevet the unit owes: the new leader's rating, and what he takes over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BrevetDue {
    pub rating: i64,
    /// The organisations the fallen leader led.
    pub organisations: Vec<String>,
}

/// The stage of a turn (2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    StrategicMovement,
    Operations,
    /// Every unit has been activated; the next turn may begin.
    Over,
}

/// A CP being spent on figure actions: who has acted on it so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Step {
    /// Which CP of the activation this is, from 1.
    pub number: u32,
    pub acted: BTreeSet<String>,
}

/// The activation in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Activation {
    pub unit: String,
    pub side: String,
    /// CP spent so far in this activation.
    pub spent: u32,
    /// The unit has begun to expend its CP: it must go on until they are gone.
    pub expending: bool,
    pub step: Option<Step>,
    /// A CP has been spent on figure actions (rally and self-rally come first).
    pub actions_begun: bool,
    /// The leader has abandoned the unit's Shaken figures this activation.
    pub abandoned: bool,
    /// Successfully interrupted by this unit: it may take cover, then its turn ends.
    pub interrupted_by: Option<String>,
}

/// An ambush (2.5): `by` lies in wait for `target`, which has entered its
/// line of sight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Ambush {
    pub by: String,
    pub target: String,
    /// With the CP held by a set interrupt; else a ragged interrupt.
    pub prepared: bool,
    /// Figures whose command check failed: they fire ragged before the
    /// target acts (the ambush is blown).
    pub nervous: Vec<String>,
    /// The ambushers have fired: the interrupt is resolved once every hit's
    /// effect is known.
    pub fired: bool,
    /// The target was Shaken before the ambushers fired.
    pub target_shaken_before: bool,
    /// Active combatants per side as the ambushers fired, when only what
    /// the interrupt's fire changed may change initiative (N58).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts_before: Option<BTreeMap<String, u32>>,
    /// Units the target detached on the CP whose command checks blew the
    /// ambush: "the figures that failed perform ragged fire on the target
    /// before the target begins its action", and the target is the unit as
    /// it stood when it spent that CP, so fire at their figures is fire at
    /// the target (N59; always empty under versions 1 and 2 and
    /// `detached-units-leave-the-target`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub detached: Vec<String>,
}

/// The turn in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Turn {
    pub number: u32,
    pub phase: Phase,
    /// Active combatants per side at the last count (operations only).
    pub counts: BTreeMap<String, u32>,
    pub activation: Option<Activation>,
    /// Hits waiting for the referee's injury effect, oldest first.
    pub pending_injuries: Vec<PendingInjury>,
    /// Ambushes lying in wait.
    pub ambushes: Vec<Ambush>,
    /// A melee attack waiting for the target's answer.
    pub melee: Option<PendingMelee>,
}

/// The game so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub config: Config,
    pub sides: [String; 2],
    /// The side with initiative (the scenario names it for a tie in turn 1, P4).
    pub initiative: String,
    /// The organisations, shared until a fact changes one (rarely: a
    /// brevet, a consolidation, a reorganisation), so that copying the
    /// state copies none of them.
    pub organisations: Arc<BTreeMap<String, Organisation>>,
    /// The units, shared until a fact changes one (`Arc::make_mut`: the
    /// map, then the unit), so that copying the state copies neither.
    pub units: Arc<BTreeMap<Arc<str>, Arc<Unit>>>,
    /// The figures, shared as the units are (`Arc::make_mut`), and
    /// the scenario's tables are never changed: copying the state — which
    /// `decide` does when a later fact depends on earlier ones — copies
    /// neither.
    pub figures: Arc<BTreeMap<Arc<str>, Arc<Figure>>>,
    /// The scenario's weapons, by id.
    pub weapons: Arc<BTreeMap<String, Weapon>>,
    /// The scenario's Hit Location and Injury Table, if it has one (P9).
    pub injury_table: Option<Arc<Vec<InjuryColumn>>>,
    pub melee_injury_table: Option<Arc<MeleeInjuryTable>>,
    pub turn: Option<Turn>,
}

impl State {
    /// The figures, in the order of their ids.
    pub fn figures_in_order(&self) -> impl Iterator<Item = &Figure> {
        self.figures.values().map(|f| &**f)
    }
}

/// How a figure leaves play when the referee rules a casualty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Casualty {
    Killed,
    Incapacitated,
}

impl Casualty {
    pub fn name(self) -> &'static str {
        match self {
            Casualty::Killed => "killed",
            Casualty::Incapacitated => "incapacitated",
        }
    }
}

/// What one figure does with one CP (2.4). Positions are referee inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Action {
    /// A standard move to a position (tenths of an inch).
    Move { figure: String, to: Point },
    /// Twice the standard move; once per figure per turn, and no fire after it.
    DoubleTime { figure: String, to: Point },
    /// Fires one weapon at an enemy figure, after a standard move to
    /// `move_to` if given ("advancing and firing"). `odds` are the Odds of
    /// Hitting read from the tables for the line fired, with the target's
    /// modifier (P9); ragged fire's −2 is the engine's. `line` is the 1, 2
    /// or 3 shot line (ragged fire: the weapon's maximum). `cover_pf`: the
    /// PF of cover between shooter and target.
    Fire {
        figure: String,
        #[serde(default)]
        move_to: Option<Point>,
        weapon: String,
        target: String,
        mode: FireMode,
        #[serde(default)]
        line: Option<u32>,
        odds: i64,
        #[serde(default)]
        cover_pf: u32,
        /// Where intervening cover stands: an explosive detonates on it.
        #[serde(default)]
        cover_at: Option<Point>,
    },
    /// Moves (a standard move, `move_to`) into base contact with an enemy
    /// figure and declares a melee attack; the target answers.
    Melee {
        figure: String,
        target: String,
        #[serde(default)]
        move_to: Option<Point>,
    },
    /// A Panicked figure flees a double-time move away from the enemy,
    /// towards cover; reaching it, he surrenders. A panicked fanatic instead
    /// makes for the table edge; `left_battlefield`: he got off it.
    Flee {
        figure: String,
        to: Point,
        #[serde(default)]
        reached_cover: bool,
        #[serde(default)]
        left_battlefield: bool,
    },
    /// Stays where he is.
    Hold { figure: String },
    /// An action the engine records but does not resolve (pops smoke, opens a door).
    Other { figure: String, what: String },
}

impl Action {
    pub fn figure(&self) -> &str {
        match self {
            Action::Move { figure, .. }
            | Action::DoubleTime { figure, .. }
            | Action::Fire { figure, .. }
            | Action::Melee { figure, .. }
            | Action::Flee { figure, .. }
            | Action::Hold { figure }
            | Action::Other { figure, .. } => figure,
        }
    }
}

/// One ambusher's fire in an interrupt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InterruptFire {
    pub figure: String,
    pub weapon: String,
    pub target: String,
    pub mode: FireMode,
    #[serde(default)]
    pub line: Option<u32>,
    pub odds: i64,
    #[serde(default)]
    pub cover_pf: u32,
    #[serde(default)]
    pub cover_at: Option<Point>,
}

/// A fire team of a reorganisation: new (with its figures) or kept as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTeam {
    pub id: String,
    #[serde(default)]
    pub kind: Option<String>,
    /// Required for a new team; a kept team keeps its leader if he is still in it.
    #[serde(default)]
    pub leader: Option<String>,
    /// The figures of a new team; omitted for an existing team kept whole.
    #[serde(default)]
    pub figures: Option<Vec<String>>,
}

/// A squad of a reorganisation and the fire teams it is made of; in a
/// company leader's reorganisation, a platoon and the squads (`squads`) it
/// is made of, each kept whole (N57).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSquad {
    pub id: String,
    #[serde(default)]
    pub kind: Option<String>,
    pub leader: String,
    #[serde(alias = "squads")]
    pub teams: Vec<NewTeam>,
}

crate::untagged::tagged_enum! {
    "Decision";
    /// What a player or the referee asks.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Decision {
        /// Starts the next turn with its strategic movement.
        BeginTurn,
        /// A unit moves strategically; `moves` gives figures' new positions.
        StrategicMove {
            unit: String,
            #[serde(default)]
            moves: BTreeMap<String, Point>,
        },
        /// Referee: two enemy units are (or are no longer) in contact.
        Contact { unit: String, enemy: String, in_contact: bool },
        /// Ends strategic movement: initiative is counted and operations begin.
        BeginOperations,
        /// The next unit to act is activated.
        Activate { unit: String },
        /// The active unit accumulates another CP (none at its cap); its activation ends.
        Accumulate,
        /// The active unit does nothing; its activation ends.
        Pass,
        /// The active unit spends its next CP on figure actions.
        SpendCp,
        /// Figures of the active unit perform their actions for the CP being spent.
        Actions { actions: Vec<Action> },
        /// The active unit performs no further actions: its remaining CP are lost.
        Stop,
        /// The active unit spends 1 CP to set an interrupt, holds it, and ends its turn.
        SetInterrupt,
        /// Referee: `target` enters the line of sight of `by`, which lies in wait.
        Sighted { target: String, by: String },
        /// The ambushers of `by` fire at the unit they lie in wait for.
        /// `no_line_of_sight`: ambushers who joining in cannot see (or reach)
        /// any figure of the target — a referee input; they hold (N54).
        Interrupt {
            by: String,
            fire: Vec<InterruptFire>,
            #[serde(default)]
            no_line_of_sight: Vec<String>,
        },
        /// A Shaken or Panicked leader spends 1 CP composing himself.
        SelfRally,
        /// The leader spends 1 CP on his unit's morale: a Shaken unit to Bold
        /// for the turn, a Broken unit in cover to Shaken. `unit`: another unit
        /// a superior officer has joined.
        SteadyUnit {
            #[serde(default)]
            unit: Option<String>,
        },
        /// The leader spends 1 CP to rally every Shaken figure of the unit.
        Rally {
            #[serde(default)]
            unit: Option<String>,
        },
        /// The leader spends 1 CP to rally one Panicked figure.
        RallyPanicked {
            figure: String,
            #[serde(default)]
            unit: Option<String>,
        },
        /// The leader abandons the Shaken figures: a command check for each Bold figure.
        Abandon,
        /// The leader spends 1 CP and executes a Shaken figure; `in_sight`: the
        /// friendly units within sight of it (a referee input).
        ForcedRally {
            figure: String,
            #[serde(default)]
            in_sight: Vec<String>,
        },
        /// Referee: where a Broken unit routs, and whether it reached cover.
        Rout {
            unit: String,
            #[serde(default)]
            moves: BTreeMap<String, Point>,
            reached_cover: bool,
        },
        /// A successfully interrupted unit takes cover: each figure named moves
        /// up to 3" to cover; the others go prone. Its turn then ends.
        TakeCover {
            #[serde(default)]
            moves: BTreeMap<String, Point>,
        },
        /// A breveted leader spends CP to take command of his unit.
        TakeCommand,
        /// The active unit's leader consolidates the organisation he leads:
        /// `sub_units`, or all of them (N46).
        Consolidate {
            organisation: String,
            #[serde(default)]
            sub_units: Option<Vec<String>>,
        },
        /// The active (consolidated) unit detaches sub-units.
        Detach { units: Vec<String> },
        /// The active unit's leader reorganises units two levels below him.
        Reorganise { organisation: String, replaces: Vec<String>, into: Vec<NewSquad> },
        /// A command check for figures of a unit (all but the leader by default).
        CommandCheck {
            unit: String,
            #[serde(default)]
            figures: Option<Vec<String>>,
            reason: String,
        },
        /// A unit whose leader fell appoints a new one from its ranks.
        Brevet { unit: String, leader: String },
        /// The target of a melee attack engages, or tries to escape (moving
        /// to `escape_to` if he survives).
        MeleeResponse {
            escape: bool,
            #[serde(default)]
            escape_to: Option<Point>,
        },
        /// Referee: the injury effect of the oldest hit waiting for one (P9).
        Injury { target: String, effect: Injury },
        /// Referee: a figure is killed or incapacitated.
        Casualty { figure: String, effect: Casualty, reason: String },
    }
}

/// Who acts next in operations, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NextUp {
    pub side: String,
    pub cp: u32,
    /// The units of `side` that may act (the player picks among them).
    pub units: Vec<String>,
    /// The other side, when it has units at the same CP: initiative put
    /// `side` ahead of it.
    pub ahead_of: Option<String>,
}

/// How initiative was settled at the count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "by", rename_all = "kebab-case", deny_unknown_fields)]
pub enum InitiativeBy {
    /// One side had more active combatants.
    Count,
    /// A tie: the side that held initiative keeps it (P4).
    Kept,
    /// A tie rolled off (P4 option): each round's d10 per side, the last decides.
    RollOff { rounds: Vec<BTreeMap<String, u32>> },
}

/// What a CP was spent on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Spend {
    Actions,
    TakeCommand,
    SetInterrupt,
    SelfRally,
    SteadyUnit,
    Rally,
    RallyPanicked,
    ForcedRally,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A unit detached from a consolidated unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DetachedUnit {
    pub unit: String,
    pub leader: String,
    pub figures: Vec<String>,
    pub contact: BTreeSet<String>,
    /// The unit it leaves has attempted its ragged interrupt this turn: so
    /// has it (N41).
    #[serde(default, skip_serializing_if = "is_false")]
    pub ragged_interrupt_used: bool,
}

/// A fire team as a reorganisation formed it, with the restrictions its
/// figures' units carried this turn (N41).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FormedTeam {
    pub id: String,
    pub kind: String,
    pub leader: String,
    pub figures: Vec<String>,
    pub contact: BTreeSet<String>,
    /// Some of its figures moved strategically this turn: it "may not act in
    /// the operations phase" and is "not eligible to fire".
    #[serde(default, skip_serializing_if = "is_false")]
    pub moved_strategically: bool,
    /// Some of its figures' units attempted their ragged interrupt this turn.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ragged_interrupt_used: bool,
}

/// A squad as a reorganisation formed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FormedSquad {
    pub id: String,
    pub kind: String,
    pub leader: String,
    pub teams: Vec<FormedTeam>,
}

/// A platoon as a company leader's reorganisation formed it, of whole squads
/// (N57).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FormedPlatoon {
    pub id: String,
    pub kind: String,
    pub leader: String,
    /// The squads (and headquarters teams) it is made of, each kept whole.
    pub squads: Vec<String>,
}

/// A command check's outcome for one figure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "outcome", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Check {
    /// Rolled: `roll` (0–9) against `target`.
    Rolled { roll: u32, target: i64, passed: bool },
    /// "Panicked troops and Fanatical troops automatically fail command checks."
    AutomaticFail { morale: Morale },
}

impl Check {
    pub fn passed(&self) -> bool {
        matches!(self, Check::Rolled { passed: true, .. })
    }
}

/// What happened to a unit whose leader fell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Succession {
    /// A new leader must be breveted now, with the successor rating.
    Brevet,
    /// The successor rating is below the minimum: the unit breaks.
    Breaks,
    /// Nobody is left to lead.
    Eliminated,
}

/// One shot: its 0–9 roll, and whether it hit. Under stray fire (P11) a shot
/// at odds below 0 strikes with `stray` added to its injury roll.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shot {
    pub roll: u32,
    pub hit: bool,
    pub stray: Option<i64>,
}

crate::untagged::tagged_enum! {
    "Fact";
    /// What happened.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Fact {
        TurnBegan {
            turn: u32,
        },
        /// A broken, leaderless unit leaves the battlefield in strategic movement.
        UnitWithdrew {
            unit: String,
            side: String,
            figures: Vec<String>,
            /// Organisations its figures led, now without a leader.
            organisations: Vec<String>,
        },
        ContactChanged {
            unit: String,
            enemy: String,
            in_contact: bool,
        },
        MovedStrategically {
            unit: String,
            side: String,
            cp_lost: u32,
            /// A further leg of a move already begun this turn (N43).
            #[serde(default, skip_serializing_if = "is_false")]
            continued: bool,
        },
        FigureMoved {
            figure: String,
            from: Point,
            to: Point,
            /// The distance, rounded up to a tenth.
            distance_tenths: u64,
        },
        StragglerRemoved {
            figure: String,
            unit: String,
            leader: String,
            distance_tenths: u64,
            command_distance_tenths: u64,
            /// Organisations he led, now without a leader.
            organisations: Vec<String>,
        },
        InitiativeCounted {
            turn: u32,
            counts: BTreeMap<String, u32>,
            holder: String,
            by: InitiativeBy,
        },
        InitiativeRecounted {
            counts: BTreeMap<String, u32>,
            previous: String,
            holder: String,
            /// After an interrupt (N58): the active combatants as it opened
            /// fire. Initiative changed hands only if the other side did not
            /// have more then: it is the interrupt that causes the change.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            before: Option<BTreeMap<String, u32>>,
        },
        OperationsBegan {
            turn: u32,
            next: Option<NextUp>,
        },
        UnitActivated {
            unit: String,
            side: String,
            cp: u32,
        },
        CpAccumulated {
            unit: String,
            cp_before: u32,
            cp_after: u32,
            /// Held interrupt CP, which count towards the cap.
            held: u32,
            cap: i64,
        },
        Passed {
            unit: String,
            cp: u32,
        },
        CpSpent {
            unit: String,
            /// The first CP of the activation this spends, from 1.
            number: u32,
            cp: u32,
            on: Spend,
            cp_left: u32,
        },
        FigureActed {
            unit: String,
            number: u32,
            action: Action,
            /// For a move: from where, and how far (rounded up to a tenth).
            from: Option<Point>,
            distance_tenths: Option<u64>,
        },
        /// An action of the decision that an earlier action's dice made
        /// impossible (its figure or his target fell, his morale dropped, his
        /// unit's activation ended): it is not performed (N36). A figure still
        /// in play is still to act on the CP. Also a melee attack waiting for
        /// its answer whose attacker or target has since left play.
        ActionVoided {
            figure: String,
            action: Action,
            reason: String,
        },
        Fired {
            unit: String,
            figure: String,
            weapon: String,
            target: String,
            mode: FireMode,
            /// The odds every shot was rolled against (ragged: with its penalty).
            odds: i64,
            shots: Vec<Shot>,
            /// Hits each successful shot scores ("2 hits @ 60").
            hits_per_shot: u32,
            /// The PEN that reaches the target (less intervening cover's PF).
            pen: u32,
            one_use: bool,
        },
        MeleeDeclared {
            attacker: String,
            target: String,
        },
        MeleeRolled {
            attacker: String,
            target: String,
            escape: bool,
            roll: u32,
            /// The Melee Attack Value, +5 against an escape.
            value: i64,
            hit: bool,
        },
        Escaped {
            figure: String,
            from: Point,
            to: Point,
        },
        Blast {
            shooter: String,
            weapon: String,
            at: Point,
            /// The d10 face of a miss's deviation (face k: k × 36° clockwise from +y).
            deviation: Option<u32>,
            /// On the intervening cover.
            on_cover: bool,
            /// Each figure caught: (figure, distance in tenths, effect).
            caught: Vec<(String, u64, Injury)>,
        },
        InjuryRolled {
            target: String,
            shooter: String,
            roll: u32,
            sdm: i64,
            stray: i64,
            total: i64,
            /// The injury effect from the scenario's table; none: the referee gives it.
            effect: Option<Injury>,
            melee: bool,
        },
        InjuryRuled {
            target: String,
            total: i64,
            effect: Injury,
        },
        KnockoutRolled {
            figure: String,
            roll: u32,
            chance: i64,
            /// The fanatic's second roll (panic), not the knockout roll.
            fanatic: bool,
            /// At or under the chance.
            under: bool,
        },
        MoraleChanged {
            figure: String,
            from: Morale,
            to: Morale,
            reason: String,
        },
        UnitShaken {
            unit: String,
            side: String,
            shaken: u32,
            of: u32,
        },
        InterruptSet {
            unit: String,
            side: String,
            /// Accumulated CP it keeps besides the held one.
            cp: u32,
        },
        Sighted {
            by: String,
            target: String,
            prepared: bool,
        },
        AmbushBlown {
            by: String,
            target: String,
            nervous: Vec<String>,
        },
        InterruptFired {
            by: String,
            target: String,
            prepared: bool,
            /// The held CP was spent (a prepared ambush whose unit joined in).
            held_cp_spent: bool,
            nervous: Vec<String>,
            /// The others who joined, with their one action.
            joined: Vec<String>,
            mode: Option<FireMode>,
            target_shaken_before: bool,
            /// Those of the unit who joined without a line of sight to the
            /// target: their part of the action is to hold (N54).
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            no_line_of_sight: Vec<String>,
            /// Active combatants per side as the ambushers open fire, when
            /// only what the interrupt's fire changes may change initiative
            /// (N58; absent under version 1 and the options that keep its
            /// reading).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            counts_before: Option<BTreeMap<String, u32>>,
        },
        InterruptResolved {
            by: String,
            target: String,
            success: bool,
            reason: String,
            /// CP the target lost.
            cp_lost: u32,
            /// The target's activation is interrupted: it may take cover, then its turn ends.
            target_active: bool,
        },
        UnitSteadied {
            unit: String,
            from: UnitMorale,
            to: UnitMorale,
        },
        Abandoned {
            unit: String,
            shaken: Vec<String>,
            /// Bold figures who failed their check: they lag behind by 1 CP.
            lagging: Vec<String>,
        },
        ForcedRallyChecked {
            unit: String,
            leader: String,
            passed: u32,
            of: u32,
            /// The majority passed: the leader goes on.
            holds: bool,
        },
        Routed {
            unit: String,
            side: String,
            reached_cover: bool,
            /// Its fanatics, who do not surrender when it cannot reach cover
            /// (N55).
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            fanatics: Vec<String>,
        },
        AmbushLapsed {
            by: String,
            target: String,
        },
        /// An ambush blown by the checks of a consolidation's CP follows its
        /// target into the unit it has joined: the nervous figures' fire is
        /// still to come (N21).
        AmbushFollowed {
            by: String,
            from: String,
            to: String,
        },
        /// An ambush blown by the checks of a detachment's CP still fires on
        /// the units detached on that CP: they were part of the target when
        /// it spent the CP (N59).
        AmbushKeepsDetached {
            by: String,
            target: String,
            detached: Vec<String>,
        },
        TookCover {
            unit: String,
            in_cover: Vec<String>,
            prone: Vec<String>,
        },
        CpCompleted {
            unit: String,
            number: u32,
            cp_left: u32,
            /// Figures who lagged behind on this CP and act again from the next (P6).
            caught_up: Vec<String>,
        },
        CpLost {
            unit: String,
            cp: u32,
            reason: String,
        },
        ActivationEnded {
            unit: String,
            side: String,
            next: Option<NextUp>,
        },
        TurnEnded {
            turn: u32,
        },
        Consolidated {
            organisation: String,
            kind: String,
            side: String,
            leader: String,
            /// The unit that paid (the organisation leader's unit).
            by: String,
            /// The units merged (the payer's among them).
            units: Vec<String>,
            sub_units: Vec<String>,
            cost: u32,
            cp_before: u32,
            cp_after: u32,
            /// CP the other leaders lost.
            lost: BTreeMap<String, u32>,
            contact: BTreeSet<String>,
            /// One of the units merged attempted its ragged interrupt this turn:
            /// so has the consolidated unit (N41).
            #[serde(default, skip_serializing_if = "is_false")]
            ragged_interrupt_used: bool,
        },
        Detached {
            unit: String,
            detached: Vec<DetachedUnit>,
            cost: u32,
            cp_before: u32,
            cp_after: u32,
        },
        Reorganised {
            organisation: String,
            by: String,
            leader: String,
            cost: u32,
            cp_before: u32,
            cp_after: u32,
            /// Every organisation below the reorganising one that was replaced
            /// (ids the new squads and teams take again included).
            replaced: Vec<String>,
            squads: Vec<FormedSquad>,
            /// Units dissolved, and the CP each lost.
            dissolved: BTreeMap<String, u32>,
        },
        /// A company leader reorganises squads into platoons (N57).
        SquadsReorganised {
            organisation: String,
            by: String,
            leader: String,
            cost: u32,
            cp_before: u32,
            cp_after: u32,
            /// The platoons replaced (ids the new ones take again included).
            replaced: Vec<String>,
            platoons: Vec<FormedPlatoon>,
            /// The units of the squads regrouped, and the CP each lost; they
            /// stay units, activated this turn.
            units: BTreeMap<String, u32>,
        },
        CommandChecked {
            figure: String,
            unit: String,
            reason: String,
            check: Check,
        },
        FigureRemoved {
            figure: String,
            side: String,
            unit: String,
            reason: String,
            /// Organisations he led, now without a leader.
            organisations: Vec<String>,
        },
        LeaderLost {
            unit: String,
            leader: String,
            cp_lost: u32,
            rating: i64,
            successor_rating: i64,
            succession: Succession,
            /// Organisations he led, which a breveted leader takes over.
            organisations: Vec<String>,
        },
        Breveted {
            unit: String,
            leader: String,
            rating: i64,
            take_command_cp: u32,
            organisations: Vec<String>,
        },
        TookCommand {
            unit: String,
            leader: String,
        },
        UnitBroke {
            unit: String,
            side: String,
            reason: String,
            /// It must rout now (2.8); a unit that could not brevet does not.
            rout: bool,
        },
        UnitEliminated {
            unit: String,
            side: String,
        },
    }
}

impl Ruleset for PhoenixCommand {
    const ID: &'static str = "phoenix-command";
    const TITLE: &'static str = "Phoenix Command miniatures: command points, initiative, activation order, organisation, breveting, command checks, interrupts, fire, melee, morale";
    type Scenario = Scenario;
    type State = State;
    type Decision = Decision;
    type Fact = Fact;

    fn scenario_bounds() -> Vec<crate::bounds::Bound> {
        scenario::SCENARIO_BOUNDS.to_vec()
    }

    fn versions() -> Vec<VersionSpec> {
        versions()
    }

    fn initial(scenario: Scenario, rules: &RuleVersion) -> Result<State, ScenarioError> {
        scenario::initial(scenario, Config::from_rules(rules)?)
    }

    fn decide(state: &State, decision: &Decision, dice: &mut Dice) -> Result<Vec<Fact>, Violation> {
        decide::decide(state, decision, dice)
    }

    fn evolve(state: &mut State, fact: &Fact) {
        evolve::evolve(state, fact)
    }

    fn narrate(fact: &Fact) -> String {
        narrate::narrate(fact)
    }

    fn render(state: &State) -> String {
        narrate::render(state)
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
        let State {
            config: _,
            sides,
            initiative,
            organisations,
            units,
            figures,
            weapons,
            injury_table,
            melee_injury_table,
            turn,
        } = a;
        (sides, initiative, organisations, units, figures)
            == (&b.sides, &b.initiative, &b.organisations, &b.units, &b.figures)
            && (weapons, injury_table, melee_injury_table, turn)
                == (&b.weapons, &b.injury_table, &b.melee_injury_table, &b.turn)
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
