//! `rollcall play GAME` on a real (pseudo-)terminal: a whole turn played
//! from the menu with key presses — an entry picked, a free field typed
//! (a bad value first), a choice from a sub-menu, a decision taken back —
//! then written and, by email, exported and signed; the turn file applied
//! by the other side and both stores verified with the binary. And what a
//! kill or `q` in the middle of a turn leaves in the store: nothing not
//! said to be written, everything that was. And the same menu against a
//! dice server: each pick decided there, the other side followed, a
//! refusal shown, a server gone said plainly.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

#[path = "support/binary.rs"]
mod binary;
use binary::{command as rollcall, root, stderr, stdout};

#[path = "support/pty.rs"]
mod pty;
use pty::Screen;

#[path = "support/server.rs"]
mod server;
use server::Server;

const DOWN: &str = "\x1b[B";

/// One player: a folder holding his store, his key (named after him, not
/// his side) and the files he sends.
struct Player {
    dir: tempfile::TempDir,
    name: &'static str,
    side: &'static str,
}

impl Player {
    fn new((name, side): (&'static str, &'static str)) -> Player {
        let p = Player { dir: tempfile::tempdir().unwrap(), name, side };
        p.ok(&["keygen", "-o", &p.key()]);
        p
    }

    fn key(&self) -> String {
        self.path(&format!("{}.key", self.name))
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("db")
    }

    fn run(&self, args: &[&str]) -> Output {
        rollcall(&self.db()).args(args).current_dir(self.dir.path()).output().unwrap()
    }

    #[track_caller]
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?} failed:\n{}\n{}", stdout(&out), stderr(&out));
        stdout(&out)
    }

    /// `rollcall play GAME` on a terminal, in the player's folder (where his key is).
    fn play_on_terminal(&self, game: &str) -> Screen {
        let mut command = rollcall(&self.db());
        command.args(["play", game]).current_dir(self.dir.path());
        Screen::spawn(command, 160, 50)
    }

    /// The decisions of `game` in this store, as recorded.
    fn decisions(&self, game: &str) -> Vec<Value> {
        let log: Value = serde_json::from_str(&self.ok(&["log", game, "--json"])).unwrap();
        log["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == "decision")
            .map(|e| e["body"]["decision"].clone())
            .collect()
    }

    fn head(&self, game: &str) -> String {
        let state: Value = serde_json::from_str(&self.ok(&["state", game, "--json"])).unwrap();
        state["head"].as_str().unwrap().to_string()
    }

    /// The one file of the player's folder whose name begins with `prefix`.
    fn file_starting(&self, prefix: &str) -> PathBuf {
        let found: Vec<PathBuf> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
            .collect();
        assert_eq!(found.len(), 1, "files starting {prefix}: {found:?}");
        found[0].clone()
    }
}

/// Two players, each `(name, side)`, start game `game` by email under
/// `rules`: the first invites, the second accepts the other side.
fn handshake(rules: &str, scenario: &Path, players: [(&'static str, &'static str); 2], game: &str) -> (Player, Player) {
    let (a, b) = (Player::new(players[0]), Player::new(players[1]));
    let (invite, accept) = (a.path("invite.txt"), b.path("accept.txt"));
    let scenario = scenario.to_str().unwrap();
    let terms = ["--rules", rules, "--scenario", scenario, "--side", a.side, "--game", game];
    a.ok(&[&["pbem", "invite", "--key", &a.key(), "-o", &invite][..], &terms].concat());
    b.ok(&["pbem", "accept", &invite, "--key", &b.key(), "-o", &accept]);
    a.ok(&["pbem", "start", &accept, "--key", &a.key()]);
    (a, b)
}

/// A fixture script's scenario, as a file in `dir`.
fn scenario_of(fixture: &str, dir: &Path) -> PathBuf {
    let script: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("fixtures").join(fixture)).unwrap()).unwrap();
    let path = dir.join("scenario.json");
    std::fs::write(&path, script["scenario"].to_string()).unwrap();
    path
}

