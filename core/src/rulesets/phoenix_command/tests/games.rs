//! Whole games: the fixtures under `fixtures/phoenix-command/` play and
//! verify — the worked examples as table-dice records whose dice are
//! unproven, the seeded games as open records whose every roll is proven.

use crate::game::{verify, Verified};
use crate::record::SeedMode;
use crate::script::Script;

fn verified(text: &str, name: &str) -> Verified {
    let script = Script::parse(text, name, crate::registry::builtin()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut events = Vec::new();
    let game = script.play(|_, e| events.push(e.clone())).unwrap_or_else(|e| panic!("{name}: {e}"));
    let v = verify(&script.header, events.into_iter().map(Ok::<_, String>), crate::registry::builtin())
        .unwrap_or_else(|e| panic!("{name} does not verify: {e}"));
    assert_eq!(v.head, game.head());
    v
}

macro_rules! fixture {
    ($name:literal) => {
        ($name, include_str!(concat!("../../../../../fixtures/phoenix-command/", $name, ".json")))
    };
}

/// Every worked example is a table-dice record that verifies,
/// and says plainly that its dice are unproven.
#[test]
fn the_worked_examples_verify_with_their_dice_unproven() {
    for (name, text) in [
        fixture!("activation-order"),
        fixture!("accumulate-at-cap"),
        fixture!("unused-cp-lost"),
        fixture!("consolidation"),
        fixture!("reorganisation"),
        fixture!("breveting"),
        fixture!("stragglers"),
        fixture!("command-check"),
        fixture!("farmhouse-assault"),
        fixture!("stray-fire"),
        fixture!("ambush"),
        fixture!("abandonment"),
    ] {
        let v = verified(text, name);
        assert_eq!(v.mode, SeedMode::Table, "{name}");
        assert!(v.guarantee().contains("UNPROVEN"), "{name}");
    }
}

/// The seeded three-turn game of two sides with two squads each verifies:
/// every roll is the one the committed seed gives.
#[test]
fn the_seeded_three_turn_game_verifies() {
    let (name, text) = fixture!("three-turns");
    let v = verified(text, name);
    assert_eq!((v.mode, v.turn), (SeedMode::Open, 3));
    assert!(v.guarantee().contains("committed seed"));
}

/// The seeded five-turn game — interrupts, fire, a forced rally and routs —
/// verifies: every roll is the one the committed seed gives.
#[test]
fn the_seeded_five_turn_game_verifies() {
    let (name, text) = fixture!("five-turns");
    let v = verified(text, name);
    assert_eq!((v.mode, v.turn), (SeedMode::Open, 5));
}
