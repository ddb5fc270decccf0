//! `leader-activation`: the Command Phase of an "Infantry Combat" WWII
//! skirmish ruleset (`docs/rules/leader-activation.txt`).
//!
//! Leaders ("command teams") activate in turn, alternating between the sides;
//! each commands up to three units within the command range of the *unit's*
//! skill, may act himself, and may end with one rally test for up to three
//! broken units. A broken leader may only try to self-rally. The side with
//! fewer leaders may skip activations.
//!
//! Open points are settled by the options of [`versions`] (L1–L10 of
//! `docs/rules/INTERPRETATIONS.md`). The rules are in [`decide`]; this module holds
//! the words of the domain and a faithful `evolve`.

mod decide;
mod moves;
mod refusals;
mod sides;
#[cfg(test)]
mod tests;

pub use refusals::Refused;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::dice::Dice;
use crate::geometry::Point;
use crate::rules::{RuleVersion, Setting, VersionSpec};
use crate::ruleset::{Ruleset, ScenarioError, Violation};

pub use crate::name::Name;

/// The ruleset.
pub struct LeaderActivation;

/// A skill rating: "Elite", "Trained" or "Conscript".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Skill {
    Elite,
    Trained,
    Conscript,
}

impl Skill {
    pub fn name(self) -> &'static str {
        match self {
            Skill::Elite => "Elite",
            Skill::Trained => "Trained",
            Skill::Conscript => "Conscript",
        }
    }
}

/// A leader (command team) or a unit, as the scenario gives it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieceSetup {
    pub id: String,
    pub side: String,
    #[serde(default = "trained")]
    pub skill: Skill,
    /// Position in millimetres.
    pub at: Point,
    #[serde(default)]
    pub broken: bool,
    /// A name for people; the id is what decisions use.
    #[serde(default)]
    pub name: Option<String>,
}

fn trained() -> Skill {
    Skill::Trained
}

/// Two sides, their leaders and units. Positions in millimetres.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub sides: Vec<String>,
    pub leaders: Vec<PieceSetup>,
    pub units: Vec<PieceSetup>,
}

/// What a piece is: a leader or a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Leader,
    Unit,
}

/// A leader or unit on the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Piece {
    pub id: Name,
    pub side: Name,
    pub role: Role,
    pub skill: Skill,
    pub at: Point,
    pub broken: bool,
    /// Activated this turn (a leader marked, a unit commanded).
    pub activated: bool,
    /// A leader locked in close combat.
    pub locked: bool,
}

/// The settings of a rule version, typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Config {
    pub skill_as_roll_modifier: bool,
    pub natural_1_fails: bool,
    pub natural_6_rallies: bool,
    pub self_rally_skill_modifier: bool,
    pub failed_self_rally_keeps_leader_unactivated: bool,
    pub rallied_units_stay_idle: bool,
    pub last_activation_rule: bool,
    pub command_range_elite_mm: u64,
    pub command_range_trained_mm: u64,
    pub command_range_conscript_mm: u64,
    pub rally_target: i64,
    pub self_rally_target: i64,
    pub max_commanded_units: usize,
    pub max_rallied_units: usize,
    /// LN4: a move of the leader being activated is an action of his own
    /// unless it says it displaces him. `leader-activation@1` reads every
    /// move as the referee's, as its records were played. Left out of the
    /// serialised state when off, so that version 1's states (and their
    /// digests) are what they were.
    #[serde(default, skip_serializing_if = "is_false")]
    pub leader_move_is_own_action: bool,
}

