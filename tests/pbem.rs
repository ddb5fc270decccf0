//! Play by email, end to end: two players, two stores, only files between
//! them. The handshake, turns exchanged through the real binary, a re-roll
//! caught as a fork, and every way of cheating or mangling a turn file a
//! player could try — each detected with the right message and nothing written.

use std::path::Path;
use std::process::Output;

use rollcall_core::digest::Digest;
use rollcall_core::keys::{self, SecretKey};
use rollcall_core::pbem::{armour, TurnFile};
use rollcall_core::record::{self, CheckpointBody, Event, Kind};
use serde_json::Value;

#[path = "support/binary.rs"]
mod binary;
use binary::{rollcall, root, stderr, stdout};

fn example(name: &str) -> String {
    root().join("examples/pbem").join(name).display().to_string()
}

/// One player: a store, a key, a folder for the files he sends.
struct Player {
    dir: tempfile::TempDir,
    side: &'static str,
}

impl Player {
    fn new(side: &'static str) -> Player {
        let p = Player { dir: tempfile::tempdir().unwrap(), side };
        p.ok(&["keygen", "-o", &p.key()]);
        p
    }

    fn key(&self) -> String {
        self.path(&format!("{}.key", self.side))
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    fn db(&self) -> String {
        self.path("db")
    }

    fn run(&self, args: &[&str]) -> Output {
        rollcall(Path::new(&self.db()), args)
    }

    #[track_caller]
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?} failed:\n{}\n{}", stdout(&out), stderr(&out));
        stdout(&out)
    }

    fn secret(&self) -> SecretKey {
        SecretKey::from_file_text(&std::fs::read_to_string(self.key()).unwrap()).unwrap()
    }

    /// Plays a file of decisions and exports the turn to `name`.
    fn turn(&self, decisions: &str, name: &str) -> String {
        self.ok(&["play", "friday", &example(decisions)]);
        self.ok(&["turn", "export", "friday", "--key", &self.key(), "-o", &self.path(name)]);
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    /// Applies a turn file's text (written to a file first).
    fn apply(&self, name: &str, text: &str) -> Output {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap();
        self.run(&["turn", "apply", &path])
    }

    fn head(&self) -> String {
        let out = self.ok(&["games", "--json"]);
        let v: Value = serde_json::from_str(&out).unwrap();
        v["games"][0]["head"].as_str().unwrap_or_default().to_string()
    }
}

#[track_caller]
fn refused_with(out: &Output, code: i32, needle: &str) {
    let all = format!("{}{}", stdout(out), stderr(out));
    assert_eq!(out.status.code(), Some(code), "expected exit {code}:\n{all}");
    assert!(all.contains(needle), "expected {needle:?} in:\n{all}");
}

/// Tom (allies) invites Jerry (axis); both stores end up with the same game.
fn handshake() -> (Player, Player) {
    let tom = Player::new("allies");
    let jerry = Player::new("axis");
    let scenario = example("scenario.json");
    let invite = tom.path("invite.txt");
    let out = tom.ok(&[
        "pbem",
        "invite",
        "--rules",
        "leader-activation@1",
        "--scenario",
        &scenario,
        "--side",
        "allies",
        "--key",
        &tom.key(),
        "--game",
        "friday",
        "-o",
        &invite,
    ]);
    assert!(out.contains("commitment"), "{out}");
    let accept = jerry.path("accept.txt");
    let out = jerry.ok(&["pbem", "accept", &invite, "--key", &jerry.key(), "-o", &accept]);
    assert!(out.contains("accepted game friday"), "{out}");
    let out = tom.ok(&["pbem", "start", &accept, "--key", &tom.key()]);
    assert!(out.contains("started game friday"), "{out}");
    (tom, jerry)
}

/// Events of a turn file, as JSON values, with the file's fields.
fn open_turn(text: &str) -> (Value, Vec<Value>) {
    let a = armour::decode(text).unwrap();
    let turn: Value = serde_json::from_slice(&a.payload).unwrap();
    let events = turn["events"].as_array().unwrap().clone();
    (turn, events)
}

