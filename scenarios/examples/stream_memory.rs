//! Peak memory of streaming a long trace, in a release build:
//!
//! `cargo run --release -p scenarios --example stream_memory -- [LINES]`
//!
//! Writes a SimGrid TI trace and a native trace of `LINES` operations
//! (default 1e6) for rank 0 of 2 to a temporary directory, reads each back
//! through its `OpStream`, and prints the time and the peak resident memory
//! (VmHWM) after each: a streaming reader adds a constant, not a multiple
//! of the trace size.

use std::io::Write;
use std::time::Instant;

use mpi_layer::OpStream;
use scenarios::native::NativeTrace;
use scenarios::ti::{TiConfig, TiTrace};

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let l = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            l.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

fn drain(mut s: impl OpStream) -> u64 {
    let mut n = 0;
    while s.next_op().expect("valid trace").is_some() {
        n += 1;
    }
    n
}

fn main() {
    let lines: u64 = std::env::args()
        .nth(1)
        .map_or(1_000_000, |s| s.parse().expect("LINES"));
    let dir = std::env::temp_dir().join(format!("netsim-stream-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ti = dir.join("big-ti.txt");
    let native = dir.join("big.trace");
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&ti).unwrap());
        writeln!(w, "1 init").unwrap();
        writeln!(w, "0 init").unwrap();
        for i in 0..lines {
            match i % 4 {
                0 => writeln!(w, "0 isend 1 {} 1024", i % 7),
                1 => writeln!(w, "0 compute 1e4"),
                2 => writeln!(w, "0 wait 0 1 {}", (i - 2) % 7),
                _ => writeln!(w, "0 allreduce 8 100"),
            }
            .unwrap();
        }
        let mut w = std::io::BufWriter::new(std::fs::File::create(&native).unwrap());
        for i in 0..lines {
            writeln!(w, "isend dst=1 tag=0 bytes={} req={i}", i % 4096).unwrap();
        }
    }
    let size = |p: &std::path::Path| std::fs::metadata(p).unwrap().len() / 1024;
    println!("baseline peak RSS: {} KiB", vm_hwm_kib());
    let t = Instant::now();
    let trace = TiTrace::open(&ti, TiConfig::default()).unwrap();
    let n = drain(trace.rank_stream(0).unwrap());
    println!(
        "TI: {} KiB file, {n} ops for rank 0 in {:.2} s; peak RSS {} KiB",
        size(&ti),
        t.elapsed().as_secs_f64(),
        vm_hwm_kib()
    );
    let t = Instant::now();
    let trace = NativeTrace::from_rank_files(vec![native.clone(), native.clone()]).unwrap();
    let n = drain(trace.rank_stream(0).unwrap());
    println!(
        "native: {} KiB file, {n} ops in {:.2} s; peak RSS {} KiB",
        size(&native),
        t.elapsed().as_secs_f64(),
        vm_hwm_kib()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