impl Config {
    fn from_rules(r: &RuleVersion) -> Result<Config, ScenarioError> {
        let non_negative = |name: &str| {
            u64::try_from(r.int(name))
                .map_err(|_| ScenarioError::new(format!("rules.constants.{name}"), "must not be negative"))
        };
        Ok(Config {
            skill_as_roll_modifier: r.flag("skill-as-roll-modifier"),
            natural_1_fails: r.flag("natural-1-fails"),
            natural_6_rallies: r.flag("natural-6-rallies"),
            self_rally_skill_modifier: r.flag("self-rally-skill-modifier"),
            failed_self_rally_keeps_leader_unactivated: r.flag("failed-self-rally-keeps-leader-unactivated"),
            rallied_units_stay_idle: r.flag("rallied-units-stay-idle"),
            last_activation_rule: r.flag("last-activation-rule"),
            command_range_elite_mm: non_negative("command-range-elite-mm")?,
            command_range_trained_mm: non_negative("command-range-trained-mm")?,
            command_range_conscript_mm: non_negative("command-range-conscript-mm")?,
            rally_target: r.int("rally-target"),
            self_rally_target: r.int("self-rally-target"),
            max_commanded_units: usize::try_from(non_negative("max-commanded-units")?).unwrap_or(usize::MAX),
            max_rallied_units: usize::try_from(non_negative("max-rallied-units")?).unwrap_or(usize::MAX),
            leader_move_is_own_action: r.version != FIRST_VERSION,
        })
    }

    /// "The command range depends on the unit commanded rather than on the
    /// leader giving the orders. Normal command range is 10cm for Trained
    /// infantry or Conscripts and 15cm for Elite troops."
    pub fn command_range_mm(&self, skill: Skill) -> u64 {
        match skill {
            Skill::Elite => self.command_range_elite_mm,
            Skill::Trained => self.command_range_trained_mm,
            Skill::Conscript => self.command_range_conscript_mm,
        }
    }
}

/// A leader's activation in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Activation {
    pub leader: Name,
    pub side: Name,
    /// Units commanded so far, in order; the last may still be acting.
    pub commanded: Vec<Name>,
    /// The leader has performed an action of his own.
    pub leader_acted: bool,
    /// The leader was broken when activated and has tried to self-rally.
    pub self_rally_tried: bool,
}

/// A turn in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Turn {
    pub number: u32,
    pub first: Name,
    /// The side whose activation slot it is; none when the turn is over.
    pub next: Option<Name>,
    /// Leaders each side had at the start of the turn.
    pub leaders: BTreeMap<Name, u32>,
    /// Skips each side has left.
    pub skips: BTreeMap<Name, u32>,
    pub activation: Option<Activation>,
}

/// A leader or unit the referee has removed from play (killed, destroyed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Removed {
    pub side: Name,
    pub role: Role,
    pub reason: Name,
}

/// The game so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub config: Config,
    pub sides: [Name; 2],
    /// The leaders and units in play. The map and each piece are shared
    /// until they change (`Arc::make_mut`), and a piece's id is a shared
    /// string, so that copying the state — which `decide` does when a later
    /// fact depends on earlier ones — copies no piece and no name.
    pub pieces: Arc<BTreeMap<Name, Arc<Piece>>>,
    /// The leaders and units removed from play, and why (LN3). Left out of
    /// the serialised state while empty, as it was before removal existed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub removed: BTreeMap<Name, Removed>,
    /// The current turn; none before the first `begin-turn`.
    pub turn: Option<Turn>,
}

crate::untagged::tagged_enum! {
    "Decision";
    /// What a player or the referee asks.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Decision {
        /// Starts a turn; `first` is the side that activates first (L10).
        BeginTurn { first: Name },
        /// Chooses the next leader of the side whose slot it is.
        Activate { leader: Name },
        /// A broken leader tries to self-rally.
        SelfRally {},
        /// The active leader commands (activates) a unit.
        Command { unit: Name },
        /// The unit commanded last performs an action (described for the log).
        UnitAction { unit: Name, action: Name },
        /// The active leader performs an action of his own.
        LeaderAction { action: Name },
        /// The active leader's rally at the end of his activation.
        Rally { units: Vec<Name> },
        /// The active leader's activation is over.
        EndActivation {},
        /// The side whose slot it is passes it to the opponent.
        Skip { side: Name },
        /// Referee: a unit or leader breaks.
        Break { piece: Name, reason: Name },
        /// Referee: a leader is locked in close combat.
        LockInCloseCombat { leader: Name },
        /// Referee: a leader is freed from close combat.
        FreeFromCloseCombat { leader: Name },
        /// A unit or leader moves (a position in millimetres). A move of the
        /// leader being activated is his own action, his side's decision,
        /// unless `displaced` says the referee displaces him (LN4); every
        /// other move is the referee's.
        Move {
            piece: Name,
            to: Point,
            #[serde(default, skip_serializing_if = "is_false")]
            displaced: bool,
        },
        /// Referee: a unit or leader is removed from play (killed, destroyed,
        /// captured), for the reason given (LN3).
        Remove { piece: Name, reason: Name },
    }
}

