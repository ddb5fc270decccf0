//! `formation-activation`: the Action Phase of World at War (Lock 'n Load),
//! from the Russian excerpt `docs/rules/formation-activation.ru.txt` and its
//! English translation `docs/rules/formation-activation.en.md`.
//!
//! Formation chits (formation markers) and end-turn chits are drawn from a cup
//! by a seeded draw; each formation chit drawn activates its formation, and a
//! formation with two chits activates twice in the turn. Each activation runs,
//! in the text's order: cleanup (the operations-complete and out-of-command
//! markers come off), command (units beyond the HQ's command radius, or all of
//! them once the HQ is destroyed, take one 2d6 morale test per hex), rally
//! (each disrupted unit takes a 2d6 morale test, +1 out of command, the HQ's
//! leadership when stacked with the HQ), and operations (movement, fire and
//! assault by in-command units only; reaction fire by the other side).
//!
//! The map is a hex grid (see [`hex`] for the coordinate system). Open points
//! F1–F7 of `docs/rules/INTERPRETATIONS.md` are settled by the options of
//! [`versions`]. The rules are in [`decide`]; this module holds the words of
//! the domain and a faithful `evolve`.

mod decide;
pub mod hex;
mod moves;
mod refusals;
mod sides;
#[cfg(test)]
mod tests;

pub use refusals::Refused;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::bounds::Bound;
use crate::dice::Dice;
use crate::rules::{RuleVersion, Setting, VersionSpec};
use crate::ruleset::{Ruleset, ScenarioError, Violation};

pub use hex::Hex;

/// The ruleset.
pub struct FormationActivation;

/// A formation as the scenario gives it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FormationSetup {
    pub id: String,
    pub side: String,
    /// A name for people (e.g. "62nd Motor Infantry Regiment").
    #[serde(default)]
    pub name: Option<String>,
    /// The id of the formation's HQ unit, itself one of the formation's units.
    pub hq: String,
    /// The morale rating printed on the HQ counter: a 2d6 test passes at or under it.
    pub morale: u32,
    /// The HQ's leadership value.
    pub leadership: u32,
    /// The HQ's command radius in hexes, inclusive (F5).
    pub command_radius_hexes: u32,
    /// How many formation chits (markers) the formation puts into the cup: 1 or 2.
    #[serde(default = "one")]
    pub chits: u32,
}

/// The ranges of the scenario's ratings (every other number: ±10⁹).
pub const SCENARIO_BOUNDS: &[Bound] = &[
    Bound::new("formations[].morale", 0, 20),
    Bound::new("formations[].leadership", 0, 20),
    Bound::new("formations[].command_radius_hexes", 0, 200),
];

fn one() -> u32 {
    1
}

/// A unit as the scenario gives it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnitSetup {
    pub id: String,
    pub formation: String,
    /// A name for people (e.g. "BTR-70").
    #[serde(default)]
    pub name: Option<String>,
    /// The hex it starts in; none for a unit that enters later (`place`).
    #[serde(default)]
    pub hex: Option<Hex>,
    #[serde(default)]
    pub disrupted: bool,
    /// Counts as newly placed on the map: in command in its formation's first
    /// activation (F6). Units set up on the map are not, unless this says so.
    #[serde(default)]
    pub newly_placed: bool,
}

/// Two sides, their formations and units, and the end-turn chits.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub sides: Vec<String>,
    pub formations: Vec<FormationSetup>,
    pub units: Vec<UnitSetup>,
    /// The end-turn chits that go into the cup with the formation chits.
    pub end_turn_chits: Vec<String>,
    /// How many end-turn chits drawn end the turn (all of them if absent).
    #[serde(default)]
    pub end_turn_after: Option<u32>,
}

/// A formation in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Formation {
    pub id: String,
    pub side: String,
    pub name: Option<String>,
    pub hq: String,
    pub morale: u32,
    pub leadership: u32,
    pub command_radius_hexes: u32,
    /// Its chits, `<formation>/1` and `<formation>/2`.
    pub chits: Vec<String>,
}

/// A unit in play, with its markers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Unit {
    pub id: String,
    pub name: Option<String>,
    pub formation: String,
    /// Where it is; none while it waits to enter the map.
    pub hex: Option<Hex>,
    pub disrupted: bool,
    /// The "out of command" marker.
    pub out_of_command: bool,
    /// The "operations complete" marker.
    pub operations_complete: bool,
    /// Operations conducted since its formation's last cleanup.
    pub operations: u32,
    /// Placed on the map since its formation's last command step (F6).
    pub newly_placed: bool,
    pub eliminated: bool,
}

