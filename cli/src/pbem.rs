//! Play by email: `keygen`, `pbem invite / accept / start`, `turn export /
//! apply`, `fork show`. The protocol is in `rollcall_core::pbem`; this file
//! reads and writes the files and prints.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use rollcall_core::game::Game;
use rollcall_core::keys::{PublicKey, SecretKey};
use rollcall_core::log::{open_game, EventLog};
use rollcall_core::pbem::exchange::{self, ExchangeError};
use rollcall_core::record::{self, Kind};
use rollcall_core::ruleset::Actor;
use rollcall_core::seed::Share;
use rollcall_core::strict;
use rollcall_core::words::possessive;
use serde_json::{json, Value};

use crate::args::{ForkCommand, PbemCommand, TurnCommand};
use crate::checked::Checked;
use crate::commands::random_bytes;
use crate::output::{Mode, Report, Said};
use crate::source::rule_version;
use crate::store::{self, read_file, read_text, Context, Fail, StoreSpec};

/// `rollcall keygen -o FILE`: a new secret key, written readable by its
/// owner only; the report shows its public key.
pub fn keygen(output: &Path) -> Result<Keygen, Fail> {
    let key = SecretKey::from_bytes(random_bytes()?);
    write_new(output, &key.to_file_text(), true)?;
    Ok(Keygen { file: output.display().to_string(), public: key.public() })
}

pub struct Keygen {
    file: String,
    public: PublicKey,
}

impl Report for Keygen {
    fn text(&self) -> Vec<String> {
        vec![
            format!("wrote a secret key to {} (readable by you only: keep it, never send it)", self.file),
            format!("public key {}", self.public),
        ]
    }

    fn json(&self) -> Value {
        json!({"file": self.file, "public": self.public.to_hex()})
    }
}

/// Writes a new file, refusing to replace one; `secret` makes it readable by
/// its owner only, from its creation on.
fn write_new(path: &Path, text: &str, secret: bool) -> Result<(), Fail> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true).mode(if secret { 0o600 } else { 0o644 });
    let mut file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            fail!("{}: the file exists; choose another name (nothing was written)", path.display())
        }
        _ => fail!("{}: {e}", path.display()),
    })?;
    file.write_all(text.as_bytes()).and_then(|_| file.sync_all()).with_context(|| path.display().to_string())
}

/// Writes a message to a new file, or to standard output for `-`.
fn write_message(output: &str, text: &str) -> Result<(), Fail> {
    if output == "-" {
        let mut out = std::io::stdout();
        out.write_all(text.as_bytes()).and_then(|_| out.flush()).context("stdout")
    } else {
        write_new(Path::new(output), text, false)
    }
}

