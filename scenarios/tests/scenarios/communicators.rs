//! A native trace that builds communicators every way the format can
//! (groups and `comm_create`, `comm_create_group`, `comm_free` and a
//! reused id, Cartesian grids and sub-grids, graphs and neighbour
//! collectives) and exchanges messages on them, replayed with
//! hand-computed times: Blue Waters preset, one rank per node on an
//! ideal network, so one 8-byte message takes `T = 2.3 us + 8 B / 1.3
//! GB/s` (eq. 1 of Bienz et al.) and creating a communicator costs
//! nothing (it only waits for the last member).

use mpi_layer::{MpiParams, Protocol, RunResults};
use scenarios::TraceReader;
use scenarios::native::NativeTrace;
use sim_core::{Bandwidth, Time, transfer_time};
use std::path::PathBuf;
use topology::{IdealNetwork, Placement};

fn t(bytes: u64) -> Time {
    let c = MpiParams::blue_waters().postal[Protocol::Short as usize][2];
    c.alpha + transfer_time(bytes, c.rate)
}

/// What a short send of `bytes` holds its sender's core: alpha, then the
/// other `bytes - 1` pushed at R_b (one progress engine per process).
fn send_cpu(bytes: u64) -> Time {
    let c = MpiParams::blue_waters().postal[Protocol::Short as usize][2];
    c.alpha + sim_core::PerByte::of_rate(c.rate).cost(bytes - 1)
}

