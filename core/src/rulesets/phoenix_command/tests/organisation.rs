//! 2.2 Unit Organization: consolidation, detachment, reorganisation.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{given, in_operations, told, Given};
use crate::refusal::Shared;
use crate::rulesets::phoenix_command::{Fact, FormedSquad, FormedTeam, Refused};

/// alex's platoon 1-plt: an HQ team (lt, command rating 5, a 20" command
/// distance), squad 1-sqd of fire teams 1a (led by the squad leader sgt1)
/// and 1b (cpl1b), squad 2-sqd of 2a (sgt2) and 2b (cpl2b); each fire team a
/// unit. jason: one fire team j. CP: hq, 1a, 1b, 2a, 2b.
pub(super) fn platoon(cp: [u32; 5]) -> Value {
    let mut figures = vec![
        json!({"id": "lt", "team": "hq", "troop_quality": 4, "command_rating": 5, "command_distance_tenths": 200, "at": [0, -50]}),
        json!({"id": "hq-1", "team": "hq", "troop_quality": 3, "at": [20, -50]}),
        json!({"id": "j-lead", "team": "j", "troop_quality": 3, "command_rating": 3, "at": [0, 600]}),
    ];
    let teams = [
        ("1a", "sgt1", 4, [0, 0]),
        ("1b", "cpl1b", 3, [0, 30]),
        ("2a", "sgt2", 4, [100, 0]),
        ("2b", "cpl2b", 3, [100, 30]),
    ];
    for (team, leader, rating, [x, y]) in teams {
        figures.push(json!({"id": leader, "team": team, "troop_quality": 3, "command_rating": rating, "at": [x, y]}));
        for i in 1..3i64 {
            figures.push(json!({"id": format!("{team}-{i}"), "team": team, "troop_quality": 3, "at": [x + 20 * i, y]}));
        }
    }
    json!({
        "sides": ["alex", "jason"],
        "initiative": "alex",
        "command_distance_tenths": 60,
        "organisations": [
            {"id": "1-plt", "side": "alex", "kind": "platoon", "leader": "lt"},
            {"id": "hq", "parent": "1-plt", "kind": "headquarters", "leader": "lt"},
            {"id": "1-sqd", "parent": "1-plt", "kind": "squad", "leader": "sgt1"},
            {"id": "1a", "parent": "1-sqd", "kind": "fire team", "leader": "sgt1"},
            {"id": "1b", "parent": "1-sqd", "kind": "fire team", "leader": "cpl1b"},
            {"id": "2-sqd", "parent": "1-plt", "kind": "squad", "leader": "sgt2"},
            {"id": "2a", "parent": "2-sqd", "kind": "fire team", "leader": "sgt2"},
            {"id": "2b", "parent": "2-sqd", "kind": "fire team", "leader": "cpl2b"},
            {"id": "j", "side": "jason", "kind": "fire team", "leader": "j-lead"}
        ],
        "units": [
            {"organisation": "hq", "cp": cp[0]},
            {"organisation": "1a", "cp": cp[1]},
            {"organisation": "1b", "cp": cp[2]},
            {"organisation": "2a", "cp": cp[3]},
            {"organisation": "2b", "cp": cp[4]},
            {"organisation": "j"}
        ],
        "figures": figures
    })
}

fn move_figure(mut scenario: Value, figure: &str, at: [i64; 2]) -> Value {
    for f in scenario["figures"].as_array_mut().unwrap() {
        if f["id"] == figure {
            f["at"] = json!(at);
        }
    }
    scenario
}

fn activated(scenario: Value, unit: &str) -> Given {
    in_operations(scenario).decided(json!({"type": "activate", "unit": unit}))
}

pub(super) fn consolidate(org: &str) -> Value {
    json!({"type": "consolidate", "organisation": org})
}

