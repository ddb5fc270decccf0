//! The replay viewer in a real browser. Pages made by the real `rollcall
//! view` from a fixture of every ruleset (and a `--diff` page) are opened in
//! headless Chromium, driven over the DevTools protocol (the
//! `headless_chrome` crate): step forward and back by decision and by event,
//! jump to a turn, follow a bookmark, and at three steps of each game check
//! what the page shows (positions, states, narrative, dice) against the
//! engine's own replay of the fixture. The console must stay free of errors;
//! screenshots are saved under the target directory.
//!
//! Chromium is Debian's `chromium` (`.ci/run` installs it). Without it this
//! test FAILS when `CI` is set, and is skipped with a notice otherwise.
//! `ROLLCALL_CHROMIUM` names another binary. `ROLLCALL_SCREENSHOTS=DIR` also
//! writes the README's pictures, one table per ruleset, to DIR:
//! `ROLLCALL_SCREENSHOTS=docs/book/src/screenshots cargo test -p rollcall-cli --test viewer_browser`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use headless_chrome::browser::tab::point::Point;
use headless_chrome::protocol::cdp::Page::{CaptureScreenshotFormatOption, Viewport};
use headless_chrome::{Browser, Tab};
use rollcall_core::game::{Decide, Game};
use rollcall_core::record::{DecisionBody, Event, Header, Kind, SeedMode};
use rollcall_core::rules::RuleVersion;
use rollcall_core::script::Script;
use serde_json::{json, Value};

#[path = "support/chromium.rs"]
mod chromium;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The engine's replay of a fixture: what the page must show at every seq.
struct Replay {
    ruleset: String,
    header: Header,
    events: Vec<Event>,
    /// `states[seq]`: the state after event `seq` (0: before the first).
    states: Vec<Value>,
    turns: Vec<u32>,
    texts: Vec<String>,
    decisions: Vec<u64>,
}

impl Replay {
    fn of(fixture: &str) -> Replay {
        let text = std::fs::read_to_string(root().join("fixtures").join(fixture)).unwrap();
        let script = Script::parse(&text, "fixture", rollcall_core::registry::builtin()).unwrap();
        let mut events = Vec::new();
        script.play(|_, e| events.push(e.clone())).unwrap();
        let mut game = Game::open(script.header.clone(), rollcall_core::registry::builtin()).unwrap();
        let (mut states, mut turns, mut texts, mut decisions) =
            (vec![game.state()], vec![0], vec![String::new()], vec![0]);
        for e in &events {
            game.apply(e).unwrap();
            states.push(game.state());
            turns.push(game.turn());
            texts.push(game.narrate(e).trim().to_string());
            decisions.push(game.decisions());
        }
        Replay {
            ruleset: script.header.rules.ruleset().to_string(),
            header: script.header,
            events,
            states,
            turns,
            texts,
            decisions,
        }
    }

    fn last(&self) -> u64 {
        self.events.len() as u64
    }

    fn event(&self, seq: u64) -> &Event {
        &self.events[seq as usize - 1]
    }

    /// Whether the decision shown at `seq` is whole there: the next event
    /// opens a decision, or is a checkpoint between decisions.
    fn decision_end(&self, seq: u64) -> bool {
        seq == self.last() || opens_group(self.event(seq + 1).kind)
    }

    fn next_decision_end(&self, seq: u64) -> u64 {
        (seq + 1..=self.last()).find(|&s| self.decision_end(s)).unwrap_or(self.last())
    }

    /// Where "jump to turn t" goes: the first whole decision of turn t.
    fn turn_start(&self, turn: u32) -> Option<u64> {
        (1..=self.last()).find(|&s| self.turns[s as usize] == turn && self.decision_end(s))
    }

    /// The seqs of the decision shown at `seq`.
    fn decision_around(&self, seq: u64) -> Vec<u64> {
        if seq == 0 {
            return vec![];
        }
        let start = (1..=seq).rev().find(|&s| opens_group(self.event(s).kind)).unwrap();
        let end = (start..=self.last()).take_while(|&s| s == start || !opens_group(self.event(s).kind)).last().unwrap();
        (start..=end).collect()
    }

    /// The first seq at which a roll is made.
    fn first_roll(&self) -> u64 {
        self.events.iter().find(|e| e.kind == Kind::Roll).map(|e| e.seq).expect("the fixture rolls a die")
    }

    /// A whole decision from the middle of the game on with the table at its
    /// busiest: a leader, unit or formation active, or a command group activated.
    fn busy_step(&self) -> u64 {
        let busy = |seq: u64| {
            let state = &self.states[seq as usize];
            match self.ruleset.as_str() {
                "combat-hq" => self.facts_up_to(seq).iter().any(|f| f["type"] == "command-group-activated"),
                _ => state["turn"]["activation"].is_object(),
            }
        };
        (self.last() / 2..=self.last())
            .find(|&s| s > 0 && self.decision_end(s) && busy(s))
            .unwrap_or_else(|| self.next_decision_end(self.last() / 2))
    }

