//! The interactive turn's model, without a terminal: keys move it, the
//! screen shows the menu, the field asked, the table and the narrative;
//! what it asks of the store is answered by hand. (tests/play_terminal.rs
//! drives the real thing through a pseudo-terminal.)

use std::path::PathBuf;

use rollcall_core::keys::SecretKey;
use rollcall_core::log::MemLog;
use rollcall_core::moves::{Field, Shape};
use rollcall_core::pbem::exchange;
use rollcall_core::record::Kind;
use rollcall_core::script::Script;
use rollcall_core::seed::Share;
use serde_json::{json, Value};

use super::form::{default_text, typed_text};
use super::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `rally` fixture's game after its first `n` decisions: Lt. Adams
/// activated (allies), on a machine where every side plays.
fn rally_after(n: usize) -> Game {
    let text = std::fs::read_to_string(root().join("fixtures/leader-activation/rally.json")).unwrap();
    let mut script = Script::parse(&text, "rally", rollcall_core::registry::builtin()).unwrap();
    script.decisions.truncate(n);
    let mut game = Game::open(script.header.clone(), rollcall_core::registry::builtin()).unwrap();
    script.play(|_, e| game.apply(e).unwrap()).unwrap();
    game
}

fn model(game: Game) -> Model {
    Model::new(Opened { game, by: None, earlier: vec!["(before the turn)".into()], key_file: None })
}

/// A game of leader activation by email, just started: allies (this
/// store's side) against axis, the referee's begin-turn awaited.
fn by_email() -> Model {
    let (rules, _) = crate::input::source::rule_version("leader-activation@1").unwrap();
    let scenario: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("examples/pbem/scenario.json")).unwrap()).unwrap();
    let (tom, jerry) = (MemLog::default(), MemLog::default());
    let (allies, axis) = (SecretKey::from_bytes([1; 32]), SecretKey::from_bytes([2; 32]));
    let invite = exchange::invite(
        &tom,
        exchange::Offer { game: "friday", rules: &rules, scenario, side: "allies" },
        &allies,
        Share([3; 32]),
        rollcall_core::registry::builtin(),
    )
    .unwrap();
    let (_, accept) =
        exchange::accept(&jerry, &invite.armour(), &axis, Share([4; 32]), rollcall_core::registry::builtin()).unwrap();
    let header = exchange::start(&tom, &accept.armour(), &allies, rollcall_core::registry::builtin()).unwrap();
    let game = Game::open(header, rollcall_core::registry::builtin()).unwrap();
    Model::new(Opened { game, by: Some("allies".into()), earlier: Vec::new(), key_file: Some("allies.key".into()) })
}

const PANES: Panes =
    Panes { menu_rows: 200, menu_width: 100, table_width: 100, narrative_rows: 200, narrative_width: 100 };

fn press(model: Model, keys: &str) -> Model {
    keys.chars().fold(model, |m, c| m.key(if c == '\n' { Key::Enter } else { Key::Char(c) }))
}

fn text(lines: &[(String, bool)]) -> String {
    lines.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>().join("\n")
}

/// The lines of the screen marked (the entry under the cursor, the last outcome).
fn marked(lines: &[(String, bool)]) -> Vec<&str> {
    lines.iter().filter(|(_, m)| *m).map(|(l, _)| l.as_str()).collect()
}

#[test]
fn given_a_turn_when_it_opens_then_the_menu_lists_the_side_awaited_the_table_and_the_narrative() {
    let game = rally_after(2);
    let state = lines(&game.render());
    let screen = model(game).screen(PANES);
    assert_eq!(screen.title, "rollcall play · rally · leader-activation@1 · every side plays on this machine");
    assert_eq!(screen.menu_title, " what allies may do ");
    let menu = text(&screen.menu);
    assert!(menu.starts_with("What allies may do now:\n\nCommand a unit\n"), "{menu}");
    assert!(menu.contains("The referee's inputs (either side may enter them):"), "{menu}");
    assert_eq!(
        marked(&screen.menu),
        [
            ">  1. lt-adams commands rifles-1 (Trained, 50 mm away; its command range is 100 mm)",
            "      in range: 50 mm of 100 mm"
        ]
    );
    assert_eq!(screen.state, state);
    assert_eq!(text(&screen.narrative), "(before the turn)");
    assert_eq!(screen.question, None);
    assert!(
        screen.status.starts_with("turn 1 · seq 4 · allies to decide · 0 decisions not written"),
        "{}",
        screen.status
    );
}