crate::untagged::tagged_enum! {
    "Fact";
    /// What happened.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Fact {
        TurnBegan {
            turn: u32,
            first: Name,
            leaders: BTreeMap<Name, u32>,
            skips: BTreeMap<Name, u32>,
            next: Option<Name>,
        },
        LeaderActivated {
            leader: Name,
            side: Name,
            broken: bool,
        },
        SelfRallyTested {
            leader: Name,
            roll: u32,
            needed: i64,
            rallied: bool,
        },
        UnitCommanded {
            leader: Name,
            unit: Name,
            skill: Skill,
            distance_mm: u64,
            range_mm: u64,
        },
        UnitActed {
            unit: Name,
            action: Name,
        },
        LeaderActed {
            leader: Name,
            action: Name,
        },
        RallyTested {
            leader: Name,
            units: Vec<Name>,
            roll: u32,
            needed: i64,
            rallied: bool,
        },
        /// The units are no longer broken; `stay_idle` (L7 option) keeps them
        /// from being commanded later this turn.
        UnitsRallied {
            units: Vec<Name>,
            stay_idle: bool,
        },
        /// `stays_activated` is false only for a failed self-rally under L5's option.
        ActivationEnded {
            leader: Name,
            side: Name,
            stays_activated: bool,
            next: Option<Name>,
        },
        Skipped {
            side: Name,
            skips_left: u32,
            next: Option<Name>,
        },
        /// The side whose slot it was has no leader left to activate (one was
        /// locked in close combat): the slot passes on.
        SlotPassed {
            side: Name,
            next: Option<Name>,
        },
        /// The turn is over: no leader is left to activate. `locked` names the
        /// leaders left unactivated because they are locked in close combat.
        TurnEnded {
            turn: u32,
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            locked: Vec<Name>,
        },
        Broke {
            piece: Name,
            reason: Name,
        },
        LockedInCloseCombat {
            leader: Name,
        },
        FreedFromCloseCombat {
            leader: Name,
        },
        Moved {
            piece: Name,
            from: Point,
            to: Point,
        },
        /// A leader or unit leaves play. A leader removed while he is being
        /// activated is followed by the end of his activation.
        Removed {
            piece: Name,
            side: Name,
            role: Role,
            reason: Name,
        },
    }
}

const VERSION_SUMMARY: &str = "The Command Phase as written, with the defaults of its open points L1-L10 and LN1-LN4 (docs/book/src/reference/open-points.md#leader-activation).";

const FIRST_SUMMARY: &str = "The first reading, kept so that its records verify: every move is the referee's, so a leader who has moved may still command, and a broken leader may be moved (docs/book/src/reference/open-points.md#leader-activation, LN4).";

/// The version every record made before LN4 names.
const FIRST_VERSION: &str = "leader-activation@1";

fn is_false(b: &bool) -> bool {
    !*b
}

/// `leader-activation@2` (the default) and `leader-activation@1`, with the
/// same options and constants: they part only on what a move of the leader
/// being activated is (LN4).
pub fn versions() -> Vec<VersionSpec> {
    vec![
        VersionSpec { ruleset: "leader-activation", version: "2", summary: VERSION_SUMMARY, settings: settings() },
        VersionSpec { ruleset: "leader-activation", version: "1", summary: FIRST_SUMMARY, settings: settings() },
    ]
}

