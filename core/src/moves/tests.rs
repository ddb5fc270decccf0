//! The listing on a worked example of leader activation (the `rally`
//! fixture's table): what a leader may do, with the ranges and target
//! numbers the text gives; picking and filling an entry; a table game's dice.

use serde_json::{json, Value};

use super::{list, Listing, PickError};
use crate::game::Game;
use crate::moves::FillError;
use crate::script::Script;

/// The `rally` fixture's scenario, `mode` dice, after `decisions`.
fn game(mode: &str, decisions: &[Value]) -> Game {
    let parties = match mode {
        "table" => json!([{"name": "allies"}, {"name": "axis"}]),
        _ => json!([{"name": "allies", "share": "a0".repeat(32)}, {"name": "axis", "share": "b7".repeat(32)}]),
    };
    let script = json!({
        "game": "rally",
        "rules": "leader-activation@1",
        "scenario": {
            "sides": ["allies", "axis"],
            "leaders": [
                {"id": "lt-adams", "side": "allies", "skill": "trained", "at": [0, 0]},
                {"id": "lt-vogel", "side": "axis", "skill": "trained", "at": [0, 900]}
            ],
            "units": [
                {"id": "rifles-1", "side": "allies", "skill": "trained", "at": [50, 0]},
                {"id": "rifles-2", "side": "allies", "skill": "trained", "at": [0, 80], "broken": true},
                {"id": "mortar", "side": "allies", "skill": "conscript", "at": [60, 60], "broken": true},
                {"id": "carrier", "side": "allies", "skill": "elite", "at": [700, 100], "broken": true},
                {"id": "gruppe-1", "side": "axis", "skill": "trained", "at": [0, 950]}
            ]
        },
        "seed": {"mode": mode, "parties": parties},
        "decisions": decisions
    });
    Script::parse(&script.to_string(), "rally", crate::registry::builtin()).unwrap().play(|_, _| {}).unwrap()
}

/// Lt. Adams activated, at the start of his activation.
fn adams_activated(mode: &str) -> Game {
    game(mode, &[json!({"type": "begin-turn", "first": "allies"}), json!({"type": "activate", "leader": "lt-adams"})])
}

fn entry<'a>(listing: &'a Listing, pick: &str) -> &'a super::Entry {
    listing.entries().find(|e| e.pick == pick).unwrap_or_else(|| panic!("{pick} is not listed"))
}

#[test]
fn a_leader_lists_the_unit_he_may_command_with_its_range() {
    // Given Lt. Adams activated, when allies ask what they may do,
    let listing = list(&adams_activated("open"), Some("allies")).unwrap();
    // then he may command rifles-1, 50 mm away in its 100 mm range; the
    // broken units he may not (he rallies them).
    let command: Vec<&str> = listing.entries().filter(|e| e.decision["type"] == "command").map(|e| &*e.pick).collect();
    assert_eq!(command, ["command unit=rifles-1"]);
    let range = entry(&listing, "command unit=rifles-1").range.clone().unwrap();
    assert_eq!((range.distance, range.limit, range.unit.as_str()), (50, 100, "mm"));
}

#[test]
fn a_rally_lists_the_units_in_range_with_the_texts_target_numbers() {
    let listing = list(&adams_activated("open"), Some("allies")).unwrap();
    // "The basic target number for the rally test is 3+", +1 for a second
    // unit, +1 with a Conscript; the Elite carrier is out of range.
    let rallies: Vec<(String, i64)> = listing
        .entries()
        .filter(|e| e.decision["type"] == "rally")
        .map(|e| (e.pick.clone(), e.targets[0].needed))
        .collect();
    assert_eq!(
        rallies,
        [
            ("rally units=mortar".to_string(), 4),
            ("rally units=rifles-2".to_string(), 3),
            ("rally units=mortar,rifles-2".to_string(), 5)
        ]
    );
    let rally = entry(&listing, "rally units=mortar");
    assert_eq!(rally.targets[0].words(), "4+ on a d6");
    assert_eq!((rally.dice[0].label.as_str(), rally.dice[0].die.as_str()), ("rally", "d6"));
    assert_eq!((rally.dice[0].min, rally.dice[0].max), (1, 1));
}