#[test]
fn given_the_menu_when_moving_then_by_one_by_ten_to_the_ends_and_to_a_number_typed() {
    let m = model(rally_after(2));
    let count = m.listing.len();
    assert!(count >= 10, "{count}");
    let m = m.key(Key::Up);
    assert_eq!(m.cursor, 0);
    let m = press(m, "jj").key(Key::Down);
    assert_eq!(m.cursor, 3);
    let m = m.key(Key::Char('k'));
    assert_eq!(m.cursor, 2);
    let m = m.key(Key::End).key(Key::Down);
    assert_eq!(m.cursor, count - 1);
    let m = m.key(Key::Home).key(Key::PageDown);
    assert_eq!(m.cursor, 10.min(count - 1));
    // Typed digits go to that number; a number the list lacks starts again from the digit.
    let m = press(m, "5");
    assert_eq!(m.cursor, 4);
    let m = press(m, "10");
    assert_eq!(m.cursor, 9);
    let m = press(m, "9");
    assert_eq!(m.cursor, 8, "109 is not listed: 9 is");
    let m = press(m, "0");
    assert_eq!(m.message, format!("the list has {count} decisions (1 to {count})"));
    let m = press(m, "x");
    assert_eq!(m.message, "? shows the keys");
    let m = m.key(Key::Char('?'));
    assert!(m.screen(PANES).help.unwrap().iter().any(|l| l.contains("take back the last decision not yet written")));
    assert!(!m.key(Key::Char('j')).help, "any key closes the help");
}

#[test]
fn given_an_entry_without_fields_when_enter_then_it_is_decided_on_the_copy_and_its_outcome_shown() {
    let m = model(rally_after(2));
    let head = m.game.head();
    let m = m.key(Key::Enter);
    assert_eq!(m.pending.len(), 1);
    assert_eq!(m.base.head(), head, "the store's game is untouched");
    assert_eq!(m.game.decisions(), 3);
    assert_eq!(m.message, "#3 command unit=rifles-1: decided (u takes it back; e ends the turn and writes it)");
    let screen = m.screen(PANES);
    let outcome = marked(&screen.narrative);
    assert_eq!(outcome[0], "#3 command unit=rifles-1");
    assert!(outcome[1].contains("rifles-1"), "{outcome:?}");
    assert!(text(&screen.narrative).starts_with("(before the turn)\n— this turn —\n#3"), "{}", text(&screen.narrative));
    // The menu is listed again for the game after it: rifles-1 now acts.
    assert!(text(&screen.menu).contains("rifles-1, commanded last, performs an action"), "{}", text(&screen.menu));
    assert_eq!(m.cursor, 0);
}

