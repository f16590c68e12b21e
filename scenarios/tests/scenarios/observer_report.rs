//! The report rebuilt through the observer seam
//! ([`mpi_layer::ReportObserver`]) equals the built-in one, field by
//! field, on built-in workloads over the three transports, DUMPI and GOAL
//! traces, a native trace with timed regions and unexpected messages; and
//! for a deadlock the observer names the same blocked ranks and
//! operations as the built-in diagnosis.

use super::{scratch, write};
use mpi_layer::ReportObserver;
use scenarios::scenario::{self, Outcome};
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

/// Runs `path` (with `--set`-style overrides) with a [`ReportObserver`].
fn observed(path: &Path, sets: &[(&str, &str)]) -> (Result<Outcome, String>, ReportObserver) {
    let sets: Vec<(String, toml::Value)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), toml::Value::String(v.to_string())))
        .collect();
    let (src, sc) = scenario::load_with(path, &sets).unwrap_or_else(|e| panic!("{e}"));
    let (r, obs) = sc.run_observed(&src, u64::MAX, |_, _| {}, ReportObserver::default());
    (r.map_err(|e| e.to_string()), obs.expect("the run started"))
}

/// The observer's results and report equal the built-in ones.
fn same_report(path: &Path, sets: &[(&str, &str)]) -> Outcome {
    let (r, obs) = observed(path, sets);
    let o = r.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rebuilt = obs.results(o.results.events);
    assert_eq!(rebuilt, o.results, "{} {sets:?}: results", path.display());
    let report = o.report_for(&rebuilt);
    assert_eq!(report, o.report, "{} {sets:?}: report", path.display());
    // Field by field, as the JSON a user reads.
    assert_eq!(
        serde_json::to_value(&report).unwrap(),
        serde_json::to_value(&o.report).unwrap()
    );
    o
}

#[test]
fn built_in_workloads_over_every_transport() {
    let halo = example("halo-torus.toml");
    for mode in ["packet", "flow"] {
        let o = same_report(&halo, &[("transport.mode", mode)]);
        assert!(o.report.control_messages > 0, "rendezvous: RTS and CTS");
    }
    for ex in [
        "allreduce-infiniband.toml",
        "hvpp-fitted.toml",
        "ping-pong-ideal.toml",
        "one-to-many.toml",
        "stream-node.toml",
        "zhu-ethernet.toml",
        "trace-ti.toml",
    ] {
        same_report(&example(ex), &[]);
    }
    // Long searches: 64 receives pre-posted, matched in reverse order.
    let o = same_report(&example("hvpp-fitted.toml"), &[]);
    assert_eq!(o.report.matching.posted_recvs.max, 64);
    // Messages whose derived host term is clamped to zero.
    let o = same_report(&example("one-to-many.toml"), &[]);
    assert!(o.report.calibration_clamped > 0);
}

#[test]
fn dumpi_and_goal_traces() {
    let d = scratch("observer-dumpi");
    let meta = example("traces/dumpi/testtrace.meta");
    let s = write(
        &d,
        "d.toml",
        &format!(
            "[machine]\npreset = \"blue-waters\"\ndims = [2, 2, 1]\n[workload]\nkind = \"trace\"\npath = {:?}\n",
            meta.display().to_string()
        ),
    );
    let o = same_report(&s, &[]);
    assert!(o.report.messages > 0);
    same_report(&example("loggp-goal.toml"), &[]);
    for goal in ["chain.goal", "incast.goal", "train.goal"] {
        same_report(
            &example("loggp-goal.toml"),
            &[("workload.path", &format!("loggp/{goal}"))],
        );
    }
}

/// Timed regions, clamped messages aside: regions, unexpected messages
/// and a message nobody receives (`unmatched_messages`).
#[test]
fn native_trace_with_regions_and_an_unmatched_message() {
    let d = scratch("observer-native");
    write(
        &d,
        "t.trace",
        "0 region_begin id=1\n\
         0 send dst=1 tag=5 bytes=8\n\
         0 send dst=1 tag=6 bytes=100000\n\
         0 isend dst=1 tag=9 bytes=8 req=1\n\
         0 region_end id=1\n\
         0 region_begin id=2\n\
         0 allreduce bytes=64\n\
         0 region_end id=2\n\
         1 compute 5us\n\
         1 region_begin id=1\n\
         1 recv src=0 tag=6 bytes=100000\n\
         1 recv src=any tag=5 bytes=8\n\
         1 region_end id=1\n\
         1 allreduce bytes=64\n",
    );
    let s = write(
        &d,
        "s.toml",
        "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"trace\"\npath = \"t.trace\"\nformat = \"native\"\n",
    );
    let o = same_report(&s, &[]);
    assert_eq!(o.results.unmatched_messages, 1);
    // Rank 1 computes first: its receives find the messages waiting.
    assert!(o.report.matching.unexpected_msgs.max >= 1);
    assert_eq!(o.report.regions.len(), 2);
}

#[test]
fn a_deadlock_names_the_same_ranks_and_operations() {
    let d = scratch("observer-deadlock");
    write(
        &d,
        "t.txt",
        "0 init\n1 init\n2 init\n0 recv 1 0 8\n1 recv 0 0 8\n",
    );
    let s = write(
        &d,
        "s.toml",
        "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"trace\"\npath = \"t.txt\"\n",
    );
    let (r, obs) = observed(&s, &[]);
    let e = r.expect_err("deadlocks");
    let waiting = obs.waiting(3);
    assert_eq!(waiting.iter().map(|w| w.rank).collect::<Vec<_>>(), [0, 1]);
    assert!(e.contains("2 rank(s) blocked"), "{e}");
    for w in &waiting {
        let (op, origin) = w.op.as_ref().expect("a program's operation");
        let line = format!("rank {} blocked in {op} at {origin}", w.rank);
        assert!(e.contains(&line), "{line} not in {e}");
    }
}