/// A cheat's turn file: the events edited, the chain rebuilt, every
/// checkpoint signed again with `key` — everything a sender can do.
fn forge(text: &str, key: &SecretKey, edit: impl FnOnce(&mut Vec<Value>)) -> String {
    let (turn, mut events) = open_turn(text);
    edit(&mut events);
    let game = turn["game"].as_str().unwrap().to_string();
    let previous: Digest = turn["previous"]["hash"].as_str().unwrap().parse().unwrap();
    let first_seq = turn["previous"]["seq"].as_u64().unwrap() + 1;
    let mut head = previous;
    let mut start = previous;
    let mut lines = Vec::new();
    for (i, v) in events.iter_mut().enumerate() {
        let seq = first_seq + i as u64;
        v["seq"] = seq.into();
        let kind: Kind = serde_json::from_value(v["kind"].clone()).unwrap();
        if kind == Kind::Checkpoint {
            let side = v["body"]["side"].as_str().unwrap().to_string();
            let sig = key.sign(&keys::checkpoint_message(&game, &start, &head, &side));
            v["body"] = serde_json::to_value(CheckpointBody { side, signature: sig }).unwrap();
        }
        let hash = record::link(&head, seq, kind, &v["body"]).unwrap();
        let event = Event { seq, kind, body: v["body"].clone(), hash };
        lines.push(TurnFile::line_value(&record::encode_event(&event).unwrap()));
        head = hash;
        if kind == Kind::Checkpoint {
            start = hash;
        }
    }
    let mut file: TurnFile = serde_json::from_value(turn).unwrap();
    file.head = rollcall_core::log::Head { seq: first_seq + lines.len() as u64 - 1, hash: head };
    file.events = lines;
    file.armour()
}

#[test]
fn a_game_by_email_three_turns_a_reroll_caught_and_identical_verified_records() {
    let (tom, jerry) = handshake();
    // Turn 1: Tom's, with the header. Jerry's store creates the game from it.
    let t1 = tom.turn("allies-1.json", "turn-1.txt");
    assert!(t1.lines().all(|l| l.len() <= 76), "a turn file's lines fit email:\n{t1}");
    let out = jerry.ok(&["turn", "apply", &tom.path("turn-1.txt")]);
    assert!(out.contains("game friday created from allies' first turn file"), "{out}");
    assert!(out.contains("lt-adams (allies) is activated."), "the opponent's turn is narrated:\n{out}");
    assert!(out.contains("[referee decision, made by allies]"), "referee decisions are shown as such:\n{out}");
    assert!(out.contains("you play axis"), "{out}");
    // Turn 2: Jerry's. Tom applies it, pasted into a reply with quoting and CRLF.
    let t2 = jerry.turn("axis-1.json", "turn-2.txt");
    let mangled = format!(
        "Tom,\r\n\r\nhere you go.\r\n\r\n{}\r\n\r\n\r\n",
        t2.lines().map(|l| format!("> {l}")).collect::<Vec<_>>().join("\r\n")
    );
    let out = tom.apply("turn-2-email.txt", &mangled);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("lt-vogel (axis) is activated."));
    // Turn 3: Tom's. He keeps a copy of his store first: he means to cheat.
    let backup = tom.path("db-before-turn-3");
    copy_dir(Path::new(&tom.db()), Path::new(&backup));
    let t3 = tom.turn("allies-2.json", "turn-3.txt");
    jerry.ok(&["turn", "apply", &tom.path("turn-3.txt")]);
    let jerry_head = jerry.head();
    // The re-roll: from the copy, Tom plays that point again otherwise and sends it.
    let cheat = Player { dir: tempfile::tempdir().unwrap(), side: "allies" };
    copy_dir(Path::new(&backup), Path::new(&cheat.db()));
    std::fs::copy(tom.key(), cheat.key()).unwrap();
    let other = r#"[{"type":"activate","leader":"capt-baker"},{"type":"end-activation"}]"#;
    std::fs::write(cheat.path("other.json"), other).unwrap();
    cheat.ok(&["play", "friday", &cheat.path("other.json")]);
    cheat.ok(&["turn", "export", "friday", "--key", &cheat.key(), "-o", &cheat.path("turn-3b.txt")]);
    let out = jerry.run(&["turn", "apply", &cheat.path("turn-3b.txt")]);
    refused_with(&out, 1, "FORK");
    assert_eq!(jerry.head(), jerry_head, "a fork writes nothing to the game");
    let forks = jerry.ok(&["fork", "show", "friday"]);
    assert!(forks.contains("allies signs the turn"), "both branches show their signatures:\n{forks}");
    assert!(forks.contains("capt-baker rallies carrier"), "{forks}");
    assert!(forks.contains("capt-baker's activation ends"), "{forks}");
    // Turn 4: Jerry's, and both records are the same, byte for byte, and verify.
    jerry.turn("axis-2.json", "turn-4.txt");
    tom.ok(&["turn", "apply", &jerry.path("turn-4.txt")]);
    tom.ok(&["export", "friday", "-o", &tom.path("friday.jsonl")]);
    jerry.ok(&["export", "friday", "-o", &jerry.path("friday.jsonl")]);
    let a = std::fs::read(tom.path("friday.jsonl")).unwrap();
    let b = std::fs::read(jerry.path("friday.jsonl")).unwrap();
    assert_eq!(a, b, "both players hold the same record");
    let report = tom.ok(&["verify", &tom.path("friday.jsonl")]);
    assert!(report.contains("signed turns: allies 2, axis 2; every decision is signed"), "{report}");
    let _ = (t1, t3);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Given Jerry's store, which plays axis, when it is copied (`store copy`)