/// "the Squad leader had 4 CP and the Team Leader of the second fire team had
/// 3 CP, following the consolidation, the Squad leader would have his
/// original CP less 2 for the consolidation leaving (4-2 =) 2 CP, and the
/// team leader of the second fire team would have lost the 3 CP"
#[test]
fn consolidation_costs_one_cp_per_sub_unit_and_the_other_leaders_cp_are_lost() {
    let g = activated(platoon([0, 4, 3, 0, 0]), "1a");
    let facts = g.when_rolling(consolidate("1-sqd"), &[]).facts();
    assert_eq!(
        facts,
        vec![Fact::Consolidated {
            organisation: "1-sqd".into(),
            kind: "squad".into(),
            side: "alex".into(),
            leader: "sgt1".into(),
            by: "1a".into(),
            units: vec!["1a".into(), "1b".into()],
            sub_units: vec!["1a".into(), "1b".into()],
            cost: 2,
            cp_before: 4,
            cp_after: 2,
            lost: [("1b".to_string(), 3)].into(),
            contact: Default::default(),
            ragged_interrupt_used: false,
        }]
    );
    assert_eq!(
        told(&facts),
        ["sgt1 consolidates 1a and 1b into the squad 1-sqd for 2 CP (sub-units 1a, 1b): 1a's 4 CP - 2 = 2 CP; 1b loses 3 CP."]
    );
    let g = g.decided(consolidate("1-sqd"));
    let squad = &g.state().units["1-sqd"];
    assert_eq!((squad.cp, squad.activated, squad.leader.as_deref()), (2, true, Some("sgt1")));
    assert!(!g.state().units.contains_key("1a") && !g.state().units.contains_key("1b"));
    assert_eq!(g.state().figures["1b-2"].unit, "1-sqd");
    // The squad goes on with what is left: here it accumulates.
    let facts = g.when_rolling(json!({"type": "accumulate"}), &[]).facts();
    assert!(matches!(facts[0], Fact::CpAccumulated { cp_before: 2, cp_after: 3, .. }));
}

/// "all sub-units to be consolidated must be within the Organization
/// Leader's Command Radius"
#[test]
fn consolidation_needs_every_sub_unit_within_the_leaders_command_distance() {
    let g = activated(move_figure(platoon([0, 4, 3, 0, 0]), "1b-2", [0, 70]), "1a");
    let e = g.when_rolling(consolidate("1-sqd"), &[]).refusal_of(Refused::BeyondCommandDistance);
    assert_eq!(e, "not within sgt1's command distance of 6.0\": 1b-2 (1b) is 7.0\" away; \"all sub-units to be consolidated must be within the Organization Leader's Command Radius\"");
}

#[test]
fn consolidation_refusals() {
    let g = activated(platoon([0, 1, 0, 0, 0]), "1a");
    let e = g.when_rolling(consolidate("1-sqd"), &[]).refusal_of(Refused::NoCp);
    assert_eq!(e, "consolidating 1-sqd (\"1 CP per sub-unit to be consolidated\": 1a and 1b) costs 2 CP and 1a has 1");
    let e = g.when_rolling(consolidate("2-sqd"), &[]).refusal_of(Refused::NotTheLeader);
    assert!(e.starts_with("2-sqd is led by sgt2, not by sgt1"), "{e}");
    // 1b acted first: it cannot act again inside the squad.
    let g = activated(platoon([0, 2, 3, 0, 0]), "1b")
        .decided(json!({"type": "pass"}))
        .decided(json!({"type": "activate", "unit": "1a"}));
    let e = g.when_rolling(consolidate("1-sqd"), &[]).refusal_of(Refused::ActivatedOnce);
    assert_eq!(e, "1b has already been activated this turn and cannot join 1-sqd: \"Once a unit has been activated in a turn, it cannot become activated again in the turn.\"");
}

/// "If the intent were to consolidate to a platoon, all the units would first
/// have to be consolidated into squads, and then the squads consolidated into
/// a platoon."
#[test]
fn a_platoon_consolidates_squads_not_fire_teams() {
    let g = activated(platoon([5, 0, 0, 0, 0]), "hq");
    let e = g.when_rolling(consolidate("1-plt"), &[]).refusal_of(Refused::NotOneUnit);
    assert_eq!(e, "1-sqd is not one unit (its figures act with 1a, 1b): \"If the intent were to consolidate to a platoon, all the units would first have to be consolidated into squads, and then the squads consolidated into a platoon.\"");
}

