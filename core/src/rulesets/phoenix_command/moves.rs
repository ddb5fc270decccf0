//! What may be decided now, for the listing ([`crate::moves`]): the inputs
//! the rules wait for (an injury effect, a melee answer, a brevet, a rout,
//! an ambush's fire, taking cover), the turn's phases, activations, what an
//! activated unit orders between its CP, the actions of its figures for the
//! CP being spent (each figure's action a form to fill in: where he goes,
//! whom he fires at and the odds read from the tables), and the referee's
//! inputs. `decide` judges which are legal; nothing here refuses.

use serde_json::{json, Value};

use super::lookup::{children, leader, members};
use super::{Ambush, Check, Fact, Figure, Morale, Phase, State, Turn, Unit};
use crate::geometry::Point;
use crate::proposal::form::{any_integer, choices, Choice};
use crate::proposal::{Cost, Field, Form, Known, Passes, Proposal, Shape, Target};
use crate::words::possessive;

const TENTHS: &str = "tenths of an inch";

fn point(p: Point) -> Value {
    json!([p.x, p.y])
}

fn point_shape() -> Shape {
    Shape::Point { unit: TENTHS.into() }
}

/// Figures as choices, each with his unit and morale.
fn figure_choices<'a>(figures: impl Iterator<Item = &'a Figure>) -> Vec<Choice> {
    choices(figures.map(|f| (f.id.clone(), format!("{} ({}, {})", f.id, f.unit, f.morale.name()))))
}

fn units_of<'a>(state: &'a State, side: &'a str) -> impl Iterator<Item = &'a Unit> {
    state.units.values().map(|u| &**u).filter(move |u| u.side == side)
}

pub(super) fn proposals(state: &State) -> Vec<Proposal> {
    let mut out = Vec::new();
    inputs_due(state, &mut out);
    out.push(Proposal::new(
        "Begin the turn",
        json!({"type": "begin-turn"}),
        "begin the next turn (strategic movement)",
    ));
    if let Some(t) = &state.turn {
        match (t.phase, &t.activation) {
            (Phase::StrategicMovement, _) => strategic(state, &mut out),
            (Phase::Operations, None) => {
                for u in state.units.values().filter(|u| !u.activated && !u.strategic) {
                    out.push(Proposal::new(
                        "Activate a unit",
                        json!({"type": "activate", "unit": u.id}),
                        format!("activate {} ({} CP accumulated)", u.id, u.cp),
                    ));
                }
            }
            (Phase::Operations, Some(a)) if a.step.is_some() => actions(state, &a.unit, &mut out),
            (Phase::Operations, Some(a)) => orders(state, &a.unit, &mut out),
            (Phase::Over, _) => {}
        }
    }
    referee(state, &mut out);
    out
}

/// Strategic movement: operations begin, or a unit moves strategically.
fn strategic(state: &State, out: &mut Vec<Proposal>) {
    out.push(Proposal::new(
        "Begin operations",
        json!({"type": "begin-operations"}),
        "strategic movement is over: initiative is counted and operations begin",
    ));
    for u in state.units.values() {
        let keys = figure_choices(members(state, &u.id).into_iter());
        out.push(
            Proposal::new(
                "Move a unit strategically",
                json!({"type": "strategic-move", "unit": u.id}),
                format!("{} moves strategically (it loses its CP and may not fire this turn)", u.id),
            )
            .with(
                Field::optional(
                    "moves",
                    "where its figures end up, by figure",
                    Shape::EachOf { keys, value: Box::new(point_shape()) },
                    None,
                )
                .by_referee(),
            ),
        );
    }
}

