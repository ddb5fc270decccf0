//! Random legal games of phoenix-command: a small random scenario (two
//! sides, squads of fire teams, sometimes a platoon headquarters and a
//! hero; figures of varied troop quality, morale, weapons and armour), and
//! in each state the decisions a player or the referee might plausibly make
//! — read from the typed state. Referee inputs are proposed too: injury
//! effects, sightings, contact, casualties, moves, routs, command checks;
//! the optional ones (a sighting, contact, a casualty, a command check) are
//! tried one decision in eight.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{Candidate, Generator, Measure, Policy, Ranked, Rng, Tally};
use crate::geometry::Point;
use crate::record::Header;
use crate::rules::SettingKind;
use crate::rulesets::phoenix_command::{
    Activation, Ambush, Fact, Figure, Morale, Phase, PhoenixCommand, Spend, State, Unit,
};

/// The generator.
pub struct PhoenixGames;

// ---------------------------------------------------------------------------
// Scenarios

pub const SIDES: [&str; 2] = ["red", "blue"];

/// The weapons; `light_wounds`: the M79's blast can give Light Wounds.
fn weapons(light_wounds: bool) -> Value {
    let ring = if light_wounds { "light-wound" } else { "graze" };
    json!({
        "rifle": {"name": "Rifle", "max_shots": 3, "pen": 20, "sdm": 3},
        "smg": {"name": "SMG", "max_shots": 3, "hits_per_shot": 2, "pen": 10, "sdm": 2},
        "pistol": {"max_shots": 2, "pen": 8, "sdm": 1, "range_tenths": 150},
        "sniper": {"max_shots": 1, "one_shot_per_action": true, "pen": 40, "sdm": 6},
        "gl": {"name": "M79", "max_shots": 1, "one_shot_per_action": true, "pen": 30, "explosive": true, "sdm": 5,
               "blast": [{"within_tenths": 10, "effect": "critical-wound"}, {"within_tenths": 25, "effect": ring},
                         {"within_tenths": 40, "effect": "graze"}]},
        "law": {"name": "LAW", "max_shots": 1, "one_use": true, "pen": 60, "explosive": true, "sdm": 6,
                "blast": [{"within_tenths": 8, "effect": "critical-wound"}, {"within_tenths": 20, "effect": "graze"}]}
    })
}

/// A figure; `knockout`: he must have a knockout chance (the scenario's
/// tables give Light Wounds).
fn figure(rng: &mut Rng, id: &str, team: &str, at: [i64; 2], rating: Option<i64>, knockout: bool) -> Value {
    let morale = match rng.below(30) {
        0..=21 => "bold",
        22..=25 => "shaken",
        26 => "panicked",
        _ => "fanatical",
    };
    let mut carried = Vec::new();
    if !rng.one_in(12) {
        carried.push(["rifle", "rifle", "smg", "pistol", "sniper"][rng.below(5)]);
    }
    if rng.one_in(3) {
        carried.push(["gl", "law"][rng.below(2)]);
    }
    let mut f =
        json!({"id": id, "team": team, "troop_quality": rng.below(7), "morale": morale, "at": at, "weapons": carried});
    if let Some(r) = rating {
        f["command_rating"] = json!(r);
    }
    if knockout || !rng.one_in(4) {
        f["knockout_chance"] = json!(1 + rng.below(5));
    }
    if !rng.one_in(8) {
        f["melee_attack_value"] = json!(2 + rng.below(6));
    }
    if rng.one_in(5) {
        f["armour_pf"] = json!(10);
    }
    if rng.one_in(6) {
        f["standard_move_tenths"] = json!(40 + 10 * rng.below(4));
    }
    f
}