/// "A consolidated unit can detach units. Doing so costs 1 CP per unit
/// detached. A detached unit begins with no CP." — "Only 1 CP was required
/// for the detachment since officially, only one unit was detached"
#[test]
fn a_consolidated_unit_detaches_a_sub_unit_for_one_cp() {
    let g = activated(platoon([0, 4, 3, 0, 0]), "1a").decided(consolidate("1-sqd"));
    let e = g.when_rolling(json!({"type": "detach", "units": ["1a"]}), &[]).refusal_of(Refused::LeaderStays);
    assert_eq!(e, "1a holds 1-sqd's leader sgt1: the leader stays with his unit; detach the other sub-units");
    let e = g.when_rolling(json!({"type": "detach", "units": ["2a"]}), &[]).refusal_of(Refused::NotASubUnit);
    assert_eq!(e, "2a is not a sub-unit of 1-sqd that it can detach (it can detach 1a and 1b)");
    let e = g.when_rolling(consolidate("1-sqd"), &[]).refusal_of(Refused::NothingToConsolidate);
    assert_eq!(e, "1-sqd is already one unit: there is nothing to consolidate");
    let facts = g.when_rolling(json!({"type": "detach", "units": ["1b"]}), &[]).facts();
    assert_eq!(
        told(&facts),
        ["1-sqd detaches 1b (led by cpl1b: 1b-1, 1b-2, cpl1b) for 1 CP (2 - 1 = 1 CP); a detached unit begins with no CP."]
    );
    let g = g.decided(json!({"type": "detach", "units": ["1b"]}));
    let detached = &g.state().units["1b"];
    assert_eq!((detached.cp, detached.activated), (0, true));
    assert_eq!(g.state().units["1-sqd"].cp, 1);
    assert_eq!(g.state().figures["1b-1"].unit, "1b");
    assert_eq!(g.state().figures["1a-1"].unit, "1-sqd");
}

#[test]
fn a_fire_team_has_nothing_to_detach() {
    let g = activated(platoon([0, 4, 3, 0, 0]), "1a");
    let e = g.when_rolling(json!({"type": "detach", "units": ["1b"]}), &[]).refusal_of(Refused::NotASubUnit);
    assert_eq!(e, "1b is not a sub-unit of 1a that it can detach (it can detach none: it is not a consolidated unit)");
}

/// Squads 1 and 2 have each lost a fire team (2 alex figures each team).
pub(super) fn mauled() -> Given {
    let mut g = in_operations(platoon([5, 0, 0, 0, 0]));
    for f in ["1b-1", "1b-2", "cpl1b", "2b-1", "2b-2", "cpl2b"] {
        g = g.decided(json!({"type": "casualty", "figure": f, "effect": "killed", "reason": "heavy fighting"}));
    }
    g.decided(json!({"type": "activate", "unit": "hq"}))
}

fn reorganise(into: Value) -> Value {
    json!({"type": "reorganise", "organisation": "1-plt", "replaces": ["1-sqd", "2-sqd"], "into": into})
}

/// "The Platoon leader is able to expend CP to reorganize the remaining fire
/// teams into a single squad." — "as the reorganization results in the
/// formation of a single squad with two units, only 4 CP are required from
/// the platoon leader."
#[test]
fn reorganisation_costs_two_cp_per_remaining_sub_unit() {
    let g = mauled();
    let facts = g
        .when_rolling(
            reorganise(json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "1a"}, {"id": "2a"}]}])),
            &[],
        )
        .facts();
    let team = |id: &str, leader: &str, figures: [&str; 3]| FormedTeam {
        id: id.into(),
        kind: "fire team".into(),
        leader: leader.into(),
        figures: figures.iter().map(|f| f.to_string()).collect(),
        contact: Default::default(),
        moved_strategically: false,
        ragged_interrupt_used: false,
    };
    assert_eq!(
        facts,
        vec![Fact::Reorganised {
            organisation: "1-plt".into(),
            by: "hq".into(),
            leader: "lt".into(),
            cost: 4,
            cp_before: 5,
            cp_after: 1,
            replaced: ["1-sqd", "1a", "1b", "2-sqd", "2a", "2b"].map(String::from).to_vec(),
            squads: vec![FormedSquad {
                id: "1-sqd".into(),
                kind: "squad".into(),
                leader: "sgt1".into(),
                teams: vec![team("1a", "sgt1", ["1a-1", "1a-2", "sgt1"]), team("2a", "sgt2", ["2a-1", "2a-2", "sgt2"])]
            }],
            dissolved: BTreeMap::from([("1a".to_string(), 0), ("2a".to_string(), 0)]),
        }]
    );
    let g = g.decided(reorganise(json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "1a"}, {"id": "2a"}]}])));
    assert_eq!(g.state().organisations["2a"].parent.as_deref(), Some("1-sqd"));
    assert!(!g.state().organisations.contains_key("2-sqd"));
    assert_eq!(g.state().units["hq"].cp, 1);
    assert!(g.state().units["2a"].activated);
}