/// The inputs the rules wait for before anything else.
fn inputs_due(state: &State, out: &mut Vec<Proposal>) {
    for u in state.units.values() {
        if u.brevet_due.is_some() {
            for f in members(state, &u.id) {
                out.push(Proposal::new(
                    "Brevet a new leader",
                    json!({"type": "brevet", "unit": u.id, "leader": f.id}),
                    format!("{} appoints {} its new leader", u.id, f.id),
                ));
            }
        }
        if u.rout_due {
            out.push(rout(state, u));
        }
    }
    let Some(t) = &state.turn else { return };
    answers(t, out);
    for ambush in t.ambushes.iter().filter(|a| !a.fired) {
        out.push(interrupt(state, ambush));
    }
    if let Some(a) = t.activation.as_ref().filter(|a| a.interrupted_by.is_some()) {
        let keys = figure_choices(members(state, &a.unit).into_iter());
        out.push(
            Proposal::new(
                "Take cover",
                json!({"type": "take-cover"}),
                format!("{} takes cover: the figures named move up to 3\" to cover, the others go prone", a.unit),
            )
            .with(Field::optional(
                "moves",
                "where figures move to cover, by figure (the others go prone)",
                Shape::EachOf { keys, value: Box::new(point_shape()) },
                None,
            )),
        );
    }
}

/// The answers the rules wait for: the injury effect of a hit without a
/// table, the target's answer to a melee attack.
fn answers(t: &Turn, out: &mut Vec<Proposal>) {
    if let Some(p) = t.pending_injuries.first() {
        for (effect, words) in [
            ("none", "no effect"),
            ("graze", "a Graze"),
            ("light-wound", "a Light Wound"),
            ("critical-wound", "a Critical Wound"),
        ] {
            out.push(Proposal::new(
                "Give an injury effect",
                json!({"type": "injury", "target": p.target, "effect": effect}),
                format!("the hit on {} (roll {} with modifiers) is {words}", p.target, p.total),
            ));
        }
    }
    if let Some(m) = &t.melee {
        let target = &m.target;
        out.push(Proposal::new(
            "Answer a melee attack",
            json!({"type": "melee-response", "escape": false}),
            format!("{target} engages {} in melee", m.attacker),
        ));
        let escape_to = Field::optional("escape_to", "where he escapes to, if he survives", point_shape(), None);
        out.push(
            Proposal::new(
                "Answer a melee attack",
                json!({"type": "melee-response", "escape": true}),
                format!("{target} tries to escape {} (the attack gains +5)", m.attacker),
            )
            .with(escape_to.by_referee())
            .known_whatever_the_fields(),
        );
    }
}

fn rout(state: &State, u: &Unit) -> Proposal {
    let keys = figure_choices(members(state, &u.id).into_iter());
    Proposal::new(
        "Rout a broken unit",
        json!({"type": "rout", "unit": u.id}),
        format!("{} routs away from the enemy towards cover", u.id),
    )
    .with(
        Field::optional(
            "moves",
            "where its figures end up, by figure",
            Shape::EachOf { keys, value: Box::new(point_shape()) },
            None,
        )
        .by_referee(),
    )
    .with(
        Field::new("reached_cover", "whether it reached cover (if not, it surrenders)", Shape::Flag, json!(true))
            .by_referee(),
    )
}

