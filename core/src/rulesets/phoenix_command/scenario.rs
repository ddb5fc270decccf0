//! The scenario: sides, the organisation tree, the units formed at the start,
//! and the figures. Everything the text leaves to tables we do not have (the
//! Leader Table's command distances, troop qualities) is scenario data (P8).
//!
//! Positions are `[x, y]` in tenths of an inch.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::bounds::Bound;
use crate::geometry::Point;
use crate::ruleset::ScenarioError;

use super::{Config, Figure, Injury, Morale, Organisation, Posture, State, Unit, UnitMorale};

/// The scenario as a script or `rollcall new` gives it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Exactly two sides.
    pub sides: Vec<String>,
    /// The side that keeps initiative on a tied count in turn 1 (P4).
    pub initiative: String,
    /// Every leader's command distance unless his figure gives his own
    /// (the Leader Table is not in the text: P8), in tenths of an inch.
    pub command_distance_tenths: u64,
    pub organisations: Vec<OrganisationSetup>,
    /// The organisations acting as units when the game begins.
    pub units: Vec<UnitSetup>,
    pub figures: Vec<FigureSetup>,
    /// The weapons figures carry, by id (the Weapons Tables are not in the
    /// text: scenario data).
    #[serde(default)]
    pub weapons: BTreeMap<String, Weapon>,
    /// The Hit Location and Injury Table, if the group has it (P9); without
    /// it the referee gives each hit's effect after the roll.
    #[serde(default)]
    pub injury_table: Option<Vec<InjuryColumn>>,
    /// The Melee columns of the Hit Location and Injury Table, if the group
    /// has them; without them the referee gives the effect.
    #[serde(default)]
    pub melee_injury_table: Option<MeleeInjuryTable>,
}

/// The ranges of the scenario's ratings, counts and table entries (every
/// other number, positions included: ±10⁹).
pub const SCENARIO_BOUNDS: &[Bound] = &[
    Bound::new("command_distance_tenths", 0, 100_000),
    Bound::new("units[].cp", 0, 100),
    Bound::new("figures[].troop_quality", -99, 99),
    Bound::new("figures[].command_rating", -99, 99),
    Bound::new("figures[].command_distance_tenths", 0, 100_000),
    Bound::new("figures[].knockout_chance", -99, 99),
    Bound::new("figures[].melee_attack_value", -99, 99),
    Bound::new("figures[].armour_pf", 0, 10_000),
    Bound::new("weapons.*.max_shots", 0, 100),
    Bound::new("weapons.*.hits_per_shot", 0, 100),
    Bound::new("weapons.*.pen", 0, 10_000),
    Bound::new("weapons.*.sdm", -1000, 1000),
    Bound::new("weapons.*.blast[].within_tenths", 0, 100_000),
    Bound::new("injury_table[].pen_over_pf", -10_000, 10_000),
    Bound::new("injury_table[].rows[].from", -1000, 1000),
    Bound::new("melee_injury_table.unarmoured[].from", -1000, 1000),
    Bound::new("melee_injury_table.armoured[].from", -1000, 1000),
];

/// The Melee columns: "for unarmoured targets or targets wearing Body Armour".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeleeInjuryTable {
    pub unarmoured: Vec<InjuryRow>,
    pub armoured: Vec<InjuryRow>,
}

/// A column of the Hit Location and Injury Table: used when the PEN reaching
/// the target, less his armour's PF, is at least `pen_over_pf`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InjuryColumn {
    pub pen_over_pf: i64,
    /// In ascending `from`: a roll (with SDM and modifiers) at or above `from`
    /// has that row's effect; below the first row, no effect.
    pub rows: Vec<InjuryRow>,
}

/// A row of an injury column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InjuryRow {
    pub from: i64,
    pub effect: Injury,
}