/// "reorganize all the individuals in the two squads into new fire teams"
#[test]
fn reorganisation_may_regroup_individuals_into_new_teams() {
    let g = mauled();
    let facts = g
        .when_rolling(
            reorganise(json!([{"id": "3-sqd", "leader": "sgt2", "teams": [
                {"id": "3a", "leader": "sgt2", "figures": ["sgt2", "1a-1", "2a-1"]},
                {"id": "3b", "leader": "sgt1", "figures": ["sgt1", "1a-2", "2a-2"]}
            ]}])),
            &[],
        )
        .facts();
    assert!(matches!(&facts[0], Fact::Reorganised { cost: 4, .. }));
    let g = g.decided(reorganise(json!([{"id": "3-sqd", "leader": "sgt2", "teams": [
        {"id": "3a", "leader": "sgt2", "figures": ["sgt2", "1a-1", "2a-1"]},
        {"id": "3b", "leader": "sgt1", "figures": ["sgt1", "1a-2", "2a-2"]}
    ]}])));
    assert_eq!(g.state().figures["1a-1"].team, "3a");
    assert!(!g.state().organisations.contains_key("1a"));
}

#[test]
fn reorganisation_refusals() {
    let g = mauled();
    let one = json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "1a"}]}]);
    let e = g.when_rolling(reorganise(one), &[]).refusal_of(Refused::LeftOut);
    assert_eq!(
        e,
        "2a-1, 2a-2 and sgt2 would be left out: every figure of 1-sqd and 2-sqd goes into one of the new teams"
    );
    let twice = json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "1a"}, {"id": "2a", "leader": "sgt2", "figures": ["sgt2", "2a-1", "2a-2", "sgt1"]}]}]);
    let e = g.when_rolling(reorganise(twice), &[]).refusal_of(Shared::NamedTwice);
    assert_eq!(e, "sgt1 is put in two teams");
    let outsider = json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "1a"}, {"id": "2a", "leader": "lt", "figures": ["sgt2", "2a-1", "2a-2"]}]}]);
    let e = g.when_rolling(reorganise(outsider), &[]).refusal_of(Refused::LeadFromWithin);
    assert_eq!(e, "lt is not in team 2a: a leader leads from within his team");
    let e = g
        .when_rolling(json!({"type": "reorganise", "organisation": "1-plt", "replaces": ["hq"], "into": []}), &[])
        .refusal_of(Refused::TwoLevelsBelow);
    assert_eq!(e, "hq has no sub-units: reorganisation orders reach units two levels below the leader who gives them");
    let e = g
        .when_rolling(json!({"type": "reorganise", "organisation": "1-plt", "replaces": ["1a"], "into": []}), &[])
        .refusal_of(Refused::TwoLevelsBelow);
    assert_eq!(
        e,
        "1a is not directly under 1-plt: reorganisation orders reach units two levels below the leader who gives them"
    );
}

/// "As with consolidation, the units being reorganized must be within the
/// Reorganizing leader's Command Distance." — and the CP must be there.
#[test]
fn reorganisation_needs_command_distance_and_cp() {
    let far = move_figure(platoon([5, 0, 0, 0, 0]), "2a-2", [400, 0]);
    let mut g = in_operations(far);
    for f in ["1b-1", "1b-2", "cpl1b", "2b-1", "2b-2", "cpl2b"] {
        g = g.decided(json!({"type": "casualty", "figure": f, "effect": "killed", "reason": "heavy fighting"}));
    }
    let g = g.decided(json!({"type": "activate", "unit": "hq"}));
    let e = g
        .when_rolling(
            reorganise(json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "1a"}, {"id": "2a"}]}])),
            &[],
        )
        .refusal_of(Refused::BeyondCommandDistance);
    assert_eq!(e, "not within lt's command distance of 20.0\": 2a-2 (2a) is 40.4\" away; \"the units being reorganized must be within the Reorganizing leader's Command Distance\"");
    let g = in_operations(platoon([3, 0, 0, 0, 0])).decided(json!({"type": "activate", "unit": "hq"}));
    let e = g.when_rolling(reorganise(
            json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "1a"}, {"id": "1b"}, {"id": "2a"}, {"id": "2b"}]}]),
        ), &[]).refusal_of(Refused::NoCp);
    assert_eq!(e, "reorganising into 4 fire teams (\"2 CP for each sub-unit affected\") costs 8 CP and hq has 3");
}

