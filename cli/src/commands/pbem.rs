//! Play by email, the game's beginning: `keygen`, `pbem invite / accept /
//! start`; and what the play-by-email commands share (an exchange's
//! refusal said, exit 1). The protocol is in `rollcall_core::pbem`; this
//! file reads and writes the files and prints.

use std::path::Path;
use std::process::ExitCode;

use rollcall_core::game::Game;
use rollcall_core::keys::{PublicKey, SecretKey};
use rollcall_core::pbem::exchange::{self, ExchangeError};
use rollcall_core::seed::Share;
use rollcall_core::strict;
use rollcall_core::words::possessive;
use serde_json::{json, Value};

use crate::args::PbemCommand;
use crate::commands::random_bytes;
use crate::fail::Fail;
use crate::input::checked::Checked;
use crate::input::keys::read_key;
use crate::input::source::rule_version;
use crate::input::store::{self, read_text, StoreSpec};
use crate::output::files::{write_message, write_new};
use crate::output::record::actor_json;
use crate::output::{Mode, Report, Said};

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

pub(super) fn fresh_share() -> Result<Share, Fail> {
    Ok(Share(random_bytes()?))
}

/// Maps an exchange failure: exit 2 for input that does not fit, exit 1
/// (after saying why) for what fails verification or forks the game.
pub fn outcome(e: ExchangeError, mode: Mode) -> Result<ExitCode, Fail> {
    Ok(crate::output::print(&rejected(e)?, mode))
}

/// The report of an exchange failure that is not an error (exit 2): a turn
/// or an answer refused, or one that forks the game; exit 1.
pub(super) fn rejected(e: ExchangeError) -> Result<Said, Fail> {
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
pub(super) fn exchanged<T>(result: Result<T, ExchangeError>) -> Result<Result<T, Said>, Fail> {
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
