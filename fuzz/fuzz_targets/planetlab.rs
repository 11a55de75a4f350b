#![no_main]
// Target `planetlab`: see fuzz/README.md; the same call replays the saved findings in tests/integration/fuzz_regressions.rs.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = packlab::fuzzing::run("planetlab", data);
});
