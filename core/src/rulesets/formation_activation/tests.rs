//! Tests of the formation-activation rules, in given / when / then shape:
//! given a state (a scenario, and the facts or decisions that led on from
//! it), when a decision with its table dice, then these facts or this
//! refusal, in the one harness of every ruleset (`crate::testing`).
//!
//! The property test of F2 draws its situations and seeds from proptest:
//! a failure prints the case; `PROPTEST_RNG_SEED=<n>` replays a run.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::dice::{Dice, Seed, TableDice};
use crate::refusal::Shared;
use crate::rules::RuleVersion;
use crate::testing::{given, Given, Rolls};

// ---------------------------------------------------------------- helpers

fn hex(text: &str) -> Hex {
    Hex::try_from(text.to_string()).expect("a hex number")
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Two formations: 62-mir (morale 6, leadership 2, radius 2, one chit) with
/// its HQ in 0505, a T-72 at the edge of the radius and a BTR-70 and
/// infantry stacked six hexes out; and 1-66-ar (two chits) with an M1
/// platoon beside its HQ and a reinforcement off the map. The cup, sorted:
/// [0] 1-66-ar/1, [1] 1-66-ar/2, [2] 62-mir/1, [3] end-turn.
fn scenario() -> Value {
    json!({
        "sides": ["nato", "warsaw-pact"],
        "formations": [
            {"id": "62-mir", "side": "warsaw-pact", "hq": "hq-62", "morale": 6, "leadership": 2, "command_radius_hexes": 2},
            {"id": "1-66-ar", "side": "nato", "hq": "hq-1-66", "morale": 7, "leadership": 1, "command_radius_hexes": 3, "chits": 2}
        ],
        "units": [
            {"id": "hq-62", "formation": "62-mir", "hex": "0505"},
            {"id": "t-72", "formation": "62-mir", "hex": "0706"},
            {"id": "btr-70", "formation": "62-mir", "hex": "0909"},
            {"id": "inf-62", "formation": "62-mir", "hex": "0909"},
            {"id": "hq-1-66", "formation": "1-66-ar", "hex": "0201"},
            {"id": "m1-a", "formation": "1-66-ar", "hex": "0302"},
            {"id": "m1-r", "formation": "1-66-ar"}
        ],
        "end_turn_chits": ["end-turn"]
    })
}

/// The scenario with one change made by `edit`.
fn scenario_with(edit: impl FnOnce(&mut Value)) -> Value {
    let mut s = scenario();
    edit(&mut s);
    s
}

/// `formation-activation@1` with these options on and constants set.
fn rules(options: &[&str], constants: &[(&str, i64)]) -> RuleVersion {
    let options: BTreeMap<String, Value> = options.iter().map(|o| (o.to_string(), json!(true))).collect();
    let constants: BTreeMap<String, Value> = constants.iter().map(|(c, v)| (c.to_string(), json!(v))).collect();
    versions()[0].resolve(&options, &constants, "").expect("settings of the version")
}

fn load(scenario: Value, rules: &RuleVersion) -> Result<State, ScenarioError> {
    let scenario: Scenario = serde_json::from_value(scenario).expect("scenario parses");
    FormationActivation::initial(scenario, rules)
}

/// Formation activation's games, in the one harness of every ruleset.
type Game = Given<FormationActivation>;

/// A game from `state`, before any decision.
fn game(state: State) -> Game {
    given(state)
}

fn start() -> Game {
    game(load(scenario(), &rules(&[], &[])).expect("a valid scenario"))
}

fn when(decision: Value) -> Decision {
    serde_json::from_value(decision).expect("a decision")
}

fn begun() -> Game {
    start().decided_rolling(json!({"type": "begin-turn"}), &[])
}

/// 62-mir activated; its stack in 0909 rolls `morale` for its hex.
fn sixty_second_active(morale: &[u32]) -> Game {
    begun().decided_rolling(json!({"type": "draw-chit"}), &[("cup", &[2]), ("morale:0909", morale)])
}

fn draw() -> Value {
    json!({"type": "draw-chit"})
}

fn unit<'a>(state: &'a State, id: &str) -> &'a Unit {
    &state.units[id]
}

fn morale_tests(facts: &[Fact]) -> Vec<(Hex, Vec<String>, u32, bool)> {
    facts
        .iter()
        .filter_map(|f| match f {
            Fact::MoraleTested { hex, units, roll, passed, .. } => Some((*hex, units.clone(), *roll, *passed)),
            _ => None,
        })
        .collect()
}

fn rally_tests(facts: &[Fact]) -> Vec<&Fact> {
    facts.iter().filter(|f| matches!(f, Fact::RallyTested { .. })).collect()
}

// ---------------------------------------------------------------- scenario

#[test]
fn a_valid_scenario_lays_out_formations_units_and_chits() {
    let state = start();
    assert_eq!(
        state.chits.keys().cloned().collect::<Vec<_>>(),
        strings(&["1-66-ar/1", "1-66-ar/2", "62-mir/1", "end-turn"])
    );
    assert_eq!(state.formations["1-66-ar"].chits, strings(&["1-66-ar/1", "1-66-ar/2"]));
    assert_eq!(state.end_turn_after, 1);
    assert_eq!(unit(&state, "m1-r").hex, None);
    assert_eq!(unit(&state, "btr-70").hex, Some(hex("0909")));
}