/// Answers the end of a turn by email: write it, export it with the key
/// and file offered, and leave; what the screen said at the end.
fn end_and_export(screen: &mut Screen, player: &Player, game: &str) -> String {
    let side = player.side;
    screen.keys("y");
    let written = screen.wait_for("export and sign this turn now?");
    assert!(written.contains("wrote "), "{written}");
    screen.keys("y");
    screen.wait_for("field 1 of 2: key");
    let offered = screen.wait_for(&format!("default: {}.key (Enter takes it)", player.name));
    assert!(offered.contains("secret key file"), "{offered}");
    screen.keys("\r");
    screen.wait_for("field 2 of 2: output");
    screen.wait_for(&format!("default: {game}-{side}-"));
    screen.keys("\r");
    let sent = screen.wait_for("(any key leaves)");
    assert!(sent.contains(&format!("{side} turn of game {game}")), "{sent}");
    screen.keys(" ");
    let status = screen.wait_exit();
    assert!(status.success(), "{status:?}\n{}", screen.text());
    screen.text()
}

/// The opponent applies the turn file; both stores verify and agree.
fn applied_and_verified(sender: &Player, receiver: &Player, game: &str) {
    let turn = sender.file_starting(&format!("{game}-{}-", sender.side));
    let applied = receiver.ok(&["turn", "apply", turn.to_str().unwrap()]);
    let whose = if sender.side.ends_with('s') { format!("{}'", sender.side) } else { format!("{}'s", sender.side) };
    assert!(applied.contains(&format!("applied {whose} turn: ")), "{applied}");
    for player in [sender, receiver] {
        let verified = player.ok(&["verify", game]);
        assert!(verified.contains(&format!("verified {game}")), "{verified}");
    }
    assert_eq!(sender.head(game), receiver.head(game));
}

