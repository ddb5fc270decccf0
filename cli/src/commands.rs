//! The commands. Each reads its inputs, calls the core and the store, and
//! prints: human text by default, one JSON document with `--json`.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use rollcall_core::fault::Fault;
use rollcall_core::game::{verify_each, Game, Verified, Verifier, VerifyFailure};
use rollcall_core::locate::line_of;
use rollcall_core::log::{open_at_head, open_game_lines, EventLog};
use rollcall_core::pbem::exchange;
use rollcall_core::record::{Event, Header, Kind, Party, SeedMode};
use rollcall_core::refusal::{RefusalKind, Shared};
use rollcall_core::registry;
use rollcall_core::rules::{RuleVersion, SettingKind, VersionSpec};
use rollcall_core::ruleset::RulesetInfo;
use rollcall_core::script::{check_game_id, refusal_field, split_dice};
use rollcall_core::seed::Share;
use rollcall_core::{strict, text, Digest};
use serde_json::{json, Value};

use crate::args::{
    Args, Command, GamesCommand, GoldenCommand, NewArgs, PlayArgs, RulesCommand, ScenarioCommand, StoreCommand,
};
use crate::checked::Checked;
use crate::colour::Verdict;
use crate::output::{self, Item, Line, Mode, Report, Stream};
use crate::position::Position;
use crate::script_file;
use crate::source::{rule_version, Target};
use crate::store::{self, has_game, read_bytes, read_input, Context, Fail, StoreSpec};

/// Runs the command `args` names, in the context `cx` (checked once, in main).
pub fn run(args: Args, cx: &Checked) -> Result<ExitCode, Fail> {
    let named = args.named_store();
    let (db, mode) = (&cx.db, cx.mode);
    match args.command {
        Command::Run { script, game } => run_script(cx, &script, game),
        Command::New(args) => Ok(output::print(&new(db, args)?, mode)),
        Command::Play(args @ PlayArgs { pick: Some(_), .. }) => crate::moves::play(cx, &args),
        Command::Play(PlayArgs { decision: None, server: None, stream: false, game, .. })
            if crate::tui::play::session::on_terminal(mode) =>
        {
            crate::tui::play::session::run(cx, &game)
        }
        Command::Play(PlayArgs { decision: None, game, .. }) => Err(fail!(
            "play {game}: name a decision file (or - for standard input), or pick one of `rollcall moves {game}` with --pick N"
        )),
        Command::Play(args @ PlayArgs { server: Some(_), .. }) => crate::serve::client::play(&args, mode),
        Command::Play(PlayArgs { game, decision: Some(decision), stream: true, .. }) => {
            play_stream(cx, &game, &decision)
        }
        Command::Play(PlayArgs { game, decision: Some(decision), stream: false, .. }) => play(cx, &game, &decision),
        Command::Moves { game, side } => crate::moves::moves(cx, &game, side),
        Command::Serve { addr, turns } => crate::serve::run(db, &addr, turns),
        Command::Log { game, from, position } => log(cx, &game, position.position(from)),
        Command::State { game, at, position } => Ok(output::print(&state(db, &game, position.position(at))?, mode)),
        Command::Replay { game, step, plain, to, position } => {
            let interactive = step
                && !plain
                && mode == Mode::Text
                && std::io::stdin().is_terminal()
                && std::io::stdout().is_terminal();
            if interactive {
                interactive_replay(db, &game, position.position(to))
            } else {
                replay(cx, &game, step, position.position(to))
            }
        }
        Command::Verify { targets, expect_head } => verify_each_target(cx, &targets, expect_head),
        Command::Diff(args) => crate::diff::run(cx, &args),
        Command::Simulate(args) => crate::simulate::run(&args, mode),
        Command::Impact(args) => crate::impact::run(cx, &args),
        Command::View(args) => crate::view::run(cx, args),
        Command::Export { game, output, force } => export(cx, &game, &output, force),
        Command::Import { file, key } => import(cx, &file, key.as_deref()),
        Command::Games { command: None } => Ok(output::print(&games(db)?, mode)),
        Command::Games { command: Some(GamesCommand::Rm { game, yes }) } => crate::housekeeping::remove(cx, &game, yes),
        Command::Rules(RulesCommand::List) => Ok(output::print(&rules_list(), mode)),
        Command::Rules(RulesCommand::Show { version }) => Ok(output::print(&rules_show(&version)?, mode)),
        Command::Rules(RulesCommand::Refusals { ruleset }) => Ok(output::print(&rules_refusals(&ruleset)?, mode)),
        Command::Rules(RulesCommand::Decisions { ruleset }) => {
            Ok(output::print(&crate::schemas::decisions(&ruleset)?, mode))
        }
        Command::Rules(RulesCommand::Schema { name, output }) => {
            crate::schemas::schema(name.as_deref(), output.as_deref())
        }
        Command::Scenario(ScenarioCommand::Template { ruleset, output, force }) => {
            crate::schemas::template(&ruleset, output.as_deref(), force)
        }
        Command::Golden(GoldenCommand::Check(a)) => Ok(output::print(&crate::golden::check(&a.dir)?, mode)),
        Command::Golden(GoldenCommand::Bless(a)) => Ok(output::print(&crate::golden::bless(&a.dir)?, mode)),
        Command::Demo => crate::demo::run(named.map(|named| StoreSpec::new(Some(named)))),
        Command::Completions { shell } => crate::manual::completions(shell),
        Command::Man { output } => crate::manual::man(&output),
        Command::Keygen { output: file } => Ok(output::print(&crate::pbem::keygen(&file)?, mode)),
        Command::Pbem(c) => crate::pbem::pbem(cx, c),
        Command::Turn(c) => crate::pbem::turn(cx, c),
        Command::Fork(c) => crate::pbem::fork(cx, c),
        Command::Store(StoreCommand::Migrate) => Ok(output::print(&store::migrate(db)?, mode)),
        Command::Store(StoreCommand::Copy { from, to, games }) => store::copy(&from, &to, &games, mode),
    }
}

fn event_json(game: &Game, e: &Event) -> Value {
    json!({"seq": e.seq, "kind": e.kind.name(), "body": e.body, "hash": e.hash.to_string(), "narrative": game.narrate(e).trim()})
}

/// An event, narrated by the game it is in: as `log` lists it (seq, kind,
/// hash, narrative) or, `replay`, `run` and `play`, the narrative alone.
struct Narrated<'a> {
    game: &'a Game,
    event: &'a Event,
    listed: bool,
}

impl Item for Narrated<'_> {
    fn text(&self) -> String {
        let (g, e) = (self.game, self.event);
        if self.listed {
            format!(
                "{:>5}  {:<8} {}  {}",
                e.seq,
                e.kind.name(),
                e.hash.short(),
                text::escape(g.narrate(e).trim_start())
            )
        } else {
            text::escape(&g.narrate(e)).to_string()
        }
    }

    fn json(&self) -> Value {
        event_json(self.game, self.event)
    }
}