/// A weapon's line of the Weapons Tables (2.6), as the scenario gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Weapon {
    #[serde(default)]
    pub name: Option<String>,
    /// The most shots one action fires: its maximum rate of fire (3 for most
    /// small arms; 1 for a 1 Shot/Action or 1 Use weapon).
    pub max_shots: u32,
    /// "1 Shot/Action": one aimed shot per action, no 2 or 3 shot lines, no
    /// extra disciplined shot.
    #[serde(default)]
    pub one_shot_per_action: bool,
    /// "1 Use": fired once, then discarded.
    #[serde(default)]
    pub one_use: bool,
    /// Its range, in tenths of an inch ("The Weapons Tables provide
    /// information on Range"): a target beyond it cannot be fired at. None:
    /// the referee judges (N45).
    #[serde(default)]
    pub range_tenths: Option<u64>,
    /// "2 hits @ 60": hits each successful shot scores.
    #[serde(default = "one")]
    pub hits_per_shot: u32,
    pub pen: u32,
    /// PEN marked (B): a blast weapon.
    #[serde(default)]
    pub explosive: bool,
    /// System Damage Modifier, added to the hit location and injury roll.
    pub sdm: i64,
    /// An explosive's Explosive Injury Table line for its SDM: the effect on
    /// a figure within each range of the blast centre, nearest first.
    #[serde(default)]
    pub blast: Vec<BlastRing>,
}

/// A range band of a blast.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlastRing {
    pub within_tenths: u64,
    pub effect: Injury,
}

fn one() -> u32 {
    1
}

/// A node of the organisation tree.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrganisationSetup {
    pub id: String,
    /// Required at the top of a tree; a child takes its parent's side.
    #[serde(default)]
    pub side: Option<String>,
    /// "platoon", "squad", "fire team", … and "hero" for a hero (2.9).
    pub kind: String,
    #[serde(default)]
    pub parent: Option<String>,
    /// A figure of the organisation, with a command rating.
    pub leader: String,
}

/// An organisation acting as a unit at the start, and its accumulated CP.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnitSetup {
    pub organisation: String,
    #[serde(default)]
    pub cp: u32,
    /// An interrupt set in an earlier turn (its "interrupt prep" marker is on
    /// the table): one CP held in reserve, besides `cp`.
    #[serde(default)]
    pub interrupt_set: bool,
}

/// A figure.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FigureSetup {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    /// The lowest organisation he belongs to (a fire team, a hero).
    pub team: String,
    pub troop_quality: i64,
    /// Leaders only.
    #[serde(default)]
    pub command_rating: Option<i64>,
    /// This leader's own command distance, in tenths of an inch.
    #[serde(default)]
    pub command_distance_tenths: Option<u64>,
    /// His own standard move, in tenths of an inch ("twice the figure's
    /// standard move"); else the constant `standard-move-tenths`.
    #[serde(default)]
    pub standard_move_tenths: Option<u64>,
    #[serde(default = "bold")]
    pub morale: Morale,
    pub at: Point,
    /// Ids of the scenario's weapons he carries.
    #[serde(default)]
    pub weapons: Vec<String>,
    /// His Knockout Chance (2.6: a Light Wound knocks him out on a 0-9 roll at or under it).
    #[serde(default)]
    pub knockout_chance: Option<i64>,
    /// His Melee Attack Value (2.7: a melee attack hits on a 0-9 roll under it).
    #[serde(default)]
    pub melee_attack_value: Option<i64>,
    /// His armour's PF (0 unarmoured).
    #[serde(default)]
    pub armour_pf: u32,
}

fn bold() -> Morale {
    Morale::Bold
}

