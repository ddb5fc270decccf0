//! The play page (`GET /games/{id}/play`) in a real browser: two sides play
//! whole sealed games against one `rollcall serve`, each in a browser
//! context of its own (its own session storage), through the page alone —
//! clicks, and keys where a player types (the token, an action's text, a
//! hex, a choice in a list). One side plays in a phone-sized window. Along
//! the way: a missing and a wrong token are refused with a clear message; a
//! decision the rules refuse is shown with its reason and writes nothing; a
//! batch refused part-way is shown as the server says it; dice and turn
//! reveals are shown as they come; each side's page follows the other's
//! decisions without a reload. At the end a page ends the game, the record
//! is fetched from the server, and `rollcall verify` proves every turn.
//!
//! Two rulesets: leader-activation (the play-by-email example's scenario)
//! and formation-activation (a small scenario of two formations). Then the
//! page's forms are held to the listing for every kind of field two more
//! rulesets meet (phoenix-command's lists of actions, combat-hq's orders):
//! a random game played over HTTP, the page following it, each new kind's
//! entry queued as its form is filled in must be the listing's decision.
//!
//! Chromium as for the viewer's test (`support/chromium.rs`): without it
//! this test FAILS when `CI` is set, and is skipped with a notice otherwise.
//! Screenshots of both pages are saved under the target directory;
//! `ROLLCALL_SCREENSHOTS=DIR` also writes the guide's picture of the page:
//! `ROLLCALL_SCREENSHOTS=docs/book/src/screenshots cargo test -p rollcall-cli --test play_browser`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::Emulation::SetDeviceMetricsOverride;
use headless_chrome::protocol::cdp::Input::{DispatchMouseEvent, DispatchMouseEventTypeOption, MouseButton};
use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, Tab};
use rollcall_core::keys::SecretKey;
use serde_json::{json, Value};

#[path = "support/chromium.rs"]
mod chromium;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

#[path = "support/server.rs"]
mod server;
use server::Server;

/// What these tests ask of a server beyond starting and stopping it.
impl Server {
    fn get(&self, path: &str) -> Value {
        let text = ureq::get(&self.url(path)).call().unwrap().into_string().unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Value {
        let mut request = ureq::post(&self.url(path)).set("Content-Type", "application/json");
        if let Some(token) = token {
            request = request.set("Authorization", &format!("Bearer {token}"));
        }
        let text = request.send_string(&body.to_string()).unwrap().into_string().unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// The game's head hash, as the server says it now.
    fn head(&self, game: &str) -> String {
        self.get(&format!("/games/{game}"))["head"]["hash"].as_str().unwrap().to_string()
    }
}

/// Creates a sealed game; the first `shares` sides give their seed shares
/// over HTTP (the others, from their pages): the two tokens.
fn sealed_game(
    server: &Server,
    game: &str,
    rules: &str,
    scenario: Value,
    sides: [&str; 2],
    shares: usize,
) -> [String; 2] {
    let keys: Vec<Value> = sides
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"name": s, "key": SecretKey::from_bytes([i as u8 + 1; 32]).public().to_hex()}))
        .collect();
    let created =
        server.post("/games", None, &json!({"game": game, "rules": rules, "scenario": scenario, "sides": keys}));
    let tokens = sides.map(|s| created["tokens"][s].as_str().unwrap().to_string());
    for (i, token) in tokens.iter().enumerate().take(shares) {
        let share = json!({"share": rollcall_core::digest::hex32(&[i as u8 + 60; 32])});
        server.post(&format!("/games/{game}/share"), Some(token), &share);
    }
    tokens
}

/// One side's page, in a browser context of its own.
struct Player {
    tab: Arc<Tab>,
    errors: Arc<Mutex<Vec<String>>>,
    name: String,
}

impl Player {
    /// The play page of `game` in a new context; `phone`: a 390×844 window.
    fn open(browser: &Browser, server: &Server, game: &str, name: &str, phone: bool) -> Player {
        progress(&format!("{name} opens the play page"));
        let tab = browser.new_context().unwrap().new_tab().unwrap();
        if phone {
            tab.call_method(SetDeviceMetricsOverride {
                width: 390,
                height: 844,
                device_scale_factor: 2.0,
                mobile: true,
                scale: None,
                screen_width: None,
                screen_height: None,
                position_x: None,
                position_y: None,
                dont_set_visible_size: None,
                screen_orientation: None,
                viewport: None,
                display_feature: None,
                device_posture: None,
            })
            .unwrap();
        }
        let errors = chromium::console_errors(&tab);
        tab.navigate_to(&server.url(&format!("/games/{game}/play"))).unwrap().wait_until_navigated().unwrap();
        let player = Player { tab, errors, name: name.to_string() };
        player.wait("the page is ready", "document.body.dataset.ready === 'yes'");
        player
    }