/// `rollcall run SCRIPT`: plays the script into a game being created,
/// appending whole decisions in batches; the game appears, whole, only when
/// the last batch is in (a refused decision, a kill or a full disk leave
/// nothing a reader can see).
fn run_script(cx: &Checked, path: &Path, game_id: Option<String>) -> Result<ExitCode, Fail> {
    let (db, mode) = (&cx.db, cx.mode);
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "game".into());
    let Some(mut header) = script_file::checked_header(path, &stem) else {
        return Err(script_file::refusal(path, &stem));
    };
    if let Some(id) = game_id {
        header.game = checked_game_id("--game", id)?;
    }
    let log = store::open(db)?;
    let id = header.game.clone();
    if has_game(&log, &id)? {
        return Err(fail!(
            "{}: run with --game NEW-ID, or export it and use another store (nothing was written)",
            store::already_stored(&id, &store::dir(db))
        ));
    }
    let mut decisions = script_file::Decisions::open(path)?;
    let mut game =
        Game::open(header.clone(), rollcall_core::registry::builtin()).map_err(|e| Fail::msg(e.to_string()))?;
    let mut stream = Stream::kept(mode, "narrative");
    stream.note(|| format!("game {id}: {}, {} dice", header.rules.label(), mode_name(header.mode)))?;
    let refused = store::Creation::make(&log, &header, |creation| {
        while let Some(d) = decisions.next()? {
            let (events, lines) = match game.play_lines(&d.decision, d.dice.as_ref()) {
                Ok(played) => played,
                Err(refusal) => {
                    let say = |refusal| {
                        let (field, message) = refusal_field(d.index, refusal);
                        format!("{}:{}: {field}: {message} (nothing was written)", path.display(), d.line_of(&field))
                    };
                    return crate::exit::refusal(refusal, say, mode).map(Some);
                }
            };
            for event in &events {
                stream.push(&Narrated { game: &game, event, listed: false })?;
            }
            lines.into_iter().try_for_each(|line| creation.push(line))?;
        }
        creation.commit()?;
        Ok(None)
    })?;
    if let Some(code) = refused {
        return Ok(code);
    }
    keep_snapshot(&log, &id, &game);
    stream.finish(
        &[format!("{} decisions, {} events; head {}", game.decisions(), game.seq(), game.head())],
        json!({
            "game": id, "rules": header.rules.version, "rules_hash": header.rules_hash.to_string(),
            "mode": header.mode, "events": game.seq(), "decisions": game.decisions(),
            "turn": game.turn(), "head": game.head().to_string(),
        }),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// A game id from the command line, checked as `run` and `new` check them.
pub fn checked_game_id(flag: &str, id: String) -> Result<String, Fail> {
    check_game_id(&id).map_err(|m| fail!("{flag} {m}"))?;
    Ok(id)
}

fn mode_name(mode: SeedMode) -> &'static str {
    match mode {
        SeedMode::Open => "open-seed",
        SeedMode::Table => "table (hand-rolled)",
        SeedMode::Sealed => "sealed (a dice server's, revealed turn by turn)",
    }
}

/// 32 bytes from the operating system's randomness: seed shares and keys.
pub fn random_bytes() -> Result<[u8; 32], Fail> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).map_err(|e| fail!("no randomness from the operating system: {e}"))?;
    Ok(bytes)
}

fn random_share() -> Result<Share, Fail> {
    random_bytes().map(Share)
}

fn new(db: &StoreSpec, args: NewArgs) -> Result<NewGame, Fail> {
    let NewArgs { rules, scenario: scenario_path, game, mut parties, table } = args;
    let scenario_path = scenario_path.as_path();
    let (rules, _) = rule_version(&rules)?;
    let bytes = read_bytes(scenario_path)?;
    let given: Value = strict::parse(&bytes).map_err(|e| Fail::msg(e.in_file(&scenario_path.display().to_string())))?;
    let (scenario, prefix) = crate::schemas::scenario_of(given, scenario_path, rules.ruleset())?;
    let text = String::from_utf8_lossy(&bytes);
    let ruleset_id = rules.ruleset().to_string();
    let scenario_error = |s: rollcall_core::ruleset::ScenarioError| {
        let field = format!("{prefix}{}", s.field);
        let hint = crate::schemas::scenario_hint(&ruleset_id, &s.field);
        fail!("{}:{}: {field}: {}{hint}", scenario_path.display(), line_of(&text, &field), s.message)
    };
    if parties.is_empty() {
        // The scenario's sides as its ruleset reads them (a list of names,
        // or of objects with an id).
        let info = registry::find(rules.ruleset()).map_err(|e| Fail::msg(e.to_string()))?;
        let machine = (info.load)(&scenario, &rules).map_err(scenario_error)?;
        parties = machine.sides();
    }
    if parties.is_empty() {
        return Err(Fail::msg("name the parties with --party (the scenario has no sides)"));
    }
    if let Some(bad) = parties.iter().find(|p| p.is_empty() || rollcall_core::bounds::control_character(p).is_some()) {
        return Err(fail!(
            "party {}: a party's name is not empty and holds no control character",
            text::quoted(bad, 80)
        ));
    }
    let id = match game {
        Some(id) => checked_game_id("--game", id)?,
        None => format!("game-{}", &random_share()?.to_hex()[..8]),
    };
    let mode = if table { SeedMode::Table } else { SeedMode::Open };
    let mut party_list = Vec::new();
    for name in parties {
        let share = if table { None } else { Some(random_share()?) };
        party_list.push(Party { name, commitment: share.map(|s| s.commitment()), share });
    }
    let rules_hash = rules.hash();
    let header = Header {
        game: id.clone(),
        rules,
        rules_hash,
        scenario,
        mode,
        parties: party_list,
        sides: Vec::new(),
        server: None,
    };
    Game::open(header.clone(), rollcall_core::registry::builtin()).map_err(|e| match e {
        rollcall_core::game::OpenError::Scenario(s) => scenario_error(s),
        other => Fail::msg(other.to_string()),
    })?;
    let log = store::open(db)?;
    if has_game(&log, &id)? {
        return Err(fail!("{} (nothing was written)", store::already_stored(&id, &store::dir(db))));
    }
    let head = log.create(&header)?.hash;
    Ok(NewGame { header, head })
}

/// `rollcall new`: the game made, its parties and their commitments.
struct NewGame {
    header: Header,
    head: Digest,
}

impl Report for NewGame {
    fn text(&self) -> Vec<String> {
        let (header, mode) = (&self.header, self.header.mode);
        let mut lines = vec![format!("new game {}: {}, {} dice", header.game, header.rules.label(), mode_name(mode))];
        for p in &header.parties {
            lines.push(match p.commitment {
                Some(c) => format!("  party {}: commitment {c}", p.name),
                None => format!("  party {}", p.name),
            });
        }
        if mode == SeedMode::Open {
            lines.push("  (an open game made on one machine, for solo play and fixtures: this machine made every share, so it could have chosen the dice; anyone can compute them. Two players start a game with `rollcall pbem invite`.)".into());
        }
        lines.push(format!("head {}", self.head));
        lines
    }

    fn json(&self) -> Value {
        let header = &self.header;
        let parties: Vec<Value> = header
            .parties
            .iter()
            .map(|p| json!({"name": p.name, "commitment": p.commitment.map(|c| c.to_string())}))
            .collect();
        json!({"game": header.game, "rules": header.rules.version, "mode": header.mode, "head": self.head.to_string(),
            "parties": parties})
    }
}

/// `rollcall play GAME DECISION`: decide on the current state, append atomically.
fn play(cx: &Checked, id: &str, source: &str) -> Result<ExitCode, Fail> {
    let (db, mode) = (&cx.db, cx.mode);
    let (name, bytes) = read_input(source)?;
    let name = name.as_str();
    let value: Value = strict::parse(&bytes).map_err(|e| Fail::msg(e.in_file(name)))?;
    let text = String::from_utf8_lossy(&bytes);
    let (decisions, prefix) = match value {
        Value::Array(items) => (items, true),
        single => (vec![single], false),
    };
    let log = store::open_read(db)?;
    let mut game = open_at_head(&log, id, rollcall_core::registry::builtin())?;
    let by = decider(&log, &game)?;
    let expected = game.head();
    let mut events = Vec::new();
    for (i, d) in decisions.into_iter().enumerate() {
        let at = |field: &str| {
            let path = match (prefix, field.is_empty()) {
                (true, true) => format!("[{i}]"),
                (true, false) => format!("[{i}].{field}"),
                (false, _) => field.to_string(),
            };
            let shown = if path.is_empty() { "$" } else { path.as_str() };
            format!("{name}:{}: {shown}", line_of(&text, &path))
        };
        let (decision, dice) = split_dice(d).map_err(|(f, m)| fail!("{}: {m}", at(&f)))?;
        let new = match game.play_as(&decision, dice.as_ref(), by.as_deref()) {
            Ok(new) => new,
            Err(refusal) => {
                return crate::exit::refusal(refusal, |r| crate::exit::placed(r, at) + " (nothing was written)", mode)
            }
        };
        events.extend(new);
    }
    log.append(id, &expected, &events)?;
    keep_snapshot(&log, id, &game);
    Ok(output::print(&Played { id, game, events }, mode))
}