/// A small random scenario: each side has one or two squads of one to three
/// fire teams (sometimes acting as one squad unit), sometimes a platoon with
/// its headquarters, sometimes a hero. Red stands along y = 0, blue 24" away.
fn scenario(rng: &mut Rng) -> Value {
    // Now and then a game without tables that give Light Wounds: the referee
    // gives effects, and figures may lack a knockout chance.
    let knockout = !rng.one_in(6);
    let mut forces = Forces { knockout, organisations: Vec::new(), units: Vec::new(), figures: Vec::new() };
    for (si, side) in SIDES.iter().enumerate() {
        let y = si as i64 * 240;
        let squads = 1 + rng.below(2);
        let platoon = squads == 2 && rng.one_in(2);
        if platoon {
            forces.platoon(rng, side, si as i64, y);
        }
        for k in 0..squads {
            forces.squad(rng, side, k, squads, platoon, y);
        }
        if rng.one_in(3) {
            let hero = format!("{side}-hero");
            let rating = rng.range(1, 4);
            forces.organisations.push(json!({"id": hero, "side": side, "kind": "hero", "leader": format!("{hero}-f")}));
            forces.figures.push(figure(rng, &format!("{hero}-f"), &hero, [300, y], Some(rating), knockout));
            forces.unit(&hero, rating, rng);
        }
    }
    let mut scenario = json!({
        "sides": SIDES,
        "initiative": SIDES[rng.below(2)],
        "command_distance_tenths": 60,
        "organisations": forces.organisations,
        "units": forces.units,
        "figures": forces.figures,
        "weapons": weapons(knockout),
    });
    if knockout && !rng.one_in(3) {
        scenario["injury_table"] = json!([
            {"pen_over_pf": 0, "rows": [{"from": 4, "effect": "graze"}, {"from": 9, "effect": "light-wound"}, {"from": 12, "effect": "critical-wound"}]},
            {"pen_over_pf": 15, "rows": [{"from": 3, "effect": "graze"}, {"from": 8, "effect": "light-wound"}, {"from": 11, "effect": "critical-wound"}]},
            {"pen_over_pf": 35, "rows": [{"from": 2, "effect": "graze"}, {"from": 7, "effect": "light-wound"}, {"from": 10, "effect": "critical-wound"}]}
        ]);
    }
    if knockout && rng.one_in(2) {
        scenario["melee_injury_table"] = json!({
            "unarmoured": [{"from": 2, "effect": "graze"}, {"from": 5, "effect": "light-wound"}, {"from": 8, "effect": "critical-wound"}],
            "armoured": [{"from": 5, "effect": "graze"}, {"from": 8, "effect": "light-wound"}]
        });
    }
    scenario
}

/// A random scenario's organisations, units and figures, side by side.
struct Forces {
    knockout: bool,
    organisations: Vec<Value>,
    units: Vec<Value>,
    figures: Vec<Value>,
}

impl Forces {
    /// A unit formed of an organisation.
    fn unit(&mut self, org: &str, rating: i64, rng: &mut Rng) {
        // Headquarters start with CP to spare for organisation orders.
        let cp = if org.ends_with("-hq") { rng.range(rating - 1, rating) } else { rng.range(0, rating) };
        let interrupt_set = cp < rating && rng.one_in(4);
        self.units.push(json!({"organisation": org, "cp": cp, "interrupt_set": interrupt_set}));
    }

    /// A platoon with its headquarters (a leader, sometimes one more figure).
    fn platoon(&mut self, rng: &mut Rng, side: &str, si: i64, y: i64) {
        let p = format!("{side}-p");
        let hq = format!("{side}-hq");
        let lead = format!("{hq}-l");
        let rating = rng.range(3, 6);
        self.organisations.push(json!({"id": p, "side": side, "kind": "platoon", "leader": lead}));
        self.organisations.push(json!({"id": hq, "parent": p, "kind": "headquarters", "leader": lead}));
        let mut l = figure(rng, &lead, &hq, [180, y - 30 + 60 * si], Some(rating), self.knockout);
        l["command_distance_tenths"] = json!(250);
        self.figures.push(l);
        if rng.one_in(2) {
            self.figures.push(figure(rng, &format!("{hq}-1"), &hq, [195, y - 30 + 60 * si], None, self.knockout));
        }
        self.unit(&hq, rating, rng);
    }

    /// Squad `k` of a side's `squads`: fire teams, each its own unit or,
    /// sometimes, the squad acting as one.
    fn squad(&mut self, rng: &mut Rng, side: &str, k: usize, squads: usize, platoon: bool, y: i64) {
        let squad = format!("{side}-s{k}");
        let teams = if squads == 1 { 2 + rng.below(2) } else { 1 + rng.below(3) };
        let squad_lead = format!("{squad}-t0-l");
        let mut s = json!({"id": squad, "kind": "squad", "leader": squad_lead});
        if platoon {
            s["parent"] = json!(format!("{side}-p"));
        } else {
            s["side"] = json!(side);
        }
        self.organisations.push(s);
        let squad_unit = rng.one_in(4);
        let spacing = rng.range(25, 65);
        let mut squad_rating = 0;
        for j in 0..teams {
            let team = format!("{squad}-t{j}");
            let lead = format!("{team}-l");
            let rating = if j == 0 { rng.range(2, 5) } else { rng.range(1, 4) };
            if j == 0 {
                squad_rating = rating;
            }
            self.organisations.push(json!({"id": team, "parent": squad, "kind": "fire team", "leader": lead}));
            let x = k as i64 * 200 + j as i64 * spacing;
            let mut l = figure(rng, &lead, &team, [x, y], Some(rating), self.knockout);
            if j == 0 && rng.one_in(2) {
                l["command_distance_tenths"] = json!(120);
            }
            self.figures.push(l);
            for m in 0..1 + rng.below(4) {
                let at = [x + rng.range(-20, 20), y + rng.range(-20, 20)];
                self.figures.push(figure(rng, &format!("{team}-{m}"), &team, at, None, self.knockout));
            }
            if !squad_unit {
                self.unit(&team, rating, rng);
            }
        }
        if squad_unit {
            self.unit(&squad, squad_rating, rng);
        }
    }
}