/// A fire team that moved strategically, reorganised into
/// a new unit, fired a ragged interrupt the same turn and counted again
/// among the active combatants — the new unit was formed without its
/// members' restrictions. It "may not act in the operations phase" and is
/// "not eligible to fire" (N41).
#[test]
fn a_reorganised_unit_keeps_the_strategic_move_of_its_figures() {
    let mut g = given(platoon([5, 0, 0, 0, 0])).decided(json!({"type": "begin-turn"}));
    for f in ["1b-1", "1b-2", "cpl1b", "2b-1", "2b-2", "cpl2b"] {
        g = g.decided(json!({"type": "casualty", "figure": f, "effect": "killed", "reason": "heavy fighting"}));
    }
    let g = g.decided_all(&[
        json!({"type": "strategic-move", "unit": "2a"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "hq"}),
    ]);
    assert_eq!(g.state().turn.as_ref().unwrap().counts["alex"], 5);
    let into = json!([{"id": "3-sqd", "leader": "sgt2", "teams": [
        {"id": "3a", "leader": "sgt2", "figures": ["sgt2", "1a-1", "2a-1"]},
        {"id": "3b", "leader": "sgt1", "figures": ["sgt1", "1a-2", "2a-2"]}
    ]}]);
    let facts = g.when_rolling(reorganise(into.clone()), &[]).facts();
    let Fact::Reorganised { squads, .. } = &facts[0] else { panic!("{facts:?}") };
    assert!(squads[0].teams.iter().all(|t| t.moved_strategically));
    let g = g.decided(reorganise(into));
    assert!(g.state().units["3a"].strategic && g.state().units["3b"].strategic);
    assert_eq!(super::super::lookup::active_combatants(g.state())["alex"], 2);
    let e = g
        .when_rolling(json!({"type": "sighted", "target": "j", "by": "3a"}), &[])
        .refusal_of(Refused::StrategicMovementBarsFire);
    assert_eq!(e, "3a moved strategically this turn and is not eligible to fire");
}

/// N41: a consolidated unit has attempted the ragged interrupt any of its
/// sub-units attempted this turn ("A unit can only attempt one Ragged
/// Interrupt in a turn"), and so has a unit it detaches.
#[test]
fn a_consolidated_unit_keeps_the_ragged_interrupt_its_sub_units_spent() {
    let g = in_operations(platoon([0, 4, 0, 0, 0]))
        .decided_rolling(
            json!({"type": "sighted", "target": "j", "by": "1b"}),
            &[("check:1b-1", &[0]), ("check:1b-2", &[0])],
        )
        .decided(json!({"type": "activate", "unit": "1a"}));
    let facts = g.when_rolling(consolidate("1-sqd"), &[]).facts();
    assert!(matches!(facts[0], Fact::Consolidated { ragged_interrupt_used: true, .. }), "{facts:?}");
    let g = g.decided(consolidate("1-sqd"));
    assert!(g.state().units["1-sqd"].ragged_interrupt_used);
    let g = g.decided(json!({"type": "detach", "units": ["1b"]}));
    assert!(g.state().units["1b"].ragged_interrupt_used);
}

/// `platoon`, with a third fire team 1c (cpl1c, 1c-1) in 1-sqd, standing at
/// `at`, with 2 CP.
fn three_teams(cp_1a: u32, at: [i64; 2]) -> Value {
    let mut s = platoon([0, cp_1a, 0, 0, 0]);
    s["organisations"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "1c", "parent": "1-sqd", "kind": "fire team", "leader": "cpl1c"}));
    s["units"].as_array_mut().unwrap().push(json!({"organisation": "1c", "cp": 2}));
    let figures = s["figures"].as_array_mut().unwrap();
    figures.push(json!({"id": "cpl1c", "team": "1c", "troop_quality": 3, "command_rating": 3, "at": at}));
    figures.push(json!({"id": "1c-1", "team": "1c", "troop_quality": 3, "at": [at[0] + 20, at[1]]}));
    s
}

fn consolidate_named(org: &str, subs: &[&str]) -> Value {
    json!({"type": "consolidate", "organisation": org, "sub_units": subs})
}