/// `rollcall play`: the events a decision (or several) added, narrated.
pub(crate) struct Played<'a> {
    pub(crate) id: &'a str,
    pub(crate) game: Game,
    pub(crate) events: Vec<Event>,
}

impl Report for Played<'_> {
    fn text(&self) -> Vec<String> {
        let mut lines: Vec<String> =
            self.events.iter().map(|event| Narrated { game: &self.game, event, listed: false }.text()).collect();
        lines.push(format!("head {}", self.game.head()));
        lines
    }

    fn json(&self) -> Value {
        let events: Vec<Value> = self.events.iter().map(|e| event_json(&self.game, e)).collect();
        json!({"game": self.id, "events": events, "head": self.game.head().to_string()})
    }
}

/// `rollcall play GAME FILE --stream`: one decision per line, each appended
/// and made durable (the store's journal synced) before its
/// acknowledgement is printed.
fn play_stream(cx: &Checked, id: &str, source: &str) -> Result<ExitCode, Fail> {
    let (db, mode) = (&cx.db, cx.mode);
    let name = if source == "-" { "<stdin>".to_string() } else { source.to_string() };
    let reader: Box<dyn std::io::BufRead> = if source == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        Box::new(std::io::BufReader::new(std::fs::File::open(source).with_context(|| name.clone())?))
    };
    let log = store::open_read(db)?;
    let mut game = open_at_head(&log, id, rollcall_core::registry::builtin())?;
    let by = decider(&log, &game)?;
    let mut stream = Stream::lines(mode);
    let refused = durable_apart(
        || Ok(log.sync()?),
        |acks: Vec<Acknowledged>| stream.push_all(&acks),
        |acknowledge| {
            decide_stream(reader, &name, &mut game, by.as_deref(), |line, expected, events| {
                let head = log.append_deferred(id, expected, events)?;
                Ok(acknowledge(Acknowledged { line, head }))
            })
        },
    )?;
    keep_snapshot(&log, id, &game);
    // Said once every decision before it is acknowledged: after them.
    match refused {
        None => Ok(ExitCode::SUCCESS),
        Some((line, refusal)) => crate::exit::refusal(refusal, |r| crate::exit::placed(r, at_line(&name, line)), mode),
    }
}

/// How many decisions `durable_apart` lets `decide` write ahead of the
/// sync: with one, a stream with a reader on its acknowledgements took
/// 0.104 ms a decision; with 8, 0.076; with 64, no better (0.077;
/// measured with the throughput bench). Each is written to the store, none
/// acknowledged before its own sync.
const AHEAD: usize = 8;

/// Runs `decide`, which writes each decision it decides to the store and
/// hands its acknowledgement to the function it is given; each is made
/// durable (`sync`) and acknowledged on a second thread, one sync each,
/// in order, while `decide` reads and decides the next decision. So a
/// stream's decisions cost a sync each, not a sync and a decision's work.
/// Nothing is acknowledged before a sync that began after it was written:
/// at the first failed sync the second thread stops, acknowledging nothing
/// more, and `decide` is told to stop (the function returns false). Every
/// decision handed on is synced and acknowledged before `decide`'s own
/// error, if any, is returned; a failed sync's error comes first.
///
/// `acknowledge` is given the decisions synced since it was last called,
/// in order: each as soon as no other waits for its sync; while others
/// wait (decisions come faster than syncs), those synced are held until
/// none waits or `AHEAD` are held, and given together. A sync is then not
/// held back by printing one line at a time: the thread that syncs prints,
/// and one write a line was a tenth of its time in a stream of 300
/// decisions (measured with the throughput bench).
fn durable_apart<A: Send, R>(
    sync: impl Fn() -> Result<(), Fail> + Sync,
    mut acknowledge: impl FnMut(Vec<A>) -> Result<(), Fail> + Send,
    decide: impl FnOnce(&mut dyn FnMut(A) -> bool) -> Result<R, Fail>,
) -> Result<R, Fail> {
    use std::sync::mpsc::TryRecvError;
    std::thread::scope(|scope| {
        // Up to `AHEAD` decisions written and waiting while one syncs: a
        // decision that takes longer than a sync (a leaf of the store split,
        // the thread descheduled by a reader of the acknowledgements on a
        // busy machine) is made up by the quick ones after it instead of
        // leaving the sync idle.
        let (written, to_sync) = std::sync::mpsc::sync_channel::<A>(AHEAD);
        let sync = &sync;
        let syncer = scope.spawn(move || -> Result<(), Fail> {
            let mut synced = Vec::with_capacity(AHEAD);
            loop {
                let next = match to_sync.try_recv() {
                    Ok(next) => next,
                    Err(TryRecvError::Disconnected) => break,
                    Err(TryRecvError::Empty) => {
                        if !synced.is_empty() {
                            acknowledge(std::mem::take(&mut synced))?;
                        }
                        match to_sync.recv() {
                            Ok(next) => next,
                            Err(_) => break,
                        }
                    }
                };
                if let Err(failed) = sync() {
                    // Those synced before are durable: said, then the failure.
                    if !synced.is_empty() {
                        acknowledge(synced)?;
                    }
                    return Err(failed);
                }
                synced.push(next);
                if synced.len() == AHEAD {
                    acknowledge(std::mem::take(&mut synced))?;
                }
            }
            if !synced.is_empty() {
                acknowledge(synced)?;
            }
            Ok(())
        });
        let decided = decide(&mut |ack| written.send(ack).is_ok());
        drop(written);
        syncer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        decided
    })
}

/// The decisions of a `play --stream` source, one a line: each read,
/// decided on `game`, and handed to `append` with its line number, the head
/// it follows and its events; `append` says whether the stream goes on.
/// The first decision the rules refuse ends the stream, and is handed back
/// with its line number, to be said once the decisions before it are.
fn decide_stream(
    mut reader: Box<dyn std::io::BufRead>,
    name: &str,
    game: &mut Game,
    by: Option<&str>,
    mut append: impl FnMut(usize, &Digest, &[Event]) -> Result<bool, Fail>,
) -> Result<Option<(usize, rollcall_core::ruleset::Refusal)>, Fail> {
    let mut offset = 0u64;
    let mut bytes = Vec::new();
    for i in 0.. {
        bytes.clear();
        let n = reader.read_until(b'\n', &mut bytes).with_context(|| format!("{name}:{}", i + 1))?;
        if n == 0 {
            break;
        }
        let start = offset;
        offset += n as u64;
        let line = strict::utf8_from(&bytes, i + 1, start).map_err(|e| Fail::msg(e.in_file(name)))?;
        if line.trim().is_empty() {
            continue;
        }
        let at = at_line(name, i + 1);
        let value: Value = strict::parse(line.trim_end().as_bytes()).map_err(|e| {
            let e = strict::StrictError { line: i + 1, ..e };
            Fail::msg(e.in_file(name))
        })?;
        let (decision, dice) = split_dice(value).map_err(|(f, m)| fail!("{}: {m}", at(&f)))?;
        let expected = game.head();
        let events = match game.play_as(&decision, dice.as_ref(), by) {
            Ok(events) => events,
            Err(refusal) => return Ok(Some((i + 1, refusal))),
        };
        if !append(i + 1, &expected, &events)? {
            break;
        }
    }
    Ok(None)
}

/// Where a field of line `line` of the stream `name` is, as an error says
/// it: `name:line: field` (`$` for the line's whole value).
fn at_line(name: &str, line: usize) -> impl Fn(&str) -> String + '_ {
    move |field| format!("{name}:{line}: {}", if field.is_empty() { "$" } else { field })
}

/// A decision of `play --stream`, durable: its line, and the head it made.
struct Acknowledged {
    line: usize,
    head: rollcall_core::log::Head,
}

