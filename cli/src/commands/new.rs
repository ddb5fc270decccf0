//! `rollcall new`: a game begun from a scenario, with fresh seed shares.

use rollcall_core::game::Game;
use rollcall_core::locate::line_of;
use rollcall_core::log::EventLog;
use rollcall_core::record::{Header, Party, SeedMode};
use rollcall_core::registry;
use rollcall_core::seed::Share;
use rollcall_core::{strict, text, Digest};
use serde_json::{json, Value};

use super::{checked_game_id, random_bytes};
use crate::args::NewArgs;
use crate::fail::Fail;
use crate::input;
use crate::input::source::rule_version;
use crate::input::store::{has_game, read_bytes, StoreSpec};
use crate::output::record::mode_name;
use crate::output::Report;

fn random_share() -> Result<Share, Fail> {
    random_bytes().map(Share)
}

pub fn new(db: &StoreSpec, args: NewArgs) -> Result<NewGame, Fail> {
    let NewArgs { rules, scenario: scenario_path, game, mut parties, table } = args;
    let scenario_path = scenario_path.as_path();
    let (rules, _) = rule_version(&rules)?;
    let bytes = read_bytes(scenario_path)?;
    let given: Value = strict::parse(&bytes).map_err(|e| Fail::msg(e.in_file(&scenario_path.display().to_string())))?;
    let (scenario, prefix) = crate::input::scenario::scenario_of(given, scenario_path, rules.ruleset())?;
    let text = String::from_utf8_lossy(&bytes);
    let ruleset_id = rules.ruleset().to_string();
    let scenario_error = |s: rollcall_core::ruleset::ScenarioError| {
        let field = format!("{prefix}{}", s.field);
        let hint = crate::input::scenario::scenario_hint(&ruleset_id, &s.field);
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
    let log = input::store::open(db)?;
    if has_game(&log, &id)? {
        return Err(fail!("{} (nothing was written)", crate::fail::already_stored(&id, &input::store::dir(db))));
    }
    let head = log.create(&header)?.hash;
    Ok(NewGame { header, head })
}

/// `rollcall new`: the game made, its parties and their commitments.
pub struct NewGame {
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