#[test]
fn given_a_move_when_its_fields_are_asked_then_a_sub_menu_a_default_and_a_bad_value_asked_again() {
    let m = press(model(rally_after(2)), "9\n");
    let screen = m.screen(PANES);
    assert_eq!(screen.menu_title, " fill in ");
    let form = text(&screen.menu);
    assert!(
        form.starts_with("9. a leader or unit moves on the table\n\nfield 1 of 2: piece (the referee's input)\n"),
        "{form}"
    );
    assert!(form.contains("  default: capt-baker (Enter takes it)"), "{form}");
    assert_eq!(marked(&screen.menu), ["> capt-baker (allies's leader)"]);
    let m = (0..5).fold(m, |m, _| m.key(Key::Down));
    assert_eq!(marked(&m.screen(PANES).menu), ["> lt-adams (allies's leader)"]);
    let m = m.key(Key::Enter);
    let form = text(&m.screen(PANES).menu);
    assert!(form.contains("field 2 of 2: to (the referee's input)"), "{form}");
    assert!(
        form.contains("  a point in mm: x,y\n  default: 600,0 (Enter takes it)\n  given: piece = lt-adams"),
        "{form}"
    );
    // A bad value: refused with the reason, the field asked again.
    let m = press(m, "north\n");
    let screen = m.screen(PANES);
    assert!(text(&screen.menu).contains("✗ \"north\" is not a point: write x,y in whole numbers — try again"));
    assert_eq!(marked(&screen.menu), ["to> _"]);
    assert!(m.pending.is_empty());
    let m = press(m, "10,2x").key(Key::Backspace);
    assert_eq!(marked(&m.screen(PANES).menu), ["to> 10,2_"]);
    let m = press(m, "0\n");
    assert_eq!(m.pending.len(), 1);
    assert_eq!(m.pending[0].events[0].body["decision"], json!({"type": "move", "piece": "lt-adams", "to": [10, 20]}));
    assert!(m.message.starts_with("#3 move piece=lt-adams to=[10,20]: decided"), "{}", m.message);
}

#[test]
fn given_a_field_asked_when_esc_then_back_to_the_menu_and_nothing_decided() {
    let m = press(model(rally_after(2)), "2\n");
    assert_eq!(m.screen(PANES).menu_title, " fill in ");
    let m = m.key(Key::Esc);
    assert_eq!(m.screen(PANES).menu_title, " what allies may do ");
    assert_eq!(m.message, "back to the menu: nothing was decided");
    assert!(m.pending.is_empty());
    // Typed text is the field's, not a key of the menu: q does not quit there.
    let m = press(m, "2\nquick march\n");
    assert!(!m.quit);
    assert_eq!(m.pending[0].events[0].body["decision"], json!({"type": "leader-action", "action": "quick march"}));
}

#[test]
fn given_decisions_held_when_u_then_the_last_is_taken_back_to_the_game_before_it() {
    let m = model(rally_after(2));
    let start = m.game.head();
    let m = m.key(Key::Enter);
    let after_one = m.game.head();
    let m = press(m, "1\nfires\n");
    assert_eq!(m.pending.len(), 2);
    let m = press(m, "u");
    assert_eq!(m.message, "took back #4 unit-action action=fires unit=rifles-1: it was never written");
    assert_eq!((m.pending.len(), m.game.head()), (1, after_one));
    let m = press(m, "u");
    assert_eq!((m.pending.len(), m.game.head()), (0, start));
    assert!(m.screen(PANES).narrative.iter().all(|(_, marked)| !marked));
    let m = press(m, "u");
    assert_eq!(m.message, "nothing to take back: no decision made yet");
}

#[test]
fn given_a_decision_taken_back_when_decided_again_then_its_dice_are_the_same() {
    // Lt. Adams rallies mortar and rifles-2 (entry 5): one die.
    let m = press(model(rally_after(2)), "5\n");
    let die = |m: &Model| m.pending[0].events.iter().find(|e| e.kind == Kind::Roll).unwrap().body.clone();
    let first = die(&m);
    let m = press(m, "u5\n");
    assert_eq!(die(&m), first, "a take-back does not re-roll");
}