    /// Evaluates a JavaScript expression in the page; its value, through JSON.
    fn eval(&self, expression: &str) -> Value {
        self.try_eval(expression).unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    /// Evaluates a JavaScript expression in the page: its value, through
    /// JSON, or what it threw.
    fn try_eval(&self, expression: &str) -> Result<Value, String> {
        let wrapped = format!("JSON.stringify((() => {{ return ({expression}); }})())");
        let result = self.tab.evaluate(&wrapped, false).map_err(|e| format!("evaluating {expression}: {e}"))?;
        match result.value {
            Some(Value::String(text)) => Ok(serde_json::from_str(&text).unwrap()),
            other => Err(format!("evaluating {expression}: {other:?} ({:?})", result.description)),
        }
    }

    /// Waits until `condition` (JavaScript) holds; its value. While a page
    /// loads (after a reload, its `document.body` is not there yet) the
    /// condition may throw: that is "not yet", and the last such error is
    /// told if the wait runs out.
    fn wait(&self, what: &str, condition: &str) -> Value {
        let start = Instant::now();
        loop {
            let thrown = match self.try_eval(condition) {
                Ok(value) if value != Value::Bool(false) && value != Value::Null => return value,
                Ok(_) => None,
                Err(e) => Some(e),
            };
            if start.elapsed() > Duration::from_secs(30) {
                let page = self.try_eval("document.body.innerText.slice(0, 3000)").unwrap_or_else(Value::String);
                panic!(
                    "{}: waited 30 s for {what}; the page says:\n{}\nthe condition last threw: {thrown:?}\nconsole: {:?}",
                    self.name,
                    page.as_str().unwrap_or(""),
                    self.errors.lock().unwrap()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// A real mouse click on the element's middle, once it is scrolled into
    /// view. Each call over the DevTools protocol costs headless_chrome
    /// ~100 ms (its reader holds the socket between reads), so the element
    /// is found and placed by one script, and the button pressed and
    /// released where it is, with no move before.
    fn click(&self, selector: &str) {
        self.click_with(selector, "{}");
    }

    /// Clicks the element (first its group's heading, when the group is
    /// closed); with it, the value of `also` (JavaScript) read before.
    fn click_with(&self, selector: &str, also: &str) -> Value {
        loop {
            let at =
                self.eval(&format!("Object.assign({PLACE}({}), {also})", serde_json::to_string(selector).unwrap()));
            assert!(at["x"].is_number(), "{}: nothing to click at {selector}", self.name);
            self.press_at(&at);
            if at["closed"] != true {
                return at;
            }
        }
    }

    fn press_at(&self, at: &Value) {
        let (x, y) = (at["x"].as_f64().unwrap(), at["y"].as_f64().unwrap());
        for kind in [DispatchMouseEventTypeOption::MousePressed, DispatchMouseEventTypeOption::MouseReleased] {
            self.tab
                .call_method(DispatchMouseEvent {
                    Type: kind,
                    x,
                    y,
                    button: Some(MouseButton::Left),
                    click_count: Some(1),
                    modifiers: None,
                    timestamp: None,
                    buttons: None,
                    force: None,
                    tangential_pressure: None,
                    tilt_x: None,
                    tilt_y: None,
                    twist: None,
                    delta_x: None,
                    delta_y: None,
                    pointer_Type: None,
                })
                .unwrap();
        }
    }

    /// Clicks into a text control, empties it with the keyboard, and
    /// enters the text as typing (or pasting) it would.
    fn type_into(&self, selector: &str, text: &str) {
        self.click(selector);
        self.tab.press_key_with_modifiers("a", Some(&[headless_chrome::browser::tab::ModifierKey::Ctrl])).unwrap();
        self.tab.press_key("Backspace").unwrap();
        self.tab.send_character(text).unwrap();
    }

    /// Clicks `button` and waits for the server's answer to be shown and
    /// the page read again: the answer's dataset and text.
    fn answer_to(&self, button: &str) -> Value {
        let at = self.click_with(button, "{answers: Number(document.getElementById('answer').dataset.answers || 0)}");
        let before = at["answers"].as_u64().unwrap();
        self.wait(
            "the server's answer",
            &format!("(() => {{ const a = document.getElementById('answer'); return Number(a.dataset.answers || 0) > {before} && !document.body.dataset.busy && Object.assign({{text: a.innerText}}, a.dataset); }})()"),
        )
    }

    /// Waits until the page shows the game at the server's head (it learns
    /// of the other side's decisions by itself).
    fn catch_up(&self, server: &Server, game: &str) {
        let head = server.head(game);
        self.wait(
            &format!("the page to show head {head}"),
            &format!("document.body.dataset.head === '{head}' && !document.body.dataset.busy && document.getElementById('moves').dataset.head === '{head}'"),
        );
    }

    /// The decisions the page lists: number, type and pick text of each.
    fn entries(&self) -> Vec<Value> {
        self.eval("[...document.querySelectorAll('form.entry')].map((f) => ({n: Number(f.dataset.n), type: f.dataset.type, pick: f.dataset.pick, says: f.querySelector('.says').textContent}))")
            .as_array()
            .unwrap()
            .clone()
    }

    /// The entry whose pick text is `pick`, or the first of type `kind`.
    fn entry(&self, pick: &str) -> Option<u64> {
        let entries = self.entries();
        entries
            .iter()
            .find(|e| e["pick"] == pick)
            .or_else(|| entries.iter().find(|e| e["type"] == pick))
            .map(|e| e["n"].as_u64().unwrap())
    }

    /// Sends an entry as it is filled in: the answer.
    fn send(&self, n: u64) -> Value {
        progress(&format!("{} sends {n}", self.name));
        let answer = self.answer_to(&format!("#entry-{n} button.send"));
        assert_ne!(answer["outcome"], "refused", "{}: entry {n} was refused: {}", self.name, answer["text"]);
        answer
    }

    /// The window, scrolled to `selector`'s top.
    fn screenshot(&self, path: &Path, selector: &str) {
        self.eval(&format!(
            "(document.querySelector({}) || document.body).scrollIntoView({{block: 'start', behavior: 'instant'}})",
            serde_json::to_string(selector).unwrap()
        ));
        let png = self.tab.capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true).unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }

    /// No exception and no console error; a refusal's status the browser
    /// logs for a request (401, 403, 409, 422) is the page working.
    fn assert_no_console_errors(&self) {
        let errors = self.errors.lock().unwrap();
        let real: Vec<&String> = errors
            .iter()
            .filter(|e| !e.contains("Failed to load resource: the server responded with a status of 4"))
            .collect();
        assert!(real.is_empty(), "{}: the console has errors: {real:#?}", self.name);
    }
}

static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// Where the test is, with the seconds since it began, on standard error:
/// a slow run says where its time went.
fn progress(what: &str) {
    eprintln!("play_browser [{:6.1}s] {what}", START.get_or_init(Instant::now).elapsed().as_secs_f64());
}

/// A script that scrolls an element into view and gives its middle.
/// Inside a closed group, the group's heading is given instead (`closed`).
const PLACE: &str = "((selector) => { const e = document.querySelector(selector); if (!e) return {}; const closed = e.parentElement && e.parentElement.closest('details:not([open])'); const t = closed ? closed.querySelector('summary') : e; t.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'}); const r = t.getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2, closed: Boolean(closed)}; })";

fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("play-screenshots")
}

/// Signs a page in: first with nothing (refused, with a clear message),
/// then, when given, a wrong token (refused: the server says it is no
/// token of the game), then its own, typed and sent with the Enter key.
fn sign_in(p: &Player, token: &str, game: &str, wrong_first: bool) {
    progress("sign in");
    p.wait("the token form", "!document.getElementById('sign-in').hidden");
    p.click("#token-go");
    let error = p.wait("a missing token's message", "document.getElementById('token-error').textContent || null");
    assert!(error.as_str().unwrap().contains("Enter your side's token"), "{}: {error}", p.name);
    if wrong_first {
        p.type_into("#token", &"0".repeat(64));
        p.tab.press_key("Enter").unwrap();
        let error = p.wait(
            "a wrong token's message",
            "document.getElementById('token-error').textContent.includes('is not a token of game') && document.getElementById('token-error').textContent",
        );
        assert!(
            error.as_str().unwrap().contains(&format!("This token is not a token of game {game}")),
            "{}: {error}",
            p.name
        );
        assert_eq!(p.eval("document.getElementById('play').hidden"), true, "a wrong token plays nothing");
        assert_eq!(p.eval("sessionStorage.length"), 0, "a wrong token is not kept");
    }
    p.type_into("#token", token);
    p.tab.press_key("Enter").unwrap();
    p.wait(
        "the game, or its seed share asked for",
        "!document.getElementById('play').hidden && (document.getElementById('my-side') || !document.getElementById('seed').hidden)",
    );
    assert_eq!(
        p.eval(&format!("sessionStorage.getItem('rollcall-token:{game}')")),
        token,
        "kept in the tab's session storage"
    );
    assert!(!p.eval("location.href").as_str().unwrap().contains(token), "never in the address");
}

/// A page signed in to a game that waits for its side's seed share gives
/// it: the server takes 32 bytes the browser drew, the game begins, and the
/// page goes on to play it.
fn give_share(p: &Player, server: &Server, game: &str) {
    progress("a seed share from the page");
    let notice = p.wait("the waiting notice", "document.getElementById('notice').textContent || null");
    assert!(notice.as_str().unwrap().contains("waits for the seed shares of axis"), "{}: {notice}", p.name);
    assert_eq!(server.get(&format!("/games/{game}"))["status"], "waiting for shares");
    p.click("#share-go");
    let said = p.wait("the share taken", "document.getElementById('share-answer').textContent || null");
    assert!(said.as_str().unwrap().contains("it was the last: the game begins"), "{}: {said}", p.name);
    p.wait("the game, begun", "document.getElementById('my-side') && document.getElementById('seed').hidden");
    let status = server.get(&format!("/games/{game}"));
    assert_ne!(status["status"], "waiting for shares", "{status}");
}

/// The page whose side is awaited; the referee's inputs go to each page in turn.
fn awaited<'a>(
    server: &Server,
    game: &str,
    players: &'a [Player; 2],
    sides: [&str; 2],
    turn: &mut usize,
) -> &'a Player {
    let status = server.get(&format!("/games/{game}"));
    match status["awaited"]["side"].as_str() {
        Some(side) => &players[sides.iter().position(|s| *s == side).unwrap()],
        None => {
            *turn += 1;
            &players[*turn % 2]
        }
    }
}

/// The phone-sized page fits its window: nothing wider than the screen.
fn check_phone_layout(p: &Player) {
    let fit = p.eval("({inner: innerWidth, scroll: document.documentElement.scrollWidth, table: document.querySelector('#board svg.table') ? document.querySelector('#board svg.table').getBoundingClientRect().width : null})");
    assert_eq!(fit["inner"], 390, "{}: {fit}", p.name);
    assert!(fit["scroll"].as_f64().unwrap() <= 390.0, "{}: the page is wider than the phone: {fit}", p.name);
    assert!(fit["table"].as_f64().unwrap() > 300.0, "{}: the table fills the phone's width: {fit}", p.name);
}

/// Plays from the pages until `done` says the game is far enough,
/// choosing on the awaited side's page the first listed entry by `prefer`
/// (pick texts or types, in order); returns how many decisions were sent.
fn play_on(
    server: &Server,
    game: &str,
    players: &[Player; 2],
    sides: [&str; 2],
    prefer: &dyn Fn(&Player) -> Vec<String>,
    done: &dyn Fn(&Value) -> bool,
) -> u64 {
    let (mut sent, mut referee) = (0, 0);
    while !done(&server.get(&format!("/games/{game}"))) {
        let p = awaited(server, game, players, sides, &mut referee);
        p.catch_up(server, game);
        let n = prefer(p).iter().find_map(|choice| p.entry(choice)).unwrap_or_else(|| {
            panic!(
                "{}: nothing preferred is listed: {:?}",
                p.name,
                p.entries().iter().map(|e| e["pick"].clone()).collect::<Vec<_>>()
            )
        });
        p.send(n);
        sent += 1;
        assert!(sent < 200, "{game}: the game does not end");
    }
    sent
}

/// Ends the game from a page: the other page learns of it by itself.
fn end_from(p: &Player, other: &Player) {
    p.click("#end-game");
    p.wait("the confirmation", "!document.getElementById('end-confirm').hidden");
    let answer = p.answer_to("#end-yes");
    assert_eq!(answer["outcome"], "ended", "{}: {}", p.name, answer["text"]);
    for page in [p, other] {
        page.wait("the end shown", "document.getElementById('awaited').dataset.awaited === 'ended'");
    }
}

/// The record, fetched from the server and verified by the binary: every
/// sealed turn proven.
fn verified(server: &Server, game: &str, dir: &Path) -> Value {
    let record = ureq::get(&server.url(&format!("/games/{game}/record"))).call().unwrap().into_string().unwrap();
    let path = dir.join(format!("{game}.jsonl"));
    std::fs::write(&path, record).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall")).arg("verify").arg(&path).arg("--json").output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true, "{game}: {report}");
    assert_eq!(report["dice_proven"], true, "{game}: {report}");
    let turns = report["sealed"]["turns"].as_array().unwrap();
    assert!(turns.len() >= 2 && turns.iter().all(|t| t["status"] == "proven"), "{game}: {report}");
    report
}

#[test]
fn two_sides_play_whole_sealed_games_from_the_play_page() {
    let Some(binary) = chromium::chromium_or_skip("play_browser") else { return };
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), 50);
    let browser = chromium::launch(binary, &dir.path().join("profile"), (1200, 1000));
    let mut tokens = Vec::new();
    tokens.extend(leader_activation(&browser, &server, dir.path()));
    tokens.extend(formation_activation(&browser, &server, dir.path()));
    for ruleset in ["phoenix-command", "combat-hq"] {
        tokens.extend(every_field_reads_back(&browser, &server, ruleset));
    }
    let log = server.stop();
    for token in &tokens {
        assert!(!log.iter().any(|line| line.contains(token.as_str())), "a token in the server's log");
    }
}