#[test]
fn the_sides_own_come_first_then_the_referees_numbered_on() {
    let listing = list(&adams_activated("open"), Some("allies")).unwrap();
    let referee: Vec<bool> = listing.groups.iter().map(|g| g.referee).collect();
    let first_referee = referee.iter().position(|r| *r).unwrap();
    assert!(first_referee > 0 && referee[first_referee..].iter().all(|r| *r), "{referee:?}");
    let numbers: Vec<usize> = listing.entries().map(|e| e.n).collect();
    assert_eq!(numbers, (1..=numbers.len()).collect::<Vec<_>>());
    assert!(listing.groups.iter().any(|g| g.kind == "break" && g.referee));
}

#[test]
fn the_other_side_lists_only_the_referees_inputs_while_a_leader_activates() {
    let listing = list(&adams_activated("open"), Some("axis")).unwrap();
    assert!(!listing.is_empty());
    assert!(listing.entries().all(|e| e.referee), "axis may make only referee inputs now");
    assert_eq!(listing.awaited, "allies");
    assert!(list(&adams_activated("open"), Some("neutrals")).is_err());
}

#[test]
fn an_entry_is_picked_by_its_number_its_words_or_its_values() {
    let listing = list(&adams_activated("open"), Some("allies")).unwrap();
    let command = entry(&listing, "command unit=rifles-1");
    assert_eq!(listing.pick(&command.n.to_string()).unwrap(), command);
    assert_eq!(listing.pick("command unit=rifles-1").unwrap(), command);
    assert_eq!(listing.pick("Command  rifles-1").unwrap(), command);
    assert!(matches!(listing.pick("0"), Err(PickError::OutOfRange { n: 0, .. })));
    match listing.pick("command rifles-9") {
        Err(PickError::NoMatch { near, .. }) => assert_eq!(near, ["command unit=rifles-1"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_field_is_filled_from_what_was_typed_and_a_missing_one_is_named() {
    let listing = list(&adams_activated("open"), Some("allies")).unwrap();
    let act = entry(&listing, "leader-action");
    assert_eq!(
        act.fill(&[("action".into(), "moves to the wall".into())], false).unwrap(),
        json!({"type": "leader-action", "action": "moves to the wall"})
    );
    match act.fill(&[], false) {
        Err(FillError::Missing { fields }) => assert_eq!(fields, ["action (text)"]),
        other => panic!("{other:?}"),
    }
    assert!(matches!(act.fill(&[("to".into(), "1,2".into())], false), Err(FillError::UnknownField { .. })));
    let moving = listing.entries().find(|e| e.decision["type"] == "move").unwrap();
    let filled = moving.fill(&[("piece".into(), "mortar".into()), ("to".into(), "10, 20".into())], false).unwrap();
    assert_eq!(filled, json!({"type": "move", "piece": "mortar", "to": [10, 20]}));
    assert!(moving.admits(&filled));
    match moving.fill(&[("piece".into(), "nobody".into()), ("to".into(), "10,20".into())], false) {
        Err(FillError::Bad { name, .. }) => assert_eq!(name, "piece"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_table_game_lists_the_dice_to_roll_at_the_table_as_a_field() {
    let mut game = adams_activated("table");
    let listing = list(&game, Some("allies")).unwrap();
    let rally = entry(&listing, "rally units=rifles-2");
    let dice = rally.fields.iter().find(|f| f.name == "dice").expect("the table's dice to give");
    assert!(dice.required);
    let decision = rally.fill(&[("dice".into(), r#"{"rally": [4]}"#.into())], false).unwrap();
    let (decision, table) = crate::script::split_dice(decision).unwrap();
    game.play(&decision, table.as_ref()).unwrap();
    assert!(game.render().contains("rifles-2"));
    let command = entry(&list(&adams_activated("table"), Some("allies")).unwrap(), "command unit=rifles-1").clone();
    assert!(command.fields.is_empty(), "a decision that draws no die asks for none");
}