/// Every option and constant, each with the sentence it settles.
fn settings() -> Vec<Setting> {
    vec![
            Setting::option(
                "skill-as-roll-modifier",
                "L1",
                "Skill Rating table: Elite \"+1\", Conscript \"-1\"; rally table: \"-1 One or more Elite unit among rallied troops\", \"+1 One or more Conscript unit\".",
                "Read the skill table's modifiers as roll modifiers (Elite +1 to the roll, Conscript -1) instead of target-number modifiers. Gives the same result: a test proves it.",
            ),
            Setting::option(
                "natural-1-fails",
                "L2",
                "\"roll a D6 to determine whether the attempt is successful\" (the text names no automatic results).",
                "A natural 1 always fails a rally or self-rally test.",
            ),
            Setting::option(
                "natural-6-rallies",
                "L2",
                "\"roll a D6 to determine whether the attempt is successful\" (the text names no automatic results).",
                "A natural 6 always passes a rally or self-rally test.",
            ),
            Setting::option(
                "self-rally-skill-modifier",
                "L4",
                "\"the leader has to succeed a basic rally test by rolling a 3+ on a D6\"",
                "Apply the leader's own skill (Elite -1, Conscript +1 to the target) to his self-rally.",
            ),
            Setting::option(
                "failed-self-rally-keeps-leader-unactivated",
                "L5",
                "\"If the leader fails to self rally, he may not do anything and play passes on to the opponent player.\"",
                "A leader who fails to self-rally is not marked activated: he may be activated (and try again) later in the turn.",
            ),
            Setting::option(
                "rallied-units-stay-idle",
                "L7",
                "\"He may only do so if these units are not broken, in command range and have not yet been activated during that turn.\"",
                "A unit rallied at the end of one activation may not be commanded later in the same turn.",
            ),
            Setting::option(
                "last-activation-rule",
                "L9",
                "\"Remember that the side which had the first activation in a turn will never have the last activation as well.\"",
                "The side with fewer leaders must keep its last leader for the last slot: while it has skips left and the opponent has leaders to activate, it skips instead.",
            ),
            Setting::constant(
                "command-range-elite-mm",
                150,
                "\"Normal command range is 10cm for Trained infantry or Conscripts and 15cm for Elite troops.\"",
                "Command range of an Elite unit, in millimetres (inclusive).",
            )
            .range(0, 100_000),
            Setting::constant(
                "command-range-trained-mm",
                100,
                "\"Normal command range is 10cm for Trained infantry or Conscripts and 15cm for Elite troops.\"",
                "Command range of a Trained unit, in millimetres (inclusive).",
            )
            .range(0, 100_000),
            Setting::constant(
                "command-range-conscript-mm",
                100,
                "\"Normal command range is 10cm for Trained infantry or Conscripts and 15cm for Elite troops.\"",
                "Command range of a Conscript unit, in millimetres (inclusive).",
            )
            .range(0, 100_000),
            Setting::constant(
                "rally-target",
                3,
                "\"The basic target number for the rally test is 3+.\"",
                "The basic rally target on a D6, before the modifiers for units and skill.",
            )
            .range(1, 12),
            Setting::constant(
                "self-rally-target",
                3,
                "\"the leader has to succeed a basic rally test by rolling a 3+ on a D6\"",
                "The self-rally target on a D6.",
            )
            .range(1, 12),
            Setting::constant(
                "max-commanded-units",
                3,
                "\"the leader may himself command any three friendly units\"",
                "How many units one leader may command in an activation.",
            )
            .range(0, 100),
            Setting::constant(
                "max-rallied-units",
                3,
                "\"You may rally up to three units within command range.\"",
                "How many broken units one rally test may name.",
            )
            .range(0, 100),
    ]
}

impl Ruleset for LeaderActivation {
    const ID: &'static str = "leader-activation";
    const TITLE: &'static str = "Leader activation (Infantry Combat command phase): leaders command up to 3 units in range, rally, self-rally, skips";
    type Scenario = Scenario;
    type State = State;
    type Decision = Decision;
    type Fact = Fact;