/// The state before the first turn, or the field that is wrong.
pub(super) fn initial(s: Scenario, config: Config) -> Result<State, ScenarioError> {
    let sides = check_sides(&s)?;
    let index = organisation_index(&s)?;
    let org_sides = organisation_sides(&s, &index, &sides)?;
    let mut figures = build_figures(&s, &index, &org_sides)?;
    let organisations = build_organisations(&s, &index, &org_sides, &figures)?;
    assign_units(&s, &index, &mut figures)?;
    let units = build_units(&s, &organisations, &figures)?;
    check_weapons(&s)?;
    check_injury_table(&s)?;
    check_knockout_chances(&s)?;
    Ok(State {
        config,
        weapons: Arc::new(s.weapons),
        injury_table: s.injury_table.map(Arc::new),
        melee_injury_table: s.melee_injury_table.map(Arc::new),
        sides,
        initiative: s.initiative,
        organisations: Arc::new(organisations),
        units: Arc::new(units.into_iter().map(|(id, u)| (Arc::from(id), Arc::new(u))).collect()),
        figures: Arc::new(figures.into_iter().map(|(id, f)| (Arc::from(id), Arc::new(f))).collect()),
        turn: None,
    })
}

/// Exactly two sides, one of which holds the initiative.
fn check_sides(s: &Scenario) -> Result<[String; 2], ScenarioError> {
    let sides: [String; 2] = match s.sides.as_slice() {
        [a, b] if a != b && !a.is_empty() && !b.is_empty() => [a.clone(), b.clone()],
        _ => return Err(ScenarioError::new("sides", "name exactly two different sides")),
    };
    if !sides.contains(&s.initiative) {
        return Err(ScenarioError::new(
            "initiative",
            format!("{:?} is not one of the sides ({}, {})", s.initiative, sides[0], sides[1]),
        ));
    }

    Ok(sides)
}

/// Each organisation's place in the scenario, by id; ids are unique.
fn organisation_index(s: &Scenario) -> Result<BTreeMap<&str, usize>, ScenarioError> {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, o) in s.organisations.iter().enumerate() {
        if o.id.is_empty() {
            return Err(ScenarioError::new(format!("organisations[{i}].id"), "an id may not be empty"));
        }
        if index.insert(&o.id, i).is_some() {
            return Err(ScenarioError::new(format!("organisations[{i}].id"), format!("{:?} is used twice", o.id)));
        }
    }
    Ok(index)
}

/// Each organisation's side, walking up its tree; no cycles, no unknown parents.
fn organisation_sides(
    s: &Scenario,
    index: &BTreeMap<&str, usize>,
    sides: &[String; 2],
) -> Result<Vec<String>, ScenarioError> {
    let mut org_sides: Vec<String> = Vec::with_capacity(s.organisations.len());
    for (i, o) in s.organisations.iter().enumerate() {
        // Walk up to the top of the tree, refusing cycles and unknown parents.
        let mut seen = BTreeSet::new();
        let mut at = i;
        let side = loop {
            let node = &s.organisations[at];
            if !seen.insert(at) {
                return Err(ScenarioError::new(
                    format!("organisations[{i}].parent"),
                    format!("{:?} is its own ancestor", o.id),
                ));
            }
            match &node.parent {
                None => match &node.side {
                    Some(side) => break side.clone(),
                    None => {
                        return Err(ScenarioError::new(
                            format!("organisations[{at}].side"),
                            format!("{:?} has no parent, so it must name its side", node.id),
                        ))
                    }
                },
                Some(p) => match index.get(p.as_str()) {
                    Some(&j) => at = j,
                    None => {
                        return Err(ScenarioError::new(
                            format!("organisations[{at}].parent"),
                            format!("there is no organisation {p:?}"),
                        ))
                    }
                },
            }
        };
        if !sides.contains(&side) {
            return Err(ScenarioError::new(
                format!("organisations[{i}].side"),
                format!("{side:?} is not one of the sides ({}, {})", sides[0], sides[1]),
            ));
        }
        if let Some(own) = &o.side {
            if own != &side {
                return Err(ScenarioError::new(
                    format!("organisations[{i}].side"),
                    format!(
                        "{:?} is {own}'s but its parent is {side}'s: an organisation tree belongs to one side",
                        o.id
                    ),
                ));
            }
        }
        org_sides.push(side);
    }
    Ok(org_sides)
}

fn has_children(s: &Scenario, id: &str) -> bool {
    s.organisations.iter().any(|o| o.parent.as_deref() == Some(id))
}