    fn facts_up_to(&self, seq: u64) -> Vec<Value> {
        self.decision_around(seq)
            .into_iter()
            .filter(|&s| s <= seq && self.event(s).kind == Kind::Fact)
            .map(|s| self.event(s).body["fact"].clone())
            .collect()
    }
}

/// A decision opens the step the page shows with its rolls and facts; a
/// checkpoint or a reveal (between decisions) is a step of its own.
fn opens_group(kind: Kind) -> bool {
    matches!(kind, Kind::Decision | Kind::Checkpoint | Kind::Reveal)
}

/// A page open in the browser, with every console error and exception it raises.
struct Viewer {
    tab: Arc<Tab>,
    errors: Arc<Mutex<Vec<String>>>,
    name: String,
}

impl Viewer {
    fn open(browser: &Browser, page: &Path, name: &str) -> Viewer {
        let tab = browser.new_tab().unwrap();
        let errors = chromium::console_errors(&tab);
        tab.navigate_to(&format!("file://{}", page.display())).unwrap().wait_until_navigated().unwrap();
        let viewer = Viewer { tab, errors, name: name.to_string() };
        for _ in 0..400 {
            if viewer.eval("document.body.dataset.ready || null") == "yes" {
                return viewer;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("{name}: the page never became ready; console: {:?}", viewer.errors.lock().unwrap());
    }

    /// Evaluates a JavaScript expression in the page; its value, through JSON.
    fn eval(&self, expression: &str) -> Value {
        let wrapped = format!("JSON.stringify((() => {{ return ({expression}); }})())");
        let result = self.tab.evaluate(&wrapped, false).unwrap();
        match result.value {
            Some(Value::String(text)) => serde_json::from_str(&text).unwrap(),
            other => panic!("{}: evaluating {expression}: {other:?} ({:?})", self.name, result.description),
        }
    }

    fn pos(&self) -> Value {
        self.eval("Object.assign({}, document.getElementById('pos').dataset)")
    }

    fn seq(&self) -> u64 {
        self.pos()["seq"].as_str().unwrap().parse().unwrap()
    }

    fn decision(&self) -> u64 {
        self.pos()["decision"].as_str().unwrap().parse().unwrap()
    }

    fn key(&self, key: &str) {
        self.tab.press_key(key).unwrap();
    }

    /// A real mouse click on the element's middle, once it is scrolled
    /// into view. Found and placed by one script rather than by
    /// `Element::click`, whose half-dozen protocol calls each wait ~100 ms
    /// in headless_chrome (a known fault of that crate).
    fn click(&self, selector: &str) {
        let at = self.eval(&format!(
            "(() => {{ const e = document.querySelector('{selector}'); e.scrollIntoView({{block: 'center', inline: 'center', behavior: 'instant'}}); const r = e.getBoundingClientRect(); return {{x: r.x + r.width / 2, y: r.y + r.height / 2}}; }})()"
        ));
        let point = Point { x: at["x"].as_f64().unwrap(), y: at["y"].as_f64().unwrap() };
        self.tab.click_point(point).unwrap();
    }

    /// Drags the slider to a stop (the page's `input` event, as a user's drag fires it).
    fn slide_to(&self, stop: u64) {
        self.eval(&format!(
            "(() => {{ const s = document.getElementById('slider'); s.value = {stop}; s.dispatchEvent(new Event('input')); return null; }})()"
        ));
    }

    fn jump_to_turn(&self, turn: u32) {
        self.eval(&format!("(() => {{ document.getElementById('turn-input').value = '{turn}'; return null; }})()"));
        self.click("#turn-go");
    }

    fn set_unit(&self, unit: &str) {
        self.eval(&format!("(() => {{ document.getElementById('sel-unit').value = '{unit}'; return null; }})()"));
    }

    /// What pane `i` shows, read off the page.
    fn snapshot(&self, pane: usize) -> Value {
        self.eval(&format!("(() => {{ {SNAPSHOT} return snapshot(document.getElementById('pane-{pane}')); }})()"))
    }

    fn screenshot(&self, path: &Path, clip: Option<&str>, scale: f64) {
        let clip = clip.map(|selector| {
            let r = self.eval(&format!("(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect(); return {{x: r.x + scrollX, y: r.y + scrollY, w: r.width, h: r.height}}; }})()"));
            Viewport {
                x: r["x"].as_f64().unwrap(),
                y: r["y"].as_f64().unwrap(),
                width: r["w"].as_f64().unwrap(),
                height: r["h"].as_f64().unwrap(),
                scale,
            }
        });
        let png = self.tab.capture_screenshot(CaptureScreenshotFormatOption::Png, None, clip, true).unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }

    fn assert_no_console_errors(&self) {
        let errors = self.errors.lock().unwrap();
        assert!(errors.is_empty(), "{}: the console has errors: {errors:#?}", self.name);
    }
}

/// Reads a pane: the narrative, the dice, every piece with its shape's place
/// on the screen, the range circles, the pools, groups and chits.
const SNAPSHOT: &str = r#"
function snapshot(p) {
  const rect = (e) => { const r = e.getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2, w: r.width, h: r.height, left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const svg = p.querySelector('svg.table');
  return {
    lines: [...p.querySelectorAll('.narrative li')].map((li) => ({seq: Number(li.dataset.seq), text: li.textContent, current: li.classList.contains('current')})),
    dice: [...p.querySelectorAll('.step .die')].map((d) => Object.assign({}, d.dataset)),
    svg: svg ? rect(svg) : null,
    pieces: [...p.querySelectorAll('svg.table .piece')].map((g) => Object.assign({shape: rect(g.querySelector('circle, rect, ellipse'))}, g.dataset)),
    ranges: [...p.querySelectorAll('svg.table circle.range')].map((c) => ({cx: Number(c.getAttribute('cx')), cy: Number(c.getAttribute('cy')), r: Number(c.getAttribute('r'))})),
    pools: [...p.querySelectorAll('[data-battle-group]')].map((e) => Object.assign({}, e.dataset)),
    groups: [...p.querySelectorAll('tr[data-group]')].map((e) => Object.assign({}, e.dataset)),
    cup: [...p.querySelectorAll('.cup .chit')].map((e) => e.dataset.chit),
    diverges: p.classList.contains('diverges'),
    blunders: (p.innerText.match(/null|undefined|NaN|\[object Object\]/g) || []),
  };
}
"#;

/// Runs the binary on a store; it must succeed.
fn rollcall(db: &Path, args: &[&OsStr]) -> String {
    let out = rollcall_in(&root(), db, args);
    assert!(out.status.success(), "rollcall {args:?}: {}", output_text(&out));
    output_text(&out)
}

fn screenshots_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer-screenshots")
}

#[test]
fn every_ruleset_steps_in_a_real_browser() {
    let Some(binary) = chromium::chromium_or_skip("viewer_browser") else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let browser = chromium::launch(binary, &dir.path().join("profile"), (1280, 1100));
    let readme = std::env::var_os("ROLLCALL_SCREENSHOTS").map(PathBuf::from);
    for fixture in [
        "leader-activation/rally.json",
        "phoenix-command/five-turns.json",
        "combat-hq/showcase.json",
        "formation-activation/three-turns.json",
        "phoenix-command/farmhouse-assault.json",
    ] {
        let replay = Replay::of(fixture);
        let game = replay.header.game.clone();
        let bookmark = replay.first_roll();
        let page = dir.path().join(format!("{game}.html"));
        rollcall(&db, &[OsStr::new("run"), root().join("fixtures").join(fixture).as_os_str()]);
        rollcall(
            &db,
            &[
                OsStr::new("view"),
                OsStr::new(&game),
                OsStr::new("-o"),
                page.as_os_str(),
                OsStr::new("--bookmark"),
                OsStr::new(&format!("{bookmark}:the first die")),
            ],
        );
        let viewer = Viewer::open(&browser, &page, fixture);
        check_integrity(&viewer, &replay);
        check_stepping(&viewer, &replay, bookmark);
        let busy = replay.busy_step();
        for seq in [replay.first_roll(), busy, replay.last()] {
            viewer.slide_to(seq);
            check_step(&viewer, &replay, seq);
            viewer.screenshot(&screenshots_dir().join(format!("{game}-seq{seq}.png")), None, 1.0);
        }
        if let (Some(dir), SeedMode::Open) = (&readme, replay.header.mode) {
            viewer.slide_to(busy);
            viewer.screenshot(&dir.join(format!("{}.png", replay.ruleset)), Some("#pane-0 .body"), 0.8);
        }
        viewer.assert_no_console_errors();
        viewer.tab.close(false).unwrap();
        eprintln!("viewer_browser: {fixture}: stepped, checked at 3 steps, no console errors");
    }
    check_diff_page(&browser, &db, dir.path());
    check_forged_page(&browser, &db, dir.path());
}

/// A record with a forged die: the page says it did not verify, shows the
/// game up to the event before, and still steps without an error.
fn check_forged_page(browser: &Browser, db: &Path, dir: &Path) {
    let record = dir.join("rally.jsonl");
    rollcall(db, &[OsStr::new("export"), OsStr::new("rally"), OsStr::new("-o"), record.as_os_str()]);
    let text = std::fs::read_to_string(&record).unwrap();
    let forged = dir.join("forged.jsonl");
    std::fs::write(&forged, text.replacen(r#""label":"rally","value":4"#, r#""label":"rally","value":5"#, 1)).unwrap();
    let page = dir.join("forged.html");
    let out = rollcall_in(dir, db, &["view", forged.to_str().unwrap(), "-o", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    let v = Viewer::open(browser, &page, "a forged rally");
    assert_eq!(v.eval("document.getElementById('verdict').dataset.verified"), "no");
    let banner = v.eval("document.getElementById('integrity').textContent");
    assert!(
        banner.as_str().unwrap().contains("seq 14: roll d6 'rally' #0 of decision 7 is 5 in the record"),
        "{banner}"
    );
    assert!(v.eval("document.getElementById('cut-short').textContent").as_str().unwrap().contains("up to seq 13"));
    v.key("End");
    assert_eq!(v.seq(), 13, "the page ends where the record stops folding");
    v.assert_no_console_errors();
}

/// The banner: the head, the seed mode, and that the record verified.
fn check_integrity(v: &Viewer, replay: &Replay) {
    let head = replay.events.last().unwrap().hash.to_string();
    let banner = v.eval("({verified: document.getElementById('verdict').dataset.verified, head: document.getElementById('head').textContent, mode: document.getElementById('seed-mode').dataset.mode, text: document.getElementById('integrity').textContent})");
    assert_eq!(banner["head"], head, "{}", v.name);
    assert_eq!(banner["verified"], "yes", "{}", v.name);
    let mode = match replay.header.mode {
        SeedMode::Open => "open",
        SeedMode::Table => "table",
        SeedMode::Sealed => "sealed",
    };
    assert_eq!(banner["mode"], mode, "{}", v.name);
    assert!(banner["text"].as_str().unwrap().contains("verified when this page was made"), "{}", v.name);
    // The console listener hears errors (so its silence below means something).
    v.eval("(() => { console.error('probe'); return null; })()");
    let heard = (0..200).any(|_| {
        std::thread::sleep(Duration::from_millis(10));
        v.errors.lock().unwrap().iter().any(|e| e.contains("probe"))
    });
    assert!(heard, "{}: the console listener heard nothing", v.name);
    v.errors.lock().unwrap().clear();
}

/// First, back, step, by decision and by event, jump to a turn, next turn, last, bookmarks.
fn check_stepping(v: &Viewer, replay: &Replay, bookmark: u64) {
    let name = &v.name;
    assert_eq!(v.seq(), 0, "{name}: the page opens before the first event");
    v.click("#btn-step");
    let first = replay.next_decision_end(0);
    assert_eq!(v.seq(), first, "{name}: step goes to the end of the first decision");
    v.key("ArrowRight");
    let second = replay.next_decision_end(first);
    assert_eq!(v.seq(), second, "{name}: → steps a decision");
    v.key("ArrowLeft");
    assert_eq!(v.seq(), first, "{name}: ← steps back a decision");
    v.set_unit("event");
    v.key("ArrowRight");
    assert_eq!(v.seq(), first + 1, "{name}: by event, → steps one event");
    v.click("#btn-back");
    assert_eq!(v.seq(), first, "{name}: back steps one event");
    v.key("n");
    assert_eq!(v.seq(), second, "{name}: n steps a decision whatever the unit");
    v.key("End");
    assert_eq!(v.seq(), replay.last(), "{name}: End goes to the last event");
    v.key("Home");
    assert_eq!(v.seq(), 0, "{name}: Home goes to the first");
    let last_turn = replay.turns[replay.last() as usize];
    let turn = last_turn.min(2);
    v.jump_to_turn(turn);
    let start = replay.turn_start(turn).unwrap();
    assert_eq!(v.seq(), start, "{name}: jump to turn {turn}");
    assert_eq!(v.pos()["turn"], turn.to_string(), "{name}: the page says turn {turn}");
    v.key("]");
    let next = replay.turn_start(turn + 1).unwrap_or(replay.last());
    assert_eq!(v.seq(), next, "{name}: ] goes to the next turn");
    v.key("[");
    assert_eq!(v.seq(), start, "{name}: [ goes back to turn {turn}");
    v.click("#bookmarks button.bookmark");
    assert_eq!(v.seq(), bookmark, "{name}: the bookmark");
    v.key("Home");
    v.key("b");
    assert_eq!(v.seq(), bookmark, "{name}: b goes to the next bookmark");
    v.set_unit("decision");
}

/// At `seq`: the position, the narrative of the step, its dice, and the table.
fn check_step(v: &Viewer, replay: &Replay, seq: u64) {
    let name = format!("{} at seq {seq}", v.name);
    let pos = v.pos();
    assert_eq!(pos["seq"], seq.to_string(), "{name}");
    assert_eq!(pos["turn"], replay.turns[seq as usize].to_string(), "{name}: the turn");
    assert_eq!(pos["decision"], replay.decisions[seq as usize].to_string(), "{name}: the decision");
    let snap = v.snapshot(0);
    let around = replay.decision_around(seq);
    let lines: Vec<(u64, String, bool)> = snap["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["seq"].as_u64().unwrap(), l["text"].as_str().unwrap().to_string(), l["current"].as_bool().unwrap()))
        .collect();
    let want: Vec<(u64, String, bool)> =
        around.iter().map(|&s| (s, replay.texts[s as usize].clone(), s == seq)).collect();
    assert_eq!(lines, want, "{name}: the narrative of the step");
    let proof = match replay.header.mode {
        SeedMode::Open => "proven",
        SeedMode::Table => "unproven",
        SeedMode::Sealed => panic!("{name}: a sealed fixture: scripts refuse the sealed mode"),
    };
    let dice: Vec<Value> = snap["dice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| json!([d["seq"], d["die"], d["value"], d["address"], d["proof"]]))
        .collect();
    let want_dice: Vec<Value> = around
        .iter()
        .map(|&s| replay.event(s))
        .filter(|e| e.kind == Kind::Roll)
        .map(|e| {
            let b = &e.body;
            json!([
                e.seq.to_string(),
                b["die"],
                b["value"].to_string(),
                format!("({}, {}, {})", b["decision"], b["label"].as_str().unwrap(), b["index"]),
                proof
            ])
        })
        .collect();
    assert_eq!(dice, want_dice, "{name}: the dice of the step");
    let state = &replay.states[seq as usize];
    match replay.ruleset.as_str() {
        "leader-activation" => check_leader_activation(&name, state, &snap),
        "phoenix-command" => check_phoenix_command(&name, state, &snap),
        "combat-hq" => check_combat_hq(&name, state, &snap, &replay.facts_up_to(seq)),
        "formation-activation" => check_formation_activation(&name, state, &snap),
        other => panic!("no browser check for {other}"),
    }
    check_on_screen(&name, &snap);
    assert_eq!(snap["blunders"], json!([]), "{name}: the page shows a value that is not there");
}

fn piece<'a>(snap: &'a Value, id: &str) -> Option<&'a Value> {
    snap["pieces"].as_array().unwrap().iter().find(|p| p["id"] == id)
}

fn marks(p: &Value) -> Vec<String> {
    p["marks"].as_str().unwrap_or_default().split_whitespace().map(String::from).collect()
}

fn at(point: &Value) -> String {
    format!("{},{}", point[0], point[1])
}

fn check_marks(name: &str, id: &str, shown: &[String], wanted: &[(&str, bool)]) {
    for (mark, on) in wanted {
        assert_eq!(shown.iter().any(|m| m == mark), *on, "{name}: {id} marked {mark:?}: {shown:?}");
    }
}

fn check_leader_activation(name: &str, state: &Value, snap: &Value) {
    let pieces = state["pieces"].as_object().unwrap();
    assert_eq!(snap["pieces"].as_array().unwrap().len(), pieces.len(), "{name}: every leader and unit is drawn");
    for (id, p) in pieces {
        let shown = piece(snap, id).unwrap_or_else(|| panic!("{name}: {id} is not drawn"));
        assert_eq!(shown["at"], at(&p["at"]), "{name}: {id}'s position in mm");
        let wanted =
            [("broken", p["broken"] == true), ("locked", p["locked"] == true), ("activated", p["activated"] == true)];
        check_marks(name, id, &marks(shown), &wanted);
    }
    let ranges = snap["ranges"].as_array().unwrap();
    match state["turn"]["activation"]["leader"].as_str() {
        Some(leader) => {
            let at = &pieces[leader]["at"];
            let config = &state["config"];
            let mut radii: Vec<u64> =
                ["command_range_elite_mm", "command_range_trained_mm", "command_range_conscript_mm"]
                    .iter()
                    .map(|k| config[*k].as_u64().unwrap())
                    .collect();
            radii.sort();
            radii.dedup();
            let mut shown: Vec<u64> = ranges.iter().map(|r| r["r"].as_f64().unwrap() as u64).collect();
            shown.sort();
            assert_eq!(shown, radii, "{name}: the command ranges around {leader}");
            for r in ranges {
                assert_eq!(
                    (r["cx"].as_f64().unwrap(), r["cy"].as_f64().unwrap()),
                    (at[0].as_f64().unwrap(), at[1].as_f64().unwrap()),
                    "{name}: ranges centre on {leader}"
                );
            }
        }
        None => assert!(ranges.is_empty(), "{name}: no leader is active, so no command range"),
    }
}

fn check_phoenix_command(name: &str, state: &Value, snap: &Value) {
    let figures = state["figures"].as_object().unwrap();
    assert_eq!(snap["pieces"].as_array().unwrap().len(), figures.len(), "{name}: every figure is drawn");
    for (id, f) in figures {
        let shown = piece(snap, id).unwrap_or_else(|| panic!("{name}: {id} is not drawn"));
        assert_eq!(shown["at"], at(&f["at"]), "{name}: {id}'s position in tenths of an inch");
        let morale = f["morale"].as_str().unwrap();
        let posture = f["posture"].as_str().unwrap();
        let wanted = [
            ("removed", !f["removed"].is_null()),
            ("shaken", morale == "shaken"),
            ("panicked", morale == "panicked"),
            ("in-cover", posture == "in-cover"),
            ("prone", posture == "prone"),
            ("leader", !f["command_rating"].is_null()),
        ];
        check_marks(name, id, &marks(shown), &wanted);
    }
    let ranges = snap["ranges"].as_array().unwrap();
    let leader = state["turn"]["activation"]["unit"]
        .as_str()
        .and_then(|u| state["units"][u]["leader"].as_str())
        .map(|l| &figures[l])
        .filter(|l| l["removed"].is_null() && l["command_distance_tenths"].as_u64() > Some(0));
    match leader {
        Some(l) => {
            assert_eq!(ranges.len(), 1, "{name}: the active leader's command distance");
            assert_eq!(ranges[0]["r"].as_u64(), l["command_distance_tenths"].as_u64(), "{name}: command distance");
            assert_eq!(json!([ranges[0]["cx"], ranges[0]["cy"]]), l["at"], "{name}: around the leader");
        }
        None => assert!(ranges.is_empty(), "{name}: no active leader, no circle"),
    }
}

fn check_combat_hq(name: &str, state: &Value, snap: &Value, facts: &[Value]) {
    let groups = state["command_groups"].as_object().unwrap();
    let mut drawn = 0;
    for (id, u) in state["units"].as_object().unwrap() {
        let reserve = groups[u["command_group"].as_str().unwrap()]["in_reserve"] == true;
        match piece(snap, id) {
            Some(shown) => {
                assert!(!reserve, "{name}: {id} is in reserve, off the table");
                assert_eq!(shown["at"], at(&u["at_tenths"]), "{name}: {id}'s position in tenths of an inch");
                drawn += 1;
            }
            None => assert!(reserve, "{name}: {id} is on the table but not drawn"),
        }
    }
    assert_eq!(snap["pieces"].as_array().unwrap().len(), drawn, "{name}");
    for pool in snap["pools"].as_array().unwrap() {
        let bg = pool["battleGroup"].as_str().unwrap();
        let dice: Vec<String> =
            state["turn"]["dice"][bg].as_array().map_or(vec![], |d| d.iter().map(|v| v.to_string()).collect());
        assert_eq!(pool["dice"], dice.join(","), "{name}: {bg}'s command dice left");
    }
    assert_eq!(
        snap["pools"].as_array().unwrap().len(),
        state["battle_groups"].as_object().unwrap().len(),
        "{name}: a pool per battle group"
    );
    for g in snap["groups"].as_array().unwrap() {
        let id = g["group"].as_str().unwrap();
        let reserve = if groups[id]["in_reserve"] == true { "yes" } else { "no" };
        assert_eq!(g["reserve"], reserve, "{name}: {id} in reserve");
    }
    let activated: Vec<&Value> = facts.iter().filter(|f| f["type"] == "command-group-activated").collect();
    let ranges = snap["ranges"].as_array().unwrap();
    assert_eq!(ranges.len(), activated.len(), "{name}: an activation range per command group activated");
    for (r, f) in ranges.iter().zip(activated) {
        assert_eq!(r["r"].as_u64(), f["range_tenths"].as_u64(), "{name}: the activation range");
        let cu = &state["units"][f["command_unit"].as_str().unwrap()]["at_tenths"];
        assert_eq!(json!([r["cx"], r["cy"]]), *cu, "{name}: around the command unit");
    }
}

/// The centre of hex `CCRR` in hex sizes: flat-topped, even columns half a hex lower.
fn hex_centre(hex: &str) -> (f64, f64) {
    let c: f64 = hex[..2].parse().unwrap();
    let r: f64 = hex[2..].parse().unwrap();
    let lower = if hex[..2].parse::<u32>().unwrap() % 2 == 0 { 3f64.sqrt() / 2.0 } else { 0.0 };
    (c * 1.5, r * 3f64.sqrt() + lower)
}

fn check_formation_activation(name: &str, state: &Value, snap: &Value) {
    let mut drawn = 0;
    for (id, u) in state["units"].as_object().unwrap() {
        let on_map = u["hex"].is_string() && u["eliminated"] != true;
        match piece(snap, id) {
            Some(shown) => {
                assert!(on_map, "{name}: {id} is drawn but not on the map");
                assert_eq!(shown["hex"], u["hex"], "{name}: {id}'s hex");
                let wanted = [("disrupted", u["disrupted"] == true), ("out-of-command", u["out_of_command"] == true)];
                check_marks(name, id, &marks(shown), &wanted);
                drawn += 1;
            }
            None => assert!(!on_map, "{name}: {id} is on the map but not drawn"),
        }
    }
    assert_eq!(snap["pieces"].as_array().unwrap().len(), drawn, "{name}");
    let cup: Vec<Value> = state["turn"]["cup"].as_array().cloned().unwrap_or_default();
    assert_eq!(snap["cup"].as_array().unwrap(), &cup, "{name}: the chits in the cup");
    let ranges = snap["ranges"].as_array().unwrap();
    let formation = state["turn"]["activation"]["formation"].as_str().map(|f| &state["formations"][f]);
    let hq = formation
        .map(|f| &state["units"][f["hq"].as_str().unwrap()])
        .filter(|hq| hq["hex"].is_string() && hq["eliminated"] != true);
    match (formation, hq) {
        (Some(f), Some(hq)) => {
            assert_eq!(ranges.len(), 1, "{name}: the active HQ's command radius");
            let (x, y) = hex_centre(hq["hex"].as_str().unwrap());
            let size = 10.0;
            assert!(
                (ranges[0]["cx"].as_f64().unwrap() - x * size).abs() < 0.01,
                "{name}: the radius centres on the HQ"
            );
            assert!(
                (ranges[0]["cy"].as_f64().unwrap() - y * size).abs() < 0.01,
                "{name}: the radius centres on the HQ"
            );
            let r = f["command_radius_hexes"].as_f64().unwrap() * 3f64.sqrt() * size;
            assert!(
                (ranges[0]["r"].as_f64().unwrap() - r).abs() < 0.01,
                "{name}: the radius is {} hexes",
                f["command_radius_hexes"]
            );
        }
        _ => assert!(ranges.is_empty(), "{name}: no active HQ, no radius"),
    }
}

/// On the screen, every piece is inside the table, has a size, and the
/// pieces stand where their positions put them: one scale, no distortion.
fn check_on_screen(name: &str, snap: &Value) {
    let svg = &snap["svg"];
    let pieces = snap["pieces"].as_array().unwrap();
    let place = |p: &Value| -> (f64, f64) {
        if let Some(hex) = p["hex"].as_str() {
            return hex_centre(hex);
        }
        let (x, y) = p["at"].as_str().unwrap().split_once(',').unwrap();
        (x.parse().unwrap(), y.parse().unwrap())
    };
    let tolerance_world = if pieces.iter().any(|p| p["hex"].is_string()) { 0.7 } else { 0.0 };
    for p in pieces {
        let s = &p["shape"];
        assert!(
            s["w"].as_f64().unwrap() > 1.0 && s["h"].as_f64().unwrap() > 1.0,
            "{name}: {} has no size on screen",
            p["id"]
        );
        for (lo, hi) in [("left", "left"), ("top", "top")] {
            assert!(
                s[lo].as_f64().unwrap() >= svg[hi].as_f64().unwrap() - 0.5,
                "{name}: {} is outside the table",
                p["id"]
            );
        }
        for (lo, hi) in [("right", "right"), ("bottom", "bottom")] {
            assert!(
                s[lo].as_f64().unwrap() <= svg[hi].as_f64().unwrap() + 0.5,
                "{name}: {} is outside the table",
                p["id"]
            );
        }
    }
    // The two pieces farthest apart fix the scale; every other must agree.
    let mut far = (0, 0, 0.0);
    for i in 0..pieces.len() {
        for j in i + 1..pieces.len() {
            let (a, b) = (place(&pieces[i]), place(&pieces[j]));
            let d = ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
            if d > far.2 {
                far = (i, j, d);
            }
        }
    }
    if far.2 == 0.0 {
        return;
    }
    let screen = |p: &Value| (p["shape"]["x"].as_f64().unwrap(), p["shape"]["y"].as_f64().unwrap());
    let (a, b) = (&pieces[far.0], &pieces[far.1]);
    let (sa, sb) = (screen(a), screen(b));
    let scale = ((sa.0 - sb.0).powi(2) + (sa.1 - sb.1).powi(2)).sqrt() / far.2;
    let wa = place(a);
    for p in pieces {
        let (w, s) = (place(p), screen(p));
        let want = (sa.0 + (w.0 - wa.0) * scale, sa.1 + (w.1 - wa.1) * scale);
        let slack = 1.5 + 2.0 * tolerance_world * scale;
        assert!(
            (s.0 - want.0).abs() <= slack && (s.1 - want.1).abs() <= slack,
            "{name}: {} stands at {s:?} on screen, its position puts it at {want:?}",
            p["id"]
        );
    }
}

/// Runs a record's decisions under `rules`, as diff does, up to decision `upto`.
fn run_under(replay: &Replay, rules: &RuleVersion, upto: u64) -> (Game, Vec<String>) {
    let mut header = replay.header.clone();
    header.rules = rules.clone();
    header.rules_hash = rules.hash();
    let mut game = Game::open(header, rollcall_core::registry::builtin()).unwrap();
    game.tolerate_unused_table_dice();
    let mut texts = Vec::new();
    for e in replay.events.iter().filter(|e| e.kind == Kind::Decision) {
        let body: DecisionBody = serde_json::from_value(e.body.clone()).unwrap();
        if body.number > upto {
            break;
        }
        texts.clear();
        match game.decide(&body.decision, Decide { dice: body.dice.as_ref(), ..Decide::default() }) {
            Ok(decided) => {
                for d in &decided.events {
                    game.adopt(std::slice::from_ref(d));
                    texts.push(game.narrate(d).trim().to_string());
                }
            }
            Err(_) => game.pass_decision(),
        }
    }
    (game, texts)
}

/// `view --diff`: both runs side by side, stepping together, the first
/// divergence one key away.
fn check_diff_page(browser: &Browser, db: &Path, dir: &Path) {
    let replay = Replay::of("combat-hq/showcase.json");
    let record = dir.join("showcase.jsonl");
    let page = dir.join("showcase-diff.html");
    rollcall(db, &[OsStr::new("export"), OsStr::new(&replay.header.game), OsStr::new("-o"), record.as_os_str()]);
    rollcall(
        db,
        &[
            OsStr::new("view"),
            record.as_os_str(),
            OsStr::new("--diff"),
            OsStr::new("--b"),
            OsStr::new("combat-hq@multi-bg"),
            OsStr::new("-o"),
            page.as_os_str(),
        ],
    );
    let b = rollcall_core::registry::inline_version("combat-hq@multi-bg").unwrap().0;
    let report = rollcall_core::diff::diff(
        &replay.header,
        replay.events.iter().cloned().map(Ok::<_, String>),
        &replay.header.rules,
        &b,
        true,
        rollcall_core::registry::builtin(),
    )
    .unwrap();
    let first = report.divergences.first().expect("the showcase parts under multi-bg").number;
    let v = Viewer::open(browser, &page, "showcase --diff");
    assert_eq!(v.eval("document.querySelectorAll('.pane').length"), 2, "two runs side by side");
    assert_eq!(v.decision(), 0);
    v.key("d");
    assert_eq!(v.decision(), first, "d goes to the first divergence");
    let shown_at = |decision: u64| {
        for (pane, rules) in [(0, &replay.header.rules), (1, &b)] {
            let snap = v.snapshot(pane);
            let (game, texts) = run_under(&replay, rules, decision);
            let lines: Vec<String> =
                snap["lines"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap().to_string()).collect();
            assert_eq!(lines, texts, "pane {pane} at decision {decision}: the narrative under {}", rules.label());
            let state = game.state();
            for pool in snap["pools"].as_array().unwrap() {
                let bg = pool["battleGroup"].as_str().unwrap();
                let dice: Vec<String> =
                    state["turn"]["dice"][bg].as_array().map_or(vec![], |d| d.iter().map(|x| x.to_string()).collect());
                assert_eq!(
                    pool["dice"],
                    dice.join(","),
                    "pane {pane} at decision {decision}: {bg}'s dice under {}",
                    rules.label()
                );
            }
            assert_eq!(snap["blunders"], json!([]), "pane {pane} at decision {decision}: a value that is not there");
            let diverges = report.divergences.iter().any(|d| d.number == decision);
            assert_eq!(snap["diverges"], diverges, "pane {pane} at decision {decision}: marked as divergent");
        }
    };
    shown_at(first);
    v.key("ArrowRight");
    assert_eq!(v.decision(), first + 1, "→ steps both runs one decision");
    shown_at(first + 1);
    v.key("End");
    shown_at(report.decisions);
    v.screenshot(&screenshots_dir().join("showcase-diff.png"), None, 1.0);
    v.assert_no_console_errors();
}

// ---- The command (no browser needed) ----

fn rollcall_in<S: AsRef<OsStr>>(cwd: &Path, db: &Path, args: &[S]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(cwd)
        .env_remove("ROLLCALL_DB")
        .env_remove("CI")
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .unwrap()
}

fn output_text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn view_writes_game_html_and_a_bad_bookmark_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let rally = root().join("fixtures/leader-activation/rally.json");
    assert!(rollcall_in(dir.path(), &db, &["run", rally.to_str().unwrap()]).status.success());
    let out = rollcall_in(dir.path(), &db, &["view", "rally"]);
    assert!(out.status.success(), "{}", output_text(&out));
    assert!(output_text(&out).starts_with("wrote rally.html for rally: 39 events"), "{}", output_text(&out));
    let page = std::fs::read_to_string(dir.path().join("rally.html")).unwrap();
    assert!(page.starts_with("<!doctype html>"));

    let out = rollcall_in(dir.path(), &db, &["view", "rally", "-o", "late.html", "--bookmark", "40:after the end"]);
    assert_eq!(out.status.code(), Some(2), "{}", output_text(&out));
    assert!(
        output_text(&out).contains("--bookmark 40:after the end: the record has 39 events"),
        "{}",
        output_text(&out)
    );
    let out = rollcall_in(dir.path(), &db, &["view", "rally", "-o", "late.html", "--bookmark", "no seq"]);
    assert_eq!(out.status.code(), Some(2), "{}", output_text(&out));
    assert!(output_text(&out).contains("write SEQ:label"), "{}", output_text(&out));
    let out = rollcall_in(dir.path(), &db, &["view", "rally", "-o", "late.html", "--b", "+natural-6-rallies"]);
    assert_eq!(out.status.code(), Some(2), "--b without --diff: {}", output_text(&out));
    let out = rollcall_in(dir.path(), &db, &["view", "rally", "-o", "late.html", "--diff"]);
    assert_eq!(out.status.code(), Some(2), "--diff without --b: {}", output_text(&out));
    assert!(!dir.path().join("late.html").exists(), "nothing is written on bad input");
}

#[test]
fn view_of_a_forged_record_writes_the_page_says_so_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let rally = root().join("fixtures/leader-activation/rally.json");
    assert!(rollcall_in(dir.path(), &db, &["run", rally.to_str().unwrap()]).status.success());
    assert!(rollcall_in(dir.path(), &db, &["export", "rally", "-o", "rally.jsonl"]).status.success());
    let record = std::fs::read_to_string(dir.path().join("rally.jsonl")).unwrap();
    let forged = record.replacen(r#""label":"rally","value":4"#, r#""label":"rally","value":5"#, 1);
    assert_ne!(forged, record, "the rally fixture's failed rally is a 4");
    std::fs::write(dir.path().join("forged.jsonl"), forged).unwrap();
    let out = rollcall_in(dir.path(), &db, &["view", "forged.jsonl", "-o", "forged.html"]);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    assert!(output_text(&out).contains("the record does NOT verify (seq 14:"), "{}", output_text(&out));
    let page = std::fs::read_to_string(dir.path().join("forged.html")).unwrap();
    assert!(page.contains(r#""integrity":{"outcome":"failed","reason":"#), "the page says the record failed");
}