/// The fields of a fire order by `f` at one of `targets`.
fn fire_fields(state: &State, f: &Figure, targets: &[&Figure], advance: bool) -> Vec<Field> {
    let weapons = choices(f.weapons.iter().filter(|w| !f.used_weapons.contains(*w)).filter_map(|w| {
        let weapon = state.weapons.get(w)?;
        let range = weapon.range_tenths.map(|r| format!(", range {r} tenths")).unwrap_or_default();
        Some((w.clone(), format!("{w} ({} shots{range})", weapon.max_shots)))
    }));
    let most = f.weapons.iter().filter_map(|w| state.weapons.get(w)).map(|w| i64::from(w.max_shots)).max().unwrap_or(1);
    let targets = choices(
        targets
            .iter()
            .map(|t| (t.id.clone(), format!("{} ({}, {} tenths away)", t.id, t.unit, f.at.distance_ceil(t.at)))),
    );
    let first = |c: &[Choice]| c.first().map(|c| c.value.clone()).unwrap_or_default();
    let mut fields = vec![
        Field::new("weapon", "the weapon fired", Shape::OneOf { choices: weapons.clone() }, first(&weapons)),
        Field::new("target", "the enemy figure fired at", Shape::OneOf { choices: targets.clone() }, first(&targets)),
        Field::new(
            "mode",
            "aimed, disciplined (an extra shot) or ragged (the maximum rate, at −2)",
            Shape::OneOf {
                choices: choices([("aimed", "aimed"), ("disciplined", "disciplined"), ("ragged", "ragged")]),
            },
            json!("ragged"),
        ),
        Field::optional(
            "line",
            "the 1, 2 or 3 shot line (ragged: the weapon's maximum)",
            Shape::Integer { min: 1, max: most, unit: Some("shots".into()) },
            None,
        ),
        Field::new("odds", "the Odds of Hitting read from the tables for the line fired", any_integer(None), json!(0))
            .by_referee(),
        Field::optional(
            "cover_pf",
            "the PF of cover between shooter and target",
            Shape::Integer { min: 0, max: crate::bounds::NUMBER_RANGE.1, unit: Some("PF".into()) },
            None,
        )
        .by_referee(),
        Field::optional("cover_at", "where the intervening cover stands", point_shape(), None).by_referee(),
    ];
    if advance {
        fields.push(Field::optional("move_to", "a standard move first (advancing and firing)", point_shape(), None));
    }
    fields
}

/// An ambush's fire: one order per ambusher, all in one mode.
fn interrupt(state: &State, ambush: &Ambush) -> Proposal {
    let ranks = members(state, &ambush.by);
    // The target's figures, those of units it detached on the CP that blew
    // the ambush included (N59).
    let targets: Vec<&Figure> = super::interrupts::target_units(ambush).flat_map(|u| members(state, u)).collect();
    let forms: Vec<Form> = ranks
        .iter()
        .map(|f| Form::new(json!({"figure": f.id}), format!("{} fires", f.id), fire_fields(state, f, &targets, false)))
        .collect();
    let example_order = |f: &Figure| -> Option<Value> {
        let target = targets.iter().find(|t| {
            f.weapons
                .iter()
                .filter(|w| !f.used_weapons.contains(*w))
                .filter_map(|w| state.weapons.get(w))
                .any(|w| w.range_tenths.is_none_or(|r| f.at.within(t.at, r)))
        })?;
        let weapon = f.weapons.iter().filter(|w| !f.used_weapons.contains(*w)).find(|w| {
            state.weapons.get(*w).is_some_and(|w| w.range_tenths.is_none_or(|r| f.at.within(target.at, r)))
        })?;
        Some(json!({"figure": f.id, "weapon": weapon, "target": target.id, "mode": "ragged", "odds": 0}))
    };
    let able: Vec<&&Figure> =
        ranks.iter().filter(|f| super::interrupts::able_to_fire_on_target(state, &f.id, ambush)).collect();
    let all_fire: Vec<Value> = able.iter().filter_map(|f| example_order(f)).collect();
    let nervous: Vec<Value> =
        able.iter().filter(|f| ambush.nervous.contains(&f.id)).filter_map(|f| example_order(f)).collect();
    let holding: Vec<&str> = ranks.iter().filter(|f| !ambush.nervous.contains(&f.id)).map(|f| f.id.as_str()).collect();
    let by = &ambush.by;
    Proposal::new(
        "Fire from an ambush",
        json!({"type": "interrupt", "by": by}),
        format!("{by} fires from its ambush at {}", ambush.target),
    )
    .with(Field::new(
        "fire",
        "each ambusher's fire (one mode for all who join; those who failed their check fire ragged)",
        Shape::ListOf { forms, min: 1, max: ranks.len(), once: Some("figure".into()) },
        Value::Array(all_fire.clone()),
    ))
    .with(
        Field::optional(
            "no_line_of_sight",
            "ambushers joining in who cannot see the target: they hold",
            Shape::SomeOf { choices: figure_choices(ranks.iter().copied()), min: 0, max: ranks.len() },
            None,
        )
        .by_referee()
        .keeping_choices(),
    )
    .example(json!({"type": "interrupt", "by": by, "fire": all_fire}))
    .example(json!({"type": "interrupt", "by": by, "fire": nervous, "no_line_of_sight": holding}))
    .example(json!({"type": "interrupt", "by": by, "fire": nervous}))
}