/// N46: "all sub-units to be consolidated must be within
/// the Organization Leader's Command Radius. Consolidation requires 1 CP per
/// sub-unit to be consolidated." — the engine merged every sub-unit, so a
/// third fire team far away blocked consolidating the other two. The leader
/// names the sub-units to be consolidated; option
/// `consolidate-whole-organisation` takes the whole organisation.
#[test]
fn a_leader_consolidates_the_sub_units_he_names() {
    let g = activated(three_teams(4, [400, 0]), "1a");
    let e = g.when_rolling(consolidate("1-sqd"), &[]).refusal_of(Refused::BeyondCommandDistance);
    assert!(
        e.starts_with(
            "not within sgt1's command distance of 6.0\": 1c-1 (1c) is 42.0\" away and cpl1c (1c) is 40.0\" away"
        ),
        "{e}"
    );
    let facts = g.when_rolling(consolidate_named("1-sqd", &["1a", "1b"]), &[]).facts();
    assert!(matches!(&facts[0], Fact::Consolidated { cost: 2, cp_after: 2, units, .. } if units == &["1a", "1b"]));
    let g = g.decided(consolidate_named("1-sqd", &["1a", "1b"]));
    assert_eq!(g.state().figures["1b-1"].unit, "1-sqd");
    assert_eq!(g.state().figures["1c-1"].unit, "1c");
    let e = g.when_rolling(consolidate_named("1-sqd", &["2a"]), &[]).refusal_of(Refused::NotASubUnit);
    assert_eq!(e, "2a is not a sub-unit of 1-sqd with figures in play (1a, 1b and 1c)");
    // Under the option the whole squad consolidates, or nothing.
    let g = super::given_with(three_teams(4, [400, 0]), &["consolidate-whole-organisation"]).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "1a"}),
    ]);
    let e = g.when_rolling(consolidate_named("1-sqd", &["1a", "1b"]), &[]).refusal_of(Refused::ConsolidateWhole);
    assert!(e.starts_with("1c would be left out of 1-sqd (consolidate-whole-organisation)"), "{e}");
}

/// N46: a sub-unit left out may join the consolidated unit later, for its
/// own CP only; the others are consolidated already.
#[test]
fn a_sub_unit_left_out_joins_later_for_one_cp() {
    let g = activated(three_teams(4, [0, 50]), "1a").decided(consolidate_named("1-sqd", &["1a", "1b"]));
    assert_eq!(g.state().units["1-sqd"].cp, 2);
    let facts = g.when_rolling(consolidate("1-sqd"), &[]).facts();
    assert!(
        matches!(&facts[0], Fact::Consolidated { cost: 1, cp_before: 2, cp_after: 1, sub_units, lost, .. }
            if sub_units == &["1c"] && lost == &BTreeMap::from([("1c".to_string(), 2)])),
        "{facts:?}"
    );
    let g = g.decided(consolidate("1-sqd"));
    assert_eq!(g.state().figures["1c-1"].unit, "1-sqd");
    let e = g.when_rolling(consolidate("1-sqd"), &[]).refusal_of(Refused::NothingToConsolidate);
    assert_eq!(e, "1-sqd is already one unit: there is nothing to consolidate");
}

/// alex's company a-coy: the captain's headquarters (6 CP, a 30" command
/// distance), platoons 1-plt and 2-plt, each of one squad of one fire team
/// (1-sqd: 1a, sgt1 and 1a-1, 2 CP; 2-sqd: 2a, sgt2 and 2a-1, 1 CP).
fn company() -> Value {
    json!({
        "sides": ["alex", "jason"],
        "initiative": "alex",
        "command_distance_tenths": 60,
        "organisations": [
            {"id": "a-coy", "side": "alex", "kind": "company", "leader": "capt"},
            {"id": "coy-hq", "parent": "a-coy", "kind": "headquarters", "leader": "capt"},
            {"id": "1-plt", "parent": "a-coy", "kind": "platoon", "leader": "sgt1"},
            {"id": "1-sqd", "parent": "1-plt", "kind": "squad", "leader": "sgt1"},
            {"id": "1a", "parent": "1-sqd", "kind": "fire team", "leader": "sgt1"},
            {"id": "2-plt", "parent": "a-coy", "kind": "platoon", "leader": "sgt2"},
            {"id": "2-sqd", "parent": "2-plt", "kind": "squad", "leader": "sgt2"},
            {"id": "2a", "parent": "2-sqd", "kind": "fire team", "leader": "sgt2"},
            {"id": "j", "side": "jason", "kind": "fire team", "leader": "j-lead"}
        ],
        "units": [
            {"organisation": "coy-hq", "cp": 6},
            {"organisation": "1a", "cp": 2},
            {"organisation": "2a", "cp": 1},
            {"organisation": "j"}
        ],
        "figures": [
            {"id": "capt", "team": "coy-hq", "troop_quality": 4, "command_rating": 6, "command_distance_tenths": 300, "at": [0, -50]},
            {"id": "sgt1", "team": "1a", "troop_quality": 3, "command_rating": 4, "at": [0, 0]},
            {"id": "1a-1", "team": "1a", "troop_quality": 3, "at": [20, 0]},
            {"id": "sgt2", "team": "2a", "troop_quality": 3, "command_rating": 4, "at": [100, 0]},
            {"id": "2a-1", "team": "2a", "troop_quality": 3, "at": [120, 0]},
            {"id": "j-lead", "team": "j", "troop_quality": 3, "command_rating": 3, "at": [0, 600]}
        ]
    })
}

