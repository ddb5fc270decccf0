//! A house-rules file, and an inline version.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rollcall_fuzz::house_rules(data));
