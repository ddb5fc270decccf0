//! The interactive replay's model, without a terminal: keys move it, the
//! screen shows the narrative, state and dice of where it is. (tests/terminal.rs
//! drives the real thing through a pseudo-terminal.)

use std::path::PathBuf;

use rollcall_core::game::Game;
use rollcall_core::record::{self, Event, Header, Kind};
use rollcall_core::script::Script;

use super::replay::lines;
use super::*;

fn fixture(name: &str) -> (Header, Vec<Event>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name);
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let script = Script::parse(&text, "fixture", rollcall_core::registry::builtin()).expect("fixture parses");
    let mut events = Vec::new();
    script.play(|_, e| events.push(e.clone())).expect("fixture plays");
    (script.header, events)
}

fn rally() -> Replay {
    let (header, events) = fixture("leader-activation/rally.json");
    Replay::build(&header, &events).expect("builds")
}

fn press(replay: &Replay, model: Model, keys: &str) -> Model {
    keys.chars().fold(model, |m, c| m.key(replay, Key::Char(c)))
}

/// The seq of decision `n`'s decision event, and of its last event.
fn span(replay: &Replay, n: u64) -> (usize, usize) {
    let d = replay.decisions.list.iter().find(|d| d.number == n).expect("decision exists");
    (d.span.first as usize, d.span.last as usize)
}

#[test]
fn the_replay_keeps_every_position_with_its_state_as_state_renders_it() {
    let (header, events) = fixture("leader-activation/rally.json");
    let replay = Replay::build(&header, &events).unwrap();
    assert_eq!(replay.frames.len(), events.len() + 1);
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    assert_eq!(replay.frames[0].state, lines(&game.render()));
    for e in &events {
        game.apply(e).unwrap();
        let frame = &replay.frames[e.seq as usize];
        assert_eq!(frame.state, lines(&game.render()), "seq {}", e.seq);
        assert_eq!(frame.decision, game.decisions());
        assert_eq!(frame.turn, game.turn());
    }
    assert!(replay.integrity.starts_with("verified:"), "{}", replay.integrity);
}

#[test]
fn given_the_start_when_stepping_by_event_then_one_seq_at_a_time_and_never_past_the_ends() {
    let replay = rally();
    let m = Model::new(0).key(&replay, Key::Left);
    assert_eq!(m.at, 0);
    assert_eq!(m.message, "at the scenario, before the first event");
    let m = press(&replay, m, "lln");
    assert_eq!(m.at, 3);
    let m = m.key(&replay, Key::Right).key(&replay, Key::Left).key(&replay, Key::Char('h'));
    assert_eq!(m.at, 2);
    let m = m.key(&replay, Key::End).key(&replay, Key::Right);
    assert_eq!(m.at, replay.last());
    assert_eq!(m.message, "at the last event");
    assert_eq!(m.key(&replay, Key::Home).at, 0);
}

#[test]
fn given_a_position_when_stepping_by_decision_then_to_the_end_of_the_next_or_previous_decision() {
    let replay = rally();
    let (_, end7) = span(&replay, 7);
    let (first8, end8) = span(&replay, 8);
    // Decision 7 rolls a die: it spans more than its decision event.
    assert!(end7 > span(&replay, 7).0);
    let m = Model::new(end7).key(&replay, Key::Char(']'));
    assert_eq!(m.at, end8);
    assert_eq!(m.key(&replay, Key::Char('[')).at, end7);
    // From inside decision 8 (its decision event), back is the end of 7, on is the end of 8.
    assert_eq!(Model::new(first8).key(&replay, Key::Up).at, end7);
    assert_eq!(Model::new(first8).key(&replay, Key::Down).at, end8);
    // From decision 1, back is the scenario.
    assert_eq!(Model::new(span(&replay, 1).1).key(&replay, Key::Char('k')).at, 0);
    assert_eq!(press(&replay, Model::new(0), "jjjjjjj").at, end7);
}

#[test]
fn given_a_position_when_stepping_by_turn_then_to_the_end_of_the_next_or_previous_turn() {
    let (header, events) = fixture("combat-hq/showcase.json");
    let replay = Replay::build(&header, &events).unwrap();
    let end_of = |t: u32| replay.resolve(Position::Turn(t)).unwrap();
    let m = Model::new(0).key(&replay, Key::Char('}'));
    assert_eq!(m.at, end_of(1));
    assert_eq!(replay.frames[m.at].turn, 1);
    let m = m.key(&replay, Key::PageDown);
    assert_eq!(m.at, end_of(2));
    assert_eq!(m.clone().key(&replay, Key::Char('{')).at, end_of(1));
    assert_eq!(m.key(&replay, Key::PageUp).key(&replay, Key::PageUp).at, 0);
}

