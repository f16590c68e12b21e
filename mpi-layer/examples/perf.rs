//! Performance figures of the MPI layer (prints, asserts nothing):
//! `cargo run --release -p mpi-layer --example perf -- [allreduce_log2P]`.

use mpi_layer::{CommId, MpiParams, Op, ReqId, Source, TagSel, VecProgram, run};
use sim_core::rand::Rng;
use sim_core::{Bandwidth, RngStreams, Time};
use std::time::Instant;
use topology::{IdealNetwork, Placement};

fn net(nodes: u32) -> IdealNetwork {
    IdealNetwork::new(
        nodes,
        Time::from_ns(500),
        Bandwidth::bytes_per_sec(100_000_000_000),
    )
}

fn report(name: &str, t: Instant, r: &mpi_layer::RunResults) {
    let wall = t.elapsed().as_secs_f64();
    println!(
        "{name}: {:.3} s wall, {} messages, {} events, {:.2} M events/s, makespan {}",
        wall,
        r.messages(),
        r.events,
        r.events as f64 / wall / 1e6,
        r.makespan
    );
}

fn main() {
    let lg: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(16);
    // Optional second argument: run only "allreduce", "hvpp" or "pairs".
    let only = std::env::args().nth(2).unwrap_or_default();
    let want = |name: &str| only.is_empty() || only == name;
    if want("allreduce") {
        allreduce(lg);
    }
    if want("hvpp") {
        hvpp();
    }
    if want("pairs") {
        pairs();
    }
}

/// Recursive-doubling allreduce, 8 B, P = 2^lg, 16 ranks per node.
fn allreduce(lg: u32) {
    let p = 1u32 << lg;
    let t = Instant::now();
    let progs: Vec<VecProgram> = (0..p)
        .map(|_| {
            VecProgram::new(
                "allreduce",
                vec![Op::Allreduce {
                    bytes: 8,
                    comm: CommId::WORLD,
                }],
            )
        })
        .collect();
    let r = run(
        Placement::block(p, 16, 2),
        net(p.div_ceil(16)),
        progs,
        MpiParams::blue_waters(),
    )
    .unwrap();
    report(&format!("allreduce 8 B, P = {p}"), t, &r);
}

/// HighVolumePingPong n = 10000, 8 B, reversed tags.
fn hvpp() {
    // HighVolumePingPong n = 10000, 8 B, reversed tags.
    let n = 10_000u32;
    let t = Instant::now();
    let isends = |peer: u32| {
        (0..n).map(move |i| Op::Isend {
            dst: peer,
            tag: i as i32,
            bytes: 8,
            comm: CommId::WORLD,
            req: ReqId(i as u64),
        })
    };
    let irecvs = |peer: u32| {
        (0..n).map(move |i| Op::Irecv {
            src: Source::Rank(peer),
            tag: TagSel::Tag((n - 1 - i) as i32),
            bytes: 8,
            comm: CommId::WORLD,
            req: ReqId(i as u64),
        })
    };
    let mut r0: Vec<Op> = isends(1).collect();
    r0.push(Op::WaitallPending);
    r0.extend(irecvs(1));
    r0.push(Op::WaitallPending);
    let mut r1: Vec<Op> = irecvs(0).collect();
    r1.push(Op::WaitallPending);
    r1.extend(isends(0));
    r1.push(Op::WaitallPending);
    let r = run(
        Placement::block(2, 16, 2),
        net(1),
        vec![VecProgram::new("r0", r0), VecProgram::new("r1", r1)],
        MpiParams::blue_waters(),
    )
    .unwrap();
    report("HVPP n = 10000 reversed", t, &r);
}

/// 1 M messages between random pairs, posted at once, P = 1024.
fn pairs() {
    // 1 M messages between random pairs, posted at once, P = 1024.
    let p = 1024u32;
    let m = 1_000_000u32;
    let mut rng = RngStreams::new(1).stream("pairs");
    let mut ops: Vec<Vec<Op>> = vec![vec![]; p as usize];
    let mut recvs: Vec<Vec<Op>> = vec![vec![]; p as usize];
    let mut next = vec![0u64; p as usize];
    for _ in 0..m {
        let a = rng.random_range(0..p);
        let b = rng.random_range(0..p);
        let q = next[a as usize];
        next[a as usize] += 1;
        ops[a as usize].push(Op::Isend {
            dst: b,
            tag: 0,
            bytes: 8,
            comm: CommId::WORLD,
            req: ReqId(q),
        });
        let q = next[b as usize];
        next[b as usize] += 1;
        recvs[b as usize].push(Op::Irecv {
            src: Source::Rank(a),
            tag: TagSel::Tag(0),
            bytes: 8,
            comm: CommId::WORLD,
            req: ReqId(q),
        });
    }
    let progs: Vec<VecProgram> = ops
        .into_iter()
        .zip(recvs)
        .map(|(mut o, r)| {
            o.extend(r);
            o.push(Op::WaitallPending);
            VecProgram::new("pairs", o)
        })
        .collect();
    let t = Instant::now();
    let r = run(
        Placement::block(p, 16, 2),
        net(p / 16),
        progs,
        MpiParams::blue_waters(),
    )
    .unwrap();
    report("1 M random-pair messages, P = 1024", t, &r);
}