impl Item for Acknowledged {
    fn text(&self) -> String {
        format!("ok {} {}", self.head.seq, self.head.hash)
    }

    fn json(&self) -> Value {
        json!({"ok": true, "line": self.line, "seq": self.head.seq, "head": self.head.hash.to_string()})
    }
}

/// How many events a stored game may grow past its kept snapshot before
/// a command that wrote it keeps a new one.
const SNAPSHOT_EVERY: u64 = 256;

/// Keeps a snapshot of a game a command just wrote, at the store's head, so
/// that the next `play` (and `state`) need not fold the whole game. It is a
/// cache: failing to keep one costs the next command a fold, nothing else.
pub(crate) fn keep_snapshot(log: &dyn EventLog, id: &str, game: &Game) {
    let _ = rollcall_core::log::keep_snapshot(log, id, game, SNAPSHOT_EVERY);
}

/// Who decides in this store: in a play-by-email game, this store's side,
/// while it holds the turn.
pub(crate) fn decider(log: &dyn EventLog, game: &Game) -> Result<Option<String>, Fail> {
    exchange::decider(log, game).map_err(|e| Fail::msg(e.to_string()))
}

fn log(cx: &Checked, target: &str, from: Option<Position>) -> Result<ExitCode, Fail> {
    let (reader, id, span) = crate::source::reader(&cx.db, target, from)?;
    let from = span.map_or(1, |span| span.first);
    let mut stream = Stream::array(cx.mode, "events");
    let mut printed = Ok(());
    let game = reader.fold(target, &id, None, |game, event| {
        if event.seq >= from && printed.is_ok() {
            printed = stream.push(&Narrated { game, event, listed: true });
        }
    })?;
    printed?;
    stream.finish(&[format!("head {}", game.head())], json!({"game": id, "head": game.head().to_string()}))?;
    Ok(ExitCode::SUCCESS)
}

/// `rollcall state GAME`: the game at a position (its head by default).
struct State {
    id: String,
    game: Game,
}

fn state(db: &crate::store::StoreSpec, target: &str, at: Option<Position>) -> Result<State, Fail> {
    let (reader, id, span) = crate::source::reader(db, target, at)?;
    let game = reader.at(target, &id, span.map(|span| span.last))?;
    Ok(State { id, game })
}

impl Report for State {
    fn text(&self) -> Vec<String> {
        let (id, game) = (&self.id, &self.game);
        let render = game.render();
        vec![
            format!("game {id} after seq {} (decision {}):", game.seq(), game.decisions()),
            render.strip_suffix('\n').unwrap_or(&render).to_string(),
        ]
    }

    fn json(&self) -> Value {
        let game = &self.game;
        json!({"game": self.id, "seq": game.seq(), "decisions": game.decisions(), "turn": game.turn(),
            "head": game.head().to_string(), "state": game.state()})
    }
}