/// into a new store, then the copy plays axis too: it refuses allies'
/// decisions as the store does, and Jerry goes on with the game from it,
/// his next turn taken by Tom.
#[test]
fn a_store_copied_keeps_the_side_it_plays_and_goes_on_with_the_game() {
    let (tom, jerry, _) = first_turn();
    jerry.ok(&["turn", "apply", &tom.path("turn-1.txt")]);
    let copy = Player { dir: tempfile::tempdir().unwrap(), side: "axis" };
    std::fs::copy(jerry.key(), copy.key()).unwrap();
    let out = jerry.run(&["store", "copy", "--from", &jerry.db(), "--to", &copy.db()]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    for p in [&jerry, &copy] {
        let out = p.run(&["play", "friday", &example("allies-2.json")]);
        refused_with(&out, 3, "this decision is allies' to make, not axis'");
    }
    let t2 = copy.turn("axis-1.json", "turn-2.txt");
    let out = tom.apply("turn-2.txt", &t2);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(tom.head(), copy.head());
}

/// Tom's first turn (with the header), not yet applied by Jerry.
fn first_turn() -> (Player, Player, String) {
    let (tom, jerry) = handshake();
    let t1 = tom.turn("allies-1.json", "turn-1.txt");
    (tom, jerry, t1)
}

/// Jerry's store as a reader sees it: its games, heads and forks.
fn snapshot(p: &Player) -> String {
    // A reader never creates a store: no store reads as an
    // empty one (a turn that applies creates it; a refused one does not).
    if !Path::new(&p.db()).exists() {
        return "no games".into();
    }
    let games = p.ok(&["games", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&games).unwrap();
    if listed == serde_json::json!({"games": [], "incomplete": []}) {
        return "no games".into();
    }
    let forks = if games.contains("friday") { p.ok(&["fork", "show", "friday", "--json"]) } else { String::new() };
    format!("{games}{forks}")
}

/// Applies `text` to `p`'s store, expecting exit `code` naming `needle`, and nothing written.
#[track_caller]
fn refused_and_nothing_written(p: &Player, text: &str, code: i32, needle: &str) {
    let (before, existed) = (snapshot(p), Path::new(&p.db()).exists());
    let out = p.apply("tampered.txt", text);
    refused_with(&out, code, needle);
    assert_eq!(snapshot(p), before, "a refused turn writes nothing");
    assert_eq!(Path::new(&p.db()).exists(), existed, "a refused turn creates no store");
}

/// Given a store not made yet (a follower of the game), when a turn file
/// it refuses is applied, then no store is left behind, not even an empty
/// one; and when the genuine turn is applied, the store is made and
/// follows the game.
#[test]
fn a_refused_turn_apply_makes_no_store_and_an_applied_one_does() {
    let (_tom, _jerry, t1) = first_turn();
    let carl = Player { dir: tempfile::tempdir().unwrap(), side: "axis" };
    let clear = t1.replacen("Side: allies", "Side: axis", 1);
    refused_and_nothing_written(&carl, &clear, 1, "does not match the content");
    assert!(!Path::new(&carl.db()).exists(), "a refused turn leaves no store behind");
    let out = carl.apply("turn-1.txt", &t1);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("game friday created"), "{}", stdout(&out));
    assert!(carl.ok(&["games"]).contains("friday"));
}

fn event_where(events: &mut [Value], pred: impl Fn(&Value) -> bool) -> &mut Value {
    events.iter_mut().find(|e| pred(e)).expect("the turn has such an event")
}

#[test]
fn a_changed_roll_is_refused_naming_the_die() {
    let (tom, jerry, t1) = first_turn();
    let forged = forge(&t1, &tom.secret(), |events| {
        let roll = event_where(events, |e| e["kind"] == "roll");
        let v = roll["body"]["value"].as_u64().unwrap();
        roll["body"]["value"] = (if v == 6 { 1 } else { v + 1 }).into();
    });
    refused_and_nothing_written(&jerry, &forged, 1, "roll d6 'rally' #0 of decision 7 is");
    refused_and_nothing_written(&jerry, &forged, 1, "but the committed seed gives");
}

#[test]
fn a_replaced_decision_is_refused() {
    let (tom, jerry, t1) = first_turn();
    let forged = forge(&t1, &tom.secret(), |events| {
        let d = event_where(events, |e| e["body"]["decision"]["type"] == "unit-action");
        d["body"]["decision"]["action"] = "fires on the church".into();
    });
    refused_and_nothing_written(&jerry, &forged, 1, "the fact differs from what the rules decide");
}

#[test]
fn a_decision_made_for_the_other_side_is_refused_naming_whose_it_is() {
    let (tom, jerry, t1) = first_turn();
    let forged = forge(&t1, &tom.secret(), |events| {
        let d = event_where(events, |e| e["body"]["decision"]["type"] == "activate");
        d["body"]["decision"]["leader"] = "lt-vogel".into();
    });
    refused_and_nothing_written(&jerry, &forged, 1, "this decision is axis' to make, not allies'");
    // The same decision claimed for axis, in a turn allies signs.
    let forged = forge(&t1, &tom.secret(), |events| {
        let d = event_where(events, |e| e["body"]["decision"]["type"] == "command");
        d["body"]["by"] = "axis".into();
    });
    refused_and_nothing_written(&jerry, &forged, 1, "this decision is allies' to make, not axis'");
    // And in a player's own store, before anything is sent.
    let (tom, _jerry) = handshake();
    tom.ok(&["play", "friday", &example("allies-1.json")]);
    let out = tom.run(&["play", "friday", &example("axis-1.json")]);
    refused_with(&out, 3, "this decision is axis' to make, not allies'");
    // Once his turn is sent, he waits for the opponent's.
    tom.ok(&["turn", "export", "friday", "--key", &tom.key(), "-o", &tom.path("t.txt")]);
    let out = tom.run(&["play", "friday", &example("allies-2.json")]);
    refused_with(&out, 2, "wait for axis' turn file");
}

#[test]
fn a_forged_or_missing_signature_is_refused() {
    let (_tom, jerry, t1) = first_turn();
    // Signed with another key than allies'.
    let forged = forge(&t1, &jerry.secret(), |_| {});
    refused_and_nothing_written(&jerry, &forged, 1, "allies' signature does not verify under allies' key");
    // `--json` names the check that failed.
    let path = jerry.path("forged.txt");
    std::fs::write(&path, &forged).unwrap();
    let out = jerry.run(&["turn", "apply", &path, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((v["ok"].as_bool(), v["fault"].as_str()), (Some(false), Some("signature-invalid")), "{v}");
    // No checkpoint at all.
    let unsigned = forge(&t1, &jerry.secret(), |events| {
        events.pop();
    });
    refused_and_nothing_written(&jerry, &unsigned, 1, "an unsigned turn is refused");
}

/// A first turn whose header is edited: the chain is rebuilt from the new
/// header's hash and signed again by `key`.
fn forge_header(text: &str, key: &SecretKey, edit: impl FnOnce(&mut Value)) -> String {
    let a = armour::decode(text).unwrap();
    let mut turn: Value = serde_json::from_slice(&a.payload).unwrap();
    edit(&mut turn["header"]);
    let line = rollcall_core::canon::to_string(&turn["header"]).unwrap();
    turn["previous"]["hash"] = Digest::of(line.as_bytes()).to_string().into();
    let file: TurnFile = serde_json::from_value(turn).unwrap();
    forge(&file.armour(), key, |_| {})
}

#[test]
fn a_swapped_key_or_a_share_that_breaks_its_commitment_is_refused() {
    let (tom, jerry, t1) = first_turn();
    let stranger = SecretKey::from_bytes([9; 32]).public().to_hex();
    let swapped = forge_header(&t1, &tom.secret(), |h| h["sides"][1]["key"] = stranger.clone().into());
    refused_and_nothing_written(
        &jerry,
        &swapped,
        1,
        "the header is not the one agreed in the handshake: $.sides[1].key differs",
    );
    let share = rollcall_core::seed::Share([7; 32]);
    let reshared = forge_header(&t1, &tom.secret(), |h| {
        h["seed"]["parties"][0]["share"] = share.to_hex().into();
        h["seed"]["parties"][0]["commitment"] = share.commitment().to_string().into();
    });
    refused_and_nothing_written(&jerry, &reshared, 1, "allies' revealed share does not match the commitment");
    // Once the game is known, a header that differs at all is refused.
    jerry.ok(&["turn", "apply", &tom.path("turn-1.txt")]);
    refused_and_nothing_written(
        &jerry,
        &swapped,
        1,
        "the turn file's header is not this game's: $.sides[1].key differs",
    );
}

#[test]
fn a_turn_file_from_another_game_is_refused() {
    let (tom, jerry, t1) = first_turn();
    jerry.ok(&["turn", "apply", &tom.path("turn-1.txt")]);
    // Another pair of players, another game with the same id.
    let (ann, _bob) = handshake();
    let other = ann.turn("allies-1.json", "turn-1.txt");
    refused_and_nothing_written(&jerry, &other, 1, "the turn file's header is not this game's");
    let _ = t1;
}

#[test]
fn dropped_and_reordered_turns_are_refused_and_a_resent_one_changes_nothing() {
    let (tom, jerry, t1) = first_turn();
    let referee = Player::new("referee");
    jerry.apply("turn-1.txt", &t1);
    let t2 = jerry.turn("axis-1.json", "turn-2.txt");
    tom.apply("turn-2.txt", &t2);
    let t3 = tom.turn("allies-2.json", "turn-3.txt");
    // A referee's store follows the game from the files alone.
    refused_and_nothing_written(&referee, &t2, 2, "only a game's first turn file carries its header");
    let out = referee.apply("turn-1.txt", &t1);
    assert!(stdout(&out).contains("this store plays no side of it"), "{}", stdout(&out));
    refused_and_nothing_written(&referee, &t3, 2, "a turn is missing");
    referee.ok(&["turn", "apply", &referee.path("turn-1.txt")]);
    let out = referee.apply("turn-2.txt", &t2);
    assert!(out.status.success());
    let head = referee.head();
    let out = referee.apply("turn-2.txt", &t2);
    assert!(stdout(&out).contains("nothing new"), "{}", stdout(&out));
    assert_eq!(referee.head(), head);
    referee.apply("turn-3.txt", &t3);
    assert_eq!(referee.head(), tom.head());
    // A side's own turn file is not applied to its own store.
    refused_and_nothing_written(&tom, &t3, 2, "own turn file");
    // A referee's store decides nothing.
    let out = referee.run(&["play", "friday", &example("axis-2.json")]);
    refused_with(&out, 2, "plays no side of it");
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let chars: Vec<char> = line.chars().collect();
        if chars.is_empty() {
            out.push('\n');
        }
        for chunk in chars.chunks(width) {
            out.extend(chunk);
            out.push('\n');
        }
    }
    out
}

#[test]
fn email_transformations_are_accepted_and_a_changed_character_is_not() {
    let (_tom, jerry, t1) = first_turn();
    let variants = [
        ("crlf", t1.replace('\n', "\r\n")),
        ("wrapped at 76", wrap(&t1, 76)),
        ("wrapped at 40", wrap(&t1, 40)),
        ("wrapped at 998", wrap(&t1, 998)),
        ("trailing blank lines", format!("{t1}\n\n\n\n")),
        ("quoted", t1.lines().map(|l| format!("> {l}\n")).collect()),
        ("quoted twice", t1.lines().map(|l| format!(">> {l}\r\n")).collect()),
        ("in a letter", format!("Dear Jerry,\n\n{t1}\n--\nTom\n")),
    ];
    for (what, text) in &variants {
        let a = armour::decode(text).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(a.payload, armour::decode(&t1).unwrap().payload, "{what}");
    }
    // Through the binary: the most mangled one applies.
    let out = jerry.apply("mangled.txt", &variants[6].1);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    // A character changed inside the armour.
    let (_tom, jerry, t1) = first_turn();
    let line = t1.lines().nth(9).unwrap().to_string();
    let mut changed: Vec<char> = line.chars().collect();
    changed[10] = if changed[10] == 'A' { 'B' } else { 'A' };
    let damaged = t1.replacen(&line, &changed.into_iter().collect::<String>(), 1);
    refused_and_nothing_written(&jerry, &damaged, 1, "a character inside the armour was changed");
    let clear = t1.replacen("Side: allies", "Side: axis", 1);
    refused_and_nothing_written(&jerry, &clear, 1, "the armour's clear line `Side: axis` does not match the content");
}

#[test]
fn a_record_that_went_through_email_verifies_and_says_what_was_normalised() {
    let (tom, _jerry, _) = first_turn();
    tom.ok(&["export", "friday", "-o", &tom.path("friday.jsonl")]);
    let text = std::fs::read_to_string(tom.path("friday.jsonl")).unwrap();
    std::fs::write(tom.path("mailed.jsonl"), format!("{}\r\n\r\n\r\n", text.trim_end().replace('\n', "\r\n"))).unwrap();
    let out = tom.ok(&["verify", &tom.path("mailed.jsonl")]);
    assert!(out.contains("normalised transport noise"), "{out}");
    assert!(out.contains("CRLF line end(s) and 2 blank line(s) at the end"), "{out}");
    assert!(out.contains("verified"), "{out}");
    let report: Value = serde_json::from_str(&tom.ok(&["verify", &tom.path("mailed.jsonl"), "--json"])).unwrap();
    let noise = report["normalised"].as_str().unwrap_or_default();
    assert!(noise.ends_with(" CRLF line end(s) and 2 blank line(s) at the end"), "{report}");
    let clean: Value = serde_json::from_str(&tom.ok(&["verify", &tom.path("friday.jsonl"), "--json"])).unwrap();
    assert_eq!(clean["normalised"], Value::Null, "{clean}");
    // Content stays strict: a blank line inside the record is not noise.
    let lines: Vec<&str> = text.lines().collect();
    let holed = format!("{}\n\n{}\n", lines[..3].join("\n"), lines[3..].join("\n"));
    std::fs::write(tom.path("holed.jsonl"), holed).unwrap();
    let out = tom.run(&["verify", &tom.path("holed.jsonl")]);
    refused_with(&out, 1, "a blank line inside the record");
}

#[test]
fn import_extends_a_stored_game_and_a_record_that_parts_from_it_is_a_fork() {
    let (tom, jerry, t1) = first_turn();
    jerry.apply("turn-1.txt", &t1);
    jerry.turn("axis-1.json", "turn-2.txt");
    // Instead of a turn file, Jerry sends his whole record: Tom's store takes what it lacks.
    jerry.ok(&["export", "friday", "-o", &jerry.path("friday.jsonl")]);
    let out = tom.ok(&["import", &jerry.path("friday.jsonl")]);
    assert!(out.contains("extended friday"), "{out}");
    assert_eq!(tom.head(), jerry.head());
    let out = tom.ok(&["import", &jerry.path("friday.jsonl")]);
    assert!(out.contains("nothing to import"), "{out}");
    // A record of the same game that parts from it: a fork, kept; nothing else written.
    let cheat = Player { dir: tempfile::tempdir().unwrap(), side: "axis" };
    let db = cheat.db();
    std::fs::create_dir_all(&db).unwrap();
    jerry.ok(&["export", "friday", "-o", &cheat.path("jerry.jsonl")]);
    let lines: Vec<String> =
        std::fs::read_to_string(cheat.path("jerry.jsonl")).unwrap().lines().map(String::from).collect();
    // Keep the header and turn 1, up to Tom's checkpoint.
    let cut = lines.iter().position(|l| l.contains("\"kind\":\"checkpoint\"")).unwrap() + 1;
    std::fs::write(cheat.path("short.jsonl"), lines[..cut].join("\n") + "\n").unwrap();
    std::fs::copy(jerry.key(), cheat.key()).unwrap();
    cheat.ok(&["keygen", "-o", &cheat.path("stranger.key")]);
    let out = cheat.run(&["import", &cheat.path("short.jsonl"), "--key", &cheat.path("stranger.key")]);
    refused_with(&out, 2, "is not a key of game \"friday\"'s sides");
    cheat.ok(&["import", &cheat.path("short.jsonl"), "--key", &cheat.key()]);
    let other = r#"[{"type":"activate","leader":"fw-weber"},{"type":"end-activation"}]"#;
    std::fs::write(cheat.path("other.json"), other).unwrap();
    // The copy plays axis (the record it came from is Jerry's), signs, and exports its record.
    cheat.ok(&["play", "friday", &cheat.path("other.json")]);
    cheat.ok(&["export", "friday", "-o", &cheat.path("forked.jsonl")]);
    let before = snapshot(&tom);
    let out = tom.run(&["import", &cheat.path("forked.jsonl")]);
    refused_with(&out, 1, "FORK");
    let after = snapshot(&tom);
    assert_ne!(after, before, "the fork is kept as evidence");
    assert_eq!(tom.head(), jerry.head(), "the game itself is unchanged");
    let forks = tom.ok(&["fork", "show", "friday"]);
    assert!(forks.contains("fw-weber (axis) is activated"), "{forks}");
}

/// The published turn-file schema (docs/schemas/turn-file.json) holds the
/// turn files the binary writes: the first, which carries the header, and
/// a later one; a turn file without its head does not validate.
#[test]
fn turn_files_validate_against_the_published_schema() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("docs/schemas/turn-file.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let (tom, jerry) = handshake();
    let first = tom.turn("allies-1.json", "t1.txt");
    assert!(jerry.apply("t1.txt", &first).status.success());
    let second = jerry.turn("axis-1.json", "t2.txt");
    for (name, text) in [("the first turn", &first), ("the second turn", &second)] {
        let turn: Value = serde_json::from_slice(&armour::decode(text).unwrap().payload).unwrap();
        let errors: Vec<String> = validator.iter_errors(&turn).map(|e| format!("{}: {e}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{name} does not validate:\n{}", errors.join("\n"));
        let mut headless = turn.clone();
        headless.as_object_mut().unwrap().remove("head");
        assert!(!validator.is_valid(&headless), "{name} validates without its head");
    }
    let turn: Value = serde_json::from_slice(&armour::decode(&first).unwrap().payload).unwrap();
    assert!(turn["header"].is_object(), "the first turn carries the header");
}

/// By email, a turn picked from `moves` alone: each store lists its own
/// side by default and `play --pick` decides as it; a store that has sent
/// its turn, or that names the other side, is told so and writes nothing.
#[test]
fn a_turn_by_email_is_played_by_picking_from_the_moves_of_ones_own_side() {
    let (tom, jerry) = handshake();
    for pick in ["begin-turn first=allies", "activate lt-adams", "command rifles-1", "end-activation"] {
        tom.ok(&["play", "friday", "--pick", pick]);
    }
    refused_with(&tom.run(&["play", "friday", "--pick", "1", "--side", "axis"]), 2, "this store plays allies");
    tom.ok(&["turn", "export", "friday", "--key", &tom.key(), "-o", &tom.path("turn-1.txt")]);
    jerry.ok(&["turn", "apply", &tom.path("turn-1.txt")]);
    let listed = jerry.ok(&["moves", "friday"]);
    assert!(listed.contains("What axis may do now:") && listed.contains("activate lt-vogel"), "{listed}");
    let out = jerry.ok(&["play", "friday", "--pick", "activate lt-vogel"]);
    assert!(out.contains("lt-vogel (axis) is activated."), "{out}");
    let before = tom.head();
    refused_with(&tom.run(&["play", "friday", "--pick", "1"]), 2, "you signed and sent your turn");
    assert_eq!(tom.head(), before, "nothing written");
}