/// Allies' first turn of leader activation, by email: the referee's
/// begin-turn entered from the menu, Lt. Adams activated by number, a
/// command given and taken back, a move whose piece is chosen from a
/// sub-menu and whose point is typed (north first: refused, asked again),
/// a rally whose die is shown; axis to decide, the turn is written,
/// exported and signed, and applied by axis.
#[test]
fn a_turn_of_leader_activation_by_email_is_played_from_the_menu_exported_and_applied() {
    let scenario = root().join("examples/pbem/scenario.json");
    let (tom, jerry) = handshake("leader-activation@1", &scenario, [("tom", "allies"), ("jerry", "axis")], "friday");
    // Another key beside Tom's: the export offers the one that is allies'.
    tom.ok(&["keygen", "-o", &tom.path("a-spare.key")]);
    let mut screen = tom.play_on_terminal("friday");
    let first = screen.wait_for("allies has nothing of its own to decide now");
    assert!(first.contains("you play allies, by email"), "{first}");
    assert!(first.contains(">  1. begin the next turn, allies activating first"), "{first}");

    screen.keys("\r");
    screen.wait_for("Turn 1 begins, allies first.");
    screen.wait_for("What allies may do now:");
    screen.keys("2");
    screen.wait_for(">  2. activate lt-adams");
    screen.keys("\r");
    screen.wait_for("lt-adams (allies) is activated.");
    let command = screen.wait_for(">  1. lt-adams commands rifles-1");
    assert!(command.contains("in range: 50 mm of 100 mm"), "{command}");
    screen.keys("\r");
    let commanded = screen.wait_for("#3 command unit=rifles-1: decided");
    assert!(commanded.contains("3 decisions not written"), "{commanded}");
    screen.keys("u");
    let taken_back = screen.wait_for("took back #3 command unit=rifles-1: it was never written");
    assert!(taken_back.contains("2 decisions not written"), "{taken_back}");

    screen.keys("9");
    screen.wait_for(">  9. a leader or unit moves on the table");
    screen.keys("\r");
    screen.wait_for("field 1 of 2: piece (the referee's input)");
    screen.keys(&DOWN.repeat(5));
    screen.wait_for("> lt-adams (allies's leader)");
    screen.keys("\r");
    let to = screen.wait_for("field 2 of 2: to");
    assert!(to.contains("a point in mm: x,y") && to.contains("default: 600,0"), "{to}");
    screen.keys("north\r");
    screen.wait_for("✗ \"north\" is not a point: write x,y in whole numbers — try again");
    screen.keys("10,20\r");
    screen.wait_for("#3 move piece=lt-adams to=[10,20]: decided");

    screen.keys("5");
    screen.wait_for(">  5. lt-adams rallies mortar, rifles-2");
    screen.keys("\r");
    let rallied = screen.wait_for("axis to decide now: allies' turn is over. End it?");
    assert!(rallied.contains("roll d6 rally#0 = "), "the die is shown: {rallied}");
    let end = end_and_export(&mut screen, &tom, "friday");
    assert!(end.contains("wrote 4 decisions"), "{end}");

    applied_and_verified(&tom, &jerry, "friday");
    let decisions = jerry.decisions("friday");
    let types: Vec<&str> = decisions.iter().map(|d| d["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["begin-turn", "activate", "move", "rally"], "the command taken back is not there");
    assert_eq!(decisions[2]["to"], serde_json::json!([10, 20]));
}

/// The number the menu on `screen` gives the entry whose words hold `says`.
fn number_of(screen: &str, says: &str) -> usize {
    let line = screen.lines().find(|l| l.contains(says)).unwrap_or_else(|| panic!("{says:?} not listed:\n{screen}"));
    let entry = line.split('│').find(|pane| pane.contains(says)).unwrap();
    let number = entry.trim_start_matches(['>', ' ']).split('.').next().unwrap();
    number.parse().unwrap_or_else(|_| panic!("no number in {entry:?}"))
}

/// Goes to entry `n` by typing its number, and chooses it.
fn choose(screen: &mut Screen, n: usize, says: &str) {
    screen.keys(&n.to_string());
    screen.wait_for(&format!(">{n:>3}. {says}"));
    screen.keys("\r");
}

/// Alex's first turn of Phoenix Command, by email: the turn begun, alpha
/// activated; a command check the referee calls for, its reason typed and
/// a figure marked in a sub-menu, its d10 shown, then taken back; a CP
/// spent, the figures' actions typed as JSON (a word first: refused, asked
/// again; then the default); every unit of alex's done, jason to decide:
/// the turn written, exported and signed, and applied by jason.
#[test]
fn a_turn_of_phoenix_command_by_email_is_played_from_the_menu_exported_and_applied() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario_of("phoenix-command/activation-order.json", dir.path());
    let (alex, jason) = handshake("phoenix-command@1", &scenario, [("ann", "alex"), ("joe", "jason")], "dawn");
    let mut screen = alex.play_on_terminal("dawn");
    screen.wait_for(">  1. begin the next turn (strategic movement)");
    screen.keys("\r");
    let listed = screen.wait_for("strategic movement is over");
    let begin = number_of(&listed, "strategic movement is over");
    choose(&mut screen, begin, "strategic movement is over");
    screen.wait_for("Turn 1 operations begin. Next: alex with 3 CP: alpha.");
    screen.wait_for(">  1. activate alpha");
    screen.keys("\r");
    screen.wait_for("alpha (alex) is activated with 3 CP.");
    // The referee's inputs come last: to the end of the menu, where the check is seen.
    screen.keys("G");
    let listed = screen.wait_for("a command check for figures of alpha");
    let check = number_of(&listed, "a command check for figures of alpha");
    choose(&mut screen, check, "a command check for figures of alpha");
    let reason = screen.wait_for("field 1 of 2: reason (the referee's input)");
    assert!(reason.contains("default: the referee calls for one (Enter takes it)"), "{reason}");
    screen.keys("under fire\r");
    let figures = screen.wait_for("field 2 of 2: figures");
    assert!(figures.contains("given: reason = under fire"), "{figures}");
    screen.keys(" ");
    screen.wait_for("[x] alpha-1");
    screen.keys("\r");
    let checked = screen.wait_for("roll d10 check:alpha-1#0 = ");
    assert!(checked.contains(": decided"), "{checked}");
    screen.keys("u");
    screen.wait_for("took back #4 command-check");

    screen.wait_for(">  1. alpha spends its next CP");
    screen.keys("\r");
    screen.wait_for(">  1. alpha's figures act");
    screen.keys("\r");
    screen.wait_for("field 1 of 1: actions");
    screen.keys("hold\r");
    screen.wait_for("✗ this field is JSON: ");
    screen.keys("\r");
    screen.wait_for("alpha-lead holds his position.");
    choose(&mut screen, 2, "alpha stops");
    for unit in ["bravo", "charlie"] {
        screen.wait_for(&format!(">  1. activate {unit}"));
        screen.keys("\r");
        screen.wait_for(&format!("{unit} (alex) is activated"));
        let pass = format!("{unit} does nothing");
        let n = number_of(&screen.wait_for(&pass), &pass);
        choose(&mut screen, n, &pass);
    }
    screen.wait_for("jason to decide now: alex's turn is over. End it?");
    let end = end_and_export(&mut screen, &alex, "dawn");
    assert!(end.contains("wrote 10 decisions"), "{end}");

    applied_and_verified(&alex, &jason, "dawn");
    let decisions = jason.decisions("dawn");
    let types: Vec<&str> = decisions.iter().map(|d| d["type"].as_str().unwrap()).collect();
    assert!(!types.contains(&"command-check"), "the check taken back is not there: {types:?}");
    assert_eq!(types.len(), 10, "{types:?}");
}

/// A game played on this machine (no sides' keys): what the store holds
/// after a kill in the middle of a turn, after `q`, and after `e`.
#[test]
fn a_turn_not_written_is_lost_whole_on_a_kill_or_q_and_a_written_one_stays() {
    let s = binary::Store::new();
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("fixtures/leader-activation/rally.json")).unwrap())
            .unwrap();
    script["decisions"] = Value::Array(script["decisions"].as_array().unwrap()[..2].to_vec());
    std::fs::write(s.path("rally.json"), script.to_string()).unwrap();
    s.ok(&["run", &s.path_text("rally.json")]);
    let head = |s: &binary::Store| {
        let state: Value = serde_json::from_str(&s.ok(&["state", "rally", "--json"])).unwrap();
        state["head"].as_str().unwrap().to_string()
    };
    let before = head(&s);
    let open = || {
        let mut command = s.cmd();
        command.args(["play", "rally"]);
        Screen::spawn(command, 160, 50)
    };

    // Killed with a decision decided, not written: the store is as it was.
    let mut screen = open();
    let first = screen.wait_for("What allies may do now:");
    assert!(first.contains("every side plays on this machine"), "{first}");
    assert!(first.contains("lt-adams (allies) is activated."), "the narrative before the turn: {first}");
    screen.keys("\r");
    screen.wait_for("#3 command unit=rifles-1: decided");
    screen.child.kill().unwrap();
    screen.wait_exit();
    assert_eq!(head(&s), before, "a kill mid-turn writes nothing");

    // q asks first; n goes back; y throws the decision away.
    let mut screen = open();
    screen.wait_for("What allies may do now:");
    screen.keys("\r");
    screen.wait_for("#3 command unit=rifles-1: decided");
    screen.keys("q");
    screen.wait_for("quit and throw away the 1 decision not written?");
    screen.keys("n");
    screen.wait_for("1 decision not written · ? keys");
    screen.keys("q");
    screen.wait_for("quit and throw away the 1 decision not written?");
    screen.keys("y");
    assert!(screen.wait_exit().success());
    screen.wait_for("quit: threw away 1 decision not written; the store is as it was");
    assert_eq!(head(&s), before, "q writes nothing");

    // e writes: what it says is written stays after a kill; what follows does not.
    let mut screen = open();
    screen.wait_for("What allies may do now:");
    screen.keys("\r");
    screen.wait_for("#3 command unit=rifles-1: decided");
    screen.keys("e");
    let wrote = screen.wait_for("wrote 1 decision (");
    assert!(wrote.contains("0 decisions not written"), "{wrote}");
    screen.keys("u");
    screen.wait_for("nothing to take back: what is written to the store stays there (the store only appends)");
    screen.keys("\r");
    screen.wait_for("field 1 of 1: action");
    screen.keys("\r");
    screen.wait_for("#4 unit-action action=moves unit=rifles-1: decided");
    screen.child.kill().unwrap();
    screen.wait_exit();
    let verified = s.ok(&["verify", "rally"]);
    assert!(verified.contains("verified rally: 3 decisions") || verified.contains("3 decisions"), "{verified}");
    let log: Value = serde_json::from_str(&s.ok(&["log", "rally", "--json"])).unwrap();
    let decisions: Vec<&Value> = log["events"].as_array().unwrap().iter().filter(|e| e["kind"] == "decision").collect();
    assert_eq!(decisions.len(), 3, "the two of the fixture and the one written");
    assert_eq!(decisions[2]["body"]["decision"], serde_json::json!({"type": "command", "unit": "rifles-1"}));
}