#[test]
fn given_decisions_held_when_e_then_the_edge_is_asked_to_write_them_in_one_batch() {
    let m = press(model(rally_after(2)), "1");
    let base = m.base.head();
    let m = press(m, "\n1\nfires\n").key(Key::Char('e'));
    let Some(Request::Write { expected, events, game }) = m.request.clone() else { panic!("no write asked for") };
    assert_eq!(expected, base);
    let held: Vec<Event> = m.pending.iter().flat_map(|p| p.events.clone()).collect();
    assert_eq!(events, held);
    assert_eq!(game.head(), m.game.head());
    // The store refused: nothing is lost.
    let refused = m.clone().answer(Outcome::Written(Err("game rally moved on".into())));
    assert_eq!(refused.pending.len(), 2);
    assert!(
        refused.message.starts_with("game rally moved on: nothing was written; the 2 decisions"),
        "{}",
        refused.message
    );
    assert!(refused.request.is_none());
    // Written: held no more, the store's game is the copy; u cannot reach it.
    let m = m.answer(Outcome::Written(Ok(())));
    assert!(m.pending.is_empty());
    assert_eq!(m.base.head(), m.game.head());
    assert!(
        m.said[0].starts_with("wrote 2 decisions (4 events) to the store: game rally at seq 8, head "),
        "{:?}",
        m.said
    );
    assert_eq!(m.screen(PANES).question, None, "a game on this machine asks no export");
    let m = press(m, "u");
    assert_eq!(m.message, "nothing to take back: what is written to the store stays there (the store only appends)");
    assert!(press(m, "q").quit, "nothing held: q quits at once");
}

#[test]
fn given_decisions_held_when_q_then_asked_first_and_n_goes_back() {
    let m = press(model(rally_after(2)), "\nq");
    assert_eq!(
        m.screen(PANES).question.as_deref(),
        Some("quit and throw away the 1 decision not written? y: quit, writing nothing · n: go back · e: write first")
    );
    let m = press(m, "x");
    assert!(m.screen(PANES).question.is_some(), "only y, n or e answer");
    let m = press(m, "n");
    assert!(!m.quit && m.screen(PANES).question.is_none() && m.pending.len() == 1);
    let m = m.key(Key::Esc);
    assert!(m.screen(PANES).question.is_some(), "Esc quits too, asking first");
    let m = press(m, "y");
    assert!(m.quit);
    assert_eq!(m.said, ["quit: threw away 1 decision not written; the store is as it was"]);
    assert!(m.request.is_none(), "nothing is written");
}

#[test]
fn given_the_turn_passing_to_the_other_side_when_decided_then_asked_to_end_it_or_play_on_as_that_side() {
    // The rally ends Lt. Adams's activation: axis to activate.
    let m = press(model(rally_after(2)), "5\n");
    assert_eq!(
        m.screen(PANES).question.as_deref(),
        Some("axis to decide now. End the turn here? y: write it · n: play on as axis")
    );
    let on = press(m.clone(), "n");
    assert_eq!(on.screen(PANES).question, None);
    assert!(text(&on.screen(PANES).menu).starts_with("What axis may do now:"), "{}", text(&on.screen(PANES).menu));
    let end = press(m, "y");
    assert!(matches!(end.request, Some(Request::Write { .. })));
}

#[test]
fn given_a_game_by_email_when_the_turn_ends_then_written_exported_with_the_key_offered_and_finished() {
    let m = by_email();
    let first = m.screen(PANES);
    assert!(first.title.ends_with("you play allies, by email"), "{}", first.title);
    assert!(text(&first.menu).starts_with("allies has nothing of its own to decide now (the referee to decide)."));
    // Axis first: the turn passes to axis at once.
    let m = press(m, "2\n");
    assert_eq!(
        m.screen(PANES).question.as_deref(),
        Some("axis to decide now: allies' turn is over. End it? y: write it, then export · n: not yet")
    );
    let m = press(m, "y");
    assert!(matches!(m.request, Some(Request::Write { .. })));
    let m = m.answer(Outcome::Written(Ok(())));
    assert_eq!(
        m.screen(PANES).question.as_deref(),
        Some("export and sign this turn now? y: choose the key and the file · n: not now")
    );
    let m = press(m, "y");
    let form = text(&m.screen(PANES).menu);
    assert!(form.contains("field 1 of 2: key\n  allies' secret key file (from `rollcall keygen`)"), "{form}");
    assert!(form.contains("default: allies.key (Enter takes it)"), "{form}");
    let m = m.key(Key::Enter);
    assert!(text(&m.screen(PANES).menu).contains("default: friday-allies-3.txt"), "the checkpoint is seq 3");
    // The screen is not a file: asked again.
    let m = press(m, "-\n");
    assert!(text(&m.screen(PANES).menu).contains("✗ give a file's name"));
    let m = press(m, "turn-1.txt\n");
    let Some(Request::Export { key, output }) = m.request.clone() else { panic!("no export asked for") };
    assert_eq!((key.as_str(), output.as_str()), ("allies.key", "turn-1.txt"));
    // A key that fails: asked again, the answers kept as defaults.
    let failed = m.clone().answer(Outcome::Exported(Err("--key allies.key: no such file".into())));
    let form = text(&failed.screen(PANES).menu);
    assert!(form.contains("✗ --key allies.key: no such file — try again"), "{form}");
    assert!(form.contains("default: allies.key"), "{form}");
    let m = m.answer(Outcome::Exported(Ok(vec!["allies turn of game friday: 1 decisions".into()])));
    let screen = m.screen(PANES);
    assert_eq!(screen.menu_title, " the turn is sent ");
    assert!(text(&screen.menu).starts_with("allies turn of game friday: 1 decisions\n\n(any key leaves)"));
    let m = press(m, "z");
    assert!(m.quit);
    assert_eq!(m.said.len(), 2, "{:?}", m.said);
}