/// leader-activation@2 on the play-by-email example's scenario: two turns.
fn leader_activation(browser: &Browser, server: &Server, dir: &Path) -> [String; 2] {
    let game = "la-friday";
    let sides = ["allies", "axis"];
    let scenario: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("examples/pbem/scenario.json")).unwrap()).unwrap();
    let tokens = sealed_game(server, game, "leader-activation@2", scenario, sides, 1);
    let players = [
        Player::open(browser, server, game, "leader-activation: allies", false),
        Player::open(browser, server, game, "leader-activation: axis, on a phone", true),
    ];
    // Axis gives its seed share from its page, and with it the game begins.
    sign_in(&players[1], &tokens[1], game, true);
    give_share(&players[1], server, game);
    sign_in(&players[0], &tokens[0], game, false);
    let [allies, axis] = &players;
    // The token is entered once: the tab reloaded plays on with it.
    allies.eval("document.body.dataset.old = 'yes'");
    allies.tab.reload(false, None).unwrap();
    allies.wait(
        "the page again, signed in",
        "!document.body.dataset.old && document.body.dataset.ready === 'yes' && document.getElementById('my-side')",
    );
    assert_eq!(allies.eval("document.getElementById('my-side').dataset.side"), "allies");
    assert_eq!(axis.eval("document.getElementById('my-side').dataset.side"), "axis");

    // Turn 1: the referee's input from the allies' page, which reveals sealed turn 1.
    allies.catch_up(server, game);
    let begun = allies.send(allies.entry("begin-turn first=allies").unwrap());
    assert!(begun["text"].as_str().unwrap().contains("Sealed turn 1 is over"), "{begun}");
    allies.catch_up(server, game);
    assert_eq!(allies.eval("document.getElementById('awaited').textContent"), "Your decision (allies).");
    allies.send(allies.entry("activate leader=lt-adams").unwrap());
    allies.catch_up(server, game);
    // Refused by the rules, whole: a batch commanding rifles-1 twice. No
    // decision of it drew a die, so nothing of it is written.
    allies.catch_up(server, game);
    let head = server.head(game);
    let command = allies.entry("command unit=rifles-1").unwrap();
    allies.click(&format!("#entry-{command} button.queue"));
    allies.click(&format!("#entry-{command} button.queue"));
    let refused = allies.answer_to("#batch-send");
    assert_eq!((refused["outcome"].as_str(), refused["status"].as_str()), (Some("refused"), Some("422")), "{refused}");
    let text = refused["text"].as_str().unwrap();
    assert!(text.contains("Refused: the batch of 2") && text.contains("The rules refuse it"), "{text}");
    assert!(text.contains("activated-once") && text.contains("Nothing was written."), "{text}");
    assert_eq!(server.head(game), head, "a refusal writes nothing");
    allies.click("#batch-clear");
    allies.send(command);
    allies.catch_up(server, game);
    // A free field, typed: the unit's action.
    let act = allies.entry("unit-action").unwrap();
    allies.type_into(&format!("#entry-{act} input[type=text]"), "fires at gruppe-1");
    let acted = allies.send(act);
    assert!(acted["text"].as_str().unwrap().contains("fires at gruppe-1"), "{acted}");

    // A batch refused part-way: the rally draws a die and ends the
    // activation, so the end of the activation after it is no longer the
    // allies' to make. The rally stands, with its die.
    allies.catch_up(server, game);
    allies.click(&format!("#entry-{} button.queue", allies.entry("rally").unwrap()));
    allies.click(&format!("#entry-{} button.queue", allies.entry("end-activation").unwrap()));
    assert_eq!(allies.eval("document.querySelectorAll('#batch-list li').length"), 2);
    let batch = allies.answer_to("#batch-send");
    assert_eq!((batch["outcome"].as_str(), batch["written"].as_str()), (Some("partly"), Some("1")), "{batch}");
    let text = batch["text"].as_str().unwrap();
    assert!(text.contains("1 of 2 decisions written") && text.contains("not-your-decision"), "{text}");
    assert!(text.contains("The decisions before it drew dice, so they stand"), "{text}");
    let die = allies.eval("Object.assign({}, document.querySelector('#answer .die').dataset)");
    assert_eq!((die["label"].as_str(), die["proof"].as_str()), (Some("rally"), Some("sealed")), "{die}");
    let face: u64 = die["value"].as_str().unwrap().parse().unwrap();
    assert!((1..=6).contains(&face), "{die}");
    assert_eq!(allies.eval("document.querySelectorAll('#batch-list li').length"), 0, "the batch sent is gone");

    // The axis page, on the phone, follows by itself: the rally is in its narrative.
    axis.catch_up(server, game);
    assert!(axis.eval("document.getElementById('narrative').innerText").as_str().unwrap().contains("rallies"));
    assert_eq!(axis.eval("document.getElementById('awaited').textContent"), "Your decision (axis).");
    check_phone_layout(axis);
    axis.screenshot(&screenshots().join("leader-activation-axis-phone.png"), "body");
    axis.screenshot(&screenshots().join("leader-activation-axis-phone-decisions.png"), "#decide");
    allies.screenshot(&screenshots().join("leader-activation-allies.png"), "body");
    if let Some(dir) = std::env::var_os("ROLLCALL_SCREENSHOTS") {
        allies.screenshot(&root().join(dir).join("play.png"), "body");
    }

    // The rest of turn 1 and turn 2, each side activating and ending, until
    // turn 2 is over (the game awaits the referee's next turn).
    let prefer = |p: &Player| {
        let first = if p.name.contains("allies") { "begin-turn first=axis" } else { "begin-turn first=allies" };
        ["end-activation", "activate", first, "skip"].map(String::from).to_vec()
    };
    let sent =
        play_on(server, game, &players, sides, &prefer, &|s: &Value| s["turn"] == 2 && s["awaited"]["referee"] == true);
    eprintln!("play_browser: leader-activation: {} decisions sent from the pages", 6 + sent);
    end_from(axis, allies);
    let report = verified(server, game, dir);
    eprintln!(
        "play_browser: leader-activation: verified, {} sealed turns proven",
        report["sealed"]["turns"].as_array().unwrap().len()
    );
    for p in &players {
        p.assert_no_console_errors();
    }
    tokens
}

