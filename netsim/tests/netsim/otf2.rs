//! `netsim replay` of OTF2 traces: the shared sample on the ideal machine,
//! and the bad inputs of docs/BAD-INPUT.md (rows 61-66, 86, 89), each on a copy
//! of the sample with one thing broken. The rows that need the OTF2
//! library run with the `otf2` feature (`cargo test -p netsim
//! --features otf2`, as CI does); the others in every build.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SAMPLE: &str = "traces/otf2/sst-macro-10ranks";

fn sample() -> PathBuf {
    scenarios::shared::shared_path(SAMPLE).unwrap_or_else(|e| panic!("{e}"))
}

/// A writable copy of the sample archive in a fresh folder.
fn copy(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("netsim-otf2-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    let src = sample();
    for f in ["traces.otf2", "traces.def"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    for e in std::fs::read_dir(src.join("traces")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join("traces").join(p.file_name().unwrap())).unwrap();
    }
    dir
}

fn netsim(args: &[&str], path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netsim"))
        .arg("replay")
        .arg(path)
        .args(["--quiet", "--machine", "ideal"])
        .args(args)
        .output()
        .expect("netsim runs")
}

/// Exit 2, no panic, and stderr holding `message`.
fn fails(out: &Output, message: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "netsim panicked:\n{err}");
    assert_eq!(out.status.code(), Some(2), "exit code; stderr:\n{err}");
    assert!(err.contains(message), "stderr lacks `{message}`:\n{err}");
}

/// Row 61.
#[test]
fn otf2_missing_anchor() {
    let dir = copy("anchor");
    std::fs::remove_file(dir.join("traces.otf2")).unwrap();
    let out = netsim(&["--format", "otf2"], &dir.join("traces.otf2"));
    fails(&out, "traces.otf2: the OTF2 anchor file does not exist");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Row 62.
#[cfg(not(feature = "otf2"))]
#[test]
fn otf2_without_the_feature() {
    let out = netsim(&[], &sample().join("traces.otf2"));
    fails(
        &out,
        "traces.otf2: this netsim was built without OTF2 support: install the OTF2 library \
         (Debian: apt-get install libotf2-trace-dev) and rebuild with `--features otf2`",
    );
}

/// The sample replays on the ideal machine (500 ns, 100 GB/s) with the
/// Blue Waters MPI preset. The makespans are this build's measurements
/// (`netsim replay --machine ideal traces.otf2 [--compute-scale 0.5]`),
/// not hand-computed (3990 messages); what is independent is a bound:
/// the slowest rank, 6, computes 1474554 ticks / 1995386627 ticks/s =
/// 0.738982 ms between its MPI regions (the sum of its gaps in
/// `otf2-print -L 6`, which the scenarios tests compare with the reader),
/// so the makespan is at least that; halving the computation shortens the
/// run (by 0.415 ms: less than the 0.739 ms computed, more than its half,
/// as the waits it caused shrink too).
#[cfg(feature = "otf2")]
#[test]
fn otf2_sample_replays_on_the_ideal_machine() {
    let out = netsim(&["--json"], &sample().join("traces.otf2"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ranks"], 10);
    assert_eq!(v["makespan_ps"], 3_258_920_382u64);
    assert!(v["makespan_ps"].as_u64().unwrap() > 738_982_000);
    assert_eq!(v["messages"], 3990);
    // Half the computation: a smaller makespan.
    let half = netsim(
        &["--json", "--compute-scale", "0.5"],
        &sample().join("traces.otf2"),
    );
    let h: serde_json::Value = serde_json::from_slice(&half.stdout).unwrap();
    assert_eq!(h["makespan_ps"], 2_843_675_734u64);
    // Same inputs, same bits.
    let again = netsim(&["--json"], &sample().join("traces.otf2"));
    let strip = |o: &Output| {
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v.as_object_mut().unwrap().remove("wall");
        v
    };
    assert_eq!(strip(&out), strip(&again));
}

/// Row 63.
#[cfg(feature = "otf2")]
#[test]
fn otf2_rank_event_file_missing() {
    let dir = copy("rank");
    std::fs::remove_file(dir.join("traces/7.evt")).unwrap();
    let out = netsim(&[], &dir.join("traces.otf2"));
    fails(&out, "traces.otf2: rank 7's event file ");
    fails(&out, "traces/7.evt does not exist");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Row 64.
#[cfg(feature = "otf2")]
#[test]
fn otf2_truncated_event_file() {
    let dir = copy("truncated");
    let f = dir.join("traces/3.evt");
    let b = std::fs::read(&f).unwrap();
    std::fs::write(&f, &b[..15000]).unwrap();
    let out = netsim(&[], &dir.join("traces.otf2"));
    fails(
        &out,
        "traces/3.evt: the OTF2 library failed to read the events: Invalid or inconsistent record data",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Row 65.
#[cfg(feature = "otf2")]
#[test]
fn otf2_anchor_not_an_anchor() {
    let dir = copy("garbage");
    std::fs::write(dir.join("traces.otf2"), "hello\n").unwrap();
    let out = netsim(&[], &dir.join("traces.otf2"));
    fails(
        &out,
        "traces.otf2: the OTF2 library failed to open the anchor file",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Row 66.
#[cfg(feature = "otf2")]
#[test]
fn otf2_truncated_definitions() {
    let dir = copy("defs");
    let f = dir.join("traces.def");
    let b = std::fs::read(&f).unwrap();
    std::fs::write(&f, &b[..5000]).unwrap();
    let out = netsim(&[], &dir.join("traces.otf2"));
    fails(
        &out,
        "traces.otf2: the OTF2 library failed to read the global definitions",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Row 86: a damaged local definition file is named, not the anchor or
/// the event file.
#[cfg(feature = "otf2")]
#[test]
fn otf2_truncated_local_definitions() {
    let dir = copy("local-defs");
    let f = dir.join("traces/3.def");
    let b = std::fs::read(&f).unwrap();
    std::fs::write(&f, &b[..b.len() / 2]).unwrap();
    let out = netsim(&[], &dir.join("traces.otf2"));
    fails(
        &out,
        "traces/3.def: the OTF2 library failed to read location 3's local definitions",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Row 89: event files swapped between two ranks deadlock the replay
/// (OTF2 event files do not record their location); the error names the
/// ranks waiting for messages to themselves and their files.
#[cfg(feature = "otf2")]
#[test]
fn otf2_swapped_event_files_are_named() {
    let dir = copy("swapped");
    let t = dir.join("traces");
    std::fs::rename(t.join("0.evt"), t.join("x.evt")).unwrap();
    std::fs::rename(t.join("1.evt"), t.join("0.evt")).unwrap();
    std::fs::rename(t.join("x.evt"), t.join("1.evt")).unwrap();
    let out = netsim(&[], &dir.join("traces.otf2"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "netsim panicked:\n{err}");
    assert_eq!(out.status.code(), Some(3), "exit code; stderr:\n{err}");
    let t = dir.join("traces");
    let want = format!(
        "rank 0 ({}), rank 1 ({}) wait for messages in MPI_COMM_WORLD addressed to themselves",
        t.join("0.evt").display(),
        t.join("1.evt").display()
    );
    assert!(err.contains(&want), "stderr lacks `{want}`:\n{err}");
    assert!(err.contains("swapped or renamed?"), "{err}");
    // The sample as recorded names nothing of the kind.
    let ok = netsim(&[], &sample().join("traces.otf2"));
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
