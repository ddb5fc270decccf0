//! The page's data: what it embeds must be the record and the engine's own
//! states, narration and proofs (the browser test checks the drawing).

use std::path::PathBuf;

use rollcall_core::game::Game;
use rollcall_core::record::{self, Event, Header, Kind};
use rollcall_core::script::Script;
use serde_json::Value;

use super::*;

fn fixture(name: &str) -> (Header, Vec<Event>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name);
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let script = Script::parse(&text, "fixture", rollcall_core::registry::builtin()).expect("fixture parses");
    let mut events = Vec::new();
    script.play(|_, e| events.push(e.clone())).expect("fixture plays");
    (script.header, events)
}

/// The JSON between `<script type="application/json" id="rollcall-data">` and `</script>`.
fn data_of(page: &str) -> Value {
    let start = page.find(r#"id="rollcall-data">"#).expect("data element") + r#"id="rollcall-data">"#.len();
    let end = start + page[start..].find("</script>").expect("data element ends");
    serde_json::from_str(&page[start..end]).expect("data is JSON")
}

fn page(header: &Header, events: &[Event], options: &ViewOptions) -> (String, Value) {
    let html = render(header, events, options).expect("renders");
    let data = data_of(&html);
    (html, data)
}

fn record_text(header: &Header, events: &[Event]) -> String {
    let mut text = record::encode_header(header).unwrap() + "\n";
    for e in events {
        text += &(record::encode_event(e).unwrap() + "\n");
    }
    text
}

/// Re-links the chain from event `from` on, so a changed body keeps an
/// intact chain and only the re-decision can tell.
fn relink(header: &Header, events: &mut [Event]) {
    let mut head = record::header_hash(header).unwrap();
    for e in events.iter_mut() {
        e.hash = record::link(&head, e.seq, e.kind, &e.body).unwrap();
        head = e.hash;
    }
}

#[test]
fn a_bookmark_is_seq_colon_label() {
    assert_eq!("14:the failed rally".parse::<Bookmark>(), Ok(Bookmark { seq: 14, label: "the failed rally".into() }));
    assert_eq!("0: set-up ".parse::<Bookmark>(), Ok(Bookmark { seq: 0, label: "set-up".into() }));
    assert!("14".parse::<Bookmark>().unwrap_err().contains("SEQ:label"));
    assert!("x:label".parse::<Bookmark>().unwrap_err().contains("not an event seq"));
    assert!("14: ".parse::<Bookmark>().unwrap_err().contains("label is empty"));
}

#[test]
fn a_bookmark_past_the_last_event_is_refused() {
    let (header, events) = fixture("leader-activation/rally.json");
    let options = ViewOptions { bookmarks: vec![Bookmark { seq: 40, label: "after".into() }], compare: None };
    let err = render(&header, &events, &options).unwrap_err();
    assert_eq!(err.to_string(), "--bookmark 40:after: the record has 39 events (seq 0 is the state before the first)");
}

#[test]
fn the_page_embeds_the_record_byte_for_byte_and_needs_no_network() {
    let (header, events) = fixture("leader-activation/rally.json");
    let (html, data) = page(&header, &events, &ViewOptions::default());
    assert_eq!(data["record"].as_str().unwrap(), record_text(&header, &events));
    assert_eq!(data["head"], events.last().unwrap().hash.to_string());
    assert_eq!(data["mode"], "open");
    assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none';"), "the page forbids every fetch");
    for outside in ["<script src", "<link rel=\"stylesheet\"", "@import", "url(http", "fetch(", "XMLHttpRequest"] {
        assert!(!html.contains(outside), "the page must load nothing: found {outside}");
    }
}

#[test]
fn the_patches_fold_into_the_engines_state_after_every_event() {
    for name in [
        "leader-activation/rally.json",
        "phoenix-command/five-turns.json",
        "combat-hq/showcase.json",
        "formation-activation/three-turns.json",
    ] {
        let (header, events) = fixture(name);
        let (_, data) = page(&header, &events, &ViewOptions::default());
        let run = &data["runs"][0];
        let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
        let mut state = run["initial"].clone();
        assert_eq!(state, game.state(), "{name}: the initial state");
        let steps = run["steps"].as_array().unwrap();
        assert_eq!(steps.len(), events.len(), "{name}: a step per event");
        for (step, e) in steps.iter().zip(&events) {
            game.apply(e).unwrap();
            if let Some(ops) = step.get("patch") {
                patch::apply(&mut state, ops.as_array().unwrap());
            }
            assert_eq!(state, game.state(), "{name}: the state after seq {}", e.seq);
            assert_eq!(step["turn"], game.turn(), "{name}: the turn at seq {}", e.seq);
            assert_eq!(step["kind"], e.kind.name());
            assert_eq!(step["text"], game.narrate(e).trim(), "{name}: the narration of seq {}", e.seq);
        }
    }
}

#[test]
fn open_dice_are_proven_and_table_dice_unproven() {
    let (header, events) = fixture("leader-activation/rally.json");
    let (_, data) = page(&header, &events, &ViewOptions::default());
    assert_eq!(data["integrity"]["outcome"], "verified");
    let proofs: Vec<&Value> =
        data["runs"][0]["steps"].as_array().unwrap().iter().filter_map(|s| s.get("proof")).collect();
    assert!(!proofs.is_empty());
    assert!(proofs.iter().all(|p| *p == "proven"));

    let (header, events) = fixture("phoenix-command/farmhouse-assault.json");
    let (_, data) = page(&header, &events, &ViewOptions::default());
    assert_eq!(data["mode"], "table");
    let steps = data["runs"][0]["steps"].as_array().unwrap();
    let rolls = events.iter().filter(|e| e.kind == Kind::Roll).count();
    assert!(rolls > 0);
    assert_eq!(steps.iter().filter(|s| s.get("proof") == Some(&Value::from("unproven"))).count(), rolls);
}

#[test]
fn a_forged_die_is_reported_and_the_dice_from_it_on_are_unchecked() {
    let (header, mut events) = fixture("leader-activation/rally.json");
    let forged = events.iter().position(|e| e.kind == Kind::Roll && e.body["label"] == "rally").unwrap();
    let value = events[forged].body["value"].as_u64().unwrap();
    events[forged].body["value"] = Value::from(if value == 6 { 1 } else { value + 1 });
    relink(&header, &mut events);
    let seq = events[forged].seq;
    let (_, data) = page(&header, &events, &ViewOptions::default());
    assert_eq!(data["integrity"]["outcome"], "failed");
    assert_eq!(data["integrity"]["seq"], seq);
    assert!(data["integrity"]["reason"].as_str().unwrap().contains("the committed seed gives"));
    let steps = data["runs"][0]["steps"].as_array().unwrap();
    for (step, e) in steps.iter().zip(&events) {
        if e.kind == Kind::Roll {
            let want = if e.seq < seq { "proven" } else { "unchecked" };
            assert_eq!(step["proof"], want, "seq {}", e.seq);
        }
    }
}

#[test]
fn no_text_of_the_record_can_close_the_data_element() {
    let (mut header, events) = fixture("leader-activation/rally.json");
    let evil = "</script><script>alert(1)</script> & <!--";
    header.scenario["leaders"][0]["name"] = Value::from(evil);
    let mut events = events;
    relink(&header, &mut events);
    let (html, data) = page(&header, &events, &ViewOptions::default());
    assert_eq!(
        html.matches("</script>").count(),
        3,
        "only the page's own three script elements (data, drawing, viewer) close"
    );
    let first: Value = serde_json::from_str(data["record"].as_str().unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(first["scenario"]["leaders"][0]["name"], evil);
}

#[test]
fn the_title_is_escaped() {
    let (mut header, events) = fixture("leader-activation/rally.json");
    header.rules.name = Some("<b>Friday & co</b>".into());
    let mut events = events;
    relink(&header, &mut events);
    let html = render(&header, &events, &ViewOptions::default()).unwrap();
    assert!(html.contains("<title>rally · &lt;b&gt;Friday &amp; co&lt;/b&gt;"), "{}", &html[..400]);
}

#[test]
fn compare_runs_both_versions_and_marks_the_divergences_diff_finds() {
    let (header, events) = fixture("combat-hq/showcase.json");
    let (b, _) = rollcall_core::registry::inline_version("combat-hq@multi-bg").unwrap();
    let compare = Compare { a: header.rules.clone(), b: b.clone() };
    let options = ViewOptions { bookmarks: vec![], compare: Some(compare) };
    let (_, data) = page(&header, &events, &options);
    let runs = data["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["label"], "combat-hq@multi-bg");
    let report = rollcall_core::diff::diff(
        &header,
        events.iter().cloned().map(Ok::<_, Infallible>),
        &header.rules,
        &b,
        true,
        rollcall_core::registry::builtin(),
    )
    .unwrap();
    assert!(!report.agree(), "the showcase parts under multi-bg");
    let marked: Vec<u64> =
        data["divergences"]["decisions"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).collect();
    assert_eq!(marked, report.divergences.iter().map(|d| d.number).collect::<Vec<_>>());
    // Run A under the record's own rules is the record's own events.
    let a_steps = runs[0]["steps"].as_array().unwrap();
    assert_eq!(a_steps.len(), events.len());
    for (step, e) in a_steps.iter().zip(&events) {
        assert_eq!(step["body"], e.body, "seq {}", e.seq);
    }
    // Every run's last state is the state its version reaches.
    let mut state_b = runs[1]["initial"].clone();
    for step in runs[1]["steps"].as_array().unwrap() {
        if let Some(ops) = step.get("patch") {
            patch::apply(&mut state_b, ops.as_array().unwrap());
        }
    }
    let decisions = runs[1]["steps"].as_array().unwrap().iter().filter(|s| s["kind"] == "decision").count();
    assert_eq!(decisions as u64, report.decisions);
    assert_ne!(state_b, runs[0]["initial"]);
}

#[test]
fn the_same_record_gives_the_same_page() {
    let (header, events) = fixture("formation-activation/two-chits.json");
    let options = ViewOptions { bookmarks: vec![Bookmark { seq: 3, label: "a chit".into() }], compare: None };
    assert_eq!(render(&header, &events, &options).unwrap(), render(&header, &events, &options).unwrap());
}

/// The rally fixture played as a play-by-email game: the header lists both
/// sides' keys, every decision names its side, and each side signs a
/// checkpoint when the other is to decide.
fn signed_rally() -> (Header, Vec<Event>) {
    use rollcall_core::keys::SecretKey;
    use rollcall_core::record::SideKey;
    use rollcall_core::ruleset::Actor;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/leader-activation/rally.json");
    let script =
        Script::parse(&std::fs::read_to_string(path).unwrap(), "rally", rollcall_core::registry::builtin()).unwrap();
    let keys = [("allies", SecretKey::from_bytes([1; 32])), ("axis", SecretKey::from_bytes([2; 32]))];
    let mut header = script.header.clone();
    header.sides = keys.iter().map(|(name, key)| SideKey { key: key.public(), name: name.to_string() }).collect();
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    let mut events = Vec::new();
    let mut turn_of: Option<&str> = None;
    for (decision, dice) in &script.decisions {
        let side = match game.author(decision).unwrap() {
            Actor::Side(side) => keys.iter().map(|(n, _)| *n).find(|n| *n == side).unwrap(),
            Actor::Referee => turn_of.unwrap_or("allies"),
        };
        if let Some(previous) = turn_of.filter(|p| *p != side) {
            let key = &keys.iter().find(|(n, _)| *n == previous).unwrap().1;
            let checkpoint = game.checkpoint(previous, key).unwrap();
            game.apply(&checkpoint).unwrap();
            events.push(checkpoint);
        }
        turn_of = Some(side);
        events.extend(game.play_as(decision, dice.as_ref(), Some(side)).unwrap());
    }
    (header, events)
}

#[test]
fn a_signed_game_shows_its_checkpoints_as_steps_and_verifies() {
    let (header, events) = signed_rally();
    let checkpoints = events.iter().filter(|e| e.kind == Kind::Checkpoint).count();
    assert!(checkpoints > 1, "the sides take turns");
    let (_, data) = page(&header, &events, &ViewOptions::default());
    assert_eq!(data["integrity"]["outcome"], "verified", "{}", data["integrity"]);
    assert_eq!(data["record"].as_str().unwrap(), record_text(&header, &events));
    let steps = data["runs"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), events.len());
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    for (step, e) in steps.iter().zip(&events) {
        game.apply(e).unwrap();
        assert_eq!(step["kind"], e.kind.name());
        assert_eq!(step["text"], game.narrate(e).trim());
        if e.kind == Kind::Checkpoint {
            assert!(step.get("patch").is_none() && step.get("proof").is_none(), "a checkpoint changes no state");
        }
    }
}

/// The rally fixture played as a sealed game through a server, as
/// `core/tests/sealed.rs` plays it: each turn's dice from the chain value the
/// server holds, revealed when the turn ends (and at the end, if asked).
fn sealed_rally(end_with_reveal: bool) -> (Header, Vec<Event>) {
    use rollcall_core::keys::SecretKey;
    use rollcall_core::record::{SeedMode, SideKey};
    use rollcall_core::ruleset::Actor;
    use rollcall_core::sealed::{Chain, ServerCommitment};
    let chain = Chain::new([9; 32], 50);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/leader-activation/rally.json");
    let script =
        Script::parse(&std::fs::read_to_string(path).unwrap(), "rally", rollcall_core::registry::builtin()).unwrap();
    let mut header = script.header.clone();
    header.mode = SeedMode::Sealed;
    header.sides = ["allies", "axis"]
        .iter()
        .zip([1u8, 2])
        .map(|(name, k)| SideKey { name: name.to_string(), key: SecretKey::from_bytes([k; 32]).public() })
        .collect();
    header.server = Some(ServerCommitment {
        commitment: chain.commitment(),
        key: SecretKey::from_bytes([3; 32]).public(),
        length: chain.length(),
    });
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    game.unseal(chain.value(1).unwrap()).unwrap();
    let mut events = Vec::new();
    let reveal = |game: &mut Game, events: &mut Vec<Event>| {
        let e = game.reveal().unwrap();
        game.apply(&e).unwrap();
        events.push(e);
        let next = game.sealed().unwrap().index;
        game.unseal(chain.value(next).unwrap()).unwrap();
    };
    for (decision, _) in &script.decisions {
        let by = match game.author(decision).unwrap() {
            Actor::Side(side) => side,
            Actor::Referee => "allies".to_string(),
        };
        let before = game.turn();
        events.extend(game.play_as(decision, None, Some(&by)).unwrap());
        if game.turn() != before {
            reveal(&mut game, &mut events);
        }
    }
    if end_with_reveal {
        reveal(&mut game, &mut events);
    }
    (header, events)
}

#[test]
fn sealed_dice_are_sealed_until_their_turn_is_revealed_then_proven() {
    let proofs = |end_with_reveal| {
        let (header, events) = sealed_rally(end_with_reveal);
        let (_, data) = page(&header, &events, &ViewOptions::default());
        assert_eq!(data["mode"], "sealed");
        assert_eq!(data["integrity"]["outcome"], "verified", "{}", data["integrity"]);
        let steps = data["runs"][0]["steps"].as_array().unwrap().clone();
        assert_eq!(steps.len(), events.len());
        assert!(events.iter().any(|e| e.kind == Kind::Reveal));
        steps.iter().filter_map(|s| s.get("proof").cloned()).collect::<Vec<Value>>()
    };
    let open_turn = proofs(false);
    assert!(!open_turn.is_empty());
    assert!(open_turn.iter().all(|p| p == "sealed"), "the turn in play is not revealed: {open_turn:?}");
    let revealed = proofs(true);
    assert_eq!(revealed.len(), open_turn.len());
    assert!(revealed.iter().all(|p| p == "proven"), "every turn revealed: {revealed:?}");
}