impl Unit {
    /// On the map and not eliminated: the units the rules act on.
    pub fn on_map(&self) -> Option<Hex> {
        if self.eliminated {
            None
        } else {
            self.hex
        }
    }
}

/// What a chit in the cup is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Chit {
    /// A formation chit (formation marker): drawing it activates the formation.
    Formation { formation: String },
    /// An end-turn chit.
    EndTurn,
}

/// The settings of a rule version, typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Config {
    pub leadership_adds_to_rating: bool,
    pub rally_per_hex: bool,
    pub out_of_command_rally_modifier: i64,
    pub operations_per_activation: u32,
}

impl Config {
    fn from_rules(r: &RuleVersion) -> Result<Config, ScenarioError> {
        let operations = r.int("operations-per-activation");
        let operations_per_activation = u32::try_from(operations)
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| ScenarioError::new("rules.constants.operations-per-activation", "must be at least 1"))?;
        Ok(Config {
            leadership_adds_to_rating: r.flag("leadership-adds-to-rating"),
            rally_per_hex: r.flag("rally-per-hex"),
            out_of_command_rally_modifier: r.int("out-of-command-rally-modifier"),
            operations_per_activation,
        })
    }
}

/// A formation's activation in progress (its operations).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Activation {
    pub formation: String,
    pub side: String,
    pub chit: String,
    /// Its activation number this turn: 1, or 2 for a formation's second chit.
    pub number: u32,
}

/// A turn in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Turn {
    pub number: u32,
    /// The chits still in the cup, in canonical (sorted) order: a draw picks
    /// an index into this list.
    pub cup: Vec<String>,
    /// End-turn chits drawn so far this turn.
    pub end_turn_drawn: u32,
    /// Activations each formation has had this turn.
    pub activations: BTreeMap<String, u32>,
    pub activation: Option<Activation>,
    /// The end-turn chit(s) have ended the turn.
    pub over: bool,
}

/// The game so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub config: Config,
    pub sides: [String; 2],
    pub formations: BTreeMap<String, Formation>,
    pub units: BTreeMap<String, Unit>,
    /// Every chit of the game, by id.
    pub chits: BTreeMap<String, Chit>,
    /// How many end-turn chits drawn end a turn.
    pub end_turn_after: u32,
    /// The current turn; none before the first `begin-turn`.
    pub turn: Option<Turn>,
}

crate::untagged::tagged_enum! {
    "Decision";
    /// What a player or the referee asks.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Decision {
        /// Puts every chit into the cup and starts a turn.
        BeginTurn,
        /// Draws a chit from the cup (a seeded pick, label `cup`). A formation
        /// chit activates its formation: cleanup, command and rally are carried
        /// out at once, rolling `morale:<hex>` and `rally:<unit>` dice, and its
        /// operations begin.
        DrawChit,
        /// Operations: an in-command unit of the active formation moves; `to` is
        /// where it ends (the referee's outcome).
        Move { unit: String, to: Hex },
        /// Operations: an in-command unit of the active formation fires at a hex.
        Fire { unit: String, at: Hex },
        /// Operations: an in-command unit of the active formation assaults a hex.
        Assault { unit: String, at: Hex },
        /// The active formation's operations are over.
        EndActivation,
        /// A unit of the other side fires in reaction during the active
        /// formation's operations (allowed out of command).
        ReactionFire { unit: String, at: Hex },
        /// Referee: a unit is disrupted (an outcome of fire or assault).
        Disrupt { unit: String, reason: String },
        /// Referee: a unit is eliminated; an HQ eliminated is the HQ destroyed.
        Eliminate { unit: String, reason: String },
        /// Referee: a unit is newly placed on the map.
        Place { unit: String, hex: Hex },
        /// Referee: a unit ends up in another hex as the outcome of combat
        /// (an advance after assault, a retreat).
        Relocate { unit: String, to: Hex, reason: String },
    }
}

/// A unit within the command radius, and how far from its HQ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UnitDistance {
    pub unit: String,
    pub hex: Hex,
    pub distance_hexes: u32,
}

/// Why a hex takes a morale test in the command step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "why", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TestReason {
    /// The hex is beyond the HQ's command radius.
    OutsideRadius { hq: String, distance_hexes: u32, radius_hexes: u32 },
    /// The HQ has been destroyed: every unit tests.
    HqDestroyed { hq: String },
}

/// One modifier of a rally test, and what it is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Modifier {
    pub what: String,
    pub value: i64,
}

