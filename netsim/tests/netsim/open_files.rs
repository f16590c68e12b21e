//! Issue 12, finding 1: valid traces of more ranks than the open-file
//! limit replay, and a rank beyond what a trace may hold is a range
//! error naming file:line. Each replay runs `netsim` in a child shell
//! that lowers its own limit (`ulimit -n 256`), so the tests do not
//! change the limit of the test process.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Ranks in the traces: well above the 256 open files the child may have.
const RANKS: u32 = 2000;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netsim-open-files-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `netsim replay <args>` under `ulimit -n 256`.
fn replay_limited(args: &[&str]) -> Output {
    let mut cmd = String::from("ulimit -n 256 && exec \"$0\" replay");
    for i in 1..=args.len() {
        write!(cmd, " \"${{{i}}}\"").unwrap();
    }
    Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .arg(env!("CARGO_BIN_EXE_netsim"))
        .args(args)
        .output()
        .expect("sh runs")
}

fn assert_replays(args: &[&str]) -> String {
    let o = replay_limited(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "netsim replay {args:?} failed:\n{err}");
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains(&format!("ranks {RANKS}")) || out.contains(&format!("{RANKS} ranks")),
        "{out}"
    );
    out
}

/// Rank `r`'s TI actions: a ring exchange, a computation, an allreduce.
fn ti_rank(r: u32, n: u32) -> String {
    let (p, q) = ((r + n - 1) % n, (r + 1) % n);
    format!(
        "{r} init\n{r} irecv {p} 0 1024\n{r} send {q} 0 1024\n{r} wait {p} {r} 0\n\
         {r} compute 1e6\n{r} allreduce 8 0\n{r} finalize\n"
    )
}

#[test]
fn ti_2000_ranks_under_open_file_limit() {
    let d = dir("ti-shared");
    let trace = d.join("shared.ti");
    // Rank after rank, and a few lines interleaved.
    let mut text: String = (0..RANKS).map(|r| ti_rank(r, RANKS)).collect();
    text.push_str("0 barrier\n1 barrier\n");
    for r in 2..RANKS {
        writeln!(text, "{r} barrier").unwrap();
    }
    std::fs::write(&trace, text).unwrap();
    assert_replays(&[trace.to_str().unwrap(), "--machine", "ideal"]);
    let _ = std::fs::remove_dir_all(&d);
}

fn write_rank_files(d: &Path) -> Vec<String> {
    (0..RANKS)
        .map(|r| {
            let f = d.join(format!("ti_trace{r}.txt"));
            std::fs::write(&f, ti_rank(r, RANKS)).unwrap();
            f.to_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn ti_list_file_2000_ranks_under_open_file_limit() {
    let d = dir("ti-list");
    let files = write_rank_files(&d);
    let list = d.join("list.txt");
    std::fs::write(&list, files.join("\n")).unwrap();
    assert_replays(&[list.to_str().unwrap(), "--machine", "ideal"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn ti_rank_files_2000_ranks_under_open_file_limit() {
    let d = dir("ti-files");
    let files = write_rank_files(&d);
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["--format", "ti", "--machine", "ideal"]);
    assert_replays(&args);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn native_2000_ranks_under_open_file_limit() {
    let d = dir("native");
    let trace = d.join("ring.trace");
    let mut text = String::new();
    for r in 0..RANKS {
        let (p, q) = ((r + RANKS - 1) % RANKS, (r + 1) % RANKS);
        writeln!(text, "{r} irecv src={p} tag=0 bytes=64 req=1").unwrap();
        writeln!(text, "{r} send dst={q} tag=0 bytes=64").unwrap();
        writeln!(text, "{r} wait req=1").unwrap();
        writeln!(text, "{r} compute 1us").unwrap();
    }
    std::fs::write(&trace, text).unwrap();
    assert_replays(&[trace.to_str().unwrap(), "--machine", "ideal"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn ti_rank_above_the_rank_limit_is_a_range_error() {
    // The rank 4,000,000 gave "Too many open files"; it is now
    // below netsim's one rank limit (MAX_RANKS = 2^22) and would replay,
    // so the range error is checked just above the limit.
    let d = dir("ti-big-rank");
    let trace = d.join("big.ti");
    std::fs::write(&trace, "0 init\n0 compute 10\n5000000 compute 10\n").unwrap();
    let o = replay_limited(&[trace.to_str().unwrap(), "--machine", "ideal"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "should fail");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(&format!("{}:3:", trace.display())) && err.contains("rank 5000000"),
        "{err}"
    );
    assert!(!err.contains("Too many open files"), "{err}");

    let native = d.join("big.trace");
    std::fs::write(&native, "0 compute 1us\n5000000 compute 1us\n").unwrap();
    let o = replay_limited(&[native.to_str().unwrap(), "--machine", "ideal"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "should fail");
    assert!(
        err.contains(&format!("{}:2:", native.display())) && err.contains("rank 5000000"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The DUMPI reader too: 2,000 copies of one rank's file of the shared
/// test trace open and replay under the limit. (Every rank then runs rank
/// 0's program, which waits for messages the copies never send: the run
/// ends in the deadlock report, after every file was opened and read.)
#[test]
fn dumpi_2000_ranks_under_open_file_limit() {
    let bin = scenarios::shared::shared_path("traces/dumpi/sst-macro-testtrace/testtrace-0000.bin")
        .unwrap_or_else(|e| panic!("{e}"));
    let d = dir("dumpi");
    for r in 0..RANKS {
        std::fs::copy(&bin, d.join(format!("t-{r:04}.bin"))).unwrap();
    }
    let meta = d.join("t.meta");
    std::fs::write(&meta, format!("numprocs={RANKS}\nfileprefix=t\n")).unwrap();
    let o = replay_limited(&[meta.to_str().unwrap(), "--machine", "ideal"]);
    let out = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(!out.contains("Too many open files"), "{out}");
    assert!(!out.contains("panicked"), "{out}");
    assert!(out.contains("rank 1999 blocked in"), "{out}");
    let _ = std::fs::remove_dir_all(&d);
}
