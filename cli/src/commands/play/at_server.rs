//! The edge of the interactive turn against a dice server: the game read
//! from the server (its record folded here, each link checked as it is
//! applied; its listing the server's, for the token's side), the terminal
//! run, and what the model asks done over HTTP — a pick sent on the head
//! it was listed on, the game read again after it, and read again now and
//! then while the other side decides. The server's signature over each new
//! head is checked against the key its header commits to.

use std::collections::VecDeque;
use std::process::ExitCode;

use rollcall_core::digest::Digest;
use rollcall_core::game::Game;
use rollcall_core::keys::PublicKey;
use rollcall_core::record;
use rollcall_core::registry::builtin;
use serde_json::{json, Value};

use super::terminal::{narrated, EARLIER_LINES};
use crate::args::PlayArgs;
use crate::fail::Fail;
use crate::serve::client::{base, get, post};
use crate::tui::play::{Model, Outcome, Request, Sent, Served};

/// How many times the game is read when its listing and its record come
/// from two heads (it moved on between the two requests) before giving up.
const READS: usize = 3;

/// A game on a server, as a side's token reaches it.
struct Seat<'a> {
    url: &'a str,
    game: &'a str,
    token: &'a str,
}

/// `rollcall play GAME --server URL` on a terminal: the turn played from
/// a menu, each pick decided by the server; what it decided is printed
/// when the interface closes. A server that cannot be read at the start is
/// an error before the terminal is taken (exit 2).
pub fn run(args: &PlayArgs) -> Result<ExitCode, Fail> {
    let url = args.server.as_deref().unwrap_or_default();
    let seat = Seat { url, game: &args.game, token: args.token.as_deref().unwrap_or_default() };
    let served = seat.read()?;
    let key = served.game.header().server.as_ref().map(|s| s.key);
    let model = Model::served(base(url).to_string(), served);
    let model = crate::tui::term::run_play(model, |request| seat.perform(request, key.as_ref()))?;
    for line in &model.said {
        say!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

impl Seat<'_> {
    /// The address of the game's route `path` (`""`: the game itself).
    fn at(&self, path: &str) -> String {
        format!("{}/games/{}{path}", base(self.url), self.game)
    }

    /// Does what the model asked.
    fn perform(&self, request: Request, key: Option<&PublicKey>) -> Outcome {
        match request {
            Request::Send { pick, decision, expected } => {
                let answer = self.send(&decision, &expected, key);
                let now = self.read().map(Box::new).map_err(|e| e.message());
                Outcome::Sent { pick, answer, now }
            }
            Request::Follow { head } => Outcome::Followed(self.follow(&head)),
            Request::Write { .. } => Outcome::Written(Err("a game on a server is written by the server".into())),
            Request::Export { .. } => Outcome::Exported(Err("a game on a server is not exported".into())),
        }
    }

    /// The game as the server has it now: its listing for the token's
    /// side, and its record folded into the game on the same head.
    fn read(&self) -> Result<Served, Fail> {
        for _ in 0..READS {
            let status = get(&self.at(""))?;
            if status.status != 200 {
                return Err(fail!("{}: game {}: {}", self.url, self.game, status.message()));
            }
            let ended = status.json()["status"] == "ended";
            let (listing, _) = crate::commands::moves::server_listing(self.url, self.game, None, Some(self.token))?;
            let record = get(&self.at("/record"))?;
            if record.status != 200 {
                return Err(fail!("{}: {}", self.at("/record"), record.message()));
            }
            let (game, lines) = fold(&record.body).map_err(|e| fail!("{}: {e}", self.at("/record")))?;
            if game.head().to_string() == listing.head {
                return Ok(Served { game, listing, lines, ended });
            }
        }
        Err(fail!("{}: game {} moved on each time it was read; try again", self.url, self.game))
    }

    /// Sends one decision on `expected`: what the server answered, or its
    /// refusal (nothing written) in its words. An answer that never came
    /// leaves it unknown whether the decision was written: the game read
    /// again after it shows.
    fn send(&self, decision: &Value, expected: &str, key: Option<&PublicKey>) -> Result<Sent, String> {
        let body = json!({"expected_head": expected, "decision": decision});
        let answer = post(&self.at("/decisions"), Some(self.token), &body).map_err(|e| {
            format!("{}; the narrative, read again from the server, shows whether it was written", e.message())
        })?;
        if answer.status != 200 {
            return Err(format!("{}: nothing was written", answer.message()));
        }
        let v = answer.json();
        let refused = v.get("refused").map(|r| r["message"].as_str().unwrap_or("refused").to_string());
        Ok(Sent { refused, signed: super::server::check_head_signature(key, self.game, &v) })
    }

    /// The game read again if the server's head is no longer `head` (or
    /// the game has ended); none otherwise.
    fn follow(&self, head: &Digest) -> Result<Option<Box<Served>>, String> {
        let status = get(&self.at("")).map_err(|e| e.message())?;
        if status.status != 200 {
            return Err(format!("{}: game {}: {}", self.url, self.game, status.message()));
        }
        let v = status.json();
        if v["head"]["hash"].as_str() == Some(head.to_string().as_str()) && v["status"] != "ended" {
            return Ok(None);
        }
        self.read().map(|served| Some(Box::new(served))).map_err(|e| e.message())
    }
}

/// A record's text folded into its game, each event checked as it is
/// applied; the narrative's last lines, each with its event's seq.
fn fold(text: &str) -> Result<(Game, Vec<(u64, String)>), String> {
    let mut lines = text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty());
    let (_, first) = lines.next().ok_or("the record is empty")?;
    let header = record::parse_header(first, builtin()).map_err(|e| format!("line 1: {e}"))?;
    let mut game = Game::open(header, builtin()).map_err(|e| format!("line 1: {e}"))?;
    let mut narrative = VecDeque::new();
    for (i, line) in lines {
        let event = record::parse_event(line).map_err(|e| format!("line {}: {e}", i + 1))?;
        game.apply(&event).map_err(|e| format!("line {}: {e}", i + 1))?;
        narrative.extend(narrated(&game, &event).into_iter().map(|line| (event.seq, line)));
        while narrative.len() > EARLIER_LINES {
            narrative.pop_front();
        }
    }
    Ok((game, narrative.into()))
}