fn replay(cx: &Checked, target: &str, step: bool, to: Option<Position>) -> Result<ExitCode, Fail> {
    let mode = cx.mode;
    let (reader, id, span) = crate::source::reader(&cx.db, target, to)?;
    let to = span.map(|span| span.last);
    let mut stream = Stream::array(mode, "events").with_asides("steps");
    let mut printed = Ok(());
    // The narrative on a terminal is its own progress; to a file or a pipe, a bar.
    let bar = reader.progress("replay", &id, to, mode == Mode::Json || std::io::stdout().is_terminal())?;
    let game = reader.fold(target, &id, to, |game, event| {
        crate::progress::tick(&bar);
        if printed.is_err() {
            return;
        }
        if step && event.kind == rollcall_core::Kind::Decision && game.decisions() > 1 {
            // The state after the previous decision, before this one.
            let after = game.decisions() - 1;
            printed = stream.aside(
                || format!("--- state after decision {after} ---\n{}", game.render()),
                || json!({"after_decision": after, "state": game.state()}),
            );
            if printed.is_err() {
                return;
            }
        }
        printed = stream.push(&Narrated { game, event, listed: false });
    })?;
    printed?;
    let last = format!(
        "--- state after seq {} (decision {}) ---\n{}head {}",
        game.seq(),
        game.decisions(),
        game.render(),
        game.head()
    );
    stream.finish(
        &[last],
        json!({"game": id, "seq": game.seq(), "head": game.head().to_string(), "state": game.state()}),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `rollcall replay GAME --step` on a terminal: reads the game once,
/// releases the store (other commands may use it while the view is open),
/// and opens the interactive view at the position given, or at the start.
fn interactive_replay(db: &crate::store::StoreSpec, target: &str, at: Option<Position>) -> Result<ExitCode, Fail> {
    let (header, events) = {
        let (log, id) = crate::source::game_reader(db, target)?;
        let header = log.header(&id)?;
        let events = log.events(&id, 1)?.collect::<Result<Vec<_>, _>>()?;
        (header, events)
    };
    let replay = crate::tui::Replay::build(&header, &events)?;
    drop(events);
    let start = match at {
        Some(p) => replay.resolve(p).map_err(Fail::msg)?,
        None => 0,
    };
    crate::tui::term::run(&replay, crate::tui::Model::new(start))?;
    Ok(ExitCode::SUCCESS)
}

pub fn verified_json(id: &str, v: &Verified, header: &Header) -> Value {
    let dice_proven = match (&v.mode, &v.sealed) {
        (SeedMode::Open, _) => true,
        (SeedMode::Sealed, Some(s)) => s.open.is_none(),
        _ => false,
    };
    let sealed = v.sealed.as_ref().map(|s| {
        let mut turns: Vec<Value> = s
            .proven
            .iter()
            .map(|(turn, first, last)| json!({"turn": turn, "decisions": [first, last], "status": "proven"}))
            .collect();
        if let Some((turn, first, last)) = s.open {
            turns.push(json!({"turn": turn, "decisions": [first, last], "status": "sealed until the turn ends"}));
        }
        json!({"turns": turns, "summary": s.describe()})
    });
    json!({"ok": true, "game": id, "rules": header.rules.version, "rules_hash": header.rules_hash.to_string(), "mode": v.mode,
        "events": v.events, "decisions": v.decisions, "turn": v.turn, "head": v.head.to_string(), "dice_proven": dice_proven,
        "guarantee": v.guarantee(), "signed": v.signed, "unsigned_decisions": v.unsigned, "signatures": v.signatures(),
        "sealed": sealed})
}

/// `rollcall verify TARGET`: what a record proves, or the first place where
/// it fails.
struct VerifyReport {
    target: String,
    outcome: Result<(Verified, Header), VerifyFailure>,
    /// The transport noise normalised away in a record file, described.
    normalised: Option<String>,
}

impl VerifyReport {
    fn new(
        target: &str,
        header: Header,
        result: Result<Verified, VerifyFailure>,
        expect_head: Option<&str>,
        normalised: Option<String>,
    ) -> VerifyReport {
        let outcome = result.and_then(|v| match expect_head {
            Some(want) if want != v.head.to_string() => Err(VerifyFailure {
                seq: Some(v.events),
                kind: Fault::HeadDiffers,
                reason: format!(
                    "the record ends at head {}, not the expected {want}: events were dropped or added at the end",
                    v.head
                ),
            }),
            _ => Ok((v, header)),
        });
        VerifyReport { target: target.to_string(), outcome, normalised }
    }
}

impl Report for VerifyReport {
    fn text(&self) -> Vec<String> {
        let what = &self.target;
        let mut lines = Vec::new();
        if let Some(noise) = &self.normalised {
            lines.push(format!(
                "normalised transport noise in {what}: {noise} (not content: the hashes are over the lines without it)"
            ));
        }
        match &self.outcome {
            Ok((v, header)) => {
                lines.push(format!(
                    "verified {what}: {}, {} events, {} decisions, turn {}",
                    header.rules.label(),
                    v.events,
                    v.decisions,
                    v.turn
                ));
                lines.push(format!("head {}", v.head));
                lines.push(format!("proven: {}.", v.guarantee()));
                lines.extend(v.signatures().map(|signatures| format!("{signatures}.")));
                lines.extend(v.sealed.as_ref().map(|sealed| format!("dice: {}.", sealed.describe())));
            }
            Err(f) => lines.push(format!("verification FAILED for {what}: {f}")),
        }
        lines
    }

    fn verdict(&self) -> Option<(Line, Verdict)> {
        let at = Line::At(usize::from(self.normalised.is_some()));
        Some((at, if self.outcome.is_ok() { Verdict::Good } else { Verdict::Bad }))
    }

    fn json(&self) -> Value {
        match &self.outcome {
            Ok((v, header)) => {
                let mut out = verified_json(&self.target, v, header);
                out["normalised"] = json!(self.normalised);
                out
            }
            Err(f) => json!({"ok": false, "target": self.target, "seq": f.seq, "fault": f.kind, "reason": f.reason,
                "normalised": self.normalised}),
        }
    }

    fn code(&self) -> ExitCode {
        ExitCode::from(if self.outcome.is_ok() { 0 } else { 1 })
    }
}

/// `rollcall verify TARGET...`. One target prints its report (or fails
/// with its error, exit 2). Several are verified in turn: each report
/// printed as it comes (a target that cannot be read as a record prints its
/// error in its place, and the next is verified), then a tally; with
/// `--json`, one document listing each record's. The exit code is the
/// worst: 2 when a target could not be read, else 1 when a record failed.
fn verify_each_target(cx: &Checked, targets: &[String], expect_head: Option<String>) -> Result<ExitCode, Fail> {
    if let [target] = targets {
        return Ok(output::print(&verify(cx, target, expect_head)?, cx.mode));
    }
    if expect_head.is_some() {
        return Err(fail!(
            "--expect-head: it names one record's head, and {} targets were given: verify that record alone",
            targets.len()
        ));
    }
    let (mut failed, mut unreadable, mut records) = (Vec::new(), Vec::new(), Vec::new());
    // Reports printed so far: each after the first, and the tally, follows a blank line.
    let mut printed = 0;
    for target in targets {
        match verify(cx, target, None) {
            Ok(report) => {
                if report.outcome.is_err() {
                    failed.push(target.as_str());
                }
                match cx.mode {
                    Mode::Text => {
                        if printed > 0 {
                            say!();
                        }
                        output::print(&report, Mode::Text);
                        printed += 1;
                    }
                    Mode::Json => records.push(report.json()),
                }
            }
            Err(e) => {
                // Named, unless the error names it already.
                let message = match e.message() {
                    m if m.contains(target.as_str()) => m,
                    m => format!("{target}: {m}"),
                };
                eprintln!("error: {}", rollcall_core::text::escape_lines(&message));
                if cx.mode == Mode::Json {
                    records.push(json!({"ok": false, "target": target, "error": {"kind": "input", "exit": crate::exit::INPUT, "message": message}}));
                }
                unreadable.push(target.as_str());
            }
        }
    }
    let proven = targets.len() - failed.len() - unreadable.len();
    let mut tally = format!("{} records: {proven} proven", targets.len());
    if !failed.is_empty() {
        tally += &format!(", {} FAILED ({})", failed.len(), failed.join(", "));
    }
    if !unreadable.is_empty() {
        tally += &format!(", {} not read ({})", unreadable.len(), unreadable.join(", "));
    }
    let all = failed.is_empty() && unreadable.is_empty();
    match cx.mode {
        Mode::Text => {
            if printed > 0 {
                say!();
            }
            crate::colour::say(&tally, if all { Verdict::Good } else { Verdict::Bad })
        }
        Mode::Json => output::print_json(&json!({"ok": all, "records": records})),
    }
    let code = match (unreadable.is_empty(), failed.is_empty()) {
        (false, _) => crate::exit::INPUT,
        (true, false) => crate::exit::FAILED,
        (true, true) => 0,
    };
    Ok(ExitCode::from(code))
}

fn verify(cx: &Checked, target: &str, expect_head: Option<String>) -> Result<VerifyReport, Fail> {
    let (db, mode) = (&cx.db, cx.mode);
    if let Some(h) = &expect_head {
        h.parse::<Digest>().map_err(|e| fail!("--expect-head: {e}"))?;
    }
    let quiet = mode == Mode::Json;
    let downloaded;
    let mut target = target;
    if target.starts_with("http://") || target.starts_with("https://") {
        downloaded = crate::serve::client::download(target)?;
        target = downloaded.path().to_str().unwrap_or_default();
    }
    if let Target::File(path) = Target::of(target) {
        if !path.is_file() {
            return Err(fail!("{target}: no such record file"));
        }
        let (header, events) = match rollcall_store::file::read(path) {
            Ok(read) => read,
            Err(e @ (rollcall_store::file::FileError::Io { .. } | rollcall_store::file::FileError::Refused { .. })) => {
                return Err(e.into())
            }
            Err(e) => {
                crate::source::refuse_script(path)?;
                let failure = VerifyFailure::at(None, Fault::Unreadable.because(e.to_string()));
                return Ok(VerifyReport { target: target.to_string(), outcome: Err(failure), normalised: None });
            }
        };
        let mut events = events;
        let bar = crate::progress::file("verify", path, quiet);
        let result = rollcall_store::file::verify(&header, &mut events, || crate::progress::tick(&bar));
        crate::progress::done(bar);
        let normalised = events.normalised().describe();
        return Ok(VerifyReport::new(target, header, result, expect_head.as_deref(), normalised));
    }
    let log = store::open_read(db)?;
    let header = log.header(target)?;
    let bar = crate::progress::events("verify", log.head(target)?.seq, quiet);
    let result = verify_lines(&header, target, log.lines(target, 1)?, || crate::progress::tick(&bar));
    crate::progress::done(bar);
    Ok(VerifyReport::new(target, header, result, expect_head.as_deref(), None))
}

/// Verifies the stored game `id` from its record lines, as verify of a
/// record file does ([`crate::source::take_stored_lines`]).
fn verify_lines(
    header: &Header,
    id: &str,
    lines: impl Iterator<Item = Result<String, rollcall_core::log::LogError>>,
    tick: impl FnMut(),
) -> Result<Verified, VerifyFailure> {
    let mut verifier = Verifier::new(header, rollcall_core::registry::builtin())?;
    crate::source::take_stored_lines(&mut verifier, id, lines, tick)?;
    verifier.finish().map(|(verified, _)| verified)
}

fn export(cx: &Checked, id: &str, output: &Path, force: bool) -> Result<ExitCode, Fail> {
    use rollcall_store::file::{self, Existing};
    let log = store::open_read(&cx.db)?;
    // The chain is checked before a byte is written; then the lines the
    // check read (up to its head: a shared store may grow meanwhile) are
    // copied as they are stored.
    let game = open_game_lines(&log, id, rollcall_core::registry::builtin())?;
    let to_stdout = output == Path::new("-");
    let bar = crate::progress::events("export", game.seq(), cx.mode == Mode::Json);
    let lines = log.lines(id, 1)?.take(game.seq() as usize).inspect(|_| crate::progress::tick(&bar));
    let count = if to_stdout {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        file::write_lines_to(&mut out, Path::new("<stdout>"), game.header(), lines)
    } else {
        let existing = if force { Existing::Replace } else { Existing::Refuse };
        file::write_lines(output, existing, game.header(), lines)
    };
    crate::progress::done(bar);
    let shown = if to_stdout { "standard output".to_string() } else { output.display().to_string() };
    let report = Exported { id, file: shown, events: count?, head: game.head() };
    // With the record on standard output, the report goes to standard error.
    Ok(if to_stdout { output::print_on_stderr(&report, cx.mode) } else { output::print(&report, cx.mode) })
}

/// `rollcall export`: the record written, where.
struct Exported<'a> {
    id: &'a str,
    file: String,
    events: u64,
    head: Digest,
}

impl Report for Exported<'_> {
    fn text(&self) -> Vec<String> {
        vec![format!("wrote {} to {}: {} events; head {}", self.id, self.file, self.events, self.head)]
    }

    fn json(&self) -> Value {
        json!({"game": self.id, "file": self.file, "events": self.events, "head": self.head.to_string()})
    }
}