/// Whether organisation `inner` is `outer` or below it.
fn within(s: &Scenario, index: &BTreeMap<&str, usize>, inner: &str, outer: &str) -> bool {
    let mut at = Some(inner.to_string());
    while let Some(id) = at {
        if id == outer {
            return true;
        }
        at = s.organisations[index[id.as_str()]].parent.clone();
    }
    false
}

/// The figures, each in the lowest organisation of his tree.
fn build_figures(
    s: &Scenario,
    index: &BTreeMap<&str, usize>,
    org_sides: &[String],
) -> Result<BTreeMap<String, Figure>, ScenarioError> {
    let mut figures: BTreeMap<String, Figure> = BTreeMap::new();
    for (i, f) in s.figures.iter().enumerate() {
        let field = |name: &str| format!("figures[{i}].{name}");
        if f.id.is_empty() {
            return Err(ScenarioError::new(field("id"), "an id may not be empty"));
        }
        let Some(&team) = index.get(f.team.as_str()) else {
            return Err(ScenarioError::new(field("team"), format!("there is no organisation {:?}", f.team)));
        };
        if has_children(s, &f.team) {
            return Err(ScenarioError::new(
                field("team"),
                format!(
                    "{:?} has sub-units: a figure belongs to the lowest level (\"Units cannot be subdivided below the level of fire-team\")",
                    f.team
                ),
            ));
        }
        if f.troop_quality < 0 {
            return Err(ScenarioError::new(field("troop_quality"), "must not be negative"));
        }
        for (w, weapon) in f.weapons.iter().enumerate() {
            if !s.weapons.contains_key(weapon) {
                return Err(ScenarioError::new(
                    format!("figures[{i}].weapons[{w}]"),
                    format!("there is no weapon {weapon:?} under weapons"),
                ));
            }
        }
        if let Some(r) = f.command_rating {
            if r < 1 {
                return Err(ScenarioError::new(field("command_rating"), "must be at least 1"));
            }
        }
        let figure = Figure {
            id: f.id.clone(),
            name: f.name.clone().unwrap_or_else(|| f.id.clone()),
            side: org_sides[team].clone(),
            team: f.team.clone(),
            unit: String::new(),
            troop_quality: f.troop_quality,
            command_rating: f.command_rating,
            command_distance_tenths: f.command_distance_tenths.unwrap_or(s.command_distance_tenths),
            standard_move_tenths: f.standard_move_tenths,
            morale: f.morale,
            fanatic: f.morale == Morale::Fanatical,
            at: f.at,
            removed: None,
            weapons: f.weapons.clone(),
            knockout_chance: f.knockout_chance,
            melee_attack_value: f.melee_attack_value,
            armour_pf: f.armour_pf,
            double_timed: false,
            posture: Posture::Standing,
            used_weapons: BTreeSet::new(),
            lagging: false,
        };
        if figures.insert(f.id.clone(), figure).is_some() {
            return Err(ScenarioError::new(field("id"), format!("{:?} is used twice", f.id)));
        }
    }

    Ok(figures)
}

