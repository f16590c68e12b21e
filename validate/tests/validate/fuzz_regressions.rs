//! The fuzz regression corpus (`fuzz/regressions/<target>/`): every input
//! that once crashed a reader, and a few dozen minimized corpus inputs per
//! reader, fed through the same functions as the `cargo fuzz` targets
//! (`fuzz/src/lib.rs`, included here). A reader must return `Ok` or `Err`
//! on each; a panic fails the test with the file's name. See
//! `docs/FUZZING.md`.

#[path = "../../../fuzz/src/lib.rs"]
#[allow(dead_code, unreachable_pub)]
mod harness;

use std::path::Path;

#[test]
fn fuzz_regression_corpus_replays_without_panics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions");
    let mut replayed = 0;
    for &(target, feed) in harness::TARGETS {
        let dir = root.join(target);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}: no regression inputs", dir.display());
        for f in files {
            let data = std::fs::read(&f).unwrap();
            let outcome = std::panic::catch_unwind(|| feed(&data));
            assert!(outcome.is_ok(), "{target}: {} panicked", f.display());
            replayed += 1;
        }
    }
    assert!(replayed > 0);
}