/// `rollcall import FILE`: verifies the record while it writes it into a
/// game being created, which appears whole once the record has verified to
/// its end (and not at all otherwise). A record that extends a game in the
/// store appends what the store lacks, after verifying the whole record.
fn import(cx: &Checked, file: &Path, key: Option<&Path>) -> Result<ExitCode, Fail> {
    let (header, _) = rollcall_store::file::read(file)?;
    let side = match key {
        Some(path) => Some(crate::pbem::side_of_key_file(&header, path)?),
        None => None,
    };
    let log = store::open(&cx.db)?;
    let imported = if has_game(&log, &header.game)? {
        import_extend(&log, file, &header)?
    } else {
        import_new(&log, file, cx.mode)?
    };
    let code = output::print(&imported, cx.mode);
    if let (Some(side), true) = (&side, code == ExitCode::SUCCESS) {
        exchange::take_side(&log, &header.game, side)?;
        output::note(cx.mode, || format!("this store plays {side} in {}", header.game));
    }
    Ok(code)
}

/// What `import` did with a record.
enum Imported {
    /// A new game, verified.
    New { file: String, verified: Box<Verified>, header: Box<Header> },
    /// A record that parts from the stored game at `seq`: kept as evidence
    /// under `evidence`.
    Fork { id: String, file: String, seq: u64, evidence: String },
    /// Nothing: the stored game, at `head`, holds every event of the record.
    Nothing { id: String, file: String, head: rollcall_core::log::Head },
    /// The stored game, extended by `appended` events after `from`.
    Extended { id: String, file: String, appended: u64, from: u64, head: Digest },
}

impl Report for Imported {
    fn text(&self) -> Vec<String> {
        vec![match self {
            Imported::New { file, verified: v, header } => {
                format!("imported {} from {file}: {} events, verified; head {}", header.game, v.events, v.head)
            }
            Imported::Fork { id, file, seq, .. } => format!(
                "FORK: {file} parts from the stored game {id} at seq {seq}: kept as evidence (rollcall fork show {id}); nothing else was written"
            ),
            Imported::Nothing { id, file, head } => format!(
                "nothing to import: the store's game {id} already holds every event of {file} (and is at seq {})",
                head.seq
            ),
            Imported::Extended { id, file, appended, from, head } => format!(
                "extended {id} from {file}: the record verified, and {appended} events after seq {from} were appended; head {head}"
            ),
        }]
    }

    fn json(&self) -> Value {
        match self {
            Imported::New { verified, header, .. } => verified_json(&header.game, verified, header),
            Imported::Fork { id, seq, evidence, .. } => {
                json!({"ok": false, "game": id, "fork": seq, "evidence": evidence})
            }
            Imported::Nothing { id, head, .. } => {
                json!({"ok": true, "game": id, "appended": 0, "head": head.hash.to_string()})
            }
            Imported::Extended { id, appended, head, .. } => {
                json!({"ok": true, "game": id, "appended": appended, "head": head.to_string()})
            }
        }
    }

    fn code(&self) -> ExitCode {
        ExitCode::from(u8::from(matches!(self, Imported::Fork { .. })))
    }
}

fn import_new(log: &(dyn EventLog + Sync), file: &Path, mode: Mode) -> Result<Imported, Fail> {
    let (header, mut events) = rollcall_store::file::read(file)?;
    let not_imported = |f: VerifyFailure| fail!("{}: does not verify, so it was not imported: {f}", file.display());
    let mut verifier = Verifier::new(&header, rollcall_core::registry::builtin()).map_err(not_imported)?;
    // Verified as `verify FILE` verifies: a line that is byte for byte the
    // one the game leads to is taken as read, and written as it is.
    events.read_decisions(verifier.decision_reader());
    let bar = crate::progress::file("import", file, mode == Mode::Json);
    let (verified, at_head) = store::Creation::make(log, &header, |creation| {
        let mut taken = None;
        loop {
            let read = events.next_taking(|line, proof, read| {
                let took = verifier.take_line_read(line, proof, read);
                // Proved UTF-8 by the verifier's scan when it is taken.
                let text = took.then(|| std::str::from_utf8(line).ok()).flatten();
                taken = text.map(str::to_string);
                took
            });
            let line = match read {
                None => break,
                Some(Ok(None)) => taken.take().ok_or_else(|| fail!("{}: a line is not UTF-8 text", file.display()))?,
                Some(Ok(Some(event))) => {
                    verifier.push(&event).map_err(not_imported)?;
                    let line = rollcall_core::record::encode_event(&event);
                    line.map_err(|e| fail!("{}: seq {}: {e}", file.display(), event.seq))?
                }
                Some(Err(e)) => return Err(not_imported(verifier.unreadable(e))),
            };
            crate::progress::tick(&bar);
            creation.push(line)?;
        }
        let at_head = verifier.game().clone();
        let (verified, _) = verifier.finish().map_err(not_imported)?;
        creation.commit()?;
        Ok((verified, at_head))
    })?;
    crate::progress::done(bar);
    keep_snapshot(log, &header.game, &at_head);
    Ok(Imported::New { file: file.display().to_string(), verified: Box::new(verified), header: Box::new(header) })
}

/// Import of a record of a game the store has: the record must be the same
/// game (the same header) and agree with every stored event; what it holds
/// beyond the store's head is appended. A record that parts from the stored
/// game is a fork: refused, and kept as evidence.
fn import_extend(log: &dyn EventLog, file: &Path, header: &Header) -> Result<Imported, Fail> {
    let id = &header.game;
    let stored = log.header(id)?;
    if let Some(field) = exchange::header_difference(&stored, header) {
        return Err(fail!(
            "{}: a game {id:?} is in the store, and this record's header differs from it at {field}: it is another game with the same id (nothing was written)",
            file.display()
        ));
    }
    let ours = log.head(id)?;
    // Pass 1: the whole record verifies, and agrees with the store up to its head.
    let (_, events) = rollcall_store::file::read(file)?;
    let mut stored_events = log.events(id, 1)?;
    let mut fork: Option<exchange::Fork> = None;
    let result = verify_each(header, events, rollcall_core::registry::builtin(), |_, e| {
        if e.seq <= ours.seq && fork.is_none() {
            let same = matches!(stored_events.next(), Some(Ok(s)) if s.hash == e.hash);
            if !same {
                fork = Some(exchange::Fork {
                    game: id.clone(),
                    source: format!("record {}", file.display()),
                    side: None,
                    seq: e.seq,
                    events: Vec::new(),
                });
            }
        }
        if let Some(f) = fork.as_mut() {
            let open = f.events.len() < exchange::FORK_EVENTS
                && !f.events.last().is_some_and(|l| l.contains("\"kind\":\"checkpoint\""));
            if open {
                f.events.push(rollcall_core::record::encode_event(e).unwrap_or_default());
            }
        }
    });
    drop(stored_events);
    let verified = result.map_err(|f| fail!("{}: does not verify, so it was not imported: {f}", file.display()))?;
    if let Some(fork) = fork {
        let evidence = exchange::keep(log, &fork)?;
        return Ok(Imported::Fork { id: id.clone(), file: file.display().to_string(), seq: fork.seq, evidence });
    }
    if verified.events <= ours.seq {
        return Ok(Imported::Nothing { id: id.clone(), file: file.display().to_string(), head: ours });
    }
    // Pass 2: append what the store lacks, whole decisions at a time.
    let (_, events) = rollcall_store::file::read(file)?;
    let mut head = ours.hash;
    let mut batch: Vec<Event> = Vec::new();
    let mut appended = 0u64;
    for event in events {
        let event = event?;
        if event.seq <= ours.seq {
            continue;
        }
        if matches!(event.kind, Kind::Decision | Kind::Checkpoint) && batch.len() >= store::RUN_BATCH_EVENTS {
            head = log.append(id, &head, &batch)?.hash;
            appended += batch.len() as u64;
            batch.clear();
        }
        batch.push(event);
    }
    if !batch.is_empty() {
        head = log.append(id, &head, &batch)?.hash;
        appended += batch.len() as u64;
    }
    Ok(Imported::Extended { id: id.clone(), file: file.display().to_string(), appended, from: ours.seq, head })
}