/// Organisation leaders and heroes.
fn build_organisations(
    s: &Scenario,
    index: &BTreeMap<&str, usize>,
    org_sides: &[String],
    figures: &BTreeMap<String, Figure>,
) -> Result<BTreeMap<String, Organisation>, ScenarioError> {
    let mut organisations = BTreeMap::new();
    for (i, o) in s.organisations.iter().enumerate() {
        let Some(leader) = figures.get(&o.leader) else {
            return Err(ScenarioError::new(
                format!("organisations[{i}].leader"),
                format!("there is no figure {:?}", o.leader),
            ));
        };
        if !within(s, index, &leader.team, &o.id) {
            return Err(ScenarioError::new(
                format!("organisations[{i}].leader"),
                format!(
                    "{:?} is in {:?}, which is not part of {:?}: a leader leads from within his organisation",
                    o.leader, leader.team, o.id
                ),
            ));
        }
        if leader.command_rating.is_none() {
            return Err(ScenarioError::new(
                format!("figures[{}].command_rating", s.figures.iter().position(|f| f.id == o.leader).unwrap_or(0)),
                format!("{:?} leads {:?}, so he needs a command rating", o.leader, o.id),
            ));
        }
        let hero = o.kind == "hero";
        if hero {
            let members = figures.values().filter(|f| f.team == o.id).count();
            if o.parent.is_some() || has_children(s, &o.id) || members != 1 {
                return Err(ScenarioError::new(
                    format!("organisations[{i}].kind"),
                    format!(
                        "{:?} is a hero: \"an individual figure able to move and act independent of any larger unit\" — no parent, no sub-units, one figure",
                        o.id
                    ),
                ));
            }
        }
        organisations.insert(
            o.id.clone(),
            Organisation {
                id: o.id.clone(),
                side: org_sides[i].clone(),
                kind: o.kind.clone(),
                parent: o.parent.clone(),
                leader: Some(o.leader.clone()),
                hero,
            },
        );
    }

    Ok(organisations)
}

/// Each figure acts with the nearest organisation above it that is a unit.
fn assign_units(
    s: &Scenario,
    index: &BTreeMap<&str, usize>,
    figures: &mut BTreeMap<String, Figure>,
) -> Result<(), ScenarioError> {
    let mut formed: BTreeSet<String> = BTreeSet::new();
    for (i, u) in s.units.iter().enumerate() {
        if !index.contains_key(u.organisation.as_str()) {
            return Err(ScenarioError::new(
                format!("units[{i}].organisation"),
                format!("there is no organisation {:?}", u.organisation),
            ));
        }
        if !formed.insert(u.organisation.clone()) {
            return Err(ScenarioError::new(
                format!("units[{i}].organisation"),
                format!("{:?} is listed twice", u.organisation),
            ));
        }
    }
    for (i, f) in s.figures.iter().enumerate() {
        let mut at = Some(f.team.clone());
        let mut unit = None;
        while let Some(id) = at {
            if formed.contains(&id) {
                unit = Some(id);
                break;
            }
            at = s.organisations[index[id.as_str()]].parent.clone();
        }
        match unit {
            Some(u) => figures.get_mut(&f.id).expect("inserted above").unit = u,
            None => {
                return Err(ScenarioError::new(
                    format!("figures[{i}].team"),
                    format!("{:?} is in no unit: list {:?} or an organisation above it under units", f.id, f.team),
                ))
            }
        }
    }
    Ok(())
}

/// The units at the start, their leaders and CP.
fn build_units(
    s: &Scenario,
    organisations: &BTreeMap<String, Organisation>,
    figures: &BTreeMap<String, Figure>,
) -> Result<BTreeMap<String, Unit>, ScenarioError> {
    let mut units = BTreeMap::new();
    for (i, u) in s.units.iter().enumerate() {
        let o = &organisations[&u.organisation];
        let leader = o.leader.clone().expect("every organisation starts with a leader");
        if figures[&leader].unit != o.id {
            return Err(ScenarioError::new(
                format!("units[{i}].organisation"),
                format!(
                    "{:?}'s leader {leader:?} acts with unit {:?}: a unit's leader must be one of its own figures",
                    o.id, figures[&leader].unit
                ),
            ));
        }
        let rating = figures[&leader].command_rating.expect("checked above");
        let held = u32::from(u.interrupt_set);
        if i64::from(u.cp + held) > rating {
            return Err(ScenarioError::new(
                format!("units[{i}].cp"),
                format!(
                    "{} CP{} is more than {leader}'s command rating of {rating}: \"A leader cannot accumulate more CP than his Command Rating.\"",
                    u.cp,
                    if held > 0 { " and a held interrupt CP" } else { "" }
                ),
            ));
        }
        units.insert(
            o.id.clone(),
            Unit {
                id: o.id.clone(),
                side: o.side.clone(),
                leader: Some(leader),
                cp: u.cp,
                held_interrupt_cp: held,
                activated: false,
                strategic: false,
                brevet_due: None,
                taking_command: false,
                hero: o.hero,
                contact: BTreeSet::new(),
                morale: UnitMorale::Steady,
                restored: false,
                restored_against: BTreeMap::new(),
                ragged_interrupt_used: false,
                rout_due: false,
                in_cover: false,
            },
        );
    }
    Ok(units)
}

