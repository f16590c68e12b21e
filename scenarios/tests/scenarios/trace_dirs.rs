//! A directory given where a trace is expected: accepted when it holds
//! one trace (a DUMPI `.meta`, SimGrid's per-rank TI files, one native,
//! GOAL or CSV file), refused with a message saying what to pass
//! otherwise. Uses the shared data folder (`NETSIM_SHARED`, else
//! `../shared` beside the workspace; the tests fail without it).

use std::path::PathBuf;

use scenarios::trace::{DirTrace, TraceConfig, TraceFormat, open_path, resolve_dir};

fn data(rel: &str) -> PathBuf {
    scenarios::shared::shared_path(rel).unwrap_or_else(|e| panic!("{e}"))
}

/// A fresh scratch directory holding `files` (name, text).
pub(super) fn scratch(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netsim-dirs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (f, text) in files {
        std::fs::write(d.join(f), text).unwrap();
    }
    d
}

#[test]
fn a_folder_of_per_rank_ti_files_is_that_trace() {
    let dir = data("traces/simgrid-ti/app-32ranks");
    let DirTrace::TiRankFiles(files) = resolve_dir(&dir, None).unwrap() else {
        panic!("not per-rank files");
    };
    assert_eq!(files.len(), 32);
    // Numeric order, not name order: ti_trace10 is rank 10.
    assert_eq!(files[10], dir.join("ti_trace10.txt"));
    assert_eq!(files[2], dir.join("ti_trace2.txt"));
    let streams = open_path(&dir, None, &TraceConfig::default()).unwrap();
    assert_eq!(streams.len(), 32);
    // The format named explicitly finds the same.
    assert_eq!(
        resolve_dir(&dir, Some(TraceFormat::SimGridTi)).unwrap(),
        DirTrace::TiRankFiles(files)
    );
}

#[test]
fn a_folder_with_one_dumpi_meta_is_that_trace() {
    let dir = data("traces/dumpi/sst-macro-testtrace");
    assert_eq!(
        resolve_dir(&dir, None).unwrap(),
        DirTrace::File(dir.join("testtrace.meta"), TraceFormat::Dumpi)
    );
    assert_eq!(
        open_path(&dir, None, &TraceConfig::default())
            .unwrap()
            .len(),
        4
    );
    let native = scratch(
        "native",
        &[("ring.trace", "0 barrier\n1 barrier\n"), ("README", "x")],
    );
    assert_eq!(
        resolve_dir(&native, None).unwrap(),
        DirTrace::File(native.join("ring.trace"), TraceFormat::Native)
    );
}

#[test]
fn other_folders_are_refused_with_what_to_pass() {
    let micro = data("traces/simgrid-ti/micro");
    let e = resolve_dir(&micro, None).unwrap_err().to_string();
    assert!(e.contains("micro: is a directory"), "{e}");
    assert!(e.contains("pass a trace file"), "{e}");
    let two = scratch("two-meta", &[("a.meta", ""), ("b.meta", "")]);
    let e = resolve_dir(&two, None).unwrap_err().to_string();
    assert!(
        e.contains("holding 2 DUMPI traces (a.meta, b.meta): pass the .meta file of one"),
        "{e}"
    );
    let gap = scratch("gap", &[("t0.txt", ""), ("t2.txt", "")]);
    let e = resolve_dir(&gap, None).unwrap_err().to_string();
    assert!(e.contains("are not one trace"), "{e}");
    // A format that the folder does not hold.
    let dumpi = data("traces/dumpi/sst-macro-testtrace");
    let e = resolve_dir(&dumpi, Some(TraceFormat::Goal))
        .unwrap_err()
        .to_string();
    assert!(e.contains("is a directory"), "{e}");
}
