//! `rollcall demo`: the tour in one command.
//!
//! Plays a fixture game into an embedded store (a temporary one unless
//! `--db` is given), replays it from the store, verifies it, exports the
//! record, changes one die in the exported file, and shows verify catching
//! it with the seq and the reason.

use std::path::Path;
use std::process::ExitCode;

use rollcall_core::game::verify;
use rollcall_core::golden::Collector;
use rollcall_core::log::{open_game, EventLog};
use rollcall_core::record::{Event, Header, Kind};
use rollcall_core::script::Script;

use rollcall_store::Store;

use crate::fail::Fail;
use crate::input::store::{self, has_game, StoreSpec};

/// The demo game: a turn with a failed and a successful rally.
const DEMO_SCRIPT: &str = include_str!("../../../fixtures/leader-activation/rally.json");

/// A rules dispute: may a unit rallied this turn be commanded later this turn?
const DISPUTE_SCRIPT: &str = include_str!("../../../fixtures/leader-activation/disputes/rallied-units-stay-idle.json");
const DISPUTE_B: &str = "leader-activation@1+rallied-units-stay-idle";

/// A dispute over Phoenix Command's P1: does a command check roll equal to its target pass?
const P1_SCRIPT: &str = include_str!("../../../fixtures/phoenix-command/three-turns.json");

/// A rule change: Combat HQ's multiple-battle-group rules against the base game.
const SHOWCASE_SCRIPT: &str = include_str!("../../../fixtures/combat-hq/showcase.json");

fn section(title: &str) {
    say!("\n== {title} ==");
}

/// The demo, in the store `db` names (a temporary one when none is named).
pub fn run(db: Option<StoreSpec>) -> Result<ExitCode, Fail> {
    let temp;
    let db = match db {
        Some(spec) => spec,
        None => {
            temp = tempfile::tempdir().map_err(|e| fail!("cannot make a temporary store: {e}"))?;
            StoreSpec::Sled(temp.path().join("db"))
        }
    };
    let db_dir = store::dir(&db);
    let log = store::open(&db)?;
    let script = demo_script(&log)?;
    let id = script.header.game.clone();
    let events = play_into_the_store(&log, &script, &db_dir)?;
    let header = replay_and_verify(&log, &id)?;
    forge_a_die_and_verify(&log, &header, &events)?;
    settle_disputes()?;
    next_steps();
    Ok(ExitCode::SUCCESS)
}

/// The demo script, as a game the store does not hold yet. The game id is
/// part of the seed: keep the fixture's, so the demo plays the fixture's
/// dice, unless the store already holds a game of that name.
fn demo_script(log: &Store) -> Result<Script, Fail> {
    let mut script = Script::parse(DEMO_SCRIPT, "demo", rollcall_core::registry::builtin())
        .map_err(|e| fail!("the demo script: {e}"))?;
    let base = script.header.game.clone();
    let mut id = base.clone();
    let mut n = 1;
    while has_game(log, &id)? {
        n += 1;
        id = format!("{base}-{n}");
    }
    if id != base {
        say!("(the store already holds {base:?}: playing it as {id:?}, and since the game id is part of the seed, with other dice)");
    }
    script.header.game = id;
    Ok(script)
}

/// Step 1: plays the script, narrating it, and stores its events.
fn play_into_the_store(log: &Store, script: &Script, db_dir: &Path) -> Result<Vec<Event>, Fail> {
    section(&format!("1. play a game of {} into the store at {}", script.header.rules.label(), db_dir.display()));
    let mut events = Vec::new();
    let mut collector = Collector::default();
    let game = script
        .play(|g, e| {
            collector.see(g, e);
            events.push(e.clone());
        })
        .map_err(|e| fail!("the demo script: {e}"))?;
    for line in collector.finish(&game).narrative.lines() {
        say!("{line}");
    }
    let id = &script.header.game;
    let root = log.create(&script.header)?;
    log.append(id, &root.hash, &events)?;
    say!("stored {} events as game {id}", events.len());
    Ok(events)
}

/// Steps 2 and 3: replays the stored game, then verifies it; its header.
fn replay_and_verify(log: &Store, id: &str) -> Result<Header, Fail> {
    section("2. replay it from the store (facts only, never re-deciding)");
    let replayed = open_game(log, id, None, rollcall_core::registry::builtin())?;
    show!("{}", replayed.render());
    say!("head {}", replayed.head());

    section("3. verify it: re-decide every decision, re-draw every die from the committed seed");
    let header = log.header(id)?;
    match verify(&header, log.events(id, 1)?, rollcall_core::registry::builtin()) {
        Ok(v) => {
            say!("verified: {} events, {} decisions; head {}", v.events, v.decisions, v.head);
            say!("proven: {}.", v.guarantee());
        }
        Err(f) => return Err(fail!("the demo game does not verify: {f}")),
    }
    Ok(header)
}

