//! Long play-by-email games of every ruleset, through two stores and only
//! turn files between them: a random legal game of at least 500 events,
//! each side playing its own decisions (and the referee's while it holds
//! the pen) in its own store, signing and exporting its turn, the other
//! applying it. Both stores end with the same record, byte for byte, and it
//! verifies with every turn signed by its side.

use rollcall_core::game::{Game, Verifier};
use rollcall_core::keys::SecretKey;
use rollcall_core::log::{EventLog, MemLog};
use rollcall_core::pbem::exchange;
use rollcall_core::record::{self, Kind, SideKey};
use rollcall_core::ruleset::Actor;
use rollcall_core::sim;

/// One player: a store and a key.
struct Player {
    side: String,
    key: SecretKey,
    log: MemLog,
}

/// Sends `from`'s turn to `to`: export (signing it), armour, apply.
fn send(from: &Player, to: &Player, game: &str) -> u64 {
    let exported = exchange::export(&from.log, game, &from.key, rollcall_core::registry::builtin())
        .unwrap_or_else(|e| panic!("{} exports: {e}", from.side));
    let text = exported.turn.armour();
    let applied = exchange::apply(&to.log, &text, rollcall_core::registry::builtin())
        .unwrap_or_else(|e| panic!("{} applies {}'s turn: {e}", to.side, from.side));
    assert_eq!(applied.side, from.side);
    applied.events.len() as u64
}

fn lines(log: &MemLog, game: &str) -> Vec<String> {
    log.events(game, 1).unwrap().map(|e| record::encode_event(&e.unwrap()).unwrap()).collect()
}

fn play_by_email(version: &str, seed: u64) {
    let (mut header, decisions) = sim::random_game(version, seed, 250).unwrap();
    let sides = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap().sides();
    assert_eq!(sides.len(), 2, "{version}: two sides");
    let players: Vec<Player> = sides
        .iter()
        .enumerate()
        .map(|(i, side)| Player {
            side: side.clone(),
            key: SecretKey::from_bytes([seed as u8 ^ (i as u8 + 1); 32]),
            log: MemLog::new(),
        })
        .collect();
    header.sides = players.iter().map(|p| SideKey { name: p.side.clone(), key: p.key.public() }).collect();
    let game_id = header.game.clone();
    // The side that makes the first side's decision starts the game in its
    // store (and holds the pen); the other takes its side.
    let starter = first_decider(&header, &decisions, &players);
    let players = if starter == 0 { players } else { players.into_iter().rev().collect() };
    // The first side starts the game in its store; the other takes its side.
    players[0].log.create(&header).unwrap();
    exchange::take_side(&players[0].log, &game_id, &players[0].side).unwrap();
    exchange::take_side(&players[1].log, &game_id, &players[1].side).unwrap();

    let mut pen = 0; // the player whose store is ahead and plays on
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    let mut turn_files = 0;
    let mut sent_events = 0;
    for (i, decision) in decisions.iter().enumerate() {
        let author = game.author(decision).unwrap_or_else(|e| panic!("{version} #{}: {e}", i + 1));
        let by = match author {
            Actor::Side(side) => players.iter().position(|p| p.side == side).unwrap(),
            Actor::Referee => pen,
        };
        if by != pen {
            // The turn ends: the pen passes with the turn file.
            sent_events += send(&players[pen], &players[by], &game_id);
            turn_files += 1;
            pen = by;
            game = replay(&players[pen].log, &game_id);
        }
        let events = game
            .play_as(decision, None, Some(&players[by].side))
            .unwrap_or_else(|e| panic!("{version} #{} by {}: {e}", i + 1, players[by].side));
        let head = players[by].log.head(&game_id).unwrap();
        players[by].log.append(&game_id, &head.hash, &events).unwrap();
    }
    sent_events += send(&players[pen], &players[1 - pen], &game_id);
    turn_files += 1;

    let (a, b) = (lines(&players[0].log, &game_id), lines(&players[1].log, &game_id));
    assert!(a.len() >= 500, "{version}: {} events", a.len());
    assert_eq!(a, b, "{version}: both stores hold the same record");
    assert_eq!(sent_events, a.len() as u64, "{version}: every event crossed once");
    assert!(turn_files >= 4, "{version}: {turn_files} turn files");
    eprintln!("{version}: {} events, {turn_files} turn files", a.len());

    let mut verifier = Verifier::new(&header, rollcall_core::registry::builtin()).unwrap();
    for e in players[1].log.events(&game_id, 1).unwrap() {
        verifier.push(&e.unwrap()).unwrap_or_else(|f| panic!("{version}: {f}"));
    }
    let (verified, _) = verifier.finish().unwrap();
    assert!(verified.sides);
    assert_eq!(verified.unsigned, 0, "{version}: every decision signed");
    let checkpoints =
        players[0].log.events(&game_id, 1).unwrap().filter(|e| e.as_ref().unwrap().kind == Kind::Checkpoint).count();
    assert_eq!(verified.signed.values().sum::<u64>(), checkpoints as u64);
    assert_eq!(checkpoints, turn_files, "{version}: one checkpoint per turn file");
}

/// The player who makes the game's first decision that is a side's.
fn first_decider(header: &rollcall_core::record::Header, decisions: &[serde_json::Value], players: &[Player]) -> usize {
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    for decision in decisions {
        match game.author(decision).unwrap() {
            Actor::Side(side) => return players.iter().position(|p| p.side == side).unwrap(),
            Actor::Referee => {
                game.play_as(decision, None, Some(&players[0].side)).unwrap();
            }
        }
    }
    0
}

/// The game as a store holds it.
fn replay(log: &MemLog, id: &str) -> Game {
    let mut game = Game::open(log.header(id).unwrap(), rollcall_core::registry::builtin()).unwrap();
    for e in log.events(id, 1).unwrap() {
        game.apply(&e.unwrap()).unwrap();
    }
    game
}

#[test]
fn leader_activation() {
    play_by_email("leader-activation", 1);
}

#[test]
fn phoenix_command() {
    play_by_email("phoenix-command", 2);
}

#[test]
fn combat_hq() {
    play_by_email("combat-hq", 3);
}

#[test]
fn formation_activation() {
    play_by_email("formation-activation", 4);
}