/// With standard input a terminal but standard output a pipe, `play GAME`
/// with no decision is a usage error, as off a terminal: exit 2, nothing written.
#[test]
fn play_without_a_decision_off_a_terminal_says_how_to_pick_one() {
    let s = binary::Store::new();
    s.ok(&["run", &root().join("fixtures/leader-activation/rally.json").display().to_string()]);
    let (_master, slave) = pty::pty(80, 24);
    let out = s.cmd().args(["play", "rally"]).stdin(std::process::Stdio::from(slave)).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(
        "name a decision file (or - for standard input), or pick one of `rollcall moves rally` with --pick N"
    ));
    assert!(stdout(&out).is_empty());
}

/// A sealed game of leader activation on `server` (the play-by-email
/// example's scenario), allies against axis, both shares given: the two
/// sides' tokens.
fn sealed_game(server: &Server, game: &str) -> (String, String) {
    use rollcall_core::keys::SecretKey;
    let scenario: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("examples/pbem/scenario.json")).unwrap()).unwrap();
    let body = serde_json::json!({"game": game, "rules": "leader-activation@1", "scenario": scenario, "sides": [
        {"name": "allies", "key": SecretKey::from_bytes([1; 32]).public().to_hex()},
        {"name": "axis", "key": SecretKey::from_bytes([2; 32]).public().to_hex()}]});
    let (status, created) = post_json(&server.url("/games"), None, &body);
    assert_eq!(status, 201, "{created}");
    let tokens = [created["tokens"]["allies"].as_str().unwrap(), created["tokens"]["axis"].as_str().unwrap()];
    for (token, n) in tokens.iter().zip([7u8, 8]) {
        let share = serde_json::json!({"share": rollcall_core::digest::hex32(&[n; 32])});
        let (status, answer) = post_json(&server.url(&format!("/games/{game}/share")), Some(token), &share);
        assert_eq!(status, 200, "{answer}");
    }
    (tokens[0].to_string(), tokens[1].to_string())
}