#[test]
fn scenario_errors_name_the_field() {
    let r = rules(&[], &[]);
    let cases: Vec<(Value, &str, &str)> = vec![
        (scenario_with(|s| s["sides"] = json!(["nato", "nato"])), "sides", "name exactly two different sides"),
        (
            scenario_with(|s| s["formations"][1]["side"] = json!("bundeswehr")),
            "formations[1].side",
            "\"bundeswehr\" is not one of the sides (nato, warsaw-pact)",
        ),
        (
            scenario_with(|s| s["formations"][1]["chits"] = json!(3)),
            "formations[1].chits",
            "a formation has one or two formation chits, not 3",
        ),
        (
            scenario_with(|s| s["formations"][0]["id"] = json!("62/mir")),
            "formations[0].id",
            "a formation id may not be empty or contain '/'",
        ),
        (
            scenario_with(|s| s["formations"][0]["hq"] = json!("hq-99")),
            "formations[0].hq",
            "\"hq-99\" is not a unit of the scenario",
        ),
        (
            scenario_with(|s| s["formations"][0]["hq"] = json!("m1-a")),
            "formations[0].hq",
            "\"m1-a\" belongs to formation \"1-66-ar\": an HQ is a unit of its own formation",
        ),
        (
            scenario_with(|s| s["formations"][1]["hq"] = json!("m1-r")),
            "formations[1].hq",
            "\"m1-r\" must start on the map: command radius is measured from it",
        ),
        (
            scenario_with(|s| s["units"][2]["formation"] = json!("63-mir")),
            "units[2].formation",
            "\"63-mir\" is not a formation of the scenario (1-66-ar, 62-mir)",
        ),
        (scenario_with(|s| s["units"][3]["id"] = json!("btr-70")), "units[3].id", "\"btr-70\" is used twice"),
        (
            scenario_with(|s| s["units"][6]["newly_placed"] = json!(true)),
            "units[6].newly_placed",
            "a unit off the map is newly placed when the referee places it",
        ),
        (
            scenario_with(|s| s["end_turn_chits"] = json!([])),
            "end_turn_chits",
            "put at least one end-turn chit into the cup: drawing it ends the turn",
        ),
        (
            scenario_with(|s| s["end_turn_chits"] = json!(["62-mir/1"])),
            "end_turn_chits[0]",
            "\"62-mir/1\" is empty or already the id of a chit",
        ),
        (
            scenario_with(|s| s["end_turn_after"] = json!(2)),
            "end_turn_after",
            "the turn ends after 1 to 1 end-turn chits (there are 1), not 2",
        ),
    ];
    for (scenario, field, message) in cases {
        let err = load(scenario, &r).expect_err(field);
        assert_eq!((err.field.as_str(), err.message.as_str()), (field, message));
    }
    // The constant's range refuses 0 where rules are written; a version
    // built otherwise is refused where the ruleset reads it.
    let constants = [("operations-per-activation".to_string(), json!(0))].into();
    let err = versions()[0].resolve(&BTreeMap::new(), &constants, "").unwrap_err();
    assert_eq!(
        err.to_string(),
        "constants.operations-per-activation: 0 is out of range: this constant must lie in 1..=100"
    );
    let mut zero = rules(&[], &[]);
    zero.constants.insert("operations-per-activation".into(), 0);
    let err = load(scenario(), &zero).unwrap_err();
    assert_eq!(
        (err.field.as_str(), err.message.as_str()),
        ("rules.constants.operations-per-activation", "must be at least 1")
    );
}

/// A hex that is not a map number is refused where it is written.
#[test]
fn a_bad_hex_number_names_its_field() {
    let info = crate::registry::find("formation-activation").unwrap();
    let s = scenario_with(|s| s["units"][1]["hex"] = json!("706"));
    let err = (info.load)(&s, &rules(&[], &[])).err().expect("refused");
    assert_eq!(err.field, "units[1].hex");
    assert!(err.message.contains("\"706\" is not a hex number"), "{}", err.message);
}

// ---------------------------------------------------------------- the cup

/// Every chit goes into the cup in canonical order.
#[test]
fn a_turn_puts_every_chit_into_the_cup_sorted() {
    start()
        .when_rolling(json!({"type": "begin-turn"}), &[])
        .then(vec![Fact::TurnBegan { turn: 1, cup: strings(&["1-66-ar/1", "1-66-ar/2", "62-mir/1", "end-turn"]) }]);
}

/// The draw is an addressed pick among the chits left, recorded as a roll.
#[test]
fn a_draw_is_a_seeded_pick_recorded_as_the_roll_cup() {
    let state = begun();
    let seed = Seed([7; 32]);
    let mut dice = Dice::seeded(&seed, 2);
    let facts = FormationActivation::decide(&state, &when(json!({"type": "draw-chit"})), &mut dice).unwrap();
    let rolls = dice.finish().unwrap();
    assert_eq!(rolls[0].label, "cup");
    assert_eq!(rolls[0].die, crate::dice::Die::Pick(4));
    let drawn = &state.turn.as_ref().unwrap().cup[rolls[0].value as usize];
    assert_eq!(facts[0], Fact::ChitDrawn { turn: 1, chit: drawn.clone(), cup_size: 4 });
    // The same address gives the same chit.
    let again = crate::dice::draw(&seed, 2, "cup", 0, crate::dice::Die::Pick(4));
    assert_eq!(again, rolls[0].value);
}

#[test]
fn a_drawn_chit_leaves_the_cup() {
    let state = sixty_second_active(&[3, 3]);
    assert_eq!(state.turn.as_ref().unwrap().cup, strings(&["1-66-ar/1", "1-66-ar/2", "end-turn"]));
}

/// "Note that some formations have two formation markers and can be
/// activated twice per turn." Drawing the end-turn chit ends the turn.
#[test]
fn the_end_turn_chit_ends_the_turn_and_leaves_the_rest_undrawn() {
    let facts = begun().when_rolling(draw(), &[("cup", &[3])]).facts();
    assert_eq!(
        facts,
        vec![
            Fact::ChitDrawn { turn: 1, chit: "end-turn".into(), cup_size: 4 },
            Fact::EndTurnChitDrawn { chit: "end-turn".into(), drawn: 1, needed: 1 },
            Fact::TurnEnded { turn: 1, undrawn: strings(&["1-66-ar/1", "1-66-ar/2", "62-mir/1"]) },
        ]
    );
    let over = begun().facts(&facts);
    assert_eq!(over.when_rolling(draw(), &[]).refusal_of(Shared::TurnOver), "turn 1 is over: begin the next turn");
    let next = over.when_rolling(json!({"type": "begin-turn"}), &[]).facts();
    assert!(matches!(next[0], Fact::TurnBegan { turn: 2, .. }));
}

/// The scenario sets how many end-turn chits end the turn.
#[test]
fn with_two_end_turn_chits_needed_the_first_one_does_not_end_the_turn() {
    let s = scenario_with(|s| {
        s["end_turn_chits"] = json!(["end-turn-1", "end-turn-2"]);
        s["end_turn_after"] = json!(2);
    });
    let state = game(load(s, &rules(&[], &[])).unwrap()).decided_rolling(json!({"type": "begin-turn"}), &[]);
    // Cup: 1-66-ar/1, 1-66-ar/2, 62-mir/1, end-turn-1, end-turn-2.
    let facts = state.when_rolling(draw(), &[("cup", &[3])]).facts();
    assert_eq!(facts[1], Fact::EndTurnChitDrawn { chit: "end-turn-1".into(), drawn: 1, needed: 2 });
    assert_eq!(facts.len(), 2, "the turn goes on");
    let state = state.facts(&facts);
    let facts = state.when_rolling(draw(), &[("cup", &[3])]).facts();
    assert!(matches!(facts.last(), Some(Fact::TurnEnded { turn: 1, .. })));
}