fn read_key(path: &Path) -> Result<SecretKey, Fail> {
    use std::os::unix::fs::PermissionsExt;
    let text = read_file(path)?;
    let key = SecretKey::from_file_text(&text).map_err(|e| fail!("{}:{e}", path.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.permissions().mode() & 0o077 != 0 {
            eprintln!(
                "warning: {} is readable by others: anyone who reads it can sign turns as you (chmod 600 {})",
                path.display(),
                path.display()
            );
        }
    }
    Ok(key)
}

/// The side of `header` whose key the key file holds.
pub fn side_of_key_file(header: &rollcall_core::Header, path: &Path) -> Result<String, Fail> {
    let key = read_key(path)?;
    header.side_of(&key.public()).map(String::from).ok_or_else(|| {
        fail!(
            "--key {}: this key ({}) is not a key of game {:?}'s sides (nothing was written)",
            path.display(),
            key.public().short(),
            header.game
        )
    })
}

fn fresh_share() -> Result<Share, Fail> {
    Ok(Share(random_bytes()?))
}

/// Maps an exchange failure: exit 2 for input that does not fit, exit 1
/// (after saying why) for what fails verification or forks the game.
pub fn outcome(e: ExchangeError, mode: Mode) -> Result<ExitCode, Fail> {
    Ok(crate::output::print(&rejected(e)?, mode))
}

/// The report of an exchange failure that is not an error (exit 2): a turn
/// or an answer refused, or one that forks the game; exit 1.
fn rejected(e: ExchangeError) -> Result<Said, Fail> {
    let (line, json) = match e {
        ExchangeError::Input(m) => return Err(fail!("{m} (nothing was written)")),
        ExchangeError::Log(l) => return Err(l.into()),
        ExchangeError::Refused(reason) => {
            (format!("REFUSED: {reason} (nothing was written)"), json!({"ok": false, "refused": reason}))
        }
        ExchangeError::Unverified { kind, message } => (
            format!("REFUSED: {message} (nothing was written)"),
            json!({"ok": false, "refused": message, "fault": kind}),
        ),
        ExchangeError::Fork { message, evidence } => {
            (format!("FORK: {message}"), json!({"ok": false, "fork": message, "evidence": evidence}))
        }
    };
    Ok(Said { lines: vec![line], json, code: ExitCode::from(1), verdict: None })
}

/// An exchange's outcome: what it did, or the report of its refusal.
fn exchanged<T>(result: Result<T, ExchangeError>) -> Result<Result<T, Said>, Fail> {
    match result {
        Ok(done) => Ok(Ok(done)),
        Err(e) => rejected(e).map(Err),
    }
}

/// Runs `rollcall pbem …`.
pub fn pbem(cx: &Checked, command: PbemCommand) -> Result<ExitCode, Fail> {
    let said = match command {
        PbemCommand::Invite { rules, scenario, side, key, game, output } => {
            invite(&cx.db, Invite { rules, scenario, side, key, game, output })?
        }
        PbemCommand::Accept { invite, key, output } => accept(&cx.db, &invite, &key, &output)?,
        PbemCommand::Start { accept, key } => start(&cx.db, &accept, &key)?,
    };
    Ok(crate::output::print(&said, cx.mode))
}

/// `rollcall pbem invite`'s arguments.
struct Invite {
    rules: String,
    scenario: std::path::PathBuf,
    side: String,
    key: std::path::PathBuf,
    game: Option<String>,
    output: String,
}

fn invite(db: &StoreSpec, args: Invite) -> Result<Said, Fail> {
    let Invite { rules, scenario, side, key, game, output } = args;
    let (rules, _) = rule_version(&rules)?;
    let bytes = store::read_bytes(&scenario)?;
    let scenario_value: Value =
        strict::parse(&bytes).map_err(|e| Fail::msg(e.in_file(&scenario.display().to_string())))?;
    let key = read_key(&key)?;
    let game = match game {
        Some(id) => crate::commands::checked_game_id("--game", id)?,
        None => format!("game-{}", &fresh_share()?.to_hex()[..8]),
    };
    let log = store::open(db)?;
    let invite = match exchanged(exchange::invite(
        &log,
        exchange::Offer { game: &game, rules: &rules, scenario: scenario_value, side: &side },
        &key,
        fresh_share()?,
        rollcall_core::registry::builtin(),
    ))? {
        Ok(invite) => invite,
        Err(rejected) => return Ok(rejected),
    };
    write_message(&output, &invite.armour())?;
    let commitment = invite.terms.commitment;
    let lines = if output == "-" {
        Vec::new()
    } else {
        vec![
            format!("invited to game {game} as {side}: send {output} to your opponent."),
            format!("  your seed share stays secret in this store; its commitment is {commitment}"),
            "  next: when the answer comes, `rollcall pbem start ANSWER --key KEY`".to_string(),
        ]
    };
    let json = json!({"game": game, "side": side, "commitment": commitment.to_string(), "file": output});
    Ok(Said::done(lines, json))
}

fn accept(db: &StoreSpec, invite: &str, key: &Path, output: &str) -> Result<Said, Fail> {
    let text = read_text(invite)?;
    let key = read_key(key)?;
    let log = store::open(db)?;
    let (invite, accept) =
        match exchanged(exchange::accept(&log, &text, &key, fresh_share()?, rollcall_core::registry::builtin()))? {
            Ok(pair) => pair,
            Err(rejected) => return Ok(rejected),
        };
    write_message(output, &accept.armour())?;
    let t = &invite.terms;
    let lines = if output == "-" {
        Vec::new()
    } else {
        vec![
            format!(
                "accepted game {} ({}) as {}, against {} (key {}).",
                t.game,
                t.rules.version,
                accept.terms.accepter.name,
                t.inviter.name,
                t.inviter.key.short()
            ),
            format!(
                "  send {output} back; the game begins with {} first turn file (rollcall turn apply).",
                possessive(&t.inviter.name)
            ),
        ]
    };
    let json = json!({"game": t.game, "side": accept.terms.accepter.name, "rules": t.rules.version,
        "opponent": t.inviter.name, "opponent_key": t.inviter.key.to_hex(), "file": output});
    Ok(Said::done(lines, json))
}

fn start(db: &StoreSpec, accept: &str, key: &Path) -> Result<Said, Fail> {
    let text = read_text(accept)?;
    let key = read_key(key)?;
    let log = store::open(db)?;
    let header = match exchanged(exchange::start(&log, &text, &key, rollcall_core::registry::builtin()))? {
        Ok(h) => h,
        Err(rejected) => return Ok(rejected),
    };
    let game = Game::open(header.clone(), rollcall_core::registry::builtin()).map_err(|e| Fail::msg(e.to_string()))?;
    let mut lines = vec![format!(
        "started game {}: {}, both seed shares revealed in the header.",
        header.game,
        header.rules.label()
    )];
    lines.extend(header.sides.iter().map(|s| format!("  {} key {}", s.name, s.key.short())));
    lines.push(format!("head {}", game.head()));
    lines.push(format!(
        "the game awaits {}. Play with `rollcall play {} …`, then send `rollcall turn export {} --key KEY -o turn-1.txt` (it carries the header).",
        game.awaited(),
        header.game,
        header.game
    ));
    let json = json!({"game": header.game, "head": game.head().to_string(), "awaited": actor_json(&game.awaited())});
    Ok(Said::done(lines, json))
}

fn actor_json(actor: &Actor) -> Value {
    match actor {
        Actor::Side(s) => json!({"side": s}),
        Actor::Referee => json!({"referee": true}),
    }
}

/// Runs `rollcall turn …`.
pub fn turn(cx: &Checked, command: TurnCommand) -> Result<ExitCode, Fail> {
    let said = match command {
        TurnCommand::Fetch { url, game } => return crate::serve::client::fetch(cx, &url, &game),
        TurnCommand::Export { game, key, output } => turn_export(&cx.db, &game, &key, &output)?,
        TurnCommand::Apply { turn } => turn_apply(&cx.db, &turn)?,
    };
    Ok(crate::output::print(&said, cx.mode))
}

pub(crate) fn turn_export(db: &StoreSpec, game: &str, key: &Path, output: &str) -> Result<Said, Fail> {
    let key = read_key(key)?;
    let log = store::open_read(db)?;
    let exported = match exchanged(exchange::export(&log, game, &key, rollcall_core::registry::builtin()))? {
        Ok(x) => x,
        Err(rejected) => return Ok(rejected),
    };
    let t = &exported.turn;
    write_message(output, &t.armour())?;
    let yours = exported.awaited == Actor::Side(t.side.clone());
    let json = json!({"game": t.game, "side": t.side, "from": t.previous, "to": t.head,
        "events": t.events.len(), "decisions": exported.decisions, "header": t.header.is_some(),
        "signed_now": exported.checkpoint.is_some(), "awaited": actor_json(&exported.awaited), "file": output});
    if output == "-" {
        return Ok(Said::done(Vec::new(), json));
    }
    let signed = if exported.checkpoint.is_some() { "signed" } else { "already signed (sent again)" };
    let mut lines = vec![
        format!(
            "{} turn of game {}: {} decisions, {} events from seq {} to {}, {signed}{}.",
            t.side,
            t.game,
            exported.decisions,
            t.events.len(),
            t.previous.seq + 1,
            t.head.seq,
            if t.header.is_some() { ", with the game's header" } else { "" }
        ),
        format!("head {}", t.head.hash),
        format!("wrote {output}: send it to your opponent (attached, or pasted into the email)."),
    ];
    if yours {
        lines
            .push(format!("note: the game still awaits {} decision: this turn is sent mid-turn.", possessive(&t.side)));
    }
    Ok(Said::done(lines, json))
}

fn turn_apply(db: &StoreSpec, turn: &str) -> Result<Said, Fail> {
    let text = read_text(turn)?;
    // A store not made yet is made only for a turn that applies:
    // tried first on an empty log in memory, which a new store is.
    if !store::exists(db) {
        if let Err(rejected) = exchanged(exchange::apply(
            &rollcall_core::log::MemLog::default(),
            &text,
            rollcall_core::registry::builtin(),
        ))? {
            return Ok(rejected);
        }
    }
    let log = store::open(db)?;
    let applied = match exchanged(exchange::apply(&log, &text, rollcall_core::registry::builtin()))? {
        Ok(a) => a,
        Err(rejected) => return Ok(rejected),
    };
    let mut game = applied.before.clone();
    let (mut lines, mut events) = (Vec::new(), Vec::new());
    for e in &applied.events {
        game.apply(e).map_err(|e| Fail::msg(e.to_string()))?;
        lines.push(rollcall_core::text::escape(&game.narrate(e)).to_string());
        events.push(json!({"seq": e.seq, "kind": e.kind.name(), "hash": e.hash.to_string(), "narrative": game.narrate(e).trim()}));
    }
    let id = &game.header().game;
    let mine = exchange::local_side(&log, id)?;
    let json = json!({"ok": true, "game": id, "side": applied.side, "created": applied.created,
        "events": events, "known": applied.known, "head": applied.head, "awaited": actor_json(&game.awaited()), "you": mine});
    if applied.created {
        lines.push(format!(
            "game {id} created from {} first turn file ({}).",
            possessive(&applied.side),
            game.header().rules.label()
        ));
    }
    lines.push(if applied.events.is_empty() {
        format!("nothing new: this store had every event of {} turn already.", possessive(&applied.side))
    } else {
        format!(
            "applied {} turn: {} events verified (chain, signatures, legality, dice); head {}",
            possessive(&applied.side),
            applied.events.len(),
            applied.head.hash
        )
    });
    lines.push(match &mine {
        Some(me) => format!("the game awaits {}; you play {me}.", game.awaited()),
        None => format!("the game awaits {}; this store plays no side of it (it follows the game).", game.awaited()),
    });
    Ok(Said::done(lines, json))
}

/// Runs `rollcall fork show GAME`: both branches of every fork kept.
pub fn fork(cx: &Checked, command: ForkCommand) -> Result<ExitCode, Fail> {
    let ForkCommand::Show { game: id } = command;
    let log = store::open_read(&cx.db)?;
    let forks = exchange::forks(&log, &id)?;
    let game = open_game(&log, &id, None, rollcall_core::registry::builtin())?;
    let (mut lines, mut shown) = (Vec::new(), Vec::new());
    if forks.is_empty() {
        lines.push(format!("no forks kept for game {id}"));
    }
    for fork in &forks {
        let at = fork.seq.saturating_sub(1);
        let base = open_game(&log, &id, Some(at), rollcall_core::registry::builtin())?;
        let ours: Vec<record::Event> =
            log.events(&id, fork.seq)?.take(exchange::FORK_EVENTS).collect::<Result<Vec<_>, _>>()?;
        let ours = until_checkpoint(ours);
        let theirs: Vec<record::Event> = fork
            .events
            .iter()
            .map(|l| record::parse_event(l))
            .collect::<Result<_, _>>()
            .map_err(|e| fail!("fork evidence of {id}: {e}"))?;
        let branch_a = narrate_branch(&base, &ours);
        let branch_b = narrate_branch(&base, &theirs);
        let from = fork.side.as_deref().map(|s| format!(" from {s}")).unwrap_or_default();
        lines.push(format!(
            "fork of {id} at seq {} (after head {}), by a {}{from}:",
            fork.seq,
            base.head(),
            fork.source
        ));
        lines.push("  this store's branch:".to_string());
        lines.extend(branch_a.iter().map(|line| format!("    {}", line["line"].as_str().unwrap_or_default())));
        lines.push("  the other branch (kept as evidence):".to_string());
        lines.extend(branch_b.iter().map(|line| format!("    {}", line["line"].as_str().unwrap_or_default())));
        lines.push(String::new());
        shown.push(json!({"seq": fork.seq, "source": fork.source, "side": fork.side, "after": base.head().to_string(),
            "ours": branch_a, "theirs": branch_b}));
    }
    if !forks.is_empty() {
        lines.push("Each branch is signed by the side that sent it (its checkpoint): two signed turns on one head prove that side played the same point twice.".to_string());
    }
    let json = json!({"game": id, "head": game.head().to_string(), "forks": shown});
    Ok(crate::output::print(&Said::done(lines, json), cx.mode))
}

fn until_checkpoint(events: Vec<record::Event>) -> Vec<record::Event> {
    let mut out = Vec::new();
    for e in events {
        let done = e.kind == Kind::Checkpoint;
        out.push(e);
        if done {
            break;
        }
    }
    out
}

/// Each event of a branch narrated on the game at the fork point, with its
/// seq and hash; a branch that stops folding in is shown as far as it goes.
fn narrate_branch(base: &Game, events: &[record::Event]) -> Vec<Value> {
    let mut game = base.clone();
    let mut out = Vec::new();
    for e in events {
        let narrative = match game.apply(e) {
            Ok(()) => game.narrate(e).trim().to_string(),
            Err(err) => format!("(does not fold in: {err})"),
        };
        out.push(json!({"seq": e.seq, "kind": e.kind.name(), "hash": e.hash.to_string(),
            "line": format!("{:>5} {} {}", e.seq, e.hash.short(), narrative)}));
    }
    out
}
