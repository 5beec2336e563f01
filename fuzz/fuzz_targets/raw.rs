#![no_main]
//! See `mcp_edge::fuzzing::raw` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_edge::fuzzing::raw(data));