fn post_json(url: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
    let mut request = ureq::post(url).set("Content-Type", "application/json");
    if let Some(token) = token {
        request = request.set("Authorization", &format!("Bearer {token}"));
    }
    let (status, text) = match request.send_string(&body.to_string()) {
        Ok(r) => (r.status(), r.into_string().unwrap()),
        Err(ureq::Error::Status(s, r)) => (s, r.into_string().unwrap()),
        Err(e) => panic!("{url}: {e}"),
    };
    (status, serde_json::from_str(&text).unwrap())
}

fn get_json(url: &str) -> Value {
    serde_json::from_str(&ureq::get(url).call().unwrap().into_string().unwrap()).unwrap()
}

/// `decision`, made over HTTP by `token`'s side on the server's head.
#[track_caller]
fn decide_on(server: &Server, game: &str, token: &str, decision: Value) {
    let head = get_json(&server.url(&format!("/games/{game}")))["head"]["hash"].clone();
    let body = serde_json::json!({"expected_head": head, "decision": decision});
    let (status, answer) = post_json(&server.url(&format!("/games/{game}/decisions")), Some(token), &body);
    assert_eq!(status, 200, "{answer}");
}

/// The decisions of `game` as the server has written them.
fn server_decisions(server: &Server, game: &str) -> Vec<Value> {
    let events = get_json(&server.url(&format!("/games/{game}/events")));
    events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "decision")
        .map(|e| e["body"]["decision"].clone())
        .collect()
}