/// formation-activation on a small map: two formations, one end-turn chit.
fn formation_activation(browser: &Browser, server: &Server, dir: &Path) -> [String; 2] {
    let game = "fa-ridge";
    let sides = ["nato", "warsaw-pact"];
    let scenario = json!({
        "sides": sides,
        "formations": [
            {"id": "1-66-ar", "side": "nato", "name": "1st Battalion, 66th Armor", "hq": "hq-1-66", "morale": 8, "leadership": 1, "command_radius_hexes": 3},
            {"id": "62-mir", "side": "warsaw-pact", "name": "62nd Motor Infantry Regiment", "hq": "hq-62", "morale": 6, "leadership": 1, "command_radius_hexes": 2}
        ],
        "units": [
            {"id": "hq-1-66", "formation": "1-66-ar", "name": "HQ 1-66 AR", "hex": "0203"},
            {"id": "m1-a", "formation": "1-66-ar", "name": "M1 platoon A", "hex": "0304"},
            {"id": "hq-62", "formation": "62-mir", "name": "HQ 62nd MIR", "hex": "0805"},
            {"id": "bmp-a", "formation": "62-mir", "name": "BMP-1 company", "hex": "0706"}
        ],
        "end_turn_chits": ["end-turn"],
        "end_turn_after": 1
    });
    let tokens = sealed_game(server, game, "formation-activation@1", scenario, sides, 2);
    let players = [
        Player::open(browser, server, game, "formation-activation: nato, on a phone", true),
        Player::open(browser, server, game, "formation-activation: warsaw-pact", false),
    ];
    sign_in(&players[0], &tokens[0], game, true);
    sign_in(&players[1], &tokens[1], game, false);
    // Once, a unit's move, its hex typed on the page: first its own hex,
    // which the rules refuse (nothing written), then the next one. Else the
    // chits are drawn and each activation ended, until turn 2 is over.
    let moved = std::cell::Cell::new(false);
    let prefer = |p: &Player| {
        let (unit, from, to) =
            if p.name.contains("nato") { ("m1-a", "0304", "0404") } else { ("bmp-a", "0706", "0606") };
        if let Some(n) = p.entry(&format!("move unit={unit}")).filter(|_| !moved.get()) {
            moved.set(true);
            let head = server.head(game);
            p.type_into(&format!("#entry-{n} [data-kind=hex] input"), from);
            let refused = p.answer_to(&format!("#entry-{n} button.send"));
            assert_eq!(
                (refused["outcome"].as_str(), refused["status"].as_str()),
                (Some("refused"), Some("422")),
                "{refused}"
            );
            assert!(refused["text"].as_str().unwrap().contains("same-hex"), "{refused}");
            assert_eq!(server.head(game), head, "a refusal writes nothing");
            p.type_into(&format!("#entry-{n} [data-kind=hex] input"), to);
            return vec![format!("move unit={unit}")];
        }
        ["end-activation", "draw-chit", "begin-turn"].map(String::from).to_vec()
    };
    let sent = play_on(server, game, &players, sides, &prefer, &|s: &Value| {
        s["turn"] == 2 && s["awaited"]["referee"] == true && turn_over(server, game)
    });
    eprintln!("play_browser: formation-activation: {sent} decisions sent from the pages");
    check_phone_layout(&players[0]);
    players[0].screenshot(&screenshots().join("formation-activation-nato-phone.png"), "body");
    players[1].screenshot(&screenshots().join("formation-activation-warsaw-pact.png"), "body");
    end_from(&players[1], &players[0]);
    verified(server, game, dir);
    for p in &players {
        p.assert_no_console_errors();
    }
    tokens
}

