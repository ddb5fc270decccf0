//! Who decides, over every fixture of every ruleset: each decision is a
//! side's or the referee's; in a game whose header lists the sides' keys, a
//! side's decision made by the other side is refused naming whose it is, and
//! every decision played by its author (a referee decision by either side)
//! gives the same game as the fixture.

use std::path::{Path, PathBuf};

use rollcall_core::game::{Decide, Game};
use rollcall_core::keys::SecretKey;
use rollcall_core::record::SideKey;
use rollcall_core::ruleset::{Actor, Refusal};
use rollcall_core::script::Script;

fn scripts(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            scripts(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") && !path.to_string_lossy().ends_with(".house.json") {
            out.push(path);
        }
    }
}

#[test]
fn every_fixture_decision_is_its_sides_or_the_referees() {
    let mut paths = Vec::new();
    scripts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"), &mut paths);
    assert!(paths.len() > 30, "the fixtures are found");
    let mut refused_for_the_other = 0;
    for path in paths {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let script =
            Script::parse(&std::fs::read_to_string(&path).unwrap(), &name, rollcall_core::registry::builtin()).unwrap();
        let plain = script.play(|_, _| {}).unwrap();
        let mut header = script.header.clone();
        let sides = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap().sides();
        header.sides = sides
            .iter()
            .enumerate()
            .map(|(i, s)| SideKey { name: s.clone(), key: SecretKey::from_bytes([i as u8 + 1; 32]).public() })
            .collect();
        let mut game = Game::open(header, rollcall_core::registry::builtin()).unwrap();
        for (i, (decision, dice)) in script.decisions.iter().enumerate() {
            let _ = game.awaited();
            let author = game.author(decision).unwrap();
            let by = match &author {
                Actor::Side(side) => {
                    assert!(sides.contains(side), "{name} #{i}: {side} is not a side");
                    let other = sides.iter().find(|s| *s != side).unwrap();
                    match game.decide(decision, Decide { dice: dice.as_ref(), by: Some(other), as_drawn: None }) {
                        Err(Refusal::NotTheSides { owner, by }) => {
                            assert_eq!((&owner, &by), (side, other));
                            refused_for_the_other += 1;
                        }
                        other => panic!("{name} #{i}: {decision} by {other:?} is not refused as the other side's"),
                    }
                    side.clone()
                }
                Actor::Referee => sides[i % sides.len()].clone(),
            };
            game.play_as(decision, dice.as_ref(), Some(&by)).unwrap_or_else(|e| panic!("{name} #{i}: {e}"));
        }
        assert_eq!(game.state(), plain.state(), "{name}: the same game, played side by side");
    }
    assert!(refused_for_the_other > 100);
}