#[test]
fn turn_order_refusals_say_what_to_do() {
    assert_eq!(
        start().when_rolling(draw(), &[]).refusal_of(Shared::NoTurnBegun),
        "no turn has begun: begin a turn first"
    );
    assert_eq!(
        begun().when_rolling(json!({"type": "begin-turn"}), &[]).refusal_of(Shared::TurnNotOver),
        "turn 1 is not over: draw chits until the end-turn chit ends it (0 end-turn chit(s) drawn of 1; in the cup: 1-66-ar/1, 1-66-ar/2, 62-mir/1, end-turn)"
    );
    let active = sixty_second_active(&[3, 3]);
    assert_eq!(
        active.when_rolling(json!({"type": "begin-turn"}), &[]).refusal_of(Shared::TurnNotOver),
        "turn 1 is not over: 62-mir is active (chit 62-mir/1); end its activation and draw until the end-turn chit ends the turn"
    );
    assert_eq!(
        active.when_rolling(draw(), &[("cup", &[0])]).refusal_of(Shared::StillActive),
        "62-mir is still active (chit 62-mir/1): end its activation before drawing the next chit"
    );
    assert_eq!(
        begun().when_rolling(json!({"type": "end-activation"}), &[]).refusal_of(Shared::NothingActive),
        "no formation is active: draw a chit first"
    );
    let over = begun().decided_rolling(draw(), &[("cup", &[3])]);
    assert_eq!(
        over.when_rolling(json!({"type": "end-activation"}), &[]).refusal_of(Shared::TurnOver),
        "turn 1 is over and no formation is active: begin the next turn"
    );
    // A cup emptied by hand (the scenario's end-turn chits end a turn first).
    let empty = start().facts(&[Fact::TurnBegan { turn: 1, cup: vec![] }]);
    assert_eq!(empty.when_rolling(draw(), &[]).refusal_of(Refused::CupEmpty), "the cup is empty: begin the next turn");
}

// ---------------------------------------------------------------- an activation