/// The types of `decisions`, in order.
fn types(decisions: &[Value]) -> Vec<&str> {
    decisions.iter().map(|d| d["type"].as_str().unwrap()).collect()
}

/// `rollcall play GAME --server URL --token T` on a terminal, on a store
/// that does not exist (the server's game is all it reads).
fn play_on_server(dir: &Path, url: &str, game: &str, token: &str) -> Screen {
    let mut command = rollcall(&dir.join("no-store"));
    command.args(["play", game, "--server", url, "--token", token]);
    Screen::spawn(command, 160, 50)
}

/// Allies plays the first activation of a sealed game from the menu: the
/// referee's begin-turn, Lt. Adams activated, a command, a rally whose die
/// the server draws; each decided by the server as it is picked, its head
/// signature checked. Then the game awaits axis: the screen says so, and
/// axis's activation (made elsewhere) appears by itself. The server holds
/// each decision, in order, and its record verifies.
#[test]
fn a_turn_on_a_dice_server_is_played_from_the_menu_and_each_pick_lands_there() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), 100);
    let (allies, axis) = sealed_game(&server, "duel");
    let mut screen = play_on_server(dir.path(), &server.url(""), "duel", &allies);
    let first = screen.wait_for("allies has nothing of its own to decide now");
    assert!(first.contains(&format!("you play allies on the server {}", server.url(""))), "{first}");
    assert!(first.contains(">  1. begin the next turn, allies activating first"), "{first}");
    assert!(first.contains("Enter sends the decision to the server"), "the keys are said: {first}");
    // Nothing to take back or to end on a server: those keys do nothing.
    screen.keys("u");
    screen.wait_for("? shows the keys");
    screen.keys("?");
    let help = screen.wait_for(" keys ");
    assert!(!help.contains("take back") && !help.contains("end the turn"), "{help}");
    screen.keys(" ");

    screen.keys("\r");
    let begun = screen.wait_for("#1 begin-turn first=allies: decided by the server");
    assert!(begun.contains("signed by the server (checked)"), "{begun}");
    screen.wait_for("Turn 1 begins, allies first.");
    screen.wait_for("What allies may do now:");
    choose(&mut screen, 2, "activate lt-adams");
    screen.wait_for("lt-adams (allies) is activated.");
    screen.wait_for(">  1. lt-adams commands rifles-1");
    screen.keys("\r");
    screen.wait_for("#3 command unit=rifles-1: decided by the server");
    let listed = screen.wait_for("rallies mortar, rifles-2");
    let rally = number_of(&listed, "rallies mortar, rifles-2");
    choose(&mut screen, rally, "lt-adams rallies mortar, rifles-2");
    let rallied = screen.wait_for("#4 rally units=mortar,rifles-2: decided by the server");
    assert!(rallied.contains("roll d6 rally#0 = "), "the die the server drew is shown: {rallied}");
    let waiting = screen.wait_for("Waiting for axis to decide");
    assert!(waiting.contains("waiting: the server is read every second"), "{waiting}");

    // Axis activates from elsewhere: allies' screen follows.
    let out = rollcall(&dir.path().join("no-store"))
        .args(["play", "duel", "--server", &server.url(""), "--token", &axis, "--pick", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    screen.wait_for("(axis) is activated.");
    screen.wait_for("the game moved on: seq");
    screen.keys("q");
    assert!(screen.wait_exit().success());
    let said = screen.wait_for("#4 rally units=mortar,rifles-2: decided by the server");
    assert!(said.contains("#1 begin-turn first=allies: decided by the server"), "printed on leaving: {said}");

    let decisions = server_decisions(&server, "duel");
    assert_eq!(types(&decisions), ["begin-turn", "activate", "command", "rally", "activate"]);
    assert_eq!(decisions[2], serde_json::json!({"type": "command", "unit": "rifles-1"}));
    let record = server.url("/games/duel/record");
    let out = rollcall(&dir.path().join("no-store")).args(["verify", &record]).output().unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    server.stop();
}

/// Axis opens the game while allies is to decide: the screen says whose
/// decision it waits for and follows the server as allies plays, until
/// the game awaits axis. A server that goes away is said plainly, and `q`
/// still leaves.
#[test]
fn a_side_not_on_turn_waits_on_the_server_and_a_server_gone_is_said_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), 100);
    let (allies, axis) = sealed_game(&server, "wait");
    decide_on(&server, "wait", &allies, serde_json::json!({"type": "begin-turn", "first": "allies"}));
    let mut screen = play_on_server(dir.path(), &server.url(""), "wait", &axis);
    let waiting = screen.wait_for("Waiting for allies to decide");
    assert!(waiting.contains("you play axis on the server"), "{waiting}");
    assert!(waiting.contains("allies to decide"), "{waiting}");

    decide_on(&server, "wait", &allies, serde_json::json!({"type": "activate", "leader": "lt-adams"}));
    screen.wait_for("lt-adams (allies) is activated.");
    screen.wait_for("Waiting for allies to decide");
    decide_on(&server, "wait", &allies, serde_json::json!({"type": "end-activation"}));
    screen.wait_for("your decision: axis to decide");
    let mine = screen.wait_for("What axis may do now:");
    assert!(!mine.contains("Waiting for"), "{mine}");

    let server_gone = server.url("");
    server.kill();
    let lost = screen.wait_for("cannot reach the server");
    assert!(lost.contains("(trying again)"), "{lost}");
    screen.keys("q");
    assert!(screen.wait_exit().success(), "{}", screen.text());
    // A server gone before the menu opens: an error, and the terminal never taken.
    let mut again = play_on_server(dir.path(), &server_gone, "wait", &axis);
    again.wait_for("cannot reach the server");
    assert_eq!(again.wait_exit().code(), Some(2), "{}", again.text());
}

