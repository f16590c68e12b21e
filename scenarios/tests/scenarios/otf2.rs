//! The OTF2 reader on the shared sample (`traces/otf2/sst-macro-10ranks`,
//! 10 ranks written by Score-P 2.0.2), checked against an independent
//! decode: `otf2-print` (from the OTF2 project, in Debian's `otf2-tools`;
//! the library is `libotf2-trace-dev`). Needs the `otf2` feature (`cargo test -p
//! scenarios --features otf2`); without it, the error that says how to
//! enable it is checked instead.

#[cfg(feature = "otf2")]
use std::collections::BTreeMap;

#[cfg(feature = "otf2")]
use scenarios::trace::TraceFormat;
use scenarios::trace::{TraceConfig, open_path};

use super::data;

const SAMPLE: &str = "traces/otf2/sst-macro-10ranks/traces.otf2";

#[cfg(not(feature = "otf2"))]
#[test]
fn without_the_feature_the_error_says_how_to_enable_it() {
    let e = open_path(&data(SAMPLE), None, &TraceConfig::default())
        .err()
        .expect("no OTF2 without the feature");
    assert!(e.message.contains("--features otf2"), "{e}");
    assert!(e.message.contains("libotf2-trace-dev"), "{e}");
    assert!(e.origin.source.ends_with("traces.otf2"), "{e}");
}

/// Per rank: operation names (the `Op` variant) and their counts, and the
/// sum of the `Compute` durations [ps].
#[cfg(feature = "otf2")]
fn replay_counts() -> Vec<(BTreeMap<String, u64>, u64)> {
    use mpi_layer::{Op, OpStream};
    // Detected from the extension; a directory holding the anchor works too.
    let mut streams = open_path(&data(SAMPLE), None, &TraceConfig::default()).unwrap();
    let dir = data(SAMPLE).parent().unwrap().to_path_buf();
    assert_eq!(
        open_path(&dir, Some(TraceFormat::Otf2), &TraceConfig::default())
            .unwrap()
            .len(),
        10
    );
    streams
        .iter_mut()
        .map(|s| {
            let (mut m, mut compute) = (BTreeMap::new(), 0);
            while let Some((op, _)) = s.next_op().unwrap() {
                if let Op::Compute { duration } = op {
                    compute += duration.as_ps();
                }
                let name = format!("{op:?}");
                let name = name.split([' ', '{', '(']).next().unwrap().to_string();
                *m.entry(name).or_insert(0) += 1;
            }
            (m, compute)
        })
        .collect()
}

/// From `otf2-print -L RANK`'s text: the count of each record kind, and
/// the ticks between one MPI region's LEAVE and the next one's ENTER
/// (every region of this trace is an MPI call, none nested).
#[cfg(feature = "otf2")]
fn otf2_print(rank: u32) -> (BTreeMap<String, u64>, u64) {
    let out = std::process::Command::new("otf2-print")
        .args(["-L", &rank.to_string()])
        .arg(data(SAMPLE))
        .output()
        .expect("otf2-print (Debian package otf2-tools) runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let (mut kinds, mut gaps, mut last) = (BTreeMap::new(), 0u64, None);
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 3 || f[1] != rank.to_string() {
            continue;
        }
        *kinds.entry(f[0].to_string()).or_insert(0) += 1;
        let t: u64 = f[2].parse().unwrap();
        match f[0] {
            "ENTER" => {
                if let Some(l) = last {
                    gaps += t - l;
                }
            }
            "LEAVE" => last = Some(t),
            _ => {}
        }
    }
    (kinds, gaps)
}

/// Every rank's operations against the independent decode: one `Isend`
/// per MPI_ISEND record, one `Irecv` per MPI_IRECV_REQUEST (posted with
/// the size of its MPI_IRECV), one collective per MPI_COLLECTIVE_END, the
/// computation equal to the gaps between regions at the clock's 1995386627
/// ticks per second (each gap rounded once to a picosecond: at most 1 ps
/// off per gap), and the exact counts of this trace.
#[cfg(feature = "otf2")]
#[test]
fn sample_matches_otf2_print() {
    const TICKS_PER_S: f64 = 1_995_386_627.0;
    let ours = replay_counts();
    assert_eq!(ours.len(), 10);
    for (r, (ops, compute)) in ours.iter().enumerate() {
        let (kinds, gap_ticks) = otf2_print(r as u32);
        let k = |s: &str| kinds.get(s).copied().unwrap_or(0);
        let o = |s: &str| ops.get(s).copied().unwrap_or(0);
        assert_eq!(o("Isend"), k("MPI_ISEND"), "rank {r}");
        assert_eq!(o("Irecv"), k("MPI_IRECV_REQUEST"), "rank {r}");
        assert_eq!(o("Irecv"), k("MPI_IRECV"), "rank {r}");
        let colls: u64 = [
            "Allgather",
            "Allreduce",
            "Alltoall",
            "Bcast",
            "Gather",
            "Reduce",
            "Scatter",
        ]
        .iter()
        .map(|c| o(c))
        .sum();
        assert_eq!(colls, k("MPI_COLLECTIVE_END"), "rank {r}");
        // 701 regions, so 700 gaps.
        assert_eq!(o("Compute"), k("ENTER") - 1, "rank {r}");
        let expect = gap_ticks as f64 / TICKS_PER_S * 1e12;
        assert!(
            (*compute as f64 - expect).abs() <= 700.0 + expect * 1e-12,
            "rank {r}: compute {compute} ps, otf2-print gaps {expect} ps"
        );
        // This trace's counts (the same on every rank): 144 Isend and 144
        // Irecv completed by 48 Waitall (3 each); 36 Allgather,
        // Allreduce, Alltoall; 3 Bcast, Gather, Reduce, Scatter; the
        // communicators of the definitions: 4 pairs (CommGroup once,
        // GroupIncl + CommCreate + GroupFree each, GroupFree of the
        // world group) and 3 of single ranks (CommSplit each).
        let want: BTreeMap<String, u64> = [
            ("Allgather", 36),
            ("Allreduce", 36),
            ("Alltoall", 36),
            ("Bcast", 3),
            ("CommCreate", 4),
            ("CommGroup", 1),
            ("CommSplit", 3),
            ("Compute", 700),
            ("Gather", 3),
            ("GroupFree", 5),
            ("GroupIncl", 4),
            ("Irecv", 144),
            ("Isend", 144),
            ("Reduce", 3),
            ("Scatter", 3),
            ("Waitall", 48),
        ]
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect();
        assert_eq!(ops, &want, "rank {r}");
    }
}