crate::untagged::tagged_enum! {
    "Fact";
    /// What happened.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Fact {
        /// Every chit is in the cup, in canonical order.
        TurnBegan {
            turn: u32,
            cup: Vec<String>,
        },
        /// A chit came out of the cup (of `cup_size` chits).
        ChitDrawn {
            turn: u32,
            chit: String,
            cup_size: u32,
        },
        /// An end-turn chit was drawn: `drawn` of the `needed` that end the turn.
        EndTurnChitDrawn {
            chit: String,
            drawn: u32,
            needed: u32,
        },
        /// The turn is over; the chits left in the cup were not drawn.
        TurnEnded {
            turn: u32,
            undrawn: Vec<String>,
        },
        /// A formation chit activates its formation (`number`: 1st or 2nd this turn).
        ActivationBegan {
            formation: String,
            side: String,
            chit: String,
            number: u32,
        },
        /// Cleanup: the markers come off the formation's units (F7: its units only).
        /// Every unit in `units` starts the activation without operations.
        CleanedUp {
            formation: String,
            units: Vec<String>,
            operations_complete_removed: Vec<String>,
            out_of_command_removed: Vec<String>,
        },
        /// Command: these units are within the HQ's command radius, in command.
        InCommandWithinRadius {
            formation: String,
            hq: String,
            hq_hex: Hex,
            radius_hexes: u32,
            units: Vec<UnitDistance>,
        },
        /// Command: these units are newly placed, in command in this, their first
        /// activation (F6); they are no longer newly placed.
        NewlyPlacedInCommand {
            formation: String,
            units: Vec<String>,
        },
        /// Command: one 2d6 morale test for a hex. Failed: every unit listed is
        /// out of command and the hex is marked.
        MoraleTested {
            formation: String,
            hex: Hex,
            units: Vec<String>,
            reason: TestReason,
            dice: Vec<u32>,
            roll: u32,
            morale: u32,
            passed: bool,
        },
        /// Rally: a disrupted unit's 2d6 morale test. `rallied`: the disrupted
        /// marker comes off. `per_hex`: the roll is its hex's (rally-per-hex).
        RallyTested {
            formation: String,
            unit: String,
            hex: Hex,
            dice: Vec<u32>,
            roll: u32,
            /// Every modifier, written on the roll (F2: whichever reading the
            /// rule version takes, the record has this one form).
            modifiers: Vec<Modifier>,
            modified_roll: i64,
            morale: u32,
            rallied: bool,
            per_hex: bool,
        },
        /// Operations begin: the units that may act, and those out of command.
        OperationsBegan {
            formation: String,
            may_act: Vec<String>,
            out_of_command: Vec<String>,
        },
        Moved {
            unit: String,
            from: Hex,
            to: Hex,
            operations_complete: bool,
        },
        Fired {
            unit: String,
            from: Hex,
            at: Hex,
            operations_complete: bool,
        },
        Assaulted {
            unit: String,
            from: Hex,
            at: Hex,
            operations_complete: bool,
        },
        /// Reaction fire by a unit of the side not active.
        ReactionFired {
            unit: String,
            formation: String,
            from: Hex,
            at: Hex,
            out_of_command: bool,
        },
        ActivationEnded {
            formation: String,
            chit: String,
        },
        Disrupted {
            unit: String,
            hex: Hex,
            reason: String,
        },
        /// A unit is eliminated; `hq`: it was its formation's HQ (HQ destroyed).
        Eliminated {
            unit: String,
            formation: String,
            hex: Hex,
            reason: String,
            hq: bool,
        },
        /// A unit is newly placed on the map.
        Placed {
            unit: String,
            formation: String,
            hex: Hex,
        },
        Relocated {
            unit: String,
            from: Hex,
            to: Hex,
            reason: String,
        },
    }
}

const VERSION_SUMMARY: &str = "The Action Phase as written, with the defaults of its open points F1-F7 and FN1-FN6 (docs/book/src/reference/open-points.md#formation-activation).";

/// The sentences FN2's reading rests on. They say that a unit of a
/// two-chit formation acts twice per turn, and that operations end with a
/// marker; they do not say how many operations one activation allows.
const TWO_MARKERS: &str = "\"Important: if a formation has two formation markers, each of its units may act twice per turn.\" and \"Remove all 'operations complete' and 'out of command' markers from the formation.\" (neither says how many operations one activation allows: open point FN2)";