    fn versions() -> Vec<VersionSpec> {
        versions()
    }

    fn initial(scenario: Scenario, rules: &RuleVersion) -> Result<State, ScenarioError> {
        let config = Config::from_rules(rules)?;
        let sides: [Name; 2] = match scenario.sides.as_slice() {
            [a, b] if a != b => [Name::from(a.as_str()), Name::from(b.as_str())],
            _ => return Err(ScenarioError::new("sides", "name exactly two different sides")),
        };
        let mut pieces = BTreeMap::new();
        let all = scenario.leaders.iter().enumerate().map(|(i, p)| (format!("leaders[{i}]"), Role::Leader, p));
        let all = all.chain(scenario.units.iter().enumerate().map(|(i, p)| (format!("units[{i}]"), Role::Unit, p)));
        for (field, role, p) in all {
            // The piece shares its side's name with the state's sides.
            let Some(side) = sides.iter().find(|s| ***s == *p.side) else {
                return Err(ScenarioError::new(
                    format!("{field}.side"),
                    format!("{:?} is not one of the sides ({}, {})", p.side, sides[0], sides[1]),
                ));
            };
            if p.id.is_empty() {
                return Err(ScenarioError::new(format!("{field}.id"), "an id may not be empty"));
            }
            let id = Name::from(p.id.as_str());
            let piece = Piece {
                id: id.clone(),
                side: side.clone(),
                role,
                skill: p.skill,
                at: p.at,
                broken: p.broken,
                activated: false,
                locked: false,
            };
            if pieces.insert(id, Arc::new(piece)).is_some() {
                return Err(ScenarioError::new(format!("{field}.id"), format!("{:?} is used twice", p.id)));
            }
        }
        Ok(State { config, sides, pieces: Arc::new(pieces), removed: BTreeMap::new(), turn: None })
    }

    fn decide(state: &State, decision: &Decision, dice: &mut Dice) -> Result<Vec<Fact>, Violation> {
        decide::decide(state, decision, dice)
    }

    fn evolve(state: &mut State, fact: &Fact) {
        evolve(state, fact)
    }

    fn narrate(fact: &Fact) -> String {
        narrate(fact)
    }