/// Step 4: exports the record, changes one die in the file, and verifies
/// it again, which must fail.
fn forge_a_die_and_verify(log: &Store, header: &Header, events: &[Event]) -> Result<(), Fail> {
    section("4. export the record, change one die in the file, and verify again");
    let id = &header.game;
    let dir = tempfile::tempdir().map_err(|e| Fail::msg(e.to_string()))?;
    let record = dir.path().join(format!("{id}.jsonl"));
    rollcall_store::file::write(&record, rollcall_store::file::Existing::Refuse, header, log.events(id, 1)?)?;
    say!("exported to {}", record.display());
    let text = std::fs::read_to_string(&record).map_err(|e| Fail::msg(e.to_string()))?;
    let roll = events.iter().find(|e| e.kind == Kind::Roll).ok_or_else(|| Fail::msg("the demo game rolls no dice"))?;
    let value = roll.body["value"].as_u64().unwrap_or(0);
    let forged = if value == 6 { 5 } else { value + 1 };
    let old = format!("\"value\":{value}}},\"hash\"");
    let new = format!("\"value\":{forged}}},\"hash\"");
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let line_no = roll.seq as usize; // line 0 is the header
    lines[line_no] = lines[line_no].replacen(&old, &new, 1);
    std::fs::write(&record, lines.join("\n") + "\n").map_err(|e| Fail::msg(e.to_string()))?;
    say!(
        "changed the die at seq {} ({} '{}') from {value} to {forged}",
        roll.seq,
        roll.body["die"].as_str().unwrap_or(""),
        roll.body["label"].as_str().unwrap_or("")
    );
    let (header, events) = rollcall_store::file::read(&record)?;
    match verify(&header, events, rollcall_core::registry::builtin()) {
        Ok(_) => Err(Fail::msg("the forged record verified: this is a bug")),
        Err(f) => {
            say!("verification FAILED, as it should: {f}");
            Ok(())
        }
    }
}

/// Steps 5 to 7: rules disputes and a rule change, each a diff.
fn settle_disputes() -> Result<(), Fail> {
    section("5. settle a rules dispute: the same record under two readings of the text");
    say!("{}", dispute_about(DISPUTE_SCRIPT));
    show_diff(DISPUTE_SCRIPT, DISPUTE_B)?;

    section("6. test a rule change: a four-turn Combat HQ game under the base rules and the multi-battle-group change");
    say!("{}", dispute_about(SHOWCASE_SCRIPT));
    show_diff(SHOWCASE_SCRIPT, "combat-hq@multi-bg")?;

    section("7. settle a Phoenix Command dispute: does a command check roll equal to its target pass (P1)?");
    say!("\"The command check is performed by making a 0-9 roll and trying to get under the sum\"; the example:");
    say!("\"Both rolls were below the Command Check Target\". Neither says what a roll equal to it does. The same");
    say!("seeded three-turn game, read strictly (A, the default) and with an equal roll passing (B):");
    show_diff_relative(P1_SCRIPT, "+command-check-equal-passes")
}

/// What to try next.
fn next_steps() {
    section("next");
    say!("rollcall run fixtures/leader-activation/skips.json   # play a fixture into your own store");
    say!("rollcall log skips                                   # its events, narrated");
    say!("rollcall verify skips                                # re-decide and re-roll everything");
    say!("rollcall rules show leader-activation                # every option, and the sentence it settles");
    say!("rollcall diff skips --b leader-activation@1+last-activation-rule   # a rules dispute on your game");
}

/// The script's "about" text, for the narration.
fn dispute_about(script: &str) -> String {
    serde_json::from_str::<serde_json::Value>(script)
        .ok()
        .and_then(|v| v["about"].as_str().map(|about| about.split(" Dispute:").next().unwrap_or(about).to_string()))
        .unwrap_or_default()
}

/// Plays a script in memory and diffs it against version `b`, printing the report.
fn show_diff(script: &str, b: &str) -> Result<(), Fail> {
    let (b, _) = rollcall_core::registry::inline_version(b).map_err(|e| Fail::msg(e.to_string()))?;
    diff_script(script, |_| Ok(b))
}

/// The same, with B the script's own rules and `overrides` applied.
fn show_diff_relative(script: &str, overrides: &str) -> Result<(), Fail> {
    diff_script(script, |a| {
        rollcall_core::registry::relative_version(a, overrides).map_err(|e| Fail::msg(e.to_string()))
    })
}

fn diff_script(
    script: &str,
    b: impl FnOnce(&rollcall_core::RuleVersion) -> Result<rollcall_core::RuleVersion, Fail>,
) -> Result<(), Fail> {
    let script =
        Script::parse(script, "diff", rollcall_core::registry::builtin()).map_err(|e| fail!("the demo script: {e}"))?;
    let mut events = Vec::new();
    script.play(|_, e| events.push(e.clone())).map_err(|e| fail!("the demo script: {e}"))?;
    let b = b(&script.header.rules)?;
    let report = rollcall_core::diff::diff(
        &script.header,
        events.into_iter().map(Ok::<_, String>),
        &script.header.rules,
        &b,
        false,
        rollcall_core::registry::builtin(),
    )
    .map_err(|e| Fail::msg(e.to_string()))?;
    crate::commands::diff::print_report(&script.header.game, &report, false);
    Ok(())
}