#[test]
fn given_the_jump_prompt_when_a_decision_turn_or_seq_is_entered_then_the_view_goes_there() {
    let replay = rally();
    let jump = |text: &str| {
        let m = Model::new(0).key(&replay, Key::Char(':'));
        assert_eq!(m.prompt.as_deref(), Some(""));
        press(&replay, m, text).key(&replay, Key::Enter)
    };
    assert_eq!(jump("d 7").at, span(&replay, 7).1);
    assert_eq!(jump("#13").at, span(&replay, 13).1);
    assert_eq!(jump("s 5").at, 5);
    assert_eq!(jump("12").at, 12);
    assert_eq!(jump("t 1").at, replay.resolve(Position::Turn(1)).unwrap());
    // Typing "q" in the prompt types it; it does not quit.
    let m = press(&replay, Model::new(0), ":dq");
    assert!(!m.quit);
    assert_eq!(m.prompt.as_deref(), Some("dq"));
    let m = m.key(&replay, Key::Backspace).key(&replay, Key::Backspace);
    assert_eq!(m.prompt.as_deref(), Some(""));
    let m = m.key(&replay, Key::Esc);
    assert_eq!((m.prompt, m.at), (None, 0));
}

#[test]
fn given_the_jump_prompt_when_the_game_lacks_the_position_then_the_status_says_what_it_has() {
    let replay = rally();
    let m = press(&replay, Model::new(3), ":d 99").key(&replay, Key::Enter);
    assert_eq!(m.at, 3);
    assert_eq!(
        m.message,
        format!("game \"rally\" has {n} decisions (1–{n}); there is no decision 99", n = replay.decisions.list.len())
    );
    let m = press(&replay, Model::new(3), ":x 2").key(&replay, Key::Enter);
    assert_eq!(m.message, "\"x 2\": write d N (a decision), t N (a turn) or s N (a seq)");
    assert!(m.screen(&replay, 10, 200).message.contains("write d N"));
}

#[test]
fn given_bookmarks_when_b_and_shift_b_then_the_next_and_previous_wrapping() {
    let replay = rally();
    let m = Model::new(0).key(&replay, Key::Char('b'));
    assert_eq!(m.message, "no bookmarks yet: m marks this position");
    let m = press(&replay, Model::new(4), "m");
    let m = press(&replay, Model { at: 9, ..m }, "m");
    let m = press(&replay, Model { at: 20, ..m }, "m");
    assert_eq!(m.bookmarks.iter().copied().collect::<Vec<_>>(), vec![4, 9, 20]);
    let m = Model { at: 0, ..m };
    let m = m.key(&replay, Key::Char('b'));
    assert_eq!(m.at, 4);
    let m = press(&replay, m, "bb");
    assert_eq!(m.at, 20);
    assert_eq!(m.clone().key(&replay, Key::Char('b')).at, 4, "b wraps to the first");
    let m = m.key(&replay, Key::Char('B'));
    assert_eq!(m.at, 9);
    let m = press(&replay, m, "m");
    assert_eq!(m.message, "bookmark at seq 9 removed");
    assert_eq!(m.bookmarks.iter().copied().collect::<Vec<_>>(), vec![4, 20]);
    assert!(m.screen(&replay, 10, 200).status.contains("bookmarks: 4, 20"));
}

#[test]
fn help_opens_on_question_mark_and_any_key_closes_it_and_q_quits() {
    let replay = rally();
    let m = Model::new(5).key(&replay, Key::Char('?'));
    assert!(m.help);
    let screen = m.screen(&replay, 10, 200);
    assert!(screen.help.as_ref().unwrap().iter().any(|l| l.contains("to the end of the next decision")));
    let m = m.key(&replay, Key::Char('q'));
    assert!(!m.help && !m.quit && m.at == 5, "the key that closes help does nothing else");
    assert!(m.clone().key(&replay, Key::Char('q')).quit);
    assert!(m.key(&replay, Key::Interrupt).quit);
}