/// The weapons' lines of the Weapons Tables.
fn check_weapons(s: &Scenario) -> Result<(), ScenarioError> {
    for (id, w) in &s.weapons {
        if w.max_shots == 0 || w.hits_per_shot == 0 {
            return Err(ScenarioError::new(format!("weapons.{id}"), "max_shots and hits_per_shot must be at least 1"));
        }
        if w.explosive && w.blast.is_empty() {
            return Err(ScenarioError::new(
                format!("weapons.{id}.blast"),
                "an explosive weapon needs its blast ranges (the Explosive Injury Table is not in the text)",
            ));
        }
        for (r, ring) in w.blast.iter().enumerate() {
            if r > 0 && ring.within_tenths <= w.blast[r - 1].within_tenths {
                return Err(ScenarioError::new(
                    format!("weapons.{id}.blast[{r}].within_tenths"),
                    "blast ranges go nearest first",
                ));
            }
        }
        if (w.one_shot_per_action || w.one_use) && w.max_shots != 1 {
            return Err(ScenarioError::new(
                format!("weapons.{id}.max_shots"),
                "a 1 Shot/Action or 1 Use weapon fires 1 shot per action: \"A Shooter, even if willing, cannot use the 2 shot or 3 shot lines\"",
            ));
        }
    }
    Ok(())
}

/// The Hit Location and Injury Table, in ascending columns and rows.
fn check_injury_table(s: &Scenario) -> Result<(), ScenarioError> {
    if let Some(columns) = &s.injury_table {
        for (c, column) in columns.iter().enumerate() {
            if c > 0 && column.pen_over_pf <= columns[c - 1].pen_over_pf {
                return Err(ScenarioError::new(
                    format!("injury_table[{c}].pen_over_pf"),
                    "columns go in ascending pen_over_pf",
                ));
            }
            for (r, row) in column.rows.iter().enumerate() {
                if r > 0 && row.from <= column.rows[r - 1].from {
                    return Err(ScenarioError::new(
                        format!("injury_table[{c}].rows[{r}].from"),
                        "rows go in ascending from",
                    ));
                }
            }
        }
    }
    Ok(())
}

fn check_knockout_chances(s: &Scenario) -> Result<(), ScenarioError> {
    // "A Light Wound Result requires the target to make a 0-9 roll against
    // his Knockout Chance": when the scenario's own tables can give one, the
    // engine rolls it, so every figure needs his chance — else a fire order
    // would be refused after its dice were rolled, telling the player how
    // they fell.
    let light = |rows: &[InjuryRow]| rows.iter().any(|r| r.effect == Injury::LightWound);
    let source = if s.injury_table.iter().flatten().any(|c| light(&c.rows)) {
        Some("injury_table".to_string())
    } else if s.melee_injury_table.as_ref().is_some_and(|m| light(&m.unarmoured) || light(&m.armoured)) {
        Some("melee_injury_table".to_string())
    } else {
        s.weapons
            .iter()
            .find(|(_, w)| w.blast.iter().any(|r| r.effect == Injury::LightWound))
            .map(|(id, _)| format!("weapons.{id}.blast"))
    };
    if let Some(source) = source {
        if let Some(i) = s.figures.iter().position(|f| f.knockout_chance.is_none()) {
            return Err(ScenarioError::new(
                format!("figures[{i}].knockout_chance"),
                format!(
                    "{:?} needs a knockout chance: {source} gives Light Wounds, and \"A Light Wound Result requires the target to make a 0-9 roll against his Knockout Chance\"",
                    s.figures[i].id
                ),
            ));
        }
    }
    Ok(())
}