/// Whether formation-activation's turn is over (every end-turn chit it
/// needs drawn).
fn turn_over(server: &Server, game: &str) -> bool {
    server.get(&format!("/games/{game}/state"))["state"]["turn"]["over"] == true
}

/// The page's forms give back what the listing describes, for every kind
/// of field the game meets: a random sealed game of `ruleset` is played
/// over HTTP (the simulator's random player, following the served facts),
/// one side's page following it; each time that side's listing holds a
/// kind of field not met yet, the page queues the first entry with it, as
/// its form is filled in (the field's example), and the decision the batch
/// shows must be the listing's, filled with its examples.
fn every_field_reads_back(browser: &Browser, server: &Server, ruleset: &str) -> Vec<String> {
    let game = format!("{ruleset}-fields");
    let sim = rollcall_core::sim::simulator(ruleset).unwrap();
    let version = rollcall_core::registry::version(ruleset).unwrap().id();
    let header = sim.random_header(21, &version);
    let (terms, sides) = server::terms_of(&header, &game);
    let created = server.post("/games", None, &terms);
    let tokens: Vec<String> = sides.iter().map(|s| created["tokens"][s].as_str().unwrap().to_string()).collect();
    for (i, token) in tokens.iter().enumerate() {
        let share = json!({"share": rollcall_core::digest::hex32(&[i as u8 + 80; 32])});
        server.post(&format!("/games/{game}/share"), Some(token), &share);
    }
    let page = Player::open(browser, server, &game, &format!("{ruleset}: {}", sides[0]), false);
    sign_in(&page, &tokens[0], &game, false);
    let mut follower = sim.follower(&header, "random", rollcall_core::sim::play_rng(21)).unwrap();
    let wanted: &[&str] = match ruleset {
        "phoenix-command" => &["one-of", "list-of", "each-of", "point", "integer", "flag"],
        _ => &["one-of", "list-of", "integer", "point", "some-of"],
    };
    let mut met: Vec<String> = Vec::new();
    let (mut seen, mut decisions) = (0u64, 0);
    while decisions < 150 && !follower.over() && !wanted.iter().all(|k| met.iter().any(|m| m == k)) {
        let listing: Value = serde_json::from_str(
            &ureq::get(&server.url(&format!("/games/{game}/moves")))
                .set("Authorization", &format!("Bearer {}", tokens[0]))
                .call()
                .unwrap()
                .into_string()
                .unwrap(),
        )
        .unwrap();
        read_back_new_kinds(&page, server, &game, &listing, &mut met);
        decide_one(server, &game, &tokens, &mut follower.candidates().into_iter());
        decisions += 1;
        let events = server.get(&format!("/games/{game}/events?since={}", seen + 1));
        for e in events["events"].as_array().unwrap() {
            seen = e["seq"].as_u64().unwrap();
            if e["kind"] == "fact" {
                let event = rollcall_core::record::Event {
                    seq: seen,
                    kind: rollcall_core::record::Kind::Fact,
                    body: e["body"].clone(),
                    hash: e["hash"].as_str().unwrap().parse().unwrap(),
                };
                follower.observe(&event).unwrap();
            }
        }
    }
    progress(&format!("{ruleset}: {decisions} decisions; the page read back fields of kinds {met:?}"));
    for kind in wanted {
        assert!(
            met.iter().any(|m| m == kind),
            "{ruleset}: no field of kind {kind} met in {decisions} decisions: {met:?}"
        );
    }
    page.assert_no_console_errors();
    tokens
}