/// `rollcall games`: the store's games, and those whose creation stopped.
struct Games {
    /// Each game: its id, rules label, seed mode, events and head.
    games: Vec<(String, String, SeedMode, u64, Digest)>,
    incomplete: Vec<String>,
}

fn games(db: &crate::store::StoreSpec) -> Result<Games, Fail> {
    let log = store::open_read(db)?;
    let mut games = Vec::new();
    for id in log.games()? {
        let header = log.header(&id)?;
        let head = log.head(&id)?;
        games.push((id, header.rules.label(), header.mode, head.seq, head.hash));
    }
    Ok(Games { games, incomplete: log.incomplete()? })
}

impl Report for Games {
    fn text(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .games
            .iter()
            .map(|(id, label, _, events, head)| {
                let shown = text::escape(id);
                format!("{shown:<24} {:<28} {events:>6} events  head {}", text::escape(label), head.short())
            })
            .collect();
        if lines.is_empty() {
            lines.push("no games in this store".into());
        }
        if !self.incomplete.is_empty() {
            lines.push(format!(
                "not listed: {} game(s) whose creation was stopped before its end ({}): no command sees them, and creating the game again clears them",
                self.incomplete.len(),
                self.incomplete.join(", ")
            ));
        }
        lines
    }

    fn json(&self) -> Value {
        let rows: Vec<Value> = self
            .games
            .iter()
            .map(|(id, label, mode, events, head)| {
                json!({"game": id, "rules": label, "mode": mode, "events": events, "head": head.to_string()})
            })
            .collect();
        json!({"games": rows, "incomplete": self.incomplete})
    }
}

/// `rollcall rules list`: each ruleset and its versions.
struct RulesList(Vec<(RulesetInfo, Vec<VersionSpec>)>);

fn rules_list() -> RulesList {
    RulesList(registry::all().into_iter().map(|info| (info, (info.versions)())).collect())
}

impl Report for RulesList {
    fn text(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (info, versions) in &self.0 {
            lines.push(format!("{}: {}", info.id, info.title));
            lines.extend(versions.iter().map(|v| format!("  {:<28} {}", v.id(), v.summary)));
        }
        lines
    }

    fn json(&self) -> Value {
        let rows: Vec<Value> = self.0.iter().map(|(info, versions)| json!({"ruleset": info.id, "title": info.title, "versions": versions.iter().map(|v| json!({"id": v.id(), "summary": v.summary})).collect::<Vec<_>>()})).collect();
        json!({"rulesets": rows})
    }
}

/// `rollcall rules refusals RULESET`: the kinds of refusal of a ruleset,
/// its own, then the shared ones.
struct RulesRefusals {
    ruleset: &'static str,
    own: Vec<RefusalKind>,
    shared: Vec<RefusalKind>,
}

fn rules_refusals(id: &str) -> Result<RulesRefusals, Fail> {
    let info = registry::find(id).map_err(|e| Fail::msg(e.to_string()))?;
    Ok(RulesRefusals { ruleset: info.id, own: (info.refusals)(), shared: Shared::kinds() })
}

impl Report for RulesRefusals {
    fn text(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (title, kinds) in [(self.ruleset, &self.own), ("shared", &self.shared)] {
            lines.push(format!("{title}:"));
            for k in kinds {
                lines.push(format!("  {}", k.name));
                lines.extend(k.about.lines().map(|line| format!("      {}", line.trim())));
            }
        }
        lines
    }

    fn json(&self) -> Value {
        let group = |kinds: &[RefusalKind]| kinds.iter().map(|k| crate::exit::refusal_json(*k)).collect::<Vec<_>>();
        json!({"ruleset": self.ruleset, "refusals": group(&self.own), "shared": group(&self.shared)})
    }
}

/// `rollcall rules show VERSION`: a rule version's settings and the ranges
/// of its scenarios' numbers.
struct RulesShow {
    rules: RuleVersion,
    spec: VersionSpec,
    bounds: Vec<rollcall_core::bounds::Bound>,
}

fn rules_show(arg: &str) -> Result<RulesShow, Fail> {
    let (rules, spec) = rule_version(arg)?;
    let bounds = (registry::find(rules.ruleset()).map_err(|e| Fail::msg(e.to_string()))?.scenario_bounds)();
    Ok(RulesShow { rules, spec, bounds })
}

impl Report for RulesShow {
    fn text(&self) -> Vec<String> {
        let (rules, spec) = (&self.rules, &self.spec);
        let mut lines = vec![format!("{} — {}", rules.label(), spec.summary), format!("rules hash {}", rules.hash())];
        for kind in [SettingKind::Option, SettingKind::Constant] {
            lines.push(format!(
                "\n{}:",
                if kind == SettingKind::Option {
                    "options (open points of the text; off is the default reading)"
                } else {
                    "constants"
                }
            ));
            for s in spec.settings.iter().filter(|s| s.kind == kind) {
                let value = match kind {
                    SettingKind::Option => rollcall_core::rules::SettingValue::Flag(rules.options[s.name]),
                    SettingKind::Constant => rollcall_core::rules::SettingValue::Integer(rules.constants[s.name]),
                };
                let changed = if value != s.default { format!("  (default {})", s.default) } else { String::new() };
                let point = s.point.map(|p| format!(" [{p}]")).unwrap_or_default();
                let range = s.range.map(|(min, max)| format!("  range {min}..={max}")).unwrap_or_default();
                lines.push(format!("  {} = {value}{changed}{range}{point}", s.name));
                lines.push(format!("      {}", s.help));
                lines.push(format!("      settles: {}", s.settles));
            }
        }
        let (min, max) = rollcall_core::bounds::NUMBER_RANGE;
        lines.push(format!(
            "\nnumbers of a scenario (checked when it loads; every other number of a scenario or decision: {min}..={max}):"
        ));
        lines.extend(self.bounds.iter().map(|b| format!("  {}: {}..={}", b.path, b.min, b.max)));
        if self.bounds.is_empty() {
            lines.push("  (no narrower ranges)".into());
        }
        lines
    }

