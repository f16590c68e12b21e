//! Hand-built DUMPI traces that build communicators every way the reader
//! knows (groups and `Comm_create`, `Comm_free` and a reused handle,
//! `Cart_create` and `Cart_sub`, `Graph_create`) and exchange messages
//! on them, replayed with hand-computed times: Blue Waters preset, one
//! rank per node on an ideal network, so one 8-byte message takes
//! `T = 2.3 us + 8 B / 1.3 GB/s` and creating a communicator costs
//! nothing (it only waits for the last member).

use super::tests::Arg::{self, *};
use super::tests::Writer;
use super::*;
use mpi_layer::{CommId, GroupId, MpiParams, Protocol, RunResults};
use sim_core::{Bandwidth, transfer_time};
use topology::{IdealNetwork, Placement};

/// MPI_COMM_WORLD, MPI_COMM_NULL, MPI_DOUBLE in DUMPI's numbering.
const WORLD: u16 = 2;
const NULL: u16 = 1;
const DOUBLE: u16 = 14;

fn t8() -> Time {
    let c = MpiParams::blue_waters().postal[Protocol::Short as usize][2];
    c.alpha + transfer_time(8, c.rate)
}

/// Writes one file per rank (`recs(rank)`: the records) and a `.meta`;
/// returns the trace.
fn trace(name: &str, p: u32, recs: impl Fn(u32) -> Vec<(&'static str, Vec<Arg>)>) -> DumpiTrace {
    let dir = std::env::temp_dir().join(format!("netsim-dumpi-comm-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for r in 0..p {
        let mut w = Writer::new();
        for (f, args) in recs(r) {
            w.rec(f, 0, &args);
        }
        std::fs::write(dir.join(format!("t-{r:04}.bin")), w.finish()).unwrap();
    }
    let meta = dir.join("t.meta");
    std::fs::write(&meta, format!("numprocs={p}\nfileprefix=t\n")).unwrap();
    DumpiTrace::open(&meta, DumpiConfig::default()).unwrap()
}

fn replay(t: &DumpiTrace) -> Result<RunResults, mpi_layer::RunError> {
    let p = t.num_ranks();
    let net = IdealNetwork::new(
        p,
        Time::from_ns(500),
        Bandwidth::bytes_per_sec(100_000_000_000),
    );
    mpi_layer::run(
        Placement::block(p, 1, 1),
        net,
        t.streams().unwrap(),
        MpiParams::blue_waters(),
    )
}

fn send(dst: i32, comm: u16) -> (&'static str, Vec<Arg>) {
    ("MPI_Send", vec![I(1), S(DOUBLE), I(dst), I(0), S(comm)])
}

fn recv(src: i32, comm: u16) -> (&'static str, Vec<Arg>) {
    ("MPI_Recv", vec![I(1), S(DOUBLE), I(src), I(0), S(comm)])
}

/// Every rank's records. Groups: 3 = world, 4 = range_incl (3, 1, -1) =
/// [3, 2, 1], 5 = incl [2, 0], 6 = union(5, 4) = [2, 0, 3, 1], 7 =
/// difference(4, 5) = [3, 1], 8 = excl [0] = [1, 2, 3], 9 = range_excl
/// (0, 3, 2) = [1, 3], 10 = intersection(8, 9) = [1, 3]. Communicators: 4 = create(6) (world 2 is
/// rank 0, world 1 rank 3), 5 = create(7) ([3, 1]; MPI_COMM_NULL at
/// ranks 0 and 2), 6 = 2 x 2 grid, 7 = its rows ([0 1], [2 3]), 4 again
/// (freed, then a dup of 7), 8 = graph of pairs 0 <-> 1, 2 <-> 3.
///
/// Messages, a chain: world 2 -> world 1 on 4 (done at T); world 1 ->
/// world 3 on 5 (2 T); everyone builds 6, 7 and the new 4 when world 3
/// arrives (2 T); world 3 -> world 2 on the new 4 (3 T); the graph is
/// built at 3 T; world 0 -> world 1 on 8 (4 T).
fn program(r: u32) -> Vec<(&'static str, Vec<Arg>)> {
    let mut v = vec![
        ("MPI_Init", vec![I(0)]),
        ("MPI_Comm_group", vec![S(WORLD), S(3)]),
        (
            "MPI_Group_range_incl",
            vec![S(3), I(1), G(vec![vec![3, 1, -1]]), S(4)],
        ),
        ("MPI_Group_incl", vec![S(3), I(2), A(vec![2, 0]), S(5)]),
        ("MPI_Group_union", vec![S(5), S(4), S(6)]),
        ("MPI_Group_difference", vec![S(4), S(5), S(7)]),
        ("MPI_Comm_create", vec![S(WORLD), S(6), S(4)]),
        (
            "MPI_Comm_create",
            vec![S(WORLD), S(7), S(if r % 2 == 1 { 5 } else { NULL })],
        ),
        ("MPI_Group_excl", vec![S(3), I(1), A(vec![0]), S(8)]),
        (
            "MPI_Group_range_excl",
            vec![S(3), I(1), G(vec![vec![0, 3, 2]]), S(9)],
        ),
        ("MPI_Group_intersection", vec![S(8), S(9), S(10)]),
        // Communicator 11 = create(10) = [1, 3], freed at once.
        (
            "MPI_Comm_create",
            vec![S(WORLD), S(10), S(if r % 2 == 1 { 11 } else { NULL })],
        ),
        ("MPI_Comm_free", vec![S(if r % 2 == 1 { 11 } else { NULL })]),
        ("MPI_Group_free", vec![S(4)]),
        ("MPI_Group_free", vec![S(5)]),
        ("MPI_Group_free", vec![S(2)]), // MPI_GROUP_EMPTY: nothing
    ];
    match r {
        2 => v.push(send(3, 4)),
        1 => v.extend([recv(0, 4), send(0, 5)]),
        3 => v.push(recv(1, 5)),
        _ => {}
    }
    v.extend([
        (
            "MPI_Cart_create",
            vec![S(WORLD), I(2), A(vec![2, 2]), A(vec![0, 0]), I(1), S(6)],
        ),
        ("MPI_Cart_sub", vec![I(2), S(6), A(vec![0, 1]), S(7)]),
        ("MPI_Comm_free", vec![S(4)]),
        ("MPI_Comm_dup", vec![S(7), S(4)]),
    ]);
    match r {
        3 => v.push(send(0, 4)),
        2 => v.push(recv(1, 4)),
        _ => {}
    }
    v.push((
        "MPI_Graph_create",
        vec![
            I(4),
            S(WORLD),
            I(4),
            A(vec![1, 2, 3, 4]),
            A(vec![1, 0, 3, 2]),
            I(0),
            S(8),
        ],
    ));
    match r {
        0 => v.push(send(1, 8)),
        1 => v.push(recv(0, 8)),
        _ => {}
    }
    v.push(("MPI_Comm_free", vec![S(NULL)]));
    v.push(("MPI_Finalize", vec![]));
    v
}

#[test]
fn dumpi_communicators_every_way_with_hand_computed_times() {
    let t = trace("every-way", 4, program);
    // The mapping of rank 1's records.
    let ops: Vec<Op> = {
        let mut s = t.rank_stream(1).unwrap();
        std::iter::from_fn(|| s.next_op().unwrap().map(|(op, _)| op)).collect()
    };
    assert!(ops.contains(&Op::GroupRangeIncl {
        group: GroupId(3),
        ranges: vec![[3, 1, -1]],
        new: GroupId(4),
    }));
    assert!(ops.contains(&Op::GroupRangeExcl {
        group: GroupId(3),
        ranges: vec![[0, 3, 2]],
        new: GroupId(9),
    }));
    assert!(ops.contains(&Op::GroupIntersection {
        a: GroupId(8),
        b: GroupId(9),
        new: GroupId(10),
    }));
    assert!(!ops.contains(&Op::GroupFree {
        group: GroupId::EMPTY
    }));
    assert!(ops.contains(&Op::CommCreate {
        comm: CommId::WORLD,
        group: GroupId(7),
        new: CommId(5),
    }));
    assert!(ops.contains(&Op::CartCreate {
        comm: CommId::WORLD,
        dims: vec![2, 2],
        periods: vec![false, false],
        new: CommId(6),
    }));
    assert!(ops.contains(&Op::CommFree { comm: CommId(4) }));
    let r = replay(&t).unwrap();
    assert_eq!(r.messages(), 4);
    // Ranks 2 and 3 end when the graph exists: 3 T.
    assert_eq!(r.finish[3], t8() * 3);
    assert_eq!(r.finish[2], t8() * 3);
    assert_eq!(r.finish[1], t8() * 4);
    assert_eq!(r.makespan, t8() * 4);
}

#[test]
fn dumpi_rank_outside_a_created_communicator_gets_none() {
    // Rank 0 got MPI_COMM_NULL from the second Comm_create; a message it
    // sends on handle 5 is an error naming the rank and the record.
    let t = trace("outside", 4, |r| {
        let mut v = program(r);
        if r == 0 {
            v.insert(8, send(0, 5));
        }
        v
    });
    let e = replay(&t).unwrap_err().to_string();
    assert!(e.contains("t-0000.bin:9"), "{e}");
    assert!(e.contains("communicator 5 is unknown to this rank"), "{e}");
}

#[test]
fn dumpi_intercommunicators_are_refused_by_name() {
    let t = trace("inter", 2, |r| {
        vec![
            ("MPI_Init", vec![I(0)]),
            ("MPI_Comm_split", vec![S(WORLD), I(r as i32), I(0), S(4)]),
            (
                "MPI_Intercomm_create",
                vec![S(4), I(0), S(WORLD), I(1 - r as i32), I(7), S(5)],
            ),
        ]
    });
    let mut s = t.rank_stream(1).unwrap();
    let e = loop {
        match s.next_op() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("no error"),
            Err(e) => break e.to_string(),
        }
    };
    assert!(e.contains("t-0001.bin"), "{e}");
    assert!(e.contains("record 3 (MPI_Intercomm_create)"), "{e}");
    assert!(e.contains("intercommunicators are not modelled"), "{e}");
}
