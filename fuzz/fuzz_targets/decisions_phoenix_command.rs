//! Decisions of phoenix-command, from any point of its fixture games.
#![no_main]

static STARTS: rollcall_fuzz::Starts = rollcall_fuzz::Starts::new(None);

const FIXTURES: &[&str] = &[
    include_str!("../../fixtures/phoenix-command/abandonment.json"),
    include_str!("../../fixtures/phoenix-command/accumulate-at-cap.json"),
    include_str!("../../fixtures/phoenix-command/activation-order.json"),
    include_str!("../../fixtures/phoenix-command/ambush.json"),
    include_str!("../../fixtures/phoenix-command/breveting.json"),
    include_str!("../../fixtures/phoenix-command/command-check.json"),
    include_str!("../../fixtures/phoenix-command/consolidation.json"),
    include_str!("../../fixtures/phoenix-command/farmhouse-assault.json"),
    include_str!("../../fixtures/phoenix-command/five-turns.json"),
    include_str!("../../fixtures/phoenix-command/reorganisation.json"),
    include_str!("../../fixtures/phoenix-command/stragglers.json"),
    include_str!("../../fixtures/phoenix-command/stray-fire.json"),
    include_str!("../../fixtures/phoenix-command/three-turns.json"),
    include_str!("../../fixtures/phoenix-command/unused-cp-lost.json"),
];

libfuzzer_sys::fuzz_target!(
    init: rollcall_fuzz::prepare(&STARTS, FIXTURES),
    |data: &[u8]| rollcall_fuzz::decisions(&STARTS, FIXTURES, data)
);
