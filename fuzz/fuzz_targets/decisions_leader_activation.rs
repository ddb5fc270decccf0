//! Decisions of leader-activation, from any point of its fixture games.
#![no_main]

static STARTS: rollcall_fuzz::Starts = rollcall_fuzz::Starts::new(None);

const FIXTURES: &[&str] = &[
    include_str!("../../fixtures/leader-activation/disputes/failed-self-rally-keeps-leader-unactivated.json"),
    include_str!("../../fixtures/leader-activation/disputes/last-activation-rule.json"),
    include_str!("../../fixtures/leader-activation/disputes/natural-1-fails.json"),
    include_str!("../../fixtures/leader-activation/disputes/natural-6-rallies.json"),
    include_str!("../../fixtures/leader-activation/disputes/rallied-units-stay-idle.json"),
    include_str!("../../fixtures/leader-activation/disputes/self-rally-skill-modifier.json"),
    include_str!("../../fixtures/leader-activation/rally.json"),
    include_str!("../../fixtures/leader-activation/self-rally.json"),
    include_str!("../../fixtures/leader-activation/skips.json"),
];

libfuzzer_sys::fuzz_target!(
    init: rollcall_fuzz::prepare(&STARTS, FIXTURES),
    |data: &[u8]| rollcall_fuzz::decisions(&STARTS, FIXTURES, data)
);