/// The first candidate the server takes, from whichever side it is.
fn decide_one(server: &Server, game: &str, tokens: &[String], candidates: &mut dyn Iterator<Item = Value>) {
    for decision in candidates {
        for token in tokens {
            let body = json!({"expected_head": server.head(game), "decision": decision});
            let answer = ureq::post(&server.url(&format!("/games/{game}/decisions")))
                .set("Authorization", &format!("Bearer {token}"))
                .send_string(&body.to_string());
            match answer {
                Ok(_) => return,
                Err(ureq::Error::Status(403, _)) => continue,
                Err(ureq::Error::Status(400 | 422, _)) => break,
                Err(e) => panic!("{game}: {decision}: {e}"),
            }
        }
    }
    panic!("{game}: no candidate was taken");
}

/// Every kind of field in `listing` (a list's items' fields too).
fn kinds(fields: &Value, out: &mut Vec<String>) {
    for f in fields.as_array().unwrap() {
        out.push(f["shape"]["kind"].as_str().unwrap().to_string());
        for form in f["shape"]["forms"].as_array().into_iter().flatten() {
            kinds(&form["fields"], out);
        }
    }
}

/// For each kind of field in the listing not met yet: the page, caught up,
/// queues the first entry with it, and its batch shows the listing's
/// decision filled with the fields' examples.
fn read_back_new_kinds(page: &Player, server: &Server, game: &str, listing: &Value, met: &mut Vec<String>) {
    let entries: Vec<&Value> =
        listing["groups"].as_array().unwrap().iter().flat_map(|g| g["entries"].as_array().unwrap()).collect();
    let mut caught_up = false;
    for entry in entries {
        let mut of = Vec::new();
        kinds(&entry["fields"], &mut of);
        if of.iter().all(|k| met.contains(k)) {
            continue;
        }
        if !caught_up {
            page.catch_up(server, game);
            caught_up = true;
        }
        let mut wanted = entry["decision"].clone();
        for field in entry["fields"].as_array().unwrap() {
            if !field["example"].is_null() {
                wanted[field["name"].as_str().unwrap()] = field["example"].clone();
            }
        }
        let n = entry["n"].as_u64().unwrap();
        page.click(&format!("#entry-{n} button.queue"));
        let queued =
            page.eval("[...document.querySelectorAll('#batch-list code')].map((c) => JSON.parse(c.textContent))");
        assert_eq!(
            queued.as_array().unwrap().last(),
            Some(&wanted),
            "{}: entry {n} ({}) read back",
            page.name,
            entry["pick"]
        );
        page.click("#batch-clear");
        for kind in of {
            if !met.contains(&kind) {
                met.push(kind);
            }
        }
    }
}