/// The actions of the active unit's figures for the CP being spent.
fn actions(state: &State, unit: &str, out: &mut Vec<Proposal>) {
    let Some(a) = state.turn.as_ref().and_then(|t| t.activation.as_ref()) else { return };
    let acted = a.step.as_ref().map(|s| s.acted.clone()).unwrap_or_default();
    let waiting: Vec<&Figure> = members(state, unit).into_iter().filter(|f| !acted.contains(&f.id)).collect();
    let Some(side) = waiting.first().map(|f| f.side.clone()) else { return };
    let enemies: Vec<&Figure> = state.figures_in_order().filter(|f| f.in_play() && f.side != side).collect();
    let forms: Vec<Form> = waiting.iter().flat_map(|f| figure_forms(state, f, &enemies)).collect();
    let safe: Vec<Value> = waiting
        .iter()
        .map(|f| match f.morale == Morale::Panicked && !f.lagging {
            true => json!({"type": "flee", "figure": f.id, "to": point(f.at)}),
            false => json!({"type": "hold", "figure": f.id}),
        })
        .collect();
    let names: Vec<&str> = waiting.iter().map(|f| f.id.as_str()).collect();
    out.push(
        Proposal::new(
            "Figures act",
            json!({"type": "actions"}),
            format!("{} figures act on the CP being spent ({} still to act)", possessive(unit), names.join(", ")),
        )
        .with(Field::new(
            "actions",
            "one action for each figure named (move, double-time, fire, melee, flee, hold, other); a melee attack comes last",
            Shape::ListOf { forms, min: 1, max: waiting.len(), once: Some("figure".into()) },
            Value::Array(safe),
        )),
    );
}

/// What one figure may do with one CP.
fn figure_forms(state: &State, f: &Figure, enemies: &[&Figure]) -> Vec<Form> {
    let id = &f.id;
    let at = point(f.at);
    let to = |about: &str| Field::new("to", about, point_shape(), at.clone()).by_referee();
    let targets =
        choices(enemies.iter().map(|t| (t.id.clone(), format!("{} ({} tenths away)", t.id, f.at.distance_ceil(t.at)))));
    let first_target = targets.first().map(|c| c.value.clone()).unwrap_or_default();
    vec![
        Form::new(json!({"type": "hold", "figure": id}), format!("{id} holds"), Vec::new()),
        Form::new(
            json!({"type": "move", "figure": id}),
            format!("{id} moves (a standard move)"),
            vec![to("where he ends up")],
        ),
        Form::new(
            json!({"type": "double-time", "figure": id}),
            format!("{id} double-time advances (twice a standard move, once a turn, no fire)"),
            vec![to("where he ends up")],
        ),
        Form::new(json!({"type": "fire", "figure": id}), format!("{id} fires"), fire_fields(state, f, enemies, true)),
        Form::new(
            json!({"type": "melee", "figure": id}),
            format!("{id} attacks in melee"),
            vec![
                Field::new("target", "the enemy figure attacked", Shape::OneOf { choices: targets }, first_target),
                Field::optional("move_to", "a standard move into base contact first", point_shape(), None),
            ],
        ),
        Form::new(
            json!({"type": "flee", "figure": id}),
            format!("{id} flees (Panicked)"),
            vec![
                to("where he flees to"),
                Field::optional("reached_cover", "he reached cover (and surrenders)", Shape::Flag, None).by_referee(),
                Field::optional("left_battlefield", "he got off the table (a fanatic)", Shape::Flag, None).by_referee(),
            ],
        ),
        Form::new(
            json!({"type": "other", "figure": id}),
            format!("{id} does something the engine records (pops smoke, opens a door)"),
            vec![Field::new("what", "what he does", Shape::Text, json!("pops smoke"))],
        ),
    ]
}