fn random_header(seed: u64, version: &str) -> Header {
    let mut rng = Rng(seed);
    let scenario = scenario(&mut rng);
    let spec = crate::registry::version(version).expect("a phoenix-command version");
    let mut options = BTreeMap::new();
    for s in &spec.settings {
        if s.kind == SettingKind::Option {
            options.insert(s.name.to_string(), json!(rng.one_in(2)));
        }
    }
    let rules = super::resolve(version, &options, &BTreeMap::new());
    let parties = super::parties(&mut rng, &SIDES);
    super::header(format!("random-{seed}"), rules, scenario, parties)
}

// ---------------------------------------------------------------------------
// Candidate decisions

/// A step of at most `len` from `from` towards `to` (exactly within `len`).
fn toward(from: Point, to: Point, len: i64) -> Point {
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    let d = from.distance_ceil(to) as i64;
    if d == 0 {
        return from;
    }
    Point { x: from.x + dx * len / d, y: from.y + dy * len / d }
}

fn away(from: Point, threat: Point, len: i64) -> Point {
    let mirror = Point { x: 2 * from.x - threat.x, y: 2 * from.y - threat.y };
    if mirror == from {
        return Point { x: from.x, y: from.y + len };
    }
    toward(from, mirror, len)
}

fn centroid(figures: &[&Figure]) -> Point {
    if figures.is_empty() {
        return Point { x: 0, y: 0 };
    }
    let n = figures.len() as i64;
    Point { x: figures.iter().map(|f| f.at.x).sum::<i64>() / n, y: figures.iter().map(|f| f.at.y).sum::<i64>() / n }
}

fn jitter(rng: &mut Rng, p: Point, r: i64) -> Point {
    Point { x: p.x + rng.range(-r, r), y: p.y + rng.range(-r, r) }
}

fn at(p: Point) -> Value {
    json!([p.x, p.y])
}

/// How the active unit moves on a CP: together, so that few straggle.
#[derive(Clone, Copy)]
enum Plan {
    Advance,
    DoubleTime,
    Stand,
}

struct Gen<'a> {
    s: &'a State,
    rng: &'a mut Rng,
    out: Vec<Candidate>,
}

impl<'a> Gen<'a> {
    fn add(&mut self, weight: usize, decision: Value) {
        self.out.push(Candidate::weighted(weight, decision));
    }

    fn referee(&mut self, weight: usize, decision: Value) {
        self.out.push(Candidate::referee(weight, decision));
    }

