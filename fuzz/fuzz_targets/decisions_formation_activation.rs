//! Decisions of formation-activation, from any point of its fixture games.
#![no_main]

static STARTS: rollcall_fuzz::Starts = rollcall_fuzz::Starts::new(None);

const FIXTURES: &[&str] = &[
    include_str!("../../fixtures/formation-activation/62nd-regiment.json"),
    include_str!("../../fixtures/formation-activation/hq-destroyed.json"),
    include_str!("../../fixtures/formation-activation/out-of-command.json"),
    include_str!("../../fixtures/formation-activation/rally-leadership-adds-to-rating.json"),
    include_str!("../../fixtures/formation-activation/rally-per-hex.json"),
    include_str!("../../fixtures/formation-activation/rally.json"),
    include_str!("../../fixtures/formation-activation/three-turns.json"),
    include_str!("../../fixtures/formation-activation/two-chits.json"),
];

libfuzzer_sys::fuzz_target!(
    init: rollcall_fuzz::prepare(&STARTS, FIXTURES),
    |data: &[u8]| rollcall_fuzz::decisions(&STARTS, FIXTURES, data)
);