/// `formation-activation@1`: every option and constant.
pub fn versions() -> Vec<VersionSpec> {
    vec![VersionSpec {
        ruleset: "formation-activation",
        version: "1",
        summary: VERSION_SUMMARY,
        settings: vec![
            Setting::option(
                "leadership-adds-to-rating",
                "F2",
                "\"Units in the same hex as the HQ modify the morale test by the HQ's leadership value.\" (Подразделения находящиеся в одной ячейке со штабом делают поправку на значение лидерства штаба при прохождении теста на мораль.)",
                "Add the HQ's leadership to the morale rating instead of subtracting it from the 2d6 roll. The same pass or fail, other bookkeeping: a property test proves it.",
            ),
            Setting::option(
                "rally-per-hex",
                "F3",
                "\"Attempt to rally (recover) disrupted units: those that pass a morale test are rallied.\"",
                "One 2d6 rally roll per hex of disrupted units (dice 'rally:<hex>'), each unit judged by it with its own modifiers, instead of one roll per unit ('rally:<unit>').",
            ),
            Setting::constant(
                "out-of-command-rally-modifier",
                1,
                "\"Out-of-command units add one to the 2d6 roll.\"",
                "What an out-of-command unit adds to its 2d6 rally roll.",
            )
            .range(-12, 12),
            Setting {
                point: Some("FN2"),
                ..Setting::constant(
                    "operations-per-activation",
                    1,
                    TWO_MARKERS,
                    "How many operations (move, fire, assault) a unit conducts in one activation of its formation before it is marked operations complete. 1 (this project's reading, FN2): each act of \"may act twice per turn\" is one operation. Other readings: a fixed number of operations per activation (set it here), or as many as the player likes until the formation's activation ends (a large number comes close).",
                )
                .range(1, 100)
            },
        ],
    }]
}