    fn members(&self, unit: &str) -> Vec<&'a Figure> {
        self.s.figures_in_order().filter(|f| f.in_play() && f.unit == unit).collect()
    }

    fn enemies(&self, side: &str) -> Vec<&'a Figure> {
        self.s.figures_in_order().filter(|f| f.in_play() && f.side != side).collect()
    }

    fn side_units(&self, side: &str) -> Vec<&'a Unit> {
        self.s.units.values().map(|u| &**u).filter(|u| u.side == side).collect()
    }

    fn odds(&mut self) -> i64 {
        if self.rng.one_in(6) {
            self.rng.range(-4, -1)
        } else {
            self.rng.range(0, 8)
        }
    }

    /// A fire order's fields for `f` (none when he has no weapon left).
    fn fire(&mut self, f: &Figure, target: &Figure, mode: &str) -> Option<Value> {
        // Weapons that reach the target (N45; fire beyond range is refused,
        // which the unit tests cover).
        let reach = |w: &String| self.s.weapons[w].range_tenths.is_none_or(|r| f.at.within(target.at, r));
        let usable: Vec<&String> = f.weapons.iter().filter(|w| !f.used_weapons.contains(*w) && reach(w)).collect();
        let weapon = (*self.rng.try_pick(&usable)?).clone();
        let max = self.s.weapons[&weapon].max_shots as i64;
        let explosive = self.s.weapons[&weapon].explosive;
        let mut order =
            json!({"figure": f.id, "weapon": weapon, "target": target.id, "mode": mode, "odds": self.odds()});
        if mode == "ragged" {
            if self.rng.one_in(2) {
                order["line"] = json!(max);
            }
        } else {
            order["line"] = json!(self.rng.range(1, max));
        }
        if self.rng.one_in(5) {
            order["cover_pf"] = json!(self.rng.range(1, 15));
            if explosive || self.rng.one_in(2) {
                order["cover_at"] = at(toward(target.at, f.at, 15));
            }
        }
        Some(order)
    }

    fn mode(&mut self, f: &Figure) -> &'static str {
        if f.morale != Morale::Bold {
            return "ragged";
        }
        ["aimed", "aimed", "disciplined", "ragged"][self.rng.below(4)]
    }

    /// One plausible action for a figure of the active unit; `step`: where
    /// the unit is heading this CP.
    fn action(&mut self, f: &Figure, plan: Plan, step: (i64, i64), melee_ok: bool) -> Value {
        let hold = json!({"type": "hold", "figure": f.id});
        if f.lagging {
            return hold;
        }
        let enemies = self.enemies(&f.side);
        let target = self.rng.try_pick(&enemies).copied();
        let threat = centroid(&enemies);
        let fire = |g: &mut Self, mode: &str| -> Option<Value> {
            let mut o = g.fire(f, target?, mode)?;
            o["type"] = json!("fire");
            Some(o)
        };
        match f.morale {
            Morale::Panicked => {
                let roll = self.rng.below(4);
                if roll == 0 {
                    if let Some(o) = fire(self, "ragged") {
                        return o;
                    }
                }
                if roll == 1 && f.fanatic && melee_ok {
                    if let Some(t) = target {
                        return json!({"type": "melee", "figure": f.id, "target": t.id});
                    }
                }
                let to = jitter(self.rng, away(f.at, threat, 100), 5);
                let mut flee = json!({"type": "flee", "figure": f.id, "to": at(to)});
                match self.rng.below(8) {
                    0 if !f.fanatic => flee["reached_cover"] = json!(true),
                    1 => flee["left_battlefield"] = json!(true),
                    _ => {}
                }
                flee
            }
            Morale::Shaken => {
                if self.rng.one_in(2) {
                    if let Some(o) = fire(self, "ragged") {
                        return o;
                    }
                }
                hold
            }
            Morale::Bold | Morale::Fanatical => {
                let moved = jitter(self.rng, Point { x: f.at.x + step.0, y: f.at.y + step.1 }, 5);
                match plan {
                    // The unit advances together, some firing as they go.
                    Plan::Advance => {
                        if self.rng.one_in(3) {
                            let mode = self.mode(f);
                            if let Some(mut o) = fire(self, mode) {
                                o["move_to"] = at(moved);
                                return o;
                            }
                        }
                        json!({"type": "move", "figure": f.id, "to": at(moved)})
                    }
                    Plan::DoubleTime if !f.double_timed => {
                        let to = jitter(self.rng, Point { x: f.at.x + 2 * step.0, y: f.at.y + 2 * step.1 }, 5);
                        json!({"type": "double-time", "figure": f.id, "to": at(to)})
                    }
                    Plan::DoubleTime => json!({"type": "move", "figure": f.id, "to": at(moved)}),
                    // The unit stands: fire, hold, an attack, now and then a lone move.
                    Plan::Stand => match self.rng.below(12) {
                        0..=5 => {
                            let mode = self.mode(f);
                            fire(self, mode).unwrap_or(hold)
                        }
                        6 if melee_ok => match target {
                            Some(t) => {
                                let mut m = json!({"type": "melee", "figure": f.id, "target": t.id});
                                if self.rng.one_in(2) {
                                    m["move_to"] = at(toward(f.at, t.at, 50));
                                }
                                m
                            }
                            None => hold,
                        },
                        7 => json!({"type": "other", "figure": f.id, "what": "pops smoke"}),
                        8 => json!({"type": "move", "figure": f.id, "to": at(jitter(self.rng, f.at, 30))}),
                        _ => hold,
                    },
                }
            }
        }
    }

    /// The one action a figure may always take: hold, or (Panicked) flee on the spot.
    fn safe_action(f: &Figure) -> Value {
        if f.morale == Morale::Panicked && !f.lagging {
            json!({"type": "flee", "figure": f.id, "to": at(f.at)})
        } else {
            json!({"type": "hold", "figure": f.id})
        }
    }

    /// Actions for the CP being spent: everyone waiting, or some of them.
    fn actions(&mut self, a: &Activation) {
        let acted = &a.step.as_ref().expect("a step").acted;
        let waiting: Vec<&Figure> = self.members(&a.unit).into_iter().filter(|f| !acted.contains(&f.id)).collect();
        if waiting.is_empty() {
            return;
        }
        let side = waiting[0].side.clone();
        let here = centroid(&waiting);
        let there = centroid(&self.enemies(&side));
        let dest = if self.rng.one_in(4) { jitter(self.rng, here, 60) } else { there };
        let p = toward(here, dest, 45);
        let step = (p.x - here.x, p.y - here.y);
        for variant in 0..4 {
            let plan = match self.rng.below(10) {
                0..=3 => Plan::Advance,
                4 => Plan::DoubleTime,
                _ => Plan::Stand,
            };
            let chosen: Vec<&Figure> = match variant {
                3 if waiting.len() > 1 => waiting.iter().copied().filter(|_| self.rng.one_in(2)).collect(),
                _ => waiting.clone(),
            };
            if chosen.is_empty() {
                continue;
            }
            let mut list: Vec<Value> = Vec::new();
            let mut melee = None;
            for f in &chosen {
                let act = self.action(f, plan, step, melee.is_none());
                if act["type"] == "melee" {
                    melee = Some(act);
                } else {
                    list.push(act);
                }
            }
            list.extend(melee);
            self.add(if variant == 3 { 2 } else { 6 }, json!({"type": "actions", "actions": list}));
        }
        let safe: Vec<Value> = waiting.iter().map(|f| Self::safe_action(f)).collect();
        self.add(1, json!({"type": "actions", "actions": safe}));
    }

    /// Interrupts by an ambush lying in wait.
    fn interrupt(&mut self, ambush: &Ambush) {
        let targets = self.members(&ambush.target);
        if targets.is_empty() {
            return;
        }
        let ranks = self.members(&ambush.by);
        for variant in 0..2 {
            let mut orders = Vec::new();
            // "The entire unit must perform the same action": all who join
            // fire, but for those the referee rules have no line of sight.
            let mut blind = Vec::new();
            let joining = variant == 0 || ambush.nervous.is_empty();
            let mode = if ambush.prepared { ["aimed", "disciplined", "ragged"][self.rng.below(3)] } else { "ragged" };
            for f in &ranks {
                let nervous = ambush.nervous.contains(&f.id);
                if !nervous && !joining {
                    continue;
                }
                if !nervous && self.rng.one_in(4) {
                    blind.push(f.id.clone());
                    continue;
                }
                // A target some weapon of his reaches, if there is one (N45).
                let start = self.rng.below(targets.len());
                for k in 0..targets.len() {
                    let t = targets[(start + k) % targets.len()];
                    if let Some(o) = self.fire(f, t, if nervous { "ragged" } else { mode }) {
                        orders.push(o);
                        break;
                    }
                }
            }
            if !orders.is_empty() {
                let mut decision = json!({"type": "interrupt", "by": ambush.by, "fire": orders});
                if !blind.is_empty() {
                    decision["no_line_of_sight"] = json!(blind);
                }
                self.add(3, decision);
            }
        }
    }

    /// The orders an activated unit gives between CP.
    fn orders(&mut self, a: &Activation) {
        let unit = a.unit.clone();
        let s = self.s;
        let Some(u) = s.units.get(unit.as_str()) else { return };
        for (w, kind) in [
            (3, "accumulate"),
            (1, "pass"),
            (10, "spend-cp"),
            (1, "stop"),
            (5, "take-command"),
            (2, "set-interrupt"),
            (5, "self-rally"),
            (5, "steady-unit"),
            (5, "rally"),
            (2, "abandon"),
        ] {
            self.add(w, json!({"type": kind}));
        }
        let members = self.members(&unit);
        for f in members.iter().filter(|f| f.morale == Morale::Panicked) {
            self.add(2, json!({"type": "rally-panicked", "figure": f.id}));
        }
        let shaken: Vec<&&Figure> = members.iter().filter(|f| f.morale == Morale::Shaken).collect();
        if let Some(f) = self.rng.try_pick(&shaken) {
            let friends: Vec<String> = self
                .side_units(&u.side)
                .iter()
                .filter(|o| o.id != unit && self.rng.one_in(2))
                .map(|o| o.id.clone())
                .collect();
            self.add(2, json!({"type": "forced-rally", "figure": f.id, "in_sight": friends}));
        }
        // A superior officer's morale orders for units he commands.
        for other in self.side_units(&u.side).into_iter().filter(|o| o.id != unit) {
            self.add(1, json!({"type": "steady-unit", "unit": other.id}));
            self.add(1, json!({"type": "rally", "unit": other.id}));
            for f in self.members(&other.id).iter().filter(|f| f.morale == Morale::Panicked) {
                self.add(1, json!({"type": "rally-panicked", "figure": f.id, "unit": other.id}));
            }
        }
        let Some(leader) = u.leader.clone() else { return };
        // Organisation orders.
        let led: Vec<String> = s
            .organisations
            .values()
            .filter(|o| o.leader.as_deref() == Some(leader.as_str()))
            .map(|o| o.id.clone())
            .collect();
        for org in &led {
            self.add(5, json!({"type": "consolidate", "organisation": org}));
            // Some of its sub-units only (N46).
            let children: Vec<String> =
                s.organisations.values().filter(|o| o.parent.as_deref() == Some(org)).map(|o| o.id.clone()).collect();
            let some: Vec<String> = children.iter().filter(|_| !self.rng.one_in(3)).cloned().collect();
            if !some.is_empty() {
                self.add(2, json!({"type": "consolidate", "organisation": org, "sub_units": some}));
            }
            self.reorganise(org, &leader);
        }
        let subs: Vec<String> = s
            .organisations
            .values()
            .filter(|o| o.parent.as_deref() == Some(unit.as_str()))
            .map(|o| o.id.clone())
            .collect();
        if !subs.is_empty() {
            let some: Vec<String> = subs.iter().filter(|_| self.rng.one_in(2)).cloned().collect();
            let some = if some.is_empty() { vec![subs[self.rng.below(subs.len())].clone()] } else { some };
            self.add(3, json!({"type": "detach", "units": some}));
        }
    }

    /// A reorganisation of squads under `org` into new fire teams, each led
    /// by a figure with a command rating.
    fn reorganise(&mut self, org: &str, leader: &str) {
        let s = self.s;
        let children = |id: &str| -> Vec<String> {
            s.organisations.values().filter(|o| o.parent.as_deref() == Some(id)).map(|o| o.id.clone()).collect()
        };
        let within = |inner: &str, outer: &str| {
            let mut at = Some(inner.to_string());
            while let Some(id) = at {
                if id == outer {
                    return true;
                }
                at = s.organisations.get(&id).and_then(|o| o.parent.clone());
            }
            false
        };
        let lead_team = s.figures[leader].team.clone();
        let squads: Vec<String> = children(org)
            .into_iter()
            .filter(|sq| {
                let teams = children(sq);
                !teams.is_empty() && teams.iter().all(|t| children(t).is_empty()) && !within(&lead_team, sq)
            })
            .collect();
        if squads.is_empty() {
            return;
        }
        let replaces: Vec<String> = if squads.len() > 1 && self.rng.one_in(2) {
            squads.clone()
        } else {
            vec![squads[self.rng.below(squads.len())].clone()]
        };
        let pool: Vec<&Figure> =
            s.figures_in_order().filter(|f| f.in_play() && replaces.iter().any(|r| within(&f.team, r))).collect();
        let leaders: Vec<&&Figure> = pool.iter().filter(|f| f.command_rating.is_some()).collect();
        if leaders.is_empty() {
            return;
        }
        let n = leaders.len().min(1 + self.rng.below(2));
        let tag = self.rng.below(1_000_000);
        let mut teams: Vec<(String, String, Vec<String>)> = (0..n)
            .map(|i| (format!("{}-r{tag}-{i}", replaces[0]), leaders[i].id.clone(), vec![leaders[i].id.clone()]))
            .collect();
        for f in &pool {
            if !teams.iter().any(|t| t.1 == f.id) {
                let i = self.rng.below(n);
                teams[i].2.push(f.id.clone());
            }
        }
        let teams: Vec<Value> = teams
            .into_iter()
            .map(|(id, leader, figures)| json!({"id": id, "leader": leader, "figures": figures}))
            .collect();
        self.add(
            5,
            json!({"type": "reorganise", "organisation": org, "replaces": replaces,
                   "into": [{"id": replaces[0], "leader": leaders[0].id, "teams": teams}]}),
        );
    }

    /// The inputs the rules wait for, when they are due.
    fn inputs_due(&mut self) {
        let s = self.s;
        if let Some(t) = &s.turn {
            if let Some(p) = t.pending_injuries.first() {
                for effect in ["none", "graze", "light-wound", "critical-wound"] {
                    self.add(2, json!({"type": "injury", "target": p.target, "effect": effect}));
                }
            }
            if let Some(m) = &t.melee {
                self.add(2, json!({"type": "melee-response", "escape": false}));
                self.add(1, json!({"type": "melee-response", "escape": true}));
                let (a, tg) = (&s.figures[m.attacker.as_str()], &s.figures[m.target.as_str()]);
                self.add(2, json!({"type": "melee-response", "escape": true, "escape_to": at(away(tg.at, a.at, 40))}));
            }
            for ambush in &t.ambushes {
                if !ambush.fired {
                    self.interrupt(ambush);
                }
            }
            if let Some(a) = &t.activation {
                if let Some(by) = &a.interrupted_by {
                    let threat = centroid(&self.members(by));
                    let moves: BTreeMap<String, Value> = self
                        .members(&a.unit)
                        .iter()
                        .filter(|_| self.rng.one_in(2))
                        .map(|f| (f.id.clone(), at(away(f.at, threat, 25))))
                        .collect();
                    self.add(4, json!({"type": "take-cover", "moves": moves}));
                    self.add(2, json!({"type": "take-cover"}));
                    self.add(1, json!({"type": "stop"}));
                }
            }
        }
        for u in s.units.values() {
            if u.brevet_due.is_some() {
                for f in self.members(&u.id) {
                    self.add(1, json!({"type": "brevet", "unit": u.id, "leader": f.id}));
                }
            }
            if u.rout_due {
                let threat = centroid(&self.enemies(&u.side));
                let moves: BTreeMap<String, Value> =
                    self.members(&u.id).iter().map(|f| (f.id.clone(), at(away(f.at, threat, 100)))).collect();
                let cover = !self.rng.one_in(3);
                self.add(3, json!({"type": "rout", "unit": u.id, "moves": moves, "reached_cover": cover}));
                self.add(1, json!({"type": "rout", "unit": u.id, "reached_cover": !cover}));
            }
        }
    }

    /// Optional referee inputs: sightings, contact, casualties, command checks.
    fn referee_inputs(&mut self) {
        let s = self.s;
        let units: Vec<&Unit> = s.units.values().map(|u| &**u).collect();
        let active = s.turn.as_ref().and_then(|t| t.activation.as_ref()).map(|a| a.unit.clone());
        for by in &units {
            for target in units.iter().filter(|t| t.side != by.side) {
                let w = if Some(&target.id) == active.as_ref() { 8 } else { 1 }
                    * if by.held_interrupt_cp > 0 { 3 } else { 1 };
                self.referee(w, json!({"type": "sighted", "target": target.id, "by": by.id}));
                if self.rng.one_in(4) {
                    let now = by.contact.contains(&target.id);
                    self.referee(1, json!({"type": "contact", "unit": by.id, "enemy": target.id, "in_contact": !now}));
                }
            }
        }
        if let Some(u) = self.rng.try_pick(&units) {
            self.referee(2, json!({"type": "command-check", "unit": u.id, "reason": "the referee calls for one"}));
        }
        let alive: Vec<&Figure> = s.figures_in_order().filter(|f| f.in_play()).collect();
        if let Some(f) = self.rng.try_pick(&alive) {
            let effect = ["killed", "incapacitated"][self.rng.below(2)];
            self.referee(
                1,
                json!({"type": "casualty", "figure": f.id, "effect": effect, "reason": "a sniper off-table"}),
            );
        }
    }
}

