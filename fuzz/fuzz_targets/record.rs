//! A whole record file, folded with and without the fast paths.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rollcall_fuzz::record(data));