impl Ruleset for FormationActivation {
    const ID: &'static str = "formation-activation";
    const TITLE: &'static str = "Formation activation (World at War action phase): chit-pull formations, HQ command radius, 2d6 morale tests per hex, rally";
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
        let State { config: _, sides, formations, units, chits, end_turn_after, turn } = a;
        (sides, formations, units, chits, end_turn_after, turn)
            == (&b.sides, &b.formations, &b.units, &b.chits, &b.end_turn_after, &b.turn)
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

/// The chit ids of a formation with `count` chits.
fn chit_ids(formation: &str, count: u32) -> Vec<String> {
    (1..=count).map(|n| format!("{formation}/{n}")).collect()
}

/// Checks the scenario and lays out the game; errors name the field.
fn initial(scenario: Scenario, rules: &RuleVersion) -> Result<State, ScenarioError> {
    let config = Config::from_rules(rules)?;
    let sides: [String; 2] = match scenario.sides.as_slice() {
        [a, b] if a != b && !a.is_empty() && !b.is_empty() => [a.clone(), b.clone()],
        _ => return Err(ScenarioError::new("sides", "name exactly two different sides")),
    };
    let mut chits = BTreeMap::new();
    let formations = formations(&scenario, &sides, &mut chits)?;
    let units = units(&scenario, &formations)?;
    hqs(&scenario, &units)?;
    let end_turn_after = end_turn_chits(&scenario, &mut chits)?;
    Ok(State { config, sides, formations, units, chits, end_turn_after, turn: None })
}

/// The formations, each with its chits put into `chits`.
fn formations(
    scenario: &Scenario,
    sides: &[String; 2],
    chits: &mut BTreeMap<String, Chit>,
) -> Result<BTreeMap<String, Formation>, ScenarioError> {
    let mut formations = BTreeMap::new();
    for (i, f) in scenario.formations.iter().enumerate() {
        let field = |name: &str| format!("formations[{i}].{name}");
        if f.id.is_empty() || f.id.contains('/') {
            return Err(ScenarioError::new(field("id"), "a formation id may not be empty or contain '/'"));
        }
        if !sides.contains(&f.side) {
            return Err(ScenarioError::new(
                field("side"),
                format!("{:?} is not one of the sides ({}, {})", f.side, sides[0], sides[1]),
            ));
        }
        // "Note that some formations have two formation markers and can be
        // activated twice per turn."
        if !(1..=2).contains(&f.chits) {
            return Err(ScenarioError::new(
                field("chits"),
                format!("a formation has one or two formation chits, not {}", f.chits),
            ));
        }
        let ids = chit_ids(&f.id, f.chits);
        for id in &ids {
            chits.insert(id.clone(), Chit::Formation { formation: f.id.clone() });
        }
        let formation = Formation {
            id: f.id.clone(),
            side: f.side.clone(),
            name: f.name.clone(),
            hq: f.hq.clone(),
            morale: f.morale,
            leadership: f.leadership,
            command_radius_hexes: f.command_radius_hexes,
            chits: ids,
        };
        if formations.insert(f.id.clone(), formation).is_some() {
            return Err(ScenarioError::new(field("id"), format!("{:?} is used twice", f.id)));
        }
    }
    if formations.is_empty() {
        return Err(ScenarioError::new("formations", "a game needs at least one formation"));
    }
    Ok(formations)
}

/// The units, each of a formation of the scenario.
fn units(
    scenario: &Scenario,
    formations: &BTreeMap<String, Formation>,
) -> Result<BTreeMap<String, Unit>, ScenarioError> {
    let mut units = BTreeMap::new();
    for (i, u) in scenario.units.iter().enumerate() {
        let field = |name: &str| format!("units[{i}].{name}");
        if u.id.is_empty() {
            return Err(ScenarioError::new(field("id"), "a unit id may not be empty"));
        }
        if !formations.contains_key(&u.formation) {
            return Err(ScenarioError::new(
                field("formation"),
                format!(
                    "{:?} is not a formation of the scenario ({})",
                    u.formation,
                    formations.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        if u.newly_placed && u.hex.is_none() {
            return Err(ScenarioError::new(
                field("newly_placed"),
                "a unit off the map is newly placed when the referee places it",
            ));
        }
        let unit = Unit {
            id: u.id.clone(),
            name: u.name.clone(),
            formation: u.formation.clone(),
            hex: u.hex,
            disrupted: u.disrupted,
            out_of_command: false,
            operations_complete: false,
            operations: 0,
            newly_placed: u.newly_placed,
            eliminated: false,
        };
        if units.insert(u.id.clone(), unit).is_some() {
            return Err(ScenarioError::new(field("id"), format!("{:?} is used twice", u.id)));
        }
    }
    Ok(units)
}

/// Each formation's HQ: a unit of its own formation, on the map.
fn hqs(scenario: &Scenario, units: &BTreeMap<String, Unit>) -> Result<(), ScenarioError> {
    for (i, f) in scenario.formations.iter().enumerate() {
        match units.get(&f.hq) {
            None => {
                return Err(ScenarioError::new(
                    format!("formations[{i}].hq"),
                    format!("{:?} is not a unit of the scenario", f.hq),
                ))
            }
            Some(hq) if hq.formation != f.id => {
                return Err(ScenarioError::new(
                    format!("formations[{i}].hq"),
                    format!("{:?} belongs to formation {:?}: an HQ is a unit of its own formation", f.hq, hq.formation),
                ))
            }
            Some(hq) if hq.hex.is_none() => {
                return Err(ScenarioError::new(
                    format!("formations[{i}].hq"),
                    format!("{:?} must start on the map: command radius is measured from it", f.hq),
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The end-turn chits, put into `chits`, and after how many of them the turn ends.
fn end_turn_chits(scenario: &Scenario, chits: &mut BTreeMap<String, Chit>) -> Result<u32, ScenarioError> {
    if scenario.end_turn_chits.is_empty() {
        return Err(ScenarioError::new(
            "end_turn_chits",
            "put at least one end-turn chit into the cup: drawing it ends the turn",
        ));
    }
    for (i, id) in scenario.end_turn_chits.iter().enumerate() {
        if id.is_empty() || chits.contains_key(id) {
            return Err(ScenarioError::new(
                format!("end_turn_chits[{i}]"),
                format!("{id:?} is empty or already the id of a chit"),
            ));
        }
        chits.insert(id.clone(), Chit::EndTurn);
    }
    let count = scenario.end_turn_chits.len() as u32;
    let end_turn_after = scenario.end_turn_after.unwrap_or(count);
    if !(1..=count).contains(&end_turn_after) {
        return Err(ScenarioError::new(
            "end_turn_after",
            format!("the turn ends after 1 to {count} end-turn chits (there are {count}), not {end_turn_after}"),
        ));
    }
    Ok(end_turn_after)
}

/// Records what a fact says. No rule logic: every consequence is in the fact.
pub fn evolve(state: &mut State, fact: &Fact) {
    fn unit<'a>(state: &'a mut State, id: &str) -> &'a mut Unit {
        state.units.get_mut(id).expect("facts name units of the scenario")
    }
    fn turn(state: &mut State) -> &mut Turn {
        state.turn.as_mut().expect("a turn is in progress")
    }
    match fact {
        Fact::TurnBegan { turn, cup } => {
            state.turn = Some(Turn {
                number: *turn,
                cup: cup.clone(),
                end_turn_drawn: 0,
                activations: BTreeMap::new(),
                activation: None,
                over: false,
            });
        }
        Fact::ChitDrawn { chit, .. } => turn(state).cup.retain(|c| c != chit),
        Fact::EndTurnChitDrawn { drawn, .. } => turn(state).end_turn_drawn = *drawn,
        Fact::TurnEnded { .. } => turn(state).over = true,
        Fact::ActivationBegan { formation, side, chit, number } => {
            let t = turn(state);
            t.activations.insert(formation.clone(), *number);
            t.activation = Some(Activation {
                formation: formation.clone(),
                side: side.clone(),
                chit: chit.clone(),
                number: *number,
            });
        }
        Fact::CleanedUp { units, .. } => {
            for id in units {
                let u = unit(state, id);
                u.operations_complete = false;
                u.out_of_command = false;
                u.operations = 0;
            }
        }
        Fact::InCommandWithinRadius { .. } => {}
        Fact::NewlyPlacedInCommand { units, .. } => {
            for id in units {
                unit(state, id).newly_placed = false;
            }
        }
        Fact::MoraleTested { units, passed, .. } => {
            if !passed {
                for id in units {
                    unit(state, id).out_of_command = true;
                }
            }
        }
        Fact::RallyTested { unit: id, rallied, .. } => {
            if *rallied {
                unit(state, id).disrupted = false;
            }
        }
        Fact::OperationsBegan { .. } => {}
        Fact::Moved { unit: id, to, operations_complete, .. } => {
            let u = unit(state, id);
            u.hex = Some(*to);
            u.operations += 1;
            u.operations_complete = *operations_complete;
        }
        Fact::Fired { unit: id, operations_complete, .. } | Fact::Assaulted { unit: id, operations_complete, .. } => {
            let u = unit(state, id);
            u.operations += 1;
            u.operations_complete = *operations_complete;
        }
        Fact::ReactionFired { .. } => {}
        Fact::ActivationEnded { .. } => turn(state).activation = None,
        Fact::Disrupted { unit: id, .. } => unit(state, id).disrupted = true,
        Fact::Eliminated { unit: id, .. } => unit(state, id).eliminated = true,
        Fact::Placed { unit: id, hex, .. } => {
            let u = unit(state, id);
            u.hex = Some(*hex);
            u.newly_placed = true;
        }
        Fact::Relocated { unit: id, to, .. } => unit(state, id).hex = Some(*to),
    }
}

/// `a, b, c`, or `none`.
fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// `1 hex`, `3 hexes`.
fn hexes(n: u32) -> String {
    if n == 1 {
        "1 hex".into()
    } else {
        format!("{n} hexes")
    }
}

fn ordinal(n: u32) -> &'static str {
    match n {
        1 => "first",
        2 => "second",
        _ => "another",
    }
}

fn signed(value: i64) -> String {
    if value < 0 {
        format!("−{}", value.unsigned_abs())
    } else {
        format!("+{value}")
    }
}

fn modifiers(mods: &[Modifier]) -> String {
    mods.iter().map(|m| format!(" {} ({})", signed(m.value), m.what)).collect()
}

fn dice_text(dice: &[u32]) -> String {
    dice.iter().map(u32::to_string).collect::<Vec<_>>().join("+")
}

fn operations_text(operations_complete: bool) -> &'static str {
    if operations_complete {
        "; operations complete"
    } else {
        ""
    }
}

/// One line of narrative for a fact.
pub fn narrate(fact: &Fact) -> String {
    match fact {
        Fact::TurnBegan { .. } | Fact::ChitDrawn { .. } | Fact::EndTurnChitDrawn { .. } | Fact::TurnEnded { .. } => {
            cup_text(fact)
        }
        Fact::ActivationBegan { .. }
        | Fact::CleanedUp { .. }
        | Fact::InCommandWithinRadius { .. }
        | Fact::NewlyPlacedInCommand { .. }
        | Fact::OperationsBegan { .. }
        | Fact::ActivationEnded { .. } => activation_text(fact),
        Fact::MoraleTested { .. } | Fact::RallyTested { .. } => test_text(fact),
        Fact::Moved { .. } | Fact::Fired { .. } | Fact::Assaulted { .. } | Fact::ReactionFired { .. } => {
            operation_text(fact)
        }
        Fact::Disrupted { .. } | Fact::Eliminated { .. } | Fact::Placed { .. } | Fact::Relocated { .. } => {
            referee_text(fact)
        }
    }
}

/// The state as text: the turn and cup, then each formation's stacks.
pub fn render(state: &State) -> String {
    let mut out = String::new();
    match &state.turn {
        None => out.push_str("before the first turn\n"),
        Some(t) => {
            let cup: Vec<String> = t.cup.iter().enumerate().map(|(i, c)| format!("[{i}] {c}")).collect();
            out.push_str(&format!(
                "turn {}{}: end-turn chits drawn {} of {}\n",
                t.number,
                if t.over { " (over)" } else { "" },
                t.end_turn_drawn,
                state.end_turn_after
            ));
            out.push_str(&format!("cup: {}\n", list(&cup)));
            match &t.activation {
                Some(a) => out.push_str(&format!(
                    "active: {} ({}), chit {}, activation {} this turn\n",
                    a.formation, a.side, a.chit, a.number
                )),
                None if t.over => {}
                None => out.push_str("active: none (draw a chit)\n"),
            }
        }
    }
    for f in state.formations.values() {
        let activations = state.turn.as_ref().and_then(|t| t.activations.get(&f.id)).copied().unwrap_or(0);
        out.push_str(&format!(
            "formation {} ({}){}: HQ {}, morale {}, leadership {}, command radius {} hexes, chits {}, activated {} this turn\n",
            f.id,
            f.side,
            f.name.as_ref().map(|n| format!(" {n:?}")).unwrap_or_default(),
            f.hq,
            f.morale,
            f.leadership,
            f.command_radius_hexes,
            f.chits.join(", "),
            activations
        ));
        let mut stacks: BTreeMap<Hex, Vec<String>> = BTreeMap::new();
        let mut off_map = Vec::new();
        let mut eliminated = Vec::new();
        for u in state.units.values().filter(|u| u.formation == f.id) {
            let mut marks = Vec::new();
            if u.id == f.hq {
                marks.push("HQ".to_string());
            }
            if u.out_of_command {
                marks.push("out of command".into());
            }
            if u.operations_complete {
                marks.push("operations complete".into());
            } else if u.operations > 0 {
                marks.push(format!("{} operation(s)", u.operations));
            }
            if u.disrupted {
                marks.push("disrupted".into());
            }
            if u.newly_placed {
                marks.push("newly placed".into());
            }
            let name = u.name.as_ref().map(|n| format!(" {n:?}")).unwrap_or_default();
            let text = if marks.is_empty() {
                format!("{}{name}", u.id)
            } else {
                format!("{}{name} [{}]", u.id, marks.join(", "))
            };
            match (u.eliminated, u.hex) {
                (true, _) => eliminated.push(u.id.clone()),
                (false, Some(hex)) => stacks.entry(hex).or_default().push(text),
                (false, None) => off_map.push(text),
            }
        }
        for (hex, units) in stacks {
            out.push_str(&format!("  {hex}: {}\n", units.join("; ")));
        }
        if !off_map.is_empty() {
            out.push_str(&format!("  off the map: {}\n", off_map.join("; ")));
        }
        if !eliminated.is_empty() {
            out.push_str(&format!("  eliminated: {}\n", eliminated.join(", ")));
        }
    }
    out
}

/// The turn and the cup: chits drawn, the end-turn chits.
fn cup_text(fact: &Fact) -> String {
    match fact {
        Fact::TurnBegan { turn, cup } => {
            format!("Turn {turn} begins: {} chits go into the cup ({}).", cup.len(), cup.join(", "))
        }
        Fact::ChitDrawn { turn: _, chit, cup_size } => format!("Chit {chit} is drawn from the cup of {cup_size}."),
        Fact::EndTurnChitDrawn { chit, drawn, needed } => {
            if drawn >= needed {
                format!("End-turn chit {chit}: {drawn} of {needed} drawn, the turn ends.")
            } else {
                format!("End-turn chit {chit}: {drawn} of {needed} drawn, the turn goes on.")
            }
        }
        Fact::TurnEnded { turn, undrawn } => format!("Turn {turn} ends. Not drawn: {}.", list(undrawn)),
        _ => unreachable!("narrate sends only the cup's facts here"),
    }
}

/// A formation's activation: cleanup, command, operations begun, the end.
fn activation_text(fact: &Fact) -> String {
    match fact {
        Fact::ActivationBegan { formation, side, chit, number } => {
            format!("{formation} ({side}) is activated by chit {chit}: its {} activation this turn.", ordinal(*number))
        }
        Fact::CleanedUp { formation, operations_complete_removed, out_of_command_removed, .. } => format!(
            "Cleanup of {formation}: operations complete removed from {}; out of command removed from {}.",
            list(operations_complete_removed),
            list(out_of_command_removed)
        ),
        Fact::InCommandWithinRadius { formation: _, hq, hq_hex, radius_hexes, units } => {
            let units: Vec<String> =
                units.iter().map(|u| format!("{} ({}, {})", u.unit, u.hex, hexes(u.distance_hexes))).collect();
            format!("Command: within {} of HQ {hq} in {hq_hex}, in command: {}.", hexes(*radius_hexes), list(&units))
        }
        Fact::NewlyPlacedInCommand { formation: _, units } => {
            format!("Command: newly placed, in command in their first activation: {}.", list(units))
        }
        Fact::OperationsBegan { formation, may_act, out_of_command } => format!(
            "Operations of {formation}: may act {}; out of command (no movement or fire) {}.",
            list(may_act),
            list(out_of_command)
        ),
        Fact::ActivationEnded { formation, chit } => {
            format!("{formation}'s activation (chit {chit}) ends.")
        }
        _ => unreachable!("narrate sends only an activation's facts here"),
    }
}

/// Morale and rally tests, roll by roll.
fn test_text(fact: &Fact) -> String {
    match fact {
        Fact::MoraleTested { formation: _, hex, units, reason, dice, roll, morale, passed } => {
            let why = match reason {
                TestReason::OutsideRadius { hq, distance_hexes, radius_hexes } => {
                    format!("{} from HQ {hq}, outside its command radius of {radius_hexes}", hexes(*distance_hexes))
                }
                TestReason::HqDestroyed { hq } => format!("HQ {hq} destroyed"),
            };
            let outcome = if *passed {
                "passed: in command".to_string()
            } else {
                format!("failed: out of command, hex {hex} marked out of command")
            };
            format!(
                "Morale test for hex {hex} ({}; {why}): 2d6 {} = {roll} vs morale {morale}, {outcome}.",
                units.join(", "),
                dice_text(dice)
            )
        }
        Fact::RallyTested {
            formation: _,
            unit,
            hex,
            dice,
            roll,
            modifiers: terms,
            modified_roll,
            morale,
            rallied,
            per_hex,
        } => {
            let shared = if *per_hex { ", the hex's roll" } else { "" };
            let outcome = if *rallied { "rallied, disrupted removed" } else { "stays disrupted" };
            let roll_text = if terms.is_empty() {
                format!("2d6 {} = {roll}", dice_text(dice))
            } else {
                format!("2d6 {} = {roll}{} = {modified_roll}", dice_text(dice), modifiers(terms))
            };
            format!("Rally {unit} in {hex}{shared}: {roll_text} vs morale {morale}: {outcome}.")
        }
        _ => unreachable!("narrate sends only the tests' facts here"),
    }
}

/// Units' operations, and reaction fire.
fn operation_text(fact: &Fact) -> String {
    match fact {
        Fact::Moved { unit, from, to, operations_complete } => {
            format!("{unit} moves from {from} to {to}{}.", operations_text(*operations_complete))
        }
        Fact::Fired { unit, from, at, operations_complete } => {
            format!("{unit} fires from {from} at {at}{}.", operations_text(*operations_complete))
        }
        Fact::Assaulted { unit, from, at, operations_complete } => {
            format!("{unit} assaults from {from} into {at}{}.", operations_text(*operations_complete))
        }
        Fact::ReactionFired { unit, formation, from, at, out_of_command } => {
            let ooc = if *out_of_command { ", out of command" } else { "" };
            format!("{unit} ({formation}{ooc}) takes reaction fire from {from} at {at}.")
        }
        _ => unreachable!("narrate sends only the operations' facts here"),
    }
}

/// The referee's inputs: disruption, elimination, placement, relocation.
fn referee_text(fact: &Fact) -> String {
    match fact {
        Fact::Disrupted { unit, hex, reason } => {
            format!("{unit} in {hex} is disrupted: {reason}.")
        }
        Fact::Eliminated { unit, formation, hex, reason, hq } => {
            if *hq {
                format!("{unit}, HQ of {formation}, is destroyed in {hex}: {reason}. Every unit of {formation} will test morale.")
            } else {
                format!("{unit} ({formation}) is eliminated in {hex}: {reason}.")
            }
        }
        Fact::Placed { unit, formation, hex } => {
            format!("{unit} ({formation}) is placed on the map in {hex}: newly placed.")
        }
        Fact::Relocated { unit, from, to, reason } => format!("{unit} goes from {from} to {to}: {reason}."),
        _ => unreachable!("narrate sends only the referee's facts here"),
    }
}
