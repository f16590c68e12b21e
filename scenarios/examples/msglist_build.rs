//! Time and peak memory to build every rank's program of a message list,
//! in a release build:
//!
//! `cargo run --release -p scenarios --example msglist_build -- FILE.csv [P]`
//!
//! Prints the read time, the time to pull every operation of every rank,
//! per-rank message statistics and the peak resident memory (VmHWM).

use std::path::PathBuf;
use std::time::Instant;

use mpi_layer::OpStream;
use scenarios::TraceReader;
use scenarios::msglist::{MessageList, MessageListConfig, RecvOrder};

fn vm_hwm_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().expect("usage: msglist_build FILE.csv [P]"));
    let p = args
        .next()
        .map(|s| s.parse::<u32>().expect("P must be a number"));
    println!("baseline peak RSS: {} KiB", vm_hwm_kib().unwrap_or(0));
    let t0 = Instant::now();
    let cfg = MessageListConfig {
        num_ranks: p,
        recv_order: RecvOrder::Shuffled { seed: 42 },
        ..Default::default()
    };
    let ml = match MessageList::read(&path, &cfg) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let read = t0.elapsed();
    let t1 = Instant::now();
    let mut n_ops = 0u64;
    for mut prog in ml.programs() {
        while prog.next_op().expect("valid list").is_some() {
            n_ops += 1;
        }
    }
    let pull = t1.elapsed();
    let max_s = (0..ml.num_ranks())
        .map(|r| ml.sends_of(r))
        .max()
        .unwrap_or(0);
    let max_r = (0..ml.num_ranks())
        .map(|r| ml.recvs_of(r))
        .max()
        .unwrap_or(0);
    println!(
        "{}: {} ranks, {} messages, {} bytes",
        path.display(),
        ml.num_ranks(),
        ml.num_messages(),
        ml.total_bytes()
    );
    println!("max sends per rank {max_s}, max receives per rank {max_r}");
    println!(
        "read + build (shuffled receives): {:.3} s",
        read.as_secs_f64()
    );
    println!("pull all {n_ops} operations: {:.3} s", pull.as_secs_f64());
    println!("peak RSS: {} KiB", vm_hwm_kib().unwrap_or(0));
}