fn reorganise_coy(into: Value) -> Value {
    json!({"type": "reorganise", "organisation": "a-coy", "replaces": ["1-plt", "2-plt"], "into": into})
}

/// N57: "a company leader would be necessary to give
/// reorganization orders to squads" — the engine refused a company
/// leader's reorganisation quoting that very sentence. He regroups whole
/// squads into new platoons, 2 CP per squad; the squads' units keep their
/// figures but lose their CP and count as activated.
#[test]
fn a_company_leader_reorganises_squads_into_platoons() {
    let g = activated(company(), "coy-hq");
    let into = json!([{"id": "1-plt", "leader": "sgt1", "squads": [{"id": "1-sqd"}, {"id": "2-sqd"}]}]);
    let facts = g.when_rolling(reorganise_coy(into.clone()), &[]).facts();
    assert_eq!(
        told(&facts),
        ["capt reorganises a-coy into platoon 1-plt led by sgt1 with 1-sqd and 2-sqd for 4 CP (coy-hq: 6 - 4 = 2 CP); the squads' units lose their CP: 1a (2 CP lost), 2a (1 CP lost)."]
    );
    let g = g.decided(reorganise_coy(into));
    assert_eq!(g.state().organisations["2-sqd"].parent.as_deref(), Some("1-plt"));
    assert!(!g.state().organisations.contains_key("2-plt"));
    assert_eq!((g.state().units["2a"].cp, g.state().units["2a"].activated), (0, true));
    assert_eq!(g.state().units["coy-hq"].cp, 2);
}

#[test]
fn a_company_leaders_reorganisation_refusals() {
    let g = activated(company(), "coy-hq");
    let e = g
        .when_rolling(reorganise_coy(json!([{"id": "1-plt", "leader": "sgt1", "squads": [{"id": "1-sqd"}]}])), &[])
        .refusal_of(Refused::LeftOut);
    assert_eq!(e, "2-sqd would be left out: every squad of 1-plt and 2-plt goes into one of the new platoons");
    let e = g.when_rolling(reorganise_coy(
            json!([{"id": "1-plt", "leader": "sgt1", "squads": [{"id": "1-sqd"}, {"id": "2-sqd", "figures": ["sgt2"]}]}]),
        ), &[]).refusal_of(Refused::WholeUnits);
    assert!(e.starts_with("2-sqd is not a squad of 1-plt and 2-plt kept whole"), "{e}");
    let e = g
        .when_rolling(
            reorganise_coy(json!([{"id": "1-plt", "leader": "capt", "squads": [{"id": "1-sqd"}, {"id": "2-sqd"}]}])),
            &[],
        )
        .refusal_of(Refused::LeadFromWithin);
    assert_eq!(e, "capt cannot lead platoon 1-plt: a leader with a command rating leads from within his platoon");
}

/// The platoon with 1a (sgt1, 4 CP) and 1b (3 CP); jason's fire team j
/// lies in wait with a held interrupt CP: j-lead and two riflemen, j-1 and
/// j-2 (troop quality 3, j-lead's rating 3: a Command Check Target of 6).
pub(super) fn platoon_under_watch() -> Value {
    let mut s = platoon([0, 4, 3, 0, 0]);
    s["units"][5] = json!({"organisation": "j", "interrupt_set": true});
    for i in 1..3 {
        s["figures"].as_array_mut().unwrap().push(
            json!({"id": format!("j-{i}"), "team": "j", "troop_quality": 3, "at": [20 * i, 600], "weapons": ["rifle"]}),
        );
    }
    s["weapons"] = json!({"rifle": {"max_shots": 3, "pen": 20, "sdm": 3}});
    s
}