/// "All actions must be performed in the sequence set out below": cleanup,
/// command, rally, operations.
#[test]
fn an_activation_runs_cleanup_command_rally_then_operations() {
    let s = scenario_with(|s| s["units"][1]["disrupted"] = json!(true));
    let state = game(load(s, &rules(&[], &[])).unwrap()).decided_rolling(json!({"type": "begin-turn"}), &[]);
    let facts = state.when_rolling(draw(), &[("cup", &[2]), ("morale:0909", &[1, 2]), ("rally:t-72", &[2, 2])]).facts();
    let kinds: Vec<&str> = facts
        .iter()
        .map(|f| match f {
            Fact::ChitDrawn { .. } => "drawn",
            Fact::ActivationBegan { .. } => "activated",
            Fact::CleanedUp { .. } => "cleanup",
            Fact::InCommandWithinRadius { .. } => "within radius",
            Fact::MoraleTested { .. } => "morale test",
            Fact::RallyTested { .. } => "rally",
            Fact::OperationsBegan { .. } => "operations",
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["drawn", "activated", "cleanup", "within radius", "morale test", "rally", "operations"]);
    assert_eq!(
        facts[1],
        Fact::ActivationBegan {
            formation: "62-mir".into(),
            side: "warsaw-pact".into(),
            chit: "62-mir/1".into(),
            number: 1
        }
    );
}

/// "Important: if a formation has two formation markers, each of its units
/// may act twice per turn." Two chits: two activations, cleanup between.
#[test]
fn a_formation_with_two_chits_activates_twice_and_its_units_act_twice() {
    let first = begun().decided_rolling(draw(), &[("cup", &[0])]);
    let moved = first.decided_rolling(json!({"type": "move", "unit": "m1-a", "to": "0303"}), &[]);
    assert!(unit(&moved, "m1-a").operations_complete);
    let ended = moved.decided_rolling(json!({"type": "end-activation"}), &[]);
    // Cup: 1-66-ar/2, 62-mir/1, end-turn.
    let facts = ended.when_rolling(draw(), &[("cup", &[0])]).facts();
    assert_eq!(
        facts[1],
        Fact::ActivationBegan { formation: "1-66-ar".into(), side: "nato".into(), chit: "1-66-ar/2".into(), number: 2 }
    );
    assert_eq!(
        facts[2],
        Fact::CleanedUp {
            formation: "1-66-ar".into(),
            units: strings(&["hq-1-66", "m1-a"]),
            operations_complete_removed: strings(&["m1-a"]),
            out_of_command_removed: vec![],
        }
    );
    let second = ended.facts(&facts);
    second.when_rolling(json!({"type": "move", "unit": "m1-a", "to": "0304"}), &[]).then(vec![Fact::Moved {
        unit: "m1-a".into(),
        from: hex("0303"),
        to: hex("0304"),
        operations_complete: true,
    }]);
}

/// "Remove all "operations complete" and "out of command" markers from the
/// formation." F7: only the active formation's units.
#[test]
fn cleanup_removes_the_markers_of_the_active_formation_only() {
    let given = begun().facts(&[
        Fact::MoraleTested {
            formation: "62-mir".into(),
            hex: hex("0909"),
            units: strings(&["btr-70", "inf-62"]),
            reason: TestReason::HqDestroyed { hq: "hq-62".into() },
            dice: vec![6, 6],
            roll: 12,
            morale: 6,
            passed: false,
        },
        Fact::MoraleTested {
            formation: "1-66-ar".into(),
            hex: hex("0302"),
            units: strings(&["m1-a"]),
            reason: TestReason::HqDestroyed { hq: "hq-1-66".into() },
            dice: vec![6, 6],
            roll: 12,
            morale: 7,
            passed: false,
        },
    ]);
    let facts = given.when_rolling(draw(), &[("cup", &[2]), ("morale:0909", &[2, 2])]).facts();
    assert_eq!(
        facts[2],
        Fact::CleanedUp {
            formation: "62-mir".into(),
            units: strings(&["btr-70", "hq-62", "inf-62", "t-72"]),
            operations_complete_removed: vec![],
            out_of_command_removed: strings(&["btr-70", "inf-62"]),
        }
    );
    let state = given.facts(&facts);
    assert!(!unit(&state, "btr-70").out_of_command);
    assert!(unit(&state, "m1-a").out_of_command, "another formation's marker stays");
}

// ---------------------------------------------------------------- command

/// "Units within the command radius of their HQ are in command." F5: the
/// radius is in hexes, inclusive: the T-72 two hexes out, radius 2, is in
/// command without a test.
#[test]
fn units_within_the_radius_are_in_command_edge_included() {
    let facts = begun().when_rolling(draw(), &[("cup", &[2]), ("morale:0909", &[3, 3])]).facts();
    assert_eq!(
        facts[3],
        Fact::InCommandWithinRadius {
            formation: "62-mir".into(),
            hq: "hq-62".into(),
            hq_hex: hex("0505"),
            radius_hexes: 2,
            units: vec![
                UnitDistance { unit: "hq-62".into(), hex: hex("0505"), distance_hexes: 0 },
                UnitDistance { unit: "t-72".into(), hex: hex("0706"), distance_hexes: 2 },
            ],
        }
    );
    // One hex further, and it tests.
    let s = scenario_with(|s| s["units"][1]["hex"] = json!("0707"));
    let state = game(load(s, &rules(&[], &[])).unwrap()).decided_rolling(json!({"type": "begin-turn"}), &[]);
    let facts =
        state.when_rolling(draw(), &[("cup", &[2]), ("morale:0707", &[1, 1]), ("morale:0909", &[3, 3])]).facts();
    assert_eq!(morale_tests(&facts)[0], (hex("0707"), strings(&["t-72"]), 2, true));
}

/// "The morale test is taken per hex, not per individual unit in it." The
/// text's example: the 62nd regiment's BTR-70 and infantry in one hex,
/// morale 6, roll 7: failed, both out of command, the hex marked.
#[test]
fn outside_the_radius_one_morale_test_per_hex_the_62nd_example() {
    let facts = begun().when_rolling(draw(), &[("cup", &[2]), ("morale:0909", &[3, 4])]).facts();
    assert_eq!(
        facts[4],
        Fact::MoraleTested {
            formation: "62-mir".into(),
            hex: hex("0909"),
            units: strings(&["btr-70", "inf-62"]),
            reason: TestReason::OutsideRadius { hq: "hq-62".into(), distance_hexes: 6, radius_hexes: 2 },
            dice: vec![3, 4],
            roll: 7,
            morale: 6,
            passed: false,
        }
    );
    let state = begun().facts(&facts);
    assert!(unit(&state, "btr-70").out_of_command);
    assert!(unit(&state, "inf-62").out_of_command);
    assert!(!unit(&state, "t-72").out_of_command);
    assert!(render(&state).contains("0909: btr-70 [out of command]; inf-62 [out of command]"));
}

/// F1: "a result less than or equal to the value printed on the HQ
/// counter" passes: 6 against morale 6 is in command.
#[test]
fn a_morale_roll_equal_to_the_rating_passes() {
    let state = sixty_second_active(&[2, 4]);
    assert!(!unit(&state, "btr-70").out_of_command);
    assert!(!unit(&state, "inf-62").out_of_command);
}

/// "(including those whose HQ has been destroyed (1.3.3.3))": every unit
/// tests, per hex, even those that stood within the radius.
#[test]
fn with_the_hq_destroyed_every_unit_tests_per_hex() {
    let destroyed = begun().decided_rolling(json!({"type": "eliminate", "unit": "hq-62", "reason": "artillery"}), &[]);
    let facts =
        destroyed.when_rolling(draw(), &[("cup", &[2]), ("morale:0706", &[5, 2]), ("morale:0909", &[1, 1])]).facts();
    assert!(!facts.iter().any(|f| matches!(f, Fact::InCommandWithinRadius { .. })));
    assert_eq!(
        morale_tests(&facts),
        vec![(hex("0706"), strings(&["t-72"]), 7, false), (hex("0909"), strings(&["btr-70", "inf-62"]), 2, true),]
    );
    assert!(facts.iter().any(|f| matches!(f, Fact::MoraleTested { reason: TestReason::HqDestroyed { .. }, .. })));
}

/// "All units newly placed on the map are in command during their first
/// action phase." F6: the formation's first activation after placement;
/// in the next one they test like any other unit.
#[test]
fn newly_placed_units_are_in_command_in_their_first_activation_only() {
    let placed = begun().decided_rolling(json!({"type": "place", "unit": "m1-r", "hex": "0909"}), &[]);
    assert!(unit(&placed, "m1-r").newly_placed);
    let facts = placed.when_rolling(draw(), &[("cup", &[0])]).facts();
    assert_eq!(facts[4], Fact::NewlyPlacedInCommand { formation: "1-66-ar".into(), units: strings(&["m1-r"]) });
    assert!(morale_tests(&facts).is_empty(), "eleven hexes out, no test");
    let first = placed.facts(&facts);
    assert!(!unit(&first, "m1-r").newly_placed);
    let ended = first.decided_rolling(json!({"type": "end-activation"}), &[]);
    let facts = ended.when_rolling(draw(), &[("cup", &[0]), ("morale:0909", &[6, 6])]).facts();
    assert_eq!(morale_tests(&facts), vec![(hex("0909"), strings(&["m1-r"]), 12, false)]);
}

/// A scenario may say a unit set up on the map counts as newly placed.
#[test]
fn a_scenario_may_mark_a_unit_newly_placed() {
    let s = scenario_with(|s| s["units"][2]["newly_placed"] = json!(true));
    let state = game(load(s, &rules(&[], &[])).unwrap()).decided_rolling(json!({"type": "begin-turn"}), &[]);
    let facts = state.when_rolling(draw(), &[("cup", &[2]), ("morale:0909", &[6, 6])]).facts();
    assert_eq!(morale_tests(&facts), vec![(hex("0909"), strings(&["inf-62"]), 12, false)]);
}

/// F7: in a mixed stack only the active formation's units test.
#[test]
fn only_the_active_formations_units_test_in_a_mixed_stack() {
    let s = scenario_with(|s| s["units"][5]["hex"] = json!("0909"));
    let state = game(load(s, &rules(&[], &[])).unwrap()).decided_rolling(json!({"type": "begin-turn"}), &[]);
    let facts = state.when_rolling(draw(), &[("cup", &[2]), ("morale:0909", &[6, 5])]).facts();
    assert_eq!(morale_tests(&facts), vec![(hex("0909"), strings(&["btr-70", "inf-62"]), 11, false)]);
    let state = state.facts(&facts);
    assert!(!unit(&state, "m1-a").out_of_command);
}

#[test]
fn a_morale_die_the_table_did_not_roll_is_refused() {
    assert_eq!(
        begun().when_rolling(draw(), &[("cup", &[2])]).refusal_of(Shared::Dice),
        "the rules need d6 'morale:0909' #0, which the table did not roll (the die is unknown)"
    );
}

// ---------------------------------------------------------------- rally

/// A 62-mir with three disrupted units: infantry stacked with the HQ, the
/// BTR-70 in 0909 (out of command after `morale`) and the T-72 in command.
fn rally_state(rules: &RuleVersion) -> Game {
    let s = scenario_with(|s| {
        s["units"][3]["hex"] = json!("0505");
        s["units"][3]["disrupted"] = json!(true);
        s["units"][2]["disrupted"] = json!(true);
        s["units"][1]["disrupted"] = json!(true);
    });
    game(load(s, rules).unwrap()).decided_rolling(json!({"type": "begin-turn"}), &[])
}

/// 62-mir's chit drawn in `rally_state`: the stack in 0909 passes its
/// morale test, and each disrupted unit rolls to rally.
const RALLY_ROLLS: Rolls<'static> = &[
    ("cup", &[2]),
    ("morale:0909", &[4, 4]),
    ("rally:btr-70", &[2, 4]),
    ("rally:inf-62", &[3, 4]),
    ("rally:t-72", &[3, 3]),
];

fn modifier(what: &str, value: i64) -> Modifier {
    Modifier { what: what.into(), value }
}