/// What the active unit may order between its CP.
fn orders(state: &State, unit: &str, out: &mut Vec<Proposal>) {
    let Some(u) = state.units.get(unit) else { return };
    let plain = |kind: &str, title: &'static str, says: String| Proposal::new(title, json!({"type": kind}), says);
    out.push(plain("spend-cp", "Spend a CP on actions", format!("{unit} spends its next CP: each figure acts")));
    out.push(plain("accumulate", "Accumulate a CP", format!("{unit} accumulates another CP; its activation ends")));
    out.push(plain("pass", "Pass", format!("{unit} does nothing; its activation ends")));
    out.push(plain("stop", "Stop", format!("{unit} stops: its remaining CP are lost")));
    out.push(plain(
        "set-interrupt",
        "Set an interrupt",
        format!("{unit} spends 1 CP to lie in wait, and ends its turn"),
    ));
    out.push(plain(
        "take-command",
        "Take command",
        format!("{} breveted leader spends CP to take command", possessive(unit)),
    ));
    out.push(plain("self-rally", "Self-rally", format!("{} leader spends 1 CP composing himself", possessive(unit))));
    out.push(plain(
        "abandon",
        "Abandon the Shaken",
        format!("{} leader abandons its Shaken figures", possessive(unit)),
    ));
    morale_orders(state, u, out);
    organisation_orders(state, u, out);
}

/// Steadying, rallying and forced rallies, of this unit or another his
/// leader commands.
fn morale_orders(state: &State, u: &Unit, out: &mut Vec<Proposal>) {
    let unit = &u.id;
    let others: Vec<&Unit> = units_of(state, &u.side).filter(|o| o.id != *unit).collect();
    for (target, named) in std::iter::once((u, None)).chain(others.iter().map(|o| (*o, Some(o.id.as_str())))) {
        let with = |kind: &str| match named {
            Some(other) => json!({"type": kind, "unit": other}),
            None => json!({"type": kind}),
        };
        let t = &target.id;
        out.push(Proposal::new(
            "Steady a unit",
            with("steady-unit"),
            format!("1 CP: {t} steadies (Shaken to Bold, Broken in cover to Shaken)"),
        ));
        out.push(Proposal::new("Rally the Shaken", with("rally"), format!("1 CP: every Shaken figure of {t} rallies")));
        for f in members(state, t).into_iter().filter(|f| f.morale == Morale::Panicked) {
            let mut decision = with("rally-panicked");
            decision["figure"] = json!(f.id);
            out.push(Proposal::new("Rally a Panicked figure", decision, format!("1 CP: {} of {t} is rallied", f.id)));
        }
    }
    let friends = figure_units(&others);
    for f in members(state, unit).into_iter().filter(|f| f.morale == Morale::Shaken) {
        out.push(
            Proposal::new(
                "Forced rally",
                json!({"type": "forced-rally", "figure": f.id}),
                format!("1 CP: {} leader executes {} to rally the rest", possessive(unit), f.id),
            )
            .with(
                Field::optional(
                    "in_sight",
                    "friendly units within sight of it",
                    Shape::SomeOf { choices: friends.clone(), min: 0, max: friends.len() },
                    None,
                )
                .by_referee(),
            ),
        );
    }
}

fn figure_units(units: &[&Unit]) -> Vec<Choice> {
    choices(units.iter().map(|u| (u.id.clone(), u.id.clone())))
}

