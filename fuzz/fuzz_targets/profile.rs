#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netsim_fuzz::profile(data));