/// "Attempt to rally (recover) disrupted units: those that pass a morale
/// test are rallied. Out-of-command units add one to the 2d6 roll. Units in
/// the same hex as the HQ modify the morale test by the HQ's leadership
/// value. The "Disrupted" marker is removed from every unit that passes the
/// morale test." F2: leadership off the roll; F3: one test per unit.
#[test]
fn rally_adds_one_out_of_command_and_takes_off_the_hq_leadership() {
    let state = rally_state(&rules(&[], &[]));
    let facts = state.when_rolling(draw(), RALLY_ROLLS).facts();
    let rallies = rally_tests(&facts);
    assert_eq!(
        rallies,
        vec![
            &Fact::RallyTested {
                formation: "62-mir".into(),
                unit: "btr-70".into(),
                hex: hex("0909"),
                dice: vec![2, 4],
                roll: 6,
                modifiers: vec![modifier("out of command", 1)],
                modified_roll: 7,
                morale: 6,
                rallied: false,
                per_hex: false,
            },
            &Fact::RallyTested {
                formation: "62-mir".into(),
                unit: "inf-62".into(),
                hex: hex("0505"),
                dice: vec![3, 4],
                roll: 7,
                modifiers: vec![modifier("HQ hq-62 leadership", -2)],
                modified_roll: 5,
                morale: 6,
                rallied: true,
                per_hex: false,
            },
            &Fact::RallyTested {
                formation: "62-mir".into(),
                unit: "t-72".into(),
                hex: hex("0706"),
                dice: vec![3, 3],
                roll: 6,
                modifiers: vec![],
                modified_roll: 6,
                morale: 6,
                rallied: true,
                per_hex: false,
            },
        ]
    );
    let state = state.facts(&facts);
    assert!(unit(&state, "btr-70").disrupted);
    assert!(!unit(&state, "inf-62").disrupted);
    assert!(!unit(&state, "t-72").disrupted);
}

/// F2's option: the leadership added to the rating instead gives the same
/// pass or fail, and the record writes the test in one form.
#[test]
fn leadership_adds_to_rating_writes_the_same_record() {
    let state = rally_state(&rules(&["leadership-adds-to-rating"], &[]));
    let facts = state.when_rolling(draw(), RALLY_ROLLS).facts();
    let default = rally_state(&rules(&[], &[])).when_rolling(draw(), RALLY_ROLLS).facts();
    // The record has one form: the leadership written on the roll, whichever reading.
    assert_eq!(facts, default);
    let Fact::RallyTested { modifiers, modified_roll, rallied, .. } = rally_tests(&facts)[1] else { unreachable!() };
    assert_eq!(modifiers, &vec![modifier("HQ hq-62 leadership", -2)]);
    assert_eq!((*modified_roll, *rallied), (5, true));
}

/// The out-of-command modifier is a constant a group may change.
#[test]
fn the_out_of_command_rally_modifier_is_a_constant() {
    let state = rally_state(&rules(&[], &[("out-of-command-rally-modifier", 0)]));
    let facts = state
        .when_rolling(
            draw(),
            &[
                ("cup", &[2]),
                ("morale:0909", &[4, 4]),
                ("rally:btr-70", &[2, 4]),
                ("rally:inf-62", &[6, 6]),
                ("rally:t-72", &[6, 6]),
            ],
        )
        .facts();
    let Fact::RallyTested { modified_roll, rallied, .. } = rally_tests(&facts)[0] else { unreachable!() };
    assert_eq!((*modified_roll, *rallied), (6, true));
}