/// Consolidating, detaching and reorganising what the leader leads.
fn organisation_orders(state: &State, u: &Unit, out: &mut Vec<Proposal>) {
    let unit = &u.id;
    let subs = choices(children(state, unit).iter().map(|o| (o.id.clone(), format!("{} ({})", o.id, o.kind))));
    if let Some(first) = subs.first() {
        out.push(
            Proposal::new(
                "Detach sub-units",
                json!({"type": "detach"}),
                format!("{unit} detaches sub-units (1 CP each)"),
            )
            .with(Field::new(
                "units",
                "the sub-units detached",
                Shape::SomeOf { choices: subs.clone(), min: 1, max: subs.len() },
                json!([first.value]),
            )),
        );
    }
    let Some(l) = leader(state, u) else { return };
    for org in state.organisations.values().filter(|o| o.leader.as_deref() == Some(l.id.as_str())) {
        let kids: Vec<String> = children(state, &org.id).iter().map(|o| o.id.clone()).collect();
        let subs = choices(children(state, &org.id).iter().map(|o| (o.id.clone(), format!("{} ({})", o.id, o.kind))));
        let decision = json!({"type": "consolidate", "organisation": org.id});
        let mut consolidate =
            Proposal::new("Consolidate", decision.clone(), format!("{} consolidates {} into one unit", l.id, org.id))
                .with(
                    Field::optional(
                        "sub_units",
                        "the sub-units consolidated (by default all of them)",
                        Shape::SomeOf { choices: subs.clone(), min: 1, max: subs.len() },
                        None,
                    )
                    .keeping_choices(),
                )
                .example(decision.clone());
        // Some of them (N46), the most first: every set of a few.
        let mut some: Vec<Vec<&String>> = (1..1u32 << kids.len().min(6))
            .map(|bits| kids.iter().enumerate().filter(|(i, _)| bits >> i & 1 == 1).map(|(_, k)| k).collect())
            .collect();
        some.sort_by_key(|s| std::cmp::Reverse(s.len()));
        for subset in some {
            let mut e = decision.clone();
            e["sub_units"] = json!(subset);
            consolidate = consolidate.example(e);
        }
        out.push(consolidate);
        if let Some(p) = reorganise(state, &org.id, l) {
            out.push(p);
        }
    }
}

/// A reorganisation of squads under `org`: which squads, and the squads
/// and teams they become (as JSON). The examples regroup the figures of one
/// squad (or of all) into one fire team led by the first with a rating.
fn reorganise(state: &State, org: &str, l: &Figure) -> Option<Proposal> {
    let squads: Vec<String> =
        children(state, org).iter().filter(|o| !children(state, &o.id).is_empty()).map(|o| o.id.clone()).collect();
    let first = squads.first()?;
    let example = |replaces: &[String]| -> Option<Value> {
        let pool: Vec<&Figure> = state
            .figures_in_order()
            .filter(|f| f.in_play() && replaces.iter().any(|r| super::lookup::is_within(state, &f.team, r)))
            .collect();
        let lead = pool.iter().find(|f| f.command_rating.is_some())?;
        let figures: Vec<&str> = pool.iter().map(|f| f.id.as_str()).collect();
        let team = json!({"id": format!("{}-reorganised", replaces[0]), "leader": lead.id, "figures": figures});
        Some(json!({"type": "reorganise", "organisation": org, "replaces": replaces,
            "into": [{"id": replaces[0], "leader": lead.id, "teams": [team]}]}))
    };
    let mut proposal = Proposal::new(
        "Reorganise",
        json!({"type": "reorganise", "organisation": org}),
        format!("{} reorganises squads of {org} into new fire teams (2 CP a team)", l.id),
    )
    .with(
        Field::new(
            "replaces",
            "the squads reorganised",
            Shape::SomeOf {
                choices: choices(squads.iter().map(|s| (s.clone(), s.clone()))),
                min: 1,
                max: squads.len(),
            },
            json!([first]),
        )
        .keeping_choices(),
    )
    .with(Field::new(
        "into",
        "the squads and fire teams they become, each with its leader and figures",
        Shape::Json,
        Value::Null,
    ));
    for s in &squads {
        proposal = match example(std::slice::from_ref(s)) {
            Some(e) => proposal.example(e),
            None => proposal,
        };
    }
    if squads.len() > 1 {
        if let Some(e) = example(&squads) {
            proposal = proposal.example(e);
        }
    }
    Some(proposal)
}