/// Allies fills in a move while axis enters one of the referee's inputs
/// meanwhile: the server refuses allies' move, listed on a head that is no
/// longer the game's, and the screen says why, in the server's words; the
/// menu stays up, listed again with axis's input in the narrative, and
/// nothing of allies' move was written.
#[test]
fn a_decision_the_server_refuses_is_shown_with_its_message_and_the_menu_stays() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), 100);
    let (allies, axis) = sealed_game(&server, "race");
    decide_on(&server, "race", &allies, serde_json::json!({"type": "begin-turn", "first": "allies"}));
    let mut screen = play_on_server(dir.path(), &server.url(""), "race", &allies);
    let listed = screen.wait_for("a leader or unit moves on the table");
    let n = number_of(&listed, "a leader or unit moves on the table");
    choose(&mut screen, n, "a leader or unit moves on the table");
    screen.wait_for("field 1 of 2: piece (the referee's input)");

    decide_on(&server, "race", &axis, serde_json::json!({"type": "move", "piece": "gruppe-1", "to": [300, 200]}));
    screen.keys("\r");
    screen.wait_for("field 2 of 2: to");
    screen.keys("\r");
    let refused = screen.wait_for("nothing was written");
    assert!(refused.contains("(409 stale-head)") && refused.contains("read the game again"), "{refused}");
    let menu = screen.wait_for("What allies may do now:");
    assert!(menu.contains("gruppe-1 moves from"), "the input that moved the game on is shown: {menu}");

    let decisions = server_decisions(&server, "race");
    assert_eq!(types(&decisions), ["begin-turn", "move"]);
    assert_eq!(decisions[1]["piece"], "gruppe-1", "axis's input, not allies' move");
    screen.keys("q");
    assert!(screen.wait_exit().success(), "{}", screen.text());
    server.stop();
}