/// 1a active, and in j's line of sight: both riflemen hold on entering it.
pub(super) fn watched(g: Given) -> Given {
    g.decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "1a"}),
    ])
    .decided_rolling(json!({"type": "sighted", "target": "1a", "by": "j"}), &[("check:j-1", &[0]), ("check:j-2", &[0])])
}

fn checks(facts: &[Fact]) -> usize {
    facts.iter().filter(|f| matches!(f, Fact::CommandChecked { .. })).count()
}

/// N19: "Each CP the target spends after entering the ambusher's LOS
/// requires a Command Check to be done for each figure under the ambush team
/// leader's control." A consolidation spent its 2 CP inside j's line of
/// sight with no check at all. Now each CP has its round of checks, before
/// the order takes effect.
#[test]
fn each_cp_of_an_organisation_order_in_an_ambushers_sight_is_checked() {
    let g = watched(given(platoon_under_watch()));
    let facts = g.when_rolling(consolidate("1-sqd"), &[("check:j-1", &[0, 0]), ("check:j-2", &[0, 0])]).facts();
    assert_eq!(checks(&facts), 4, "{:?}", told(&facts));
    assert!(matches!(facts[4], Fact::Consolidated { .. }), "{:?}", told(&facts));
    assert_eq!(
        told(&facts)[0],
        "Command check for j-1 (1a spends another CP in j's line of sight): rolled 0 against a target of 6: passes."
    );
    // Detaching is an order like any other: the squad, sighted again, checks once.
    let g = g.decided_rolling(consolidate("1-sqd"), &[("check:j-1", &[0, 0]), ("check:j-2", &[0, 0])]).decided_rolling(
        json!({"type": "sighted", "target": "1-sqd", "by": "j"}),
        &[("check:j-1", &[0]), ("check:j-2", &[0])],
    );
    let facts =
        g.when_rolling(json!({"type": "detach", "units": ["1b"]}), &[("check:j-1", &[1]), ("check:j-2", &[1])]).facts();
    assert_eq!(checks(&facts), 2, "{:?}", told(&facts));
}

/// A rifleman failing his check on a consolidation's second CP blows the
/// ambush; the fire team he watched is now part of the squad, and the
/// ambush follows it there: his ragged fire comes before anything else.
#[test]
fn an_ambush_blown_by_a_consolidations_checks_follows_into_the_squad() {
    let g = watched(given(platoon_under_watch()));
    let dice: &[(&str, &[u32])] = &[("check:j-1", &[0, 9]), ("check:j-2", &[0, 0])];
    let facts = g.when_rolling(consolidate("1-sqd"), dice).facts();
    assert_eq!(
        facts.last(),
        Some(&Fact::AmbushFollowed { by: "j".into(), from: "1a".into(), to: "1-sqd".into() }),
        "{:?}",
        told(&facts)
    );
    assert_eq!(told(&facts).last().unwrap(), "1a is now part of 1-sqd: j's blown ambush fires on 1-sqd.");
    let g = g.decided_rolling(consolidate("1-sqd"), dice);
    let e = g.when_rolling(json!({"type": "spend-cp"}), &[]).refusal_of(Refused::AmbushBlown);
    assert!(e.starts_with("j's ambush is blown: j-1 must fire ragged at 1-sqd"), "{e}");
    let fire = json!({"type": "interrupt", "by": "j", "fire": [
        {"figure": "j-1", "weapon": "rifle", "target": "1b-1", "mode": "ragged", "odds": 3}
    ]});
    let facts = g.when_rolling(fire, &[("hit:j-1", &[9, 9, 9])]).facts();
    assert!(matches!(facts[0], Fact::InterruptFired { .. }), "{:?}", told(&facts));
}

/// Version 1 made no checks for organisation orders: its records verify as
/// they were played.
#[test]
fn under_version_1_organisation_orders_are_not_checked() {
    let g = watched(super::given_under_version_1(platoon_under_watch()));
    let facts = g.when_rolling(consolidate("1-sqd"), &[]).facts();
    assert_eq!(checks(&facts), 0, "{:?}", told(&facts));
}