#[test]
fn the_screen_shows_the_narrative_up_to_the_position_the_state_there_and_the_decisions_dice() {
    let replay = rally();
    let (first7, end7) = span(&replay, 7);
    let screen = Model::new(end7).screen(&replay, 100, 200);
    let text: Vec<&str> = screen.narrative.iter().map(|(l, _)| l.as_str()).collect();
    assert!(text.contains(&"#7 rally units=rifles-2,mortar"), "{text:?}");
    assert!(!text.iter().any(|l| l.starts_with("#8")), "nothing after the position: {text:?}");
    let current: Vec<&str> = screen.narrative.iter().filter(|(_, c)| *c).map(|(l, _)| l.as_str()).collect();
    assert_eq!(current, replay.frames[end7].narration.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(screen.state, replay.frames[end7].state);
    let roll = (first7..=end7).find(|&s| replay.dice.iter().any(|d| d.seq as usize == s)).unwrap();
    assert_eq!(screen.dice, vec![format!("seq {roll:<5} roll d6 rally#0 = 4  [proven]")]);
    assert!(screen.status.starts_with(&format!(
        "seq {end7}/{} · decision 7/{} · turn 1",
        replay.last(),
        replay.decisions.list.len()
    )));
    // On the decision's own event, before its die is rolled, no die yet.
    assert_eq!(Model::new(first7).screen(&replay, 100, 200).dice, vec!["decision 7: no dice rolled"]);
    assert_eq!(Model::new(0).screen(&replay, 100, 200).dice, vec!["(no decision here)"]);
}

#[test]
fn the_narrative_keeps_the_last_lines_that_fit_with_the_current_event_at_the_bottom() {
    let replay = rally();
    let screen = Model::new(replay.last()).screen(&replay, 4, 200);
    assert_eq!(screen.narrative.len(), 4);
    assert!(screen.narrative.last().unwrap().1);
    assert_eq!(screen.narrative.last().unwrap().0, *replay.frames[replay.last()].narration.last().unwrap());
}

#[test]
fn a_tampered_die_and_every_die_after_it_show_as_not_checked_and_the_title_says_the_record_fails() {
    let (header, mut events) = fixture("leader-activation/rally.json");
    let roll = events.iter().position(|e| e.kind == Kind::Roll).unwrap();
    events[roll].body["value"] = serde_json::json!(6);
    let mut head = record::header_hash(&header).unwrap();
    for e in events.iter_mut() {
        e.hash = record::link(&head, e.seq, e.kind, &e.body).unwrap();
        head = e.hash;
    }
    let replay = Replay::build(&header, &events).unwrap();
    assert!(replay.integrity.starts_with("does NOT verify"), "{}", replay.integrity);
    assert!(replay.dice.iter().all(|d| d.proof == DieProof::Unchecked), "{:?}", replay.dice);
    let screen = Model::new(events[roll].seq as usize).screen(&replay, 10, 200);
    assert!(screen.dice[0].ends_with("[not checked: the record fails before it]"), "{:?}", screen.dice);
    assert!(screen.title.contains("does NOT verify"));
}

#[test]
fn a_jump_is_d_t_or_s_and_a_number() {
    assert_eq!(parse_jump("d 7"), Ok(Position::Decision(7)));
    assert_eq!(parse_jump("decision 7"), Ok(Position::Decision(7)));
    assert_eq!(parse_jump(" t2 "), Ok(Position::Turn(2)));
    assert_eq!(parse_jump("seq 30"), Ok(Position::Seq(30)));
    assert_eq!(parse_jump("30"), Ok(Position::Seq(30)));
    assert!(parse_jump("d").is_err());
    assert!(parse_jump("z 3").is_err());
}

#[test]
fn the_drawn_screen_holds_the_panes_titles_and_status() {
    use ratatui::backend::TestBackend;
    let replay = rally();
    let mut terminal = ratatui::Terminal::new(TestBackend::new(120, 30)).unwrap();
    let model = Model::new(span(&replay, 7).1);
    terminal.draw(|f| term::draw(f, &replay, &model)).unwrap();
    let buffer = terminal.backend().buffer();
    let text: String = (0..buffer.area.height)
        .map(|y| (0..buffer.area.width).map(|x| buffer[(x, y)].symbol()).collect::<String>() + "\n")
        .collect();
    for want in [" narrative ", " state ", " dice ", "rally#0 = 4", "decision 7/", "rollcall replay · rally"] {
        assert!(text.contains(want), "{want:?} not on the screen:\n{text}");
    }
}

/// Given a narrative line wider than the pane, when the screen is drawn,
/// then it is wrapped at a word, the rest indented, and no word is lost.
#[test]
fn long_narrative_lines_are_wrapped_not_cut() {
    let line = "  seq 14 · decision 7: Lt. Adams fails to rally rifles-2 and mortar (rolled 4, needed 5)";
    let pieces = super::wrap(line, 40);
    assert_eq!(
        pieces,
        vec!["  seq 14 · decision 7: Lt. Adams fails", "    to rally rifles-2 and mortar (rolled", "    4, needed 5)",]
    );
    assert!(pieces.iter().all(|p| p.chars().count() <= 40), "{pieces:?}");
    let words = |text: &str| text.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_eq!(words(&pieces.join(" ")), words(line));
    assert_eq!(super::wrap("short", 40), vec!["short"]);
    assert_eq!(super::wrap("", 40), vec![""]);
    assert_eq!(
        super::wrap("abcdefghijkl", 6),
        vec!["abcdef", "  ghij", "  kl"],
        "a word longer than the pane is split"
    );

    let replay = rally();
    let narrow = Model::new(replay.last()).screen(&replay, 1000, 30);
    let wide = Model::new(replay.last()).screen(&replay, 1000, 1000);
    assert!(narrow.narrative.len() > wide.narrative.len(), "narrow panes wrap");
    assert!(narrow.narrative.iter().all(|(l, _)| l.chars().count() <= 30));
    let text = |s: &Screen| words(&s.narrative.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>().join(" "));
    assert_eq!(text(&narrow), text(&wide), "wrapping loses no word");
    let current = narrow.narrative.iter().filter(|(_, c)| *c).count();
    let current_wide = wide.narrative.iter().filter(|(_, c)| *c).count();
    assert!(current >= current_wide, "every piece of the current event's lines is marked current");
}