pub fn candidates(s: &State, rng: &mut Rng) -> Vec<Candidate> {
    let mut g = Gen { s, rng, out: Vec::new() };
    g.inputs_due();
    // Always proposed, so a stuck report shows why the turn cannot move on.
    g.add(1, json!({"type": "begin-turn"}));
    match s.turn.as_ref() {
        None => {}
        Some(t) => match t.phase {
            Phase::Over => {}
            Phase::StrategicMovement => {
                g.add(6, json!({"type": "begin-operations"}));
                for u in s.units.values() {
                    let members = g.members(&u.id);
                    let here = centroid(&members);
                    let there = centroid(&g.enemies(&u.side));
                    let p = toward(here, there, g.rng.range(20, 150));
                    let moves: BTreeMap<String, Value> = members
                        .iter()
                        .map(|f| (f.id.clone(), at(Point { x: f.at.x + p.x - here.x, y: f.at.y + p.y - here.y })))
                        .collect();
                    g.add(1, json!({"type": "strategic-move", "unit": u.id, "moves": moves}));
                }
            }
            Phase::Operations => match &t.activation {
                None => {
                    for u in s.units.values().filter(|u| !u.activated && !u.strategic) {
                        g.add(1, json!({"type": "activate", "unit": u.id}));
                    }
                }
                Some(a) if a.step.is_some() => g.actions(a),
                Some(a) => g.orders(a),
            },
        },
    }
    g.referee_inputs();
    g.out
}

