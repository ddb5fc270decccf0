//! Decisions of combat-hq, from any point of its fixture games.
#![no_main]

static STARTS: rollcall_fuzz::Starts = rollcall_fuzz::Starts::new(None);

const FIXTURES: &[&str] = &[
    include_str!("../../fixtures/combat-hq/command-failure-base.json"),
    include_str!("../../fixtures/combat-hq/command-failure-multi-bg.json"),
    include_str!("../../fixtures/combat-hq/example-all-in-reserve.json"),
    include_str!("../../fixtures/combat-hq/example-four-companies-deployed.json"),
    include_str!("../../fixtures/combat-hq/showcase.json"),
    include_str!("../../fixtures/combat-hq/showcase.multi-bg.json"),
];

libfuzzer_sys::fuzz_target!(
    init: rollcall_fuzz::prepare(&STARTS, FIXTURES),
    |data: &[u8]| rollcall_fuzz::decisions(&STARTS, FIXTURES, data)
);