#[test]
fn given_a_game_by_email_when_the_export_is_declined_then_the_command_to_send_it_later_is_said() {
    let m = press(by_email(), "e");
    assert!(m.request.is_none(), "nothing to write");
    let m = press(m, "n");
    assert_eq!(
        m.message,
        "not exported: `rollcall turn export friday --key KEY -o FILE` signs and writes it when you are ready"
    );
    assert_eq!(m.said, std::slice::from_ref(&m.message));
}

#[test]
fn given_a_narrow_screen_when_shown_then_every_line_fits_its_pane_and_the_cursor_stays_in_view() {
    let panes = Panes { menu_rows: 8, menu_width: 30, table_width: 25, narrative_rows: 3, narrative_width: 20 };
    let m = press(model(rally_after(2)), "\nG");
    let screen = m.screen(panes);
    assert!(screen.menu.len() <= 8 && screen.narrative.len() <= 3);
    assert!(screen.menu.iter().chain(&screen.narrative).all(|(l, _)| l.chars().count() <= 30), "{screen:#?}");
    assert!(screen.state.iter().all(|l| l.chars().count() <= 25), "{screen:#?}");
    assert!(!marked(&screen.menu).is_empty(), "the last entry, under the cursor, is shown: {screen:#?}");
}

#[test]
fn every_shape_reads_back_the_text_a_user_types_for_its_value() {
    use rollcall_core::moves::form::choices;
    let cases: Vec<(Shape, Value)> = vec![
        (Shape::Text, json!("moves to the wall")),
        (Shape::Flag, json!(true)),
        (Shape::Flag, json!(false)),
        (Shape::Integer { min: 0, max: 3, unit: None }, json!(2)),
        (Shape::Point { unit: "mm".into() }, json!([10, -20])),
        (Shape::Hex, json!("0304")),
        (Shape::OneOf { choices: choices([(json!(4), "4s")]) }, json!(4)),
        (Shape::SomeOf { choices: choices([("a", "a"), ("b", "b")]), min: 1, max: 2 }, json!(["b", "a"])),
        (Shape::Json, json!({"figure": "x", "to": [1, 2]})),
    ];
    for (shape, value) in cases {
        assert_eq!(shape.read(&typed_text(&shape, &value)), Ok(value.clone()), "{shape:?}");
    }
}