    fn json(&self) -> Value {
        let (rules, spec) = (&self.rules, &self.spec);
        let mut rows = Vec::new();
        for s in &spec.settings {
            let value = match s.kind {
                SettingKind::Option => json!(rules.options[s.name]),
                SettingKind::Constant => json!(rules.constants[s.name]),
            };
            let default = serde_json::to_value(s.default).expect("serialises");
            rows.push(
                json!({"name": s.name, "kind": if s.kind == SettingKind::Option { "option" } else { "constant" },
                "value": value, "default": default, "range": s.range.map(|(min, max)| [min, max]), "point": s.point,
                "settles": s.settles, "help": s.help}),
            );
        }
        let (min, max) = rollcall_core::bounds::NUMBER_RANGE;
        let scenario: Vec<Value> =
            self.bounds.iter().map(|b| json!({"path": b.path, "range": [b.min, b.max]})).collect();
        json!({"version": rules.version, "name": rules.name, "hash": rules.hash().to_string(),
            "summary": spec.summary, "settings": rows,
            "numbers": {"scenario": scenario, "every_other": [min, max]}})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rollcall_core::log::LogError;
    use rollcall_core::script::Script;

    /// A fixture's record: its header and its lines.
    fn record(fixture: &str) -> (Header, Vec<String>) {
        let path = format!("{}/../fixtures/leader-activation/{fixture}.json", env!("CARGO_MANIFEST_DIR"));
        let script =
            Script::parse(&std::fs::read_to_string(path).unwrap(), fixture, rollcall_core::registry::builtin())
                .unwrap();
        let mut lines = Vec::new();
        script.play(|_, e| lines.push(rollcall_core::record::encode_event(e).unwrap())).unwrap();
        (script.header, lines)
    }

    /// Verify of a stored game's lines gives what verify of its events, as
    /// the store reads them, gives: for the whole record, and with each line
    /// changed in turn (a number in it, or its JSON broken).
    #[test]
    fn verify_of_lines_is_verify_of_events() {
        let (header, lines) = record("rally");
        let of_events = |lines: &[String]| {
            let events: Vec<Result<Event, LogError>> = (1u64..)
                .zip(lines)
                .map(|(seq, l)| {
                    // As the store reads an event (`read_event`).
                    let corrupt = |reason: String| LogError::Corrupt { game: "rally".into(), seq, reason };
                    let event = rollcall_core::record::parse_event(l).map_err(|e| corrupt(e.to_string()))?;
                    if event.seq != seq {
                        return Err(corrupt(format!("stored under seq {seq} but says seq {}", event.seq)));
                    }
                    Ok(event)
                })
                .collect();
            rollcall_core::game::verify(&header, events, rollcall_core::registry::builtin()).map(|v| v.head)
        };
        let of_lines =
            |lines: &[String]| verify_lines(&header, "rally", lines.iter().cloned().map(Ok), || {}).map(|v| v.head);
        assert!(of_lines(&lines).is_ok());
        assert_eq!(of_lines(&lines), of_events(&lines));
        for i in 0..lines.len() {
            for changed in [lines[i].replacen('1', "2", 1), lines[i].replacen('{', "[", 1)] {
                let mut damaged = lines.clone();
                damaged[i] = changed;
                let (a, b) = (of_lines(&damaged), of_events(&damaged));
                assert!(a.is_err(), "line {i} changed was taken");
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "line {i}");
            }
        }
    }

    /// What `durable_apart` did, in order: `append N`, `sync N`, `ack N`.
    struct Trace(std::sync::Mutex<Vec<(&'static str, usize)>>);

    impl Trace {
        fn push(&self, what: &'static str, n: usize) {
            self.0.lock().unwrap().push((what, n));
        }

        /// Checks that every acknowledgement follows a sync of its own that
        /// began after its decision was written, and returns the decisions
        /// acknowledged, in order.
        fn acknowledged(self) -> Vec<usize> {
            let steps = self.0.into_inner().unwrap();
            let mut acked = Vec::new();
            // Where the last sync given to an acknowledgement is.
            let mut last_sync = None;
            for (at, &(what, n)) in steps.iter().enumerate() {
                if what != "ack" {
                    continue;
                }
                let written =
                    steps.iter().position(|&s| s == ("append", n)).expect("acknowledged after it was written");
                let from = last_sync.map_or(written, |s: usize| s.max(written)) + 1;
                let sync = (from..at).find(|&k| steps[k].0 == "sync");
                assert!(sync.is_some(), "ack {n} has no sync of its own after it was written: {steps:?}");
                last_sync = sync;
                acked.push(n);
            }
            acked
        }
    }

    /// Given a stream of ten decisions, when each is handed on, then each
    /// is synced and acknowledged in order, one sync each, after it was
    /// written; given the fourth sync fails, then the first three are
    /// acknowledged, no other, the stream is told to stop, and the sync's
    /// error is returned.
    #[test]
    fn each_decision_is_acknowledged_after_a_sync_of_its_own_and_none_after_a_failed_one() {
        for failing in [None, Some(4)] {
            let trace = Trace(std::sync::Mutex::new(Vec::new()));
            let syncs = std::sync::atomic::AtomicUsize::new(0);
            let result = durable_apart(
                || {
                    let n = syncs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                    trace.push("sync", n);
                    if Some(n) == failing {
                        return Err(fail!("the disk is gone"));
                    }
                    Ok(())
                },
                |acks: Vec<usize>| {
                    acks.into_iter().for_each(|n| trace.push("ack", n));
                    Ok(())
                },
                |acknowledge| {
                    for n in 1..=10 {
                        trace.push("append", n);
                        if !acknowledge(n) {
                            assert!(failing.is_some(), "told to stop only after a failed sync");
                            break;
                        }
                    }
                    Ok(ExitCode::SUCCESS)
                },
            );
            let synced = syncs.into_inner();
            match failing {
                None => {
                    assert!(result.is_ok());
                    assert_eq!(synced, 10, "one sync a decision");
                    assert_eq!(trace.acknowledged(), (1..=10).collect::<Vec<_>>());
                }
                Some(k) => {
                    assert!(result.unwrap_err().to_string().contains("the disk is gone"));
                    assert_eq!(synced, k, "no sync after the failed one");
                    assert_eq!(trace.acknowledged(), (1..k).collect::<Vec<_>>());
                }
            }
        }
    }

    /// Given a stream whose fourth line is bad, when it stops there, then
    /// the three decisions before it are synced and acknowledged before its
    /// error is returned.
    #[test]
    fn a_stream_that_fails_part_way_acknowledges_what_it_wrote_first() {
        let trace = Trace(std::sync::Mutex::new(Vec::new()));
        let syncs = std::sync::atomic::AtomicUsize::new(0);
        let result: Result<(), Fail> = durable_apart(
            || {
                trace.push("sync", syncs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1);
                Ok(())
            },
            |acks: Vec<usize>| {
                acks.into_iter().for_each(|n| trace.push("ack", n));
                Ok(())
            },
            |acknowledge| {
                for n in 1..=3 {
                    trace.push("append", n);
                    assert!(acknowledge(n));
                }
                Err(fail!("line 4: not JSON"))
            },
        );
        assert!(result.unwrap_err().to_string().contains("line 4"));
        assert_eq!(trace.acknowledged(), vec![1, 2, 3]);
    }

    /// Given a first sync that does not finish until the stream has handed
    /// on `AHEAD` more decisions, when the stream goes on, then it is not
    /// held back: a sync that is slow once is made up by the decisions
    /// decided meanwhile (with room for one, the stream would wait on the
    /// sync and the sync on the stream, and the sync gives up); and the
    /// decisions synced while others wait are acknowledged together.
    #[test]
    fn a_stream_decides_ahead_of_a_slow_sync() {
        let handed = std::sync::Mutex::new(0usize);
        let more = std::sync::Condvar::new();
        let syncs = std::sync::atomic::AtomicUsize::new(0);
        let batches = std::sync::Mutex::new(Vec::new());
        let result = durable_apart(
            || {
                if syncs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                    let wait = std::time::Duration::from_secs(20);
                    let (n, waited) =
                        more.wait_timeout_while(handed.lock().unwrap(), wait, |n| *n < 1 + AHEAD).unwrap();
                    if waited.timed_out() {
                        return Err(fail!("the stream stopped at {} decisions while the first synced", *n));
                    }
                }
                Ok(())
            },
            |acks: Vec<usize>| {
                batches.lock().unwrap().push(acks);
                Ok(())
            },
            |acknowledge| {
                for n in 1..=2 * AHEAD {
                    assert!(acknowledge(n));
                    *handed.lock().unwrap() = n;
                    more.notify_all();
                }
                Ok(())
            },
        );
        assert!(result.is_ok(), "{:?}", result.err().map(|e| e.to_string()));
        assert_eq!(syncs.into_inner(), 2 * AHEAD, "one sync a decision");
        // The decisions that waited behind the slow sync are said together,
        // never more than `AHEAD` at once, each once and in order.
        let batches = batches.into_inner().unwrap();
        assert!(batches.iter().all(|b| !b.is_empty() && b.len() <= AHEAD), "{batches:?}");
        assert!(batches.iter().any(|b| b.len() > 1), "decisions waiting are acknowledged together: {batches:?}");
        assert_eq!(batches.concat(), (1..=2 * AHEAD).collect::<Vec<_>>());
    }
}