// ---------------------------------------------------------------------------
// The generator and its policies

impl Generator for PhoenixGames {
    type Ruleset = PhoenixCommand;
    const RULESET: &'static str = "phoenix-command";
    const WELL_FORMED: bool = true;

    /// A random scenario, each option on or off at even odds.
    fn header(seed: u64, version: &str) -> Header {
        random_header(seed, version)
    }

    fn policies() -> Vec<Box<dyn Policy<PhoenixCommand>>> {
        vec![Box::new(random()), Box::new(spend_cp())]
    }

    /// The game is over once a side has no unit left.
    fn over(state: &State) -> bool {
        state.sides.iter().any(|side| state.units.values().all(|u| &u.side != side))
    }

    fn winner(state: &State) -> Option<String> {
        let standing: Vec<&String> =
            state.sides.iter().filter(|side| state.units.values().any(|u| &u.side == *side)).collect();
        match standing[..] {
            [side] => Some(side.clone()),
            _ => None,
        }
    }

    fn winning() -> Result<&'static str, &'static str> {
        Ok("a side wins when the other has no unit left (eliminated, withdrawn or routed off)")
    }

    fn measures() -> Vec<Measure> {
        vec![
            Measure::Rate {
                name: "command-check-success",
                what: "command checks passed (panicked and fanatical figures fail them outright)",
                successes: "command-checks-passed",
                trials: "command-checks",
            },
            Measure::Rate {
                name: "forced-rally-success",
                what: "forced rallies whose majority passes (the leader goes on)",
                successes: "forced-rallies-held",
                trials: "forced-rallies",
            },
            Measure::Count { name: "command-checks", what: "command checks per game" },
            Measure::Count { name: "command-failures", what: "command checks failed per game" },
            Measure::Count { name: "cp-spent", what: "CP spent per game" },
            Measure::Count { name: "cp-lost", what: "CP lost per game (interrupts, fallen leaders, dissolved units)" },
            Measure::Count { name: "rallies", what: "CP spent rallying, steadying and composing per game" },
            Measure::Count { name: "units-broken", what: "units broken per game" },
            Measure::Count { name: "units-eliminated", what: "units eliminated per game" },
            Measure::Count { name: "routs", what: "routs per game" },
            Measure::Count { name: "fire", what: "fire and interrupt fire per game" },
        ]
    }

