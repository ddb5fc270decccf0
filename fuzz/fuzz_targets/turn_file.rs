//! A turn file (play by email), armoured or bare.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rollcall_fuzz::turn_file(data));