    fn render(state: &State) -> String {
        render(state)
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
        let State { config: _, sides, pieces, removed, turn } = a;
        (sides, pieces, removed, turn) == (&b.sides, &b.pieces, &b.removed, &b.turn)
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

/// Records what a fact says. No rule logic: every consequence is in the fact.
pub fn evolve(state: &mut State, fact: &Fact) {
    /// The pieces to change: the map is copied first if a copy of the
    /// state shares it.
    fn pieces(state: &mut State) -> &mut BTreeMap<Name, Arc<Piece>> {
        Arc::make_mut(&mut state.pieces)
    }
    fn piece<'a>(state: &'a mut State, id: &str) -> &'a mut Piece {
        Arc::make_mut(pieces(state).get_mut(id).expect("facts name pieces of the scenario"))
    }
    fn activation(state: &mut State) -> &mut Activation {
        state.turn.as_mut().and_then(|t| t.activation.as_mut()).expect("an activation is in progress")
    }
    match fact {
        Fact::TurnBegan { turn, first, leaders, skips, next } => {
            if state.pieces.values().any(|p| p.activated) {
                for p in pieces(state).values_mut().filter(|p| p.activated) {
                    Arc::make_mut(p).activated = false;
                }
            }
            state.turn = Some(Turn {
                number: *turn,
                first: first.clone(),
                next: next.clone(),
                leaders: leaders.clone(),
                skips: skips.clone(),
                activation: None,
            });
        }
        Fact::LeaderActivated { leader, side, .. } => {
            piece(state, leader).activated = true;
            let turn = state.turn.as_mut().expect("a turn is in progress");
            turn.activation = Some(Activation {
                leader: leader.clone(),
                side: side.clone(),
                commanded: Vec::new(),
                leader_acted: false,
                self_rally_tried: false,
            });
        }
        Fact::SelfRallyTested { leader, rallied, .. } => {
            activation(state).self_rally_tried = true;
            if *rallied {
                piece(state, leader).broken = false;
            }
        }
        Fact::UnitCommanded { unit, .. } => {
            piece(state, unit).activated = true;
            activation(state).commanded.push(unit.clone());
        }
        Fact::UnitActed { .. } => {}
        Fact::LeaderActed { .. } => activation(state).leader_acted = true,
        Fact::RallyTested { .. } => {}
        Fact::UnitsRallied { units, stay_idle } => {
            for u in units {
                let p = piece(state, u);
                p.broken = false;
                if *stay_idle {
                    p.activated = true;
                }
            }
        }
        Fact::ActivationEnded { leader, stays_activated, next, .. } => {
            // A leader removed during his activation is no longer in play.
            if state.pieces.get(&**leader).is_some_and(|p| p.activated != *stays_activated) {
                piece(state, leader).activated = *stays_activated;
            }
            let turn = state.turn.as_mut().expect("a turn is in progress");
            turn.activation = None;
            turn.next = next.clone();
        }
        Fact::Skipped { side, skips_left, next } => {
            let turn = state.turn.as_mut().expect("a turn is in progress");
            turn.skips.insert(side.clone(), *skips_left);
            turn.next = next.clone();
        }
        Fact::SlotPassed { next, .. } => {
            state.turn.as_mut().expect("a turn is in progress").next = next.clone();
        }
        Fact::TurnEnded { .. } => {
            if let Some(t) = state.turn.as_mut() {
                t.next = None;
            }
        }
        Fact::Broke { piece: id, .. } => piece(state, id).broken = true,
        Fact::LockedInCloseCombat { leader } => piece(state, leader).locked = true,
        Fact::FreedFromCloseCombat { leader } => piece(state, leader).locked = false,
        Fact::Moved { piece: id, to, .. } => piece(state, id).at = *to,
        Fact::Removed { piece: id, side, role, reason } => {
            pieces(state).remove(&**id);
            state.removed.insert(id.clone(), Removed { side: side.clone(), role: *role, reason: reason.clone() });
        }
    }
}

fn side_or_none(next: &Option<Name>) -> String {
    match next {
        Some(side) => format!("{side} to activate"),
        None => "no leader left to activate".into(),
    }
}