    fn observe(fact: &Fact, tally: &mut Tally) {
        match fact {
            Fact::CommandChecked { check, .. } => {
                tally.add("command-checks", 1);
                tally.add(if check.passed() { "command-checks-passed" } else { "command-failures" }, 1);
            }
            Fact::ForcedRallyChecked { holds, .. } => {
                tally.add("forced-rallies", 1);
                tally.add("forced-rallies-held", u64::from(*holds));
            }
            Fact::CpSpent { cp, on, .. } => {
                tally.add("cp-spent", u64::from(*cp));
                if matches!(on, Spend::SelfRally | Spend::SteadyUnit | Spend::Rally | Spend::RallyPanicked) {
                    tally.add("rallies", 1);
                }
            }
            Fact::CpLost { cp, .. } => tally.add("cp-lost", u64::from(*cp)),
            Fact::UnitBroke { .. } => tally.add("units-broken", 1),
            Fact::UnitEliminated { .. } => tally.add("units-eliminated", 1),
            Fact::Routed { .. } => tally.add("routs", 1),
            Fact::Fired { .. } | Fact::InterruptFired { .. } => tally.add("fire", 1),
            _ => {}
        }
    }

    /// The turn, and every figure's weapons: what a stuck game most often lacks.
    fn explain(state: &State) -> String {
        let weapons: Vec<String> = state
            .figures
            .values()
            .filter(|f| f.in_play())
            .map(|f| format!("{} carries {:?}, used {:?}", f.id, f.weapons, f.used_weapons))
            .collect();
        format!(
            "turn: {}\nweapons: {}",
            serde_json::to_string(&state.turn).expect("the turn serialises"),
            weapons.join("; ")
        )
    }
}

/// Every plausible decision, referee inputs that are due included, weighted
/// as a player would favour them; optional referee inputs one decision in eight.
pub fn random() -> Ranked<PhoenixCommand> {
    Ranked::random(
        "every plausible order, action, interrupt and due input, weighted as a player would favour them, mistakes included; sightings, contact, casualties and command checks one decision in eight",
        Some(8),
        candidates,
    )
}

/// Spend CP before passing: an activated unit spends CP — on actions,
/// taking command, rallying and steadying — whenever it can, and
/// accumulates, passes, stops or abandons only when it cannot.
pub fn spend_cp() -> Ranked<PhoenixCommand> {
    Ranked {
        name: "spend-cp",
        about: "an activated unit spends its CP (actions, taking command, rallies) whenever it can, and accumulates, passes, stops or abandons only when it cannot; otherwise as random",
        referee_one_in: Some(8),
        propose: random().propose,
        rank: |_, mut c| {
            c.priority = match c.kind() {
                "spend-cp" | "take-command" | "self-rally" | "steady-unit" | "rally" | "rally-panicked"
                | "forced-rally" => 2,
                "accumulate" | "pass" | "stop" | "abandon" => 0,
                _ => 1,
            };
            Some(c)
        },
    }
}