#[test]
fn given_fields_that_may_be_left_out_when_answered_empty_then_they_are_left_out() {
    use rollcall_core::moves::form::choices;
    let several = Field::optional(
        "figures",
        "who",
        Shape::SomeOf { choices: choices([("a", "a (Bold)"), ("b", "b (Bold)")]), min: 1, max: 2 },
        None,
    );
    let count = Field::optional("sixes", "sixes", Shape::Integer { min: 0, max: 1, unit: None }, Some(json!(0)));
    let one = Field::optional("from", "who pays", Shape::OneOf { choices: choices([("kg", "kg")]) }, None);
    let must = Field::new("why", "why", Shape::Text, Value::Null);
    assert_eq!(default_text(&must), None);
    let form = Form::new("t".into(), vec![several, count, one, must]);
    // Nothing marked: left out; "-": left out though it has a default; the
    // one-of's last line leaves it out; the text has no default: it must be given.
    let Step::Asking(form) = form.key(Key::Enter) else { panic!() };
    let Step::Asking(form) = "-".chars().fold(Step::Asking(form), |s, c| match s {
        Step::Asking(f) => f.key(Key::Char(c)),
        other => other,
    }) else {
        panic!()
    };
    let Step::Asking(form) = form.key(Key::Enter) else { panic!() };
    assert_eq!(form.at, 2);
    assert!(form.lines(80, 20).iter().any(|(l, m)| *m && l == "> (leave it out)"), "nothing is chosen by default");
    let Step::Asking(form) = form.key(Key::Enter) else { panic!() };
    let Step::Asking(form) = form.key(Key::Enter) else { panic!() };
    assert_eq!(form.error, "why must be given: text");
    assert!(form.given.is_empty(), "{:?}", form.given);
    // Marked with Space: given, comma-separated.
    let form = Form::new("t".into(), vec![form.fields[0].clone()]);
    let Step::Asking(form) = form.key(Key::Down) else { panic!() };
    let Step::Asking(form) = form.key(Key::Char(' ')) else { panic!() };
    assert!(form.lines(80, 20).iter().any(|(l, m)| *m && l == "> [x] b (Bold)"));
    let Step::Asking(form) = form.key(Key::Up) else { panic!() };
    let Step::Asking(form) = form.key(Key::Char(' ')) else { panic!() };
    let Step::Filled(form) = form.key(Key::Enter) else { panic!() };
    assert_eq!(form.given, [("figures".to_string(), "a,b".to_string())]);
}

#[test]
fn given_a_field_asked_when_ctrl_c_then_asked_before_throwing_decisions_away_and_a_second_leaves() {
    let m = press(model(rally_after(2)), "\n2\n").key(Key::Interrupt);
    assert!(m.screen(PANES).question.unwrap().starts_with("quit and throw away the 1 decision not written?"));
    let m = m.key(Key::Interrupt);
    assert!(m.quit);
    assert!(model(rally_after(2)).key(Key::Interrupt).quit, "nothing held: at once");
}

/// The `artillery-alone` fixture's table game (dice rolled by hand), before its first decision.
fn at_the_table() -> Game {
    let text = std::fs::read_to_string(root().join("fixtures/combat-hq/artillery-alone.json")).unwrap();
    let script = Script::parse(&text, "artillery", rollcall_core::registry::builtin()).unwrap();
    Game::open(script.header, rollcall_core::registry::builtin()).unwrap()
}

#[test]
fn given_a_table_game_when_a_decision_rolls_then_its_faces_are_typed_with_no_default() {
    let m = model(at_the_table());
    let entry = m.listing.entries().next().unwrap().clone();
    assert_eq!(entry.decision, json!({"type": "begin-turn", "first": "germans"}));
    let m = m.key(Key::Enter);
    let form = text(&m.screen(PANES).menu);
    assert!(form.contains("field 1 of 1: dice") && form.contains("  type the faces rolled, e.g. {"), "{form}");
    let m = m.key(Key::Enter);
    assert!(text(&m.screen(PANES).menu).contains("✗ dice must be given: JSON: the faces rolled"), "no default");
    let m = press(m, "{\"command-dice:bg-hart\": [4, 4]}\n");
    let faces: Vec<&Value> =
        m.pending[0].events.iter().filter(|e| e.kind == Kind::Roll).map(|e| &e.body["value"]).collect();
    assert_eq!(faces, [&json!(4), &json!(4)], "{:?}", m.pending[0].events);
}

mod served;