/// One line of narrative for a fact.
pub fn narrate(fact: &Fact) -> String {
    match fact {
        Fact::TurnBegan { turn, first, leaders, skips, next } => {
            let counts: Vec<String> = leaders.iter().map(|(s, n)| format!("{s} {n}")).collect();
            let skips: Vec<String> =
                skips.iter().filter(|(_, n)| **n > 0).map(|(s, n)| format!("{s} may skip {n}")).collect();
            let skips = if skips.is_empty() { "no skips".to_string() } else { skips.join(", ") };
            format!(
                "Turn {turn} begins, {first} first. Leaders: {}; {skips}. {}.",
                counts.join(", "),
                side_or_none(next)
            )
        }
        Fact::LeaderActivated { leader, side, broken } => {
            if *broken {
                format!("{leader} ({side}) is activated, broken: he may only try to self-rally.")
            } else {
                format!("{leader} ({side}) is activated.")
            }
        }
        Fact::SelfRallyTested { leader, roll, needed, rallied } => {
            if *rallied {
                format!("{leader} self-rallies: D6 {roll}, needed {needed}+. He acts without restriction.")
            } else {
                format!("{leader} fails to self-rally: D6 {roll}, needed {needed}+. He does nothing; play passes.")
            }
        }
        Fact::UnitCommanded { leader, unit, skill, distance_mm, range_mm } => {
            format!("{leader} commands {unit} ({}, {distance_mm} mm of {range_mm} mm command range).", skill.name())
        }
        Fact::UnitActed { unit, action } => format!("{unit}: {action}."),
        Fact::LeaderActed { leader, action } => {
            format!("{leader} acts: {action}. He may command no more units.")
        }
        Fact::RallyTested { leader, units, roll, needed, rallied } => {
            let outcome = if *rallied { "rallied" } else { "all remain broken" };
            format!("{leader} rallies {}: D6 {roll}, needed {needed}+: {outcome}.", units.join(", "))
        }
        Fact::UnitsRallied { units, stay_idle } => {
            let (is, stays) = if units.len() == 1 { ("is", "stays") } else { ("are", "stay") };
            if *stay_idle {
                format!("{} {is} no longer broken, and {stays} idle this turn.", units.join(", "))
            } else {
                format!("{} {is} no longer broken.", units.join(", "))
            }
        }
        Fact::ActivationEnded { leader, stays_activated, next, .. } => {
            let marked = if *stays_activated { "" } else { " (he is not marked activated)" };
            format!("{leader}'s activation ends{marked}; {}.", side_or_none(next))
        }
        Fact::Skipped { side, skips_left, next } => {
            format!("{side} skips ({skips_left} skip(s) left); {}.", side_or_none(next))
        }
        Fact::SlotPassed { side, next } => format!("{side} has no leader left to activate; {}.", side_or_none(next)),
        Fact::TurnEnded { turn, locked } => match locked.as_slice() {
            [] => format!("Turn {turn} ends: every leader has been activated."),
            [one] => format!("Turn {turn} ends: no leader is left to activate ({one} is locked in close combat)."),
            many => format!(
                "Turn {turn} ends: no leader is left to activate ({} are locked in close combat).",
                many.join(", ")
            ),
        },
        Fact::Broke { piece, reason } => format!("{piece} is broken: {reason}."),
        Fact::LockedInCloseCombat { leader } => format!("{leader} is locked in close combat."),
        Fact::FreedFromCloseCombat { leader } => format!("{leader} is freed from close combat."),
        Fact::Moved { piece, from, to } => format!("{piece} moves from {from} to {to} mm."),
        Fact::Removed { piece, side, role, reason } => {
            let role = match role {
                Role::Leader => "leader",
                Role::Unit => "unit",
            };
            format!("{piece} ({side} {role}) is removed from play: {reason}.")
        }
    }
}

/// The state as text: the turn, the activation, then each side's pieces.
pub fn render(state: &State) -> String {
    let mut out = String::new();
    match &state.turn {
        None => out.push_str("before the first turn\n"),
        Some(t) => {
            let skips: Vec<String> = t.skips.iter().map(|(s, n)| format!("{s} {n}")).collect();
            out.push_str(&format!(
                "turn {} ({} first): {}; skips left: {}\n",
                t.number,
                t.first,
                side_or_none(&t.next),
                skips.join(", ")
            ));
            if let Some(a) = &t.activation {
                out.push_str(&format!(
                    "activation: {} ({}) commanded [{}]{}\n",
                    a.leader,
                    a.side,
                    a.commanded.join(", "),
                    if a.leader_acted { ", has acted" } else { "" }
                ));
            }
        }
    }
    let width =
        state.pieces.keys().map(|id| id.len()).chain(state.removed.keys().map(|id| id.len())).max().unwrap_or(0);
    for side in &state.sides {
        out.push_str(&format!("{side}:\n"));
        for p in state.pieces.values().filter(|p| &p.side == side) {
            let mut marks = Vec::new();
            if p.broken {
                marks.push("broken");
            }
            if p.activated {
                marks.push("activated");
            }
            if p.locked {
                marks.push("locked in close combat");
            }
            let role = match p.role {
                Role::Leader => "leader",
                Role::Unit => "unit",
            };
            let line = format!(
                "  {:<width$}  {:<6} {:<9} at {:<12} {}",
                p.id,
                role,
                p.skill.name(),
                p.at.to_string(),
                marks.join(", ")
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for (id, r) in state.removed.iter().filter(|(_, r)| &r.side == side) {
            let role = match r.role {
                Role::Leader => "leader",
                Role::Unit => "unit",
            };
            out.push_str(&format!("  {id:<width$}  {role:<6} removed from play: {}\n", r.reason));
        }
    }
    out
}