/// The referee's inputs: sightings, contact, command checks, casualties.
fn referee(state: &State, out: &mut Vec<Proposal>) {
    for by in state.units.values() {
        let enemies: Vec<&Unit> = state.units.values().map(|u| &**u).filter(|u| u.side != by.side).collect();
        let Some(first) = enemies.first() else { continue };
        let of = figure_units(&enemies);
        out.push(
            Proposal::new(
                "A unit lying in wait sights the enemy",
                json!({"type": "sighted", "by": by.id}),
                format!("an enemy unit enters {} line of sight", possessive(&by.id)),
            )
            .with(
                Field::new("target", "the enemy unit sighted", Shape::OneOf { choices: of.clone() }, json!(first.id))
                    .by_referee(),
            ),
        );
        for (in_contact, says) in [(true, "comes into contact with"), (false, "is no longer in contact with")] {
            out.push(
                Proposal::new(
                    "Contact",
                    json!({"type": "contact", "unit": by.id, "in_contact": in_contact}),
                    format!("{} {says} an enemy unit", by.id),
                )
                .with(
                    Field::new("enemy", "the enemy unit", Shape::OneOf { choices: of.clone() }, json!(first.id))
                        .by_referee(),
                ),
            );
        }
        let ranks = figure_choices(members(state, &by.id).into_iter());
        out.push(
            Proposal::new(
                "A command check",
                json!({"type": "command-check", "unit": by.id}),
                format!("a command check for figures of {} (all but the leader by default)", by.id),
            )
            .with(
                Field::new("reason", "why the check is called for", Shape::Text, json!("the referee calls for one"))
                    .by_referee(),
            )
            .with(
                Field::optional(
                    "figures",
                    "the figures checked (by default all but the leader)",
                    Shape::SomeOf { choices: ranks.clone(), min: 1, max: ranks.len() },
                    None,
                )
                .by_referee(),
            ),
        );
    }
    let alive = figure_choices(state.figures_in_order().filter(|f| f.in_play()));
    if let Some(first) = alive.first().map(|c| c.value.clone()) {
        let effects = choices([("killed", "killed"), ("incapacitated", "incapacitated")]);
        out.push(
            Proposal::new("A casualty", json!({"type": "casualty"}), "a figure is killed or incapacitated")
                .with(Field::new("figure", "the figure", Shape::OneOf { choices: alive }, first).by_referee())
                .with(
                    Field::new("effect", "killed or incapacitated", Shape::OneOf { choices: effects }, json!("killed"))
                        .by_referee(),
                )
                .with(
                    Field::new("reason", "why, for the record", Shape::Text, json!("a sniper off-table")).by_referee(),
                ),
        );
    }
}

/// CP spent and left, command checks' and melee attacks' target numbers.
pub(super) fn known(state: &State, facts: &[Fact]) -> Known {
    let mut known = Known::default();
    let check = if state.config.command_check_equal_passes { Passes::AtMost } else { Passes::Under };
    let cp = |amount: u32, left: u32| Some(Cost { amount, unit: "CP".into(), left: Some(left) });
    for fact in facts {
        match fact {
            Fact::CpSpent { cp: spent, cp_left, .. } => known.cost = cp(*spent, *cp_left),
            Fact::Consolidated { cost, cp_after, .. }
            | Fact::Detached { cost, cp_after, .. }
            | Fact::Reorganised { cost, cp_after, .. }
            | Fact::SquadsReorganised { cost, cp_after, .. } => known.cost = cp(*cost, *cp_after),
            Fact::CommandChecked { figure, check: Check::Rolled { target, .. }, .. } => known.targets.push(Target {
                what: format!("command check of {figure}"),
                roll: "d10".into(),
                needed: *target,
                passes: check,
            }),
            Fact::MeleeRolled { attacker, value, .. } => known.targets.push(Target {
                what: format!("melee attack of {attacker}"),
                roll: "d10".into(),
                needed: *value,
                passes: Passes::Under,
            }),
            _ => {}
        }
    }
    known
}