fn replay(name: &str, text: &str) -> Result<RunResults, String> {
    let dir = std::env::temp_dir().join(format!("netsim-comm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let trace = NativeTrace::open(&path).map_err(|e| e.to_string())?;
    let p = trace.num_ranks();
    let net = IdealNetwork::new(
        p,
        Time::from_ns(500),
        Bandwidth::bytes_per_sec(100_000_000_000),
    );
    mpi_layer::run(
        Placement::block(p, 1, 1),
        net,
        trace.streams().map_err(|e| e.to_string())?,
        MpiParams::blue_waters(),
    )
    .map_err(|e| e.to_string())
}

/// The same lines for every rank of `p`, with `{r}` replaced by the rank.
fn all(p: u32, lines: &str) -> String {
    (0..p)
        .flat_map(|r| lines.lines().map(move |l| format!("{r} {}\n", l.trim())))
        .filter(|l| l.split_whitespace().nth(1).is_some())
        .collect()
}

#[test]
fn native_communicators_every_way_with_hand_computed_times() {
    // Groups: 1 = world, 2 = range_incl 3:1:-1 = [3 2 1], 3 = incl [2 0],
    // 4 = union(3, 2) = [2 0 3 1], 5 = difference(2, 3) = [3 1].
    // Communicators: 4 = create(4) (world 2 is rank 0, world 1 rank 3),
    // 5 = create(5) ([3 1]), 6 = 2 x 2 grid, 7 = its rows, 4 again
    // (freed, then a dup of 7), 9 = [0 2] by comm_create_group.
    let mut text = all(
        4,
        "comm_group new=1
         group_range_incl group=1 ranges=3:1:-1 new=2
         group_incl group=1 ranks=2,0 new=3
         group_union a=3 b=2 new=4
         group_difference a=2 b=3 new=5
         comm_create group=4 new=4
         comm_create group=5 new=5
         group_free group=2",
    );
    // Chain of 8-byte messages:
    //   world 2 -> world 1 on 4 (union ranks 0 -> 3): T
    //   world 1 -> world 3 on 5 ([3 1] ranks 1 -> 0): 2 T
    text += "2 send dst=3 tag=0 bytes=8 comm=4\n";
    text += "1 recv src=0 tag=0 bytes=8 comm=4\n1 send dst=0 tag=0 bytes=8 comm=5\n";
    text += "3 recv src=1 tag=0 bytes=8 comm=5\n";
    // Everyone: the grid, its rows, comm 4 freed and reused as a dup of
    // the rows; all built when world 3 arrives (2 T).
    text += &all(
        4,
        "cart_create dims=2,2 periods=0,0 reorder=1 new=6
         cart_sub remain=0,1 new=7 comm=6
         comm_free comm=4
         comm_dup new=4 comm=7",
    );
    //   world 3 -> world 2 on the new 4 (row [2 3], ranks 1 -> 0): 3 T
    text += "3 send dst=0 tag=0 bytes=8 comm=4\n2 recv src=1 tag=0 bytes=8 comm=4\n";
    // World 0 and 2 make [0 2] among themselves (comm_create_group),
    // ready when world 2 arrives (3 T); world 0 -> world 2 on it: 4 T.
    for r in [0, 2] {
        text += &format!(
            "{r} group_range_incl group=1 ranges=0:2:2 new=6\n\
             {r} comm_create_group group=6 tag=3 new=9\n"
        );
    }
    text += "0 send dst=1 tag=0 bytes=8 comm=9\n2 recv src=0 tag=0 bytes=8 comm=9\n";
    let r = replay("every-way.trace", &text).unwrap();
    assert_eq!(r.messages(), 4);
    // World 1 ends at its last creation (2 T): its send returned when its
    // core was done with it, at T + send_cpu(8). World 3 and world 0 end
    // when their last (short) sends are off their cores.
    assert_eq!(r.finish[1], t(8) * 2);
    assert_eq!(r.finish[3], t(8) * 2 + send_cpu(8));
    assert_eq!(r.finish[0], t(8) * 3 + send_cpu(8));
    assert_eq!(r.finish[2], t(8) * 4);
    assert_eq!(r.makespan, t(8) * 4);
}

#[test]
fn native_neighbour_collectives_on_a_periodic_ring() {
    // A periodic line of 4 (a ring): each rank's neighbours are r - 1 and
    // r + 1. neighbor_alltoall of 8 B: every rank posts two receives,
    // then two sends; the same program in point-to-point takes the same
    // times.
    let coll = all(
        4,
        "cart_create dims=4 periods=1 new=1
         neighbor_alltoall bytes=8 comm=1",
    );
    let p2p: String = (0..4u32)
        .map(|r| {
            let (a, b) = ((r + 3) % 4, (r + 1) % 4);
            format!(
                "{r} irecv src={a} tag=1 bytes=8 req=1\n{r} irecv src={b} tag=1 bytes=8 req=2\n\
                 {r} isend dst={a} tag=1 bytes=8 req=3\n{r} isend dst={b} tag=1 bytes=8 req=4\n\
                 {r} waitall\n"
            )
        })
        .collect();
    let a = replay("ring-coll.trace", &coll).unwrap();
    let b = replay("ring-p2p.trace", &p2p).unwrap();
    assert_eq!(a.messages(), 8);
    assert_eq!(a.finish, b.finish);
    // Each rank's second send waits for its first on the port: the last
    // message lands one gap after T(8), never before.
    assert!(a.makespan > t(8));
}

#[test]
fn native_communicator_lines_with_bad_fields_name_the_line() {
    let e = replay("bad.trace", "0 cart_create dims=2 periods=2 new=1\n").unwrap_err();
    assert!(e.contains("bad.trace:1"), "{e}");
    assert!(e.contains("periods holds 0 or 1"), "{e}");
    let e = replay(
        "bad2.trace",
        "0 comm_group new=1\n0 group_range_incl group=1 ranges=0:1 new=2\n",
    )
    .unwrap_err();
    assert!(e.contains("bad2.trace:2"), "{e}");
    assert!(e.contains("3 numbers separated by `:`"), "{e}");
}

#[test]
fn native_graph_communicators_and_neighbour_collectives() {
    // 1 = graph of pairs 0 <-> 1, 2 <-> 3: one 64-byte message each way,
    // all at once: everyone is done at T(64).
    // 2 = directed ring r -> r + 1 (adjacent form), rank r sends 8 (r + 1)
    // bytes: it exists at T(64); rank 0 gets rank 3's 32 B at
    // T(64) + T(32), the last arrival at 3 = the general form's creation.
    // 3 = the same ring (general form: each rank names its own edge);
    // 16 B each: rank 0 done at T(64) + T(32) + T(16).
    let text: String = (0..4u32)
        .map(|r| {
            let (prev, next) = ((r + 3) % 4, (r + 1) % 4);
            format!(
                "{r} graph_create index=1,2,3,4 edges=1,0,3,2 new=1\n\
                 {r} neighbor_allgather bytes=64 comm=1\n\
                 {r} dist_graph_adjacent sources={prev} destinations={next} new=2\n\
                 {r} neighbor_alltoallv send={} comm=2\n\
                 {r} dist_graph edges={r}:{next} new=3\n\
                 {r} neighbor_allgather bytes=16 comm=3\n",
                8 * (r + 1)
            )
        })
        .collect();
    let r = replay("graphs.trace", &text).unwrap();
    assert_eq!(r.messages(), 4 + 4 + 4);
    // Each step is an exchange: a rank's send holds its core, and the
    // message it receives, there gamma earlier, is searched after that;
    // each communicator's creation waits for the slowest member. The
    // slowest of the ring (alltoallv) sends 32 B.
    let gamma = MpiParams::blue_waters().gamma_posted.gamma;
    let step = |b: u64| send_cpu(b) + gamma;
    assert_eq!(r.finish[0], step(64) + step(32) + step(16));
    assert_eq!(r.makespan, step(64) + step(32) + step(16));
}