/// F3's option: one roll per hex of disrupted units, each unit judged by it
/// with its own modifiers.
#[test]
fn rally_per_hex_rolls_once_for_each_hex() {
    let s = scenario_with(|s| {
        s["units"][2]["disrupted"] = json!(true);
        s["units"][3]["disrupted"] = json!(true);
        s["units"][1]["disrupted"] = json!(true);
    });
    let state =
        game(load(s, &rules(&["rally-per-hex"], &[])).unwrap()).decided_rolling(json!({"type": "begin-turn"}), &[]);
    let facts = state
        .when_rolling(
            draw(),
            &[("cup", &[2]), ("morale:0909", &[4, 4]), ("rally:0706", &[5, 2]), ("rally:0909", &[2, 3])],
        )
        .facts();
    let outcomes: Vec<(String, Vec<u32>, i64, bool, bool)> = rally_tests(&facts)
        .into_iter()
        .map(|f| match f {
            Fact::RallyTested { unit, dice, modified_roll, rallied, per_hex, .. } => {
                (unit.clone(), dice.clone(), *modified_roll, *rallied, *per_hex)
            }
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        outcomes,
        vec![
            ("btr-70".into(), vec![2, 3], 6, true, true),
            ("inf-62".into(), vec![2, 3], 6, true, true),
            ("t-72".into(), vec![5, 2], 7, false, true),
        ]
    );
}

/// A situation for the F2 property: a formation's HQ, morale, leadership
/// and radius, its units (hex, disrupted, newly placed), whether the HQ is
/// destroyed, and the game seed.
#[derive(Debug, Clone)]
struct Situation {
    morale: u32,
    leadership: u32,
    radius: u32,
    hq_destroyed: bool,
    units: Vec<(Hex, bool, bool)>,
    seed: [u8; 32],
}

fn situation() -> impl Strategy<Value = Situation> {
    let hq = Hex::new(3, 3);
    let unit_hex = prop_oneof![Just(hq), (1u8..=6, 1u8..=6).prop_map(|(c, r)| Hex::new(c, r))];
    (
        2u32..=12,
        0u32..=3,
        0u32..=3,
        any::<bool>(),
        prop::collection::vec((unit_hex, any::<bool>(), any::<bool>()), 1..=5),
        any::<[u8; 32]>(),
    )
        .prop_map(|(morale, leadership, radius, hq_destroyed, units, seed)| Situation {
            morale,
            leadership,
            radius,
            hq_destroyed,
            units,
            seed,
        })
}

/// Plays a situation under `rules` with seeded dice, turn after turn, until
/// its formation has been activated (or ten turns have passed): the units'
/// final state, every rally test (unit, dice, rallied, target − modified
/// roll), and whether the formation was activated.
type Played = (BTreeMap<String, Unit>, Vec<(String, Vec<u32>, bool, i64)>, bool);

fn play_situation(s: &Situation, rules: &RuleVersion) -> Played {
    let mut units = vec![json!({"id": "hq", "formation": "f", "hex": "0303"})];
    for (i, (h, disrupted, newly)) in s.units.iter().enumerate() {
        units.push(json!({"id": format!("u{i}"), "formation": "f", "hex": h.to_string(), "disrupted": disrupted, "newly_placed": newly}));
    }
    let scenario = json!({
        "sides": ["red", "blue"],
        "formations": [{"id": "f", "side": "red", "hq": "hq", "morale": s.morale, "leadership": s.leadership, "command_radius_hexes": s.radius}],
        "units": units,
        "end_turn_chits": ["end-turn"]
    });
    let mut state = game(load(scenario, rules).unwrap());
    if s.hq_destroyed {
        state = state.decided_rolling(json!({"type": "eliminate", "unit": "hq", "reason": "given"}), &[]);
    }
    let seed = Seed(s.seed);
    let mut rallies = Vec::new();
    let mut activated = false;
    let mut number = 1;
    // Each turn's first draw is the formation's chit or the end-turn chit.
    while !activated && number <= 20 {
        for decision in [json!({"type": "begin-turn"}), draw()] {
            let mut dice = Dice::seeded(&seed, number);
            number += 1;
            let facts = FormationActivation::decide(&state, &when(decision), &mut dice).unwrap();
            for f in &facts {
                match f {
                    Fact::RallyTested { unit, dice, rallied, modified_roll, morale, .. } => {
                        rallies.push((unit.clone(), dice.clone(), *rallied, i64::from(*morale) - modified_roll))
                    }
                    Fact::ActivationBegan { .. } => activated = true,
                    _ => {}
                }
            }
            state = state.facts(&facts);
        }
    }
    (state.units.clone(), rallies, activated)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// F2: taking the HQ's leadership off the roll and adding it to the
    /// rating give the same result, for any dice, morale, leadership,
    /// radius, stacking, command status and destroyed HQ.
    #[test]
    fn leadership_adds_to_rating_gives_the_same_results(s in situation()) {
        let (units_a, rallies_a, activated) = play_situation(&s, &rules(&[], &[]));
        let (units_b, rallies_b, _) = play_situation(&s, &rules(&["leadership-adds-to-rating"], &[]));
        prop_assume!(activated);
        prop_assert_eq!(rallies_a, rallies_b);
        prop_assert_eq!(units_a, units_b);
    }
}

/// The property above is not empty: in its kind of situation the leadership
/// decides a rally, under both readings.
#[test]
fn the_leadership_decides_a_rally_under_both_readings() {
    for options in [&[][..], &["leadership-adds-to-rating"][..]] {
        let state = rally_state(&rules(options, &[]));
        let facts = state
            .when_rolling(
                draw(),
                &[
                    ("cup", &[2]),
                    ("morale:0909", &[1, 1]),
                    ("rally:btr-70", &[4, 4]),
                    ("rally:inf-62", &[4, 4]),
                    ("rally:t-72", &[4, 4]),
                ],
            )
            .facts();
        let rallied: Vec<bool> =
            rally_tests(&facts).iter().map(|f| matches!(f, Fact::RallyTested { rallied: true, .. })).collect();
        // 8 fails against 6, except with the HQ's 2: btr-70, inf-62, t-72.
        assert_eq!(rallied, [false, true, false], "{options:?}");
    }
}

// ---------------------------------------------------------------- operations

/// "Out-of-command units may not move or fire during the action phase".
#[test]
fn an_out_of_command_unit_is_refused_movement_fire_and_assault() {
    let state = sixty_second_active(&[3, 4]);
    let expected = |verb: &str| {
        format!("btr-70 is out of command and may not {verb}: \"Out-of-command units may not move or fire during the action phase, but may take reaction fire during the opponent's action phase\". 62-mir's units that may act: hq-62, t-72")
    };
    assert_eq!(
        state
            .when_rolling(json!({"type": "move", "unit": "btr-70", "to": "0808"}), &[])
            .refusal_of(Refused::OutOfCommand),
        expected("move")
    );
    assert_eq!(
        state
            .when_rolling(json!({"type": "fire", "unit": "btr-70", "at": "0808"}), &[])
            .refusal_of(Refused::OutOfCommand),
        expected("fire")
    );
    assert_eq!(
        state
            .when_rolling(json!({"type": "assault", "unit": "btr-70", "at": "0808"}), &[])
            .refusal_of(Refused::OutOfCommand),
        expected("assault")
    );
}

/// "Conduct operations (movement, fire, assault, etc.) with the in-command
/// units of the formation." Where a move ends is the referee's input.
#[test]
fn in_command_units_move_fire_and_assault() {
    let state = sixty_second_active(&[3, 3]);
    state.when_rolling(json!({"type": "move", "unit": "btr-70", "to": "0808"}), &[]).then(vec![Fact::Moved {
        unit: "btr-70".into(),
        from: hex("0909"),
        to: hex("0808"),
        operations_complete: true,
    }]);
    state.when_rolling(json!({"type": "fire", "unit": "t-72", "at": "0302"}), &[]).then(vec![Fact::Fired {
        unit: "t-72".into(),
        from: hex("0706"),
        at: hex("0302"),
        operations_complete: true,
    }]);
    state.when_rolling(json!({"type": "assault", "unit": "inf-62", "at": "0808"}), &[]).then(vec![Fact::Assaulted {
        unit: "inf-62".into(),
        from: hex("0909"),
        at: hex("0808"),
        operations_complete: true,
    }]);
}

/// A unit that has conducted its operations is marked operations complete
/// until its formation's next cleanup.
#[test]
fn a_unit_with_operations_complete_is_refused_until_the_next_cleanup() {
    let state =
        sixty_second_active(&[3, 3]).decided_rolling(json!({"type": "move", "unit": "t-72", "to": "0807"}), &[]);
    assert_eq!(
        state.when_rolling(json!({"type": "fire", "unit": "t-72", "at": "0302"}), &[]).refusal_of(Refused::OperationsComplete),
        "t-72 has completed its operations in this activation (operations complete) and acts again after 62-mir's next cleanup; units that may act: btr-70, hq-62, inf-62"
    );
}

/// `operations-per-activation` lets a unit conduct more than one operation.
#[test]
fn operations_per_activation_is_a_constant() {
    let state = game(load(scenario(), &rules(&[], &[("operations-per-activation", 2)])).unwrap());
    let state = state.decided_rolling(json!({"type": "begin-turn"}), &[]);
    let state = state.decided_rolling(draw(), &[("cup", &[2]), ("morale:0909", &[1, 1])]);
    let facts = state.when_rolling(json!({"type": "move", "unit": "t-72", "to": "0807"}), &[]).facts();
    assert!(matches!(facts[0], Fact::Moved { operations_complete: false, .. }));
    let state = state.facts(&facts);
    let facts = state.when_rolling(json!({"type": "fire", "unit": "t-72", "at": "0302"}), &[]).facts();
    assert!(matches!(facts[0], Fact::Fired { operations_complete: true, .. }));
}

/// One operation per activation is this project's
/// reading of sentences that do not settle it: the setting names its open
/// point (FN2) and says the sentences leave it open, with the alternatives.
#[test]
fn operations_per_activation_is_an_open_point_with_its_alternatives() {
    let spec = versions().remove(0);
    let setting = spec.setting("operations-per-activation").unwrap();
    assert_eq!(setting.point, Some("FN2"));
    assert!(setting.settles.contains("neither says how many operations one activation allows"), "{}", setting.settles);
    assert!(setting.help.contains("Other readings"), "{}", setting.help);
}

#[test]
fn only_the_active_formation_conducts_operations() {
    let state = sixty_second_active(&[3, 4]);
    assert_eq!(
        state.when_rolling(json!({"type": "move", "unit": "m1-a", "to": "0303"}), &[]).refusal_of(Refused::FormationNotActive),
        "m1-a belongs to 1-66-ar (nato), and 62-mir (warsaw-pact) is active: only 62-mir's in-command units conduct operations (hq-62, t-72); m1-a may take reaction fire instead"
    );
    let s = scenario_with(|s| {
        s["formations"][1]["side"] = json!("warsaw-pact");
    });
    let state = game(load(s, &rules(&[], &[])).unwrap()).decided_rolling(json!({"type": "begin-turn"}), &[]);
    let state = state.decided_rolling(draw(), &[("cup", &[2]), ("morale:0909", &[1, 1])]);
    assert_eq!(
        state.when_rolling(json!({"type": "move", "unit": "m1-a", "to": "0303"}), &[]).refusal_of(Refused::FormationNotActive),
        "m1-a belongs to 1-66-ar, which is not active: only 62-mir's in-command units conduct operations now (btr-70, hq-62, inf-62, t-72)"
    );
    assert_eq!(
        begun()
            .when_rolling(json!({"type": "move", "unit": "t-72", "to": "0807"}), &[])
            .refusal_of(Shared::NothingActive),
        "no formation is active: draw a chit first"
    );
}

#[test]
fn a_move_or_assault_names_another_hex() {
    let state = sixty_second_active(&[3, 3]);
    assert_eq!(
        state.when_rolling(json!({"type": "move", "unit": "t-72", "to": "0706"}), &[]).refusal_of(Refused::SameHex),
        "t-72 is already in 0706: a move ends in another hex"
    );
    assert_eq!(
        state.when_rolling(json!({"type": "assault", "unit": "t-72", "at": "0706"}), &[]).refusal_of(Refused::SameHex),
        "t-72 is in 0706: it assaults another hex"
    );
}

/// "... but may take reaction fire during the opponent's action phase (6.2)."
#[test]
fn an_out_of_command_unit_may_take_reaction_fire_in_the_opponents_activation() {
    let state = sixty_second_active(&[3, 4]).decided_rolling(json!({"type": "end-activation"}), &[]);
    // Cup: 1-66-ar/1, 1-66-ar/2, end-turn.
    let state = state.decided_rolling(draw(), &[("cup", &[0])]);
    state.when_rolling(json!({"type": "reaction-fire", "unit": "btr-70", "at": "0302"}), &[]).then(vec![
        Fact::ReactionFired {
            unit: "btr-70".into(),
            formation: "62-mir".into(),
            from: hex("0909"),
            at: hex("0302"),
            out_of_command: true,
        },
    ]);
}

#[test]
fn reaction_fire_is_for_the_side_not_active() {
    let state = sixty_second_active(&[3, 4]);
    assert_eq!(
        state.when_rolling(json!({"type": "reaction-fire", "unit": "inf-62", "at": "0302"}), &[]).refusal_of(Refused::ReactionFireActiveSide),
        "inf-62 is on the active side (warsaw-pact): reaction fire is taken during the opponent's action phase; 62-mir's in-command units conduct operations instead (hq-62, t-72)"
    );
    assert_eq!(
        begun()
            .when_rolling(json!({"type": "reaction-fire", "unit": "m1-a", "at": "0909"}), &[])
            .refusal_of(Shared::NothingActive),
        "no formation is active: reaction fire is taken during the opponent's action phase"
    );
}

// ---------------------------------------------------------------- referee

#[test]
fn the_referee_disrupts_eliminates_places_and_relocates() {
    let state = begun();
    state.when_rolling(json!({"type": "disrupt", "unit": "t-72", "reason": "fire"}), &[]).then(vec![Fact::Disrupted {
        unit: "t-72".into(),
        hex: hex("0706"),
        reason: "fire".into(),
    }]);
    state.when_rolling(json!({"type": "eliminate", "unit": "hq-62", "reason": "artillery"}), &[]).then(vec![
        Fact::Eliminated {
            unit: "hq-62".into(),
            formation: "62-mir".into(),
            hex: hex("0505"),
            reason: "artillery".into(),
            hq: true,
        },
    ]);
    assert!(matches!(
        state.when_rolling(json!({"type": "eliminate", "unit": "t-72", "reason": "fire"}), &[]).facts()[0],
        Fact::Eliminated { hq: false, .. }
    ));
    state.when_rolling(json!({"type": "relocate", "unit": "t-72", "to": "0807", "reason": "retreats"}), &[]).then(
        vec![Fact::Relocated { unit: "t-72".into(), from: hex("0706"), to: hex("0807"), reason: "retreats".into() }],
    );
}

#[test]
fn referee_refusals_say_what_is_wrong() {
    let state = begun().decided_rolling(json!({"type": "disrupt", "unit": "t-72", "reason": "fire"}), &[]);
    assert_eq!(
        state
            .when_rolling(json!({"type": "disrupt", "unit": "t-72", "reason": "fire"}), &[])
            .refusal_of(Shared::NoChange),
        "t-72 is already disrupted"
    );
    let state = state.decided_rolling(json!({"type": "eliminate", "unit": "t-72", "reason": "fire"}), &[]);
    assert_eq!(
        state
            .when_rolling(json!({"type": "eliminate", "unit": "t-72", "reason": "again"}), &[])
            .refusal_of(Shared::OutOfPlay),
        "t-72 has been eliminated"
    );
    assert_eq!(
        state.when_rolling(json!({"type": "place", "unit": "t-72", "hex": "0101"}), &[]).refusal_of(Shared::OutOfPlay),
        "t-72 has been eliminated"
    );
    assert_eq!(
        state.when_rolling(json!({"type": "place", "unit": "m1-a", "hex": "0101"}), &[]).refusal_of(Shared::NoChange),
        "m1-a is already on the map, in 0302"
    );
    assert_eq!(
        state
            .when_rolling(json!({"type": "disrupt", "unit": "m1-r", "reason": "fire"}), &[])
            .refusal_of(Refused::NotOnMap),
        "m1-r is not on the map: the referee places it first"
    );
    assert_eq!(
        state
            .when_rolling(json!({"type": "relocate", "unit": "m1-a", "to": "0302", "reason": "x"}), &[])
            .refusal_of(Shared::NoChange),
        "m1-a is already in 0302"
    );
    assert_eq!(
        state.when_rolling(json!({"type": "move", "unit": "m9", "to": "0302"}), &[]).refusal_of(Shared::NothingActive),
        "no formation is active: draw a chit first"
    );
    assert_eq!(
        state.when_rolling(json!({"type": "disrupt", "unit": "m9", "reason": "x"}), &[]).refusal_of(Shared::Unknown),
        "there is no unit \"m9\" in this game"
    );
    let active = state.decided_rolling(draw(), &[("cup", &[0])]);
    assert_eq!(
        active.when_rolling(json!({"type": "place", "unit": "m1-r", "hex": "0101"}), &[]).refusal_of(Refused::PlaceDuringActivation),
        "1-66-ar is active: place m1-r after its activation ends, so that its formation's next activation is its first action phase"
    );
}

#[test]
fn an_eliminated_unit_takes_no_test() {
    let state = begun().decided_rolling(json!({"type": "eliminate", "unit": "btr-70", "reason": "fire"}), &[]);
    let facts = state.when_rolling(draw(), &[("cup", &[2]), ("morale:0909", &[6, 6])]).facts();
    assert_eq!(morale_tests(&facts), vec![(hex("0909"), strings(&["inf-62"]), 12, false)]);
}

// ---------------------------------------------------------------- narrative

#[test]
fn the_narrative_tells_the_62nd_example() {
    let facts = begun().when_rolling(draw(), &[("cup", &[2]), ("morale:0909", &[3, 4])]).facts();
    assert_eq!(
        narrate(&facts[4]),
        "Morale test for hex 0909 (btr-70, inf-62; 6 hexes from HQ hq-62, outside its command radius of 2): 2d6 3+4 = 7 vs morale 6, failed: out of command, hex 0909 marked out of command."
    );
}

// ---------------------------------------------------------------- fixtures

mod fixtures {
    use super::*;
    use crate::game::{Decide, Game};
    use crate::golden::script_outputs;
    use crate::script::Script;

    fn parse(text: &str, name: &str) -> Script {
        Script::parse(text, name, crate::registry::builtin()).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn final_state(script: &Script) -> State {
        let game = script.play(|_, _| {}).unwrap();
        serde_json::from_value(game.state()).unwrap()
    }

    /// The text's example, transcribed with its dice.
    #[test]
    fn the_62nd_regiment_fixture_marks_the_stack_out_of_command() {
        let script =
            parse(include_str!("../../../../fixtures/formation-activation/62nd-regiment.json"), "62nd-regiment");
        let outputs = script_outputs(&script).unwrap();
        assert!(outputs
            .narrative
            .contains("2d6 3+4 = 7 vs morale 6, failed: out of command, hex 0809 marked out of command."));
        let state = final_state(&script);
        assert!(state.units["btr-70"].out_of_command && state.units["inf-62"].out_of_command);
    }

    /// The out-of-command fixture: at the point where the BTR-70 stands out
    /// of command in its own activation, a move is refused; later it takes
    /// reaction fire.
    #[test]
    fn the_out_of_command_fixture_refuses_a_move_and_allows_reaction_fire() {
        let script =
            parse(include_str!("../../../../fixtures/formation-activation/out-of-command.json"), "out-of-command");
        let mut game = Game::open(script.header.clone(), crate::registry::builtin()).unwrap();
        for (decision, dice) in &script.decisions[..3] {
            game.play(decision, dice.as_ref()).unwrap();
        }
        let refused = game
            .decide(
                &json!({"type": "move", "unit": "btr-70", "to": "0808"}),
                Decide { dice: Some(&TableDice::new()), ..Decide::default() },
            )
            .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "btr-70 is out of command and may not move: \"Out-of-command units may not move or fire during the action phase, but may take reaction fire during the opponent's action phase\". 62-mir's units that may act: hq-62"
        );
        let outputs = script_outputs(&script).unwrap();
        assert!(outputs.narrative.contains("btr-70 (62-mir, out of command) takes reaction fire from 0809 at 0707."));
    }

    /// F2 in a fixture: both readings rally the same units.
    #[test]
    fn both_rally_fixtures_rally_the_same_units() {
        let a = final_state(&parse(include_str!("../../../../fixtures/formation-activation/rally.json"), "rally"));
        let b = final_state(&parse(
            include_str!("../../../../fixtures/formation-activation/rally-leadership-adds-to-rating.json"),
            "rally-leadership-adds-to-rating",
        ));
        assert_eq!(a.units, b.units);
        assert!(!a.units["inf-a"].disrupted && a.units["inf-b"].disrupted);
    }

    /// The seeded game: three turns, four formations, every roll from the
    /// committed seed; it plays and verifies.
    #[test]
    fn the_seeded_game_plays_three_turns_of_four_formations_and_verifies() {
        let script = parse(include_str!("../../../../fixtures/formation-activation/three-turns.json"), "three-turns");
        assert_eq!(script.header.mode, crate::record::SeedMode::Open);
        script_outputs(&script).expect("plays and verifies");
        let mut activations: BTreeMap<(u32, String), u32> = BTreeMap::new();
        let mut turn = 0;
        let game = script
            .play(|g, e| {
                if e.kind == crate::record::Kind::Fact {
                    let body: crate::record::FactBody = serde_json::from_value(e.body.clone()).unwrap();
                    if let Ok(Fact::ActivationBegan { formation, .. }) = serde_json::from_value(body.fact) {
                        *activations.entry((g.turn(), formation)).or_default() += 1;
                    }
                    turn = g.turn();
                }
            })
            .unwrap();
        let state: State = serde_json::from_value(game.state()).unwrap();
        assert_eq!(turn, 3);
        assert!(state.turn.as_ref().unwrap().over);
        assert_eq!(state.formations.len(), 4);
        let formations: std::collections::BTreeSet<&String> = activations.keys().map(|(_, f)| f).collect();
        assert_eq!(formations.len(), 4, "every formation activates: {activations:?}");
        assert_eq!(activations[&(3, "65-tr".to_string())], 2, "two chits, two activations");
    }
}

/// Regression: `verify` narrates the facts of a changed record to say how it
/// differs, and a changed `rally-tested` whose modifier is `i64::MIN` made
/// the narration panic on negating it (the combat-hq narration had the same
/// kind of fault, found by the single-byte-change property).
#[test]
fn a_changed_rally_fact_with_the_least_modifier_still_narrates() {
    let fact = Fact::RallyTested {
        formation: "62nd".into(),
        unit: "btr-1".into(),
        hex: Hex::new(3, 4),
        dice: vec![3, 4],
        roll: 7,
        modifiers: vec![Modifier { what: "HQ 62-hq leadership".into(), value: i64::MIN }],
        modified_roll: 7,
        morale: 7,
        rallied: true,
        per_hex: false,
    };
    assert_eq!(
        narrate(&fact),
        "Rally btr-1 in 0304: 2d6 3+4 = 7 −9223372036854775808 (HQ 62-hq leadership) = 7 vs morale 7: rallied, disrupted removed."
    );
}
