//! Communicators built every way MPI builds them (groups, `Comm_create`,
//! `Comm_create_group`, `Comm_free` and reuse, Cartesian and graph
//! topologies) and messages exchanged on them, with hand-computed times:
//! Blue Waters preset, one rank per node on an ideal network, so one
//! short message of `s` bytes takes `T(s) = 2.3 us + s / 1.3e9` (eq. 1 of
//! Bienz et al.) and creating a communicator costs nothing.

use mpi_layer::{
    CommId, GroupId, MpiParams, Op, Protocol, RunError, RunResults, Source, TagSel, VecProgram, run,
};
use sim_core::{Bandwidth, Time, transfer_time};
use topology::{IdealNetwork, Placement};

const W: CommId = CommId::WORLD;

fn t_short(s: u64) -> Time {
    let c = MpiParams::blue_waters().postal[Protocol::Short as usize][2];
    c.alpha + transfer_time(s, c.rate)
}

fn sim(ops: Vec<Vec<Op>>) -> Result<RunResults, RunError> {
    let p = ops.len() as u32;
    let net = IdealNetwork::new(
        p,
        Time::from_ns(500),
        Bandwidth::bytes_per_sec(100_000_000_000),
    );
    let progs = ops
        .into_iter()
        .enumerate()
        .map(|(i, o)| VecProgram::new(&format!("rank{i}"), o))
        .collect();
    run(
        Placement::block(p, 1, 1),
        net,
        progs,
        MpiParams::blue_waters(),
    )
}

fn send(dst: u32, bytes: u64, comm: CommId) -> Op {
    Op::Send {
        dst,
        tag: 1,
        bytes,
        comm,
    }
}

fn recv(src: u32, comm: CommId) -> Op {
    Op::Recv {
        src: Source::Rank(src),
        tag: TagSel::Tag(1),
        // A buffer that holds any message (a smaller one is MPI_ERR_TRUNCATE).
        bytes: sim_core::limits::MAX_MESSAGE_BYTES,
        comm,
    }
}

fn g(i: u32) -> GroupId {
    GroupId(i)
}

/// The group algebra of four ranks, every rank computing the same groups:
/// world `[0, 1, 2, 3]`; `a = incl [2, 0]`; `b = range_incl (3, 1, -1)`
/// = `[3, 2, 1]`; `union(a, b) = [2, 0, 3, 1]`; `difference(b, a) =
/// [3, 1]`; `intersection(b, a) = [2]`; `excl [0] = [1, 2, 3]`;
/// `range_excl (0, 3, 2) = [1, 3]`.
fn group_prelude() -> Vec<Op> {
    vec![
        Op::CommGroup { comm: W, new: g(1) },
        Op::GroupIncl {
            group: g(1),
            ranks: vec![2, 0],
            new: g(2),
        },
        Op::GroupRangeIncl {
            group: g(1),
            ranges: vec![[3, 1, -1]],
            new: g(3),
        },
        Op::GroupUnion {
            a: g(2),
            b: g(3),
            new: g(4),
        },
        Op::GroupDifference {
            a: g(3),
            b: g(2),
            new: g(5),
        },
        Op::GroupIntersection {
            a: g(3),
            b: g(2),
            new: g(6),
        },
        Op::GroupExcl {
            group: g(1),
            ranks: vec![0],
            new: g(7),
        },
        Op::GroupRangeExcl {
            group: g(1),
            ranges: vec![[0, 3, 2]],
            new: g(8),
        },
        Op::CommCreate {
            comm: W,
            group: g(4),
            new: CommId(10),
        },
        Op::CommCreate {
            comm: W,
            group: g(5),
            new: CommId(11),
        },
        Op::CommCreate {
            comm: CommId(10),
            group: g(8),
            new: CommId(12),
        },
    ]
}

#[test]
fn groups_make_communicators_in_mpi_rank_order() {
    // c10 = union = [2, 0, 3, 1]: world 2 is rank 0, world 1 rank 3.
    // c11 = difference = [3, 1]: world 3 is rank 0, world 1 rank 1.
    // c12 = range_excl = [1, 3] created over c10 (c10's ranks 3, 2).
    // Chain: world 2 -> world 1 on c10 (T(8)), then world 1 -> world 3
    // on c11 (T(8)), then world 3 -> world 1 on c12 (T(8)): 3 T(8).
    let mut ops: Vec<Vec<Op>> = (0..4).map(|_| group_prelude()).collect();
    ops[2].push(send(3, 8, CommId(10)));
    ops[1].extend([
        recv(0, CommId(10)),
        send(0, 8, CommId(11)),
        recv(1, CommId(12)),
    ]);
    ops[3].extend([recv(1, CommId(11)), send(0, 8, CommId(12))]);
    // Ranks outside a group got no communicator: naming it is an error
    // elsewhere, so ranks 0 and 2 only free what they have.
    for o in ops.iter_mut() {
        o.push(Op::GroupFree { group: g(6) });
    }
    ops[0].push(Op::CommFree { comm: CommId(10) });
    let r = sim(ops).unwrap();
    assert_eq!(r.messages(), 3);
    assert_eq!(r.finish[1], t_short(8) * 3);
    assert_eq!(r.makespan, t_short(8) * 3);
}

#[test]
fn a_rank_outside_the_group_has_no_communicator() {
    let mut ops: Vec<Vec<Op>> = (0..4).map(|_| group_prelude()).collect();
    ops[0].push(send(0, 8, CommId(11)));
    let err = sim(ops).unwrap_err().to_string();
    assert!(
        err.contains("rank0:12") && err.contains("communicator 11 is unknown to this rank"),
        "{err}"
    );
}

#[test]
fn comm_create_group_involves_only_the_group() {
    // Ranks 1 and 3 create [3, 1] with tag 5; ranks 0 and 2 never call it
    // and exchange a message meanwhile. Then world 3 (rank 0) -> world 1.
    let make = |r: u32| {
        vec![
            Op::CommGroup { comm: W, new: g(1) },
            Op::GroupIncl {
                group: g(1),
                ranks: vec![3, 1],
                new: g(2),
            },
            Op::CommCreateGroup {
                comm: W,
                group: g(2),
                tag: 5,
                new: CommId(4 + r),
            },
        ]
    };
    let mut ops = vec![vec![send(2, 0, W)], make(1), vec![recv(0, W)], make(3)];
    ops[3].push(send(1, 16, CommId(7)));
    ops[1].push(recv(0, CommId(5)));
    let r = sim(ops).unwrap();
    assert_eq!(r.finish[2], t_short(0));
    assert_eq!(r.finish[1], t_short(16));
}

#[test]
fn a_freed_communicator_id_is_reused_by_a_later_creation() {
    // c5 = dup(world), freed; then c5 = split(world, r % 2, -r): the odd
    // ranks [3, 1], the even [2, 0]. World 3 -> world 1 is rank 0 -> 1.
    let ops = (0..4)
        .map(|r: u32| {
            let mut o = vec![
                Op::CommDup {
                    comm: W,
                    new: CommId(5),
                },
                Op::CommFree { comm: CommId(5) },
                Op::CommSplit {
                    comm: W,
                    color: (r % 2) as i32,
                    key: -(r as i32),
                    new: CommId(5),
                },
            ];
            match r {
                3 => o.push(send(1, 8, CommId(5))),
                1 => o.push(recv(0, CommId(5))),
                _ => {}
            }
            o
        })
        .collect();
    let r = sim(ops).unwrap();
    assert_eq!(r.finish[1], t_short(8));
    // Freed and not recreated: unknown.
    let ops = vec![vec![
        Op::CommDup {
            comm: W,
            new: CommId(5),
        },
        Op::CommFree { comm: CommId(5) },
        Op::Barrier { comm: CommId(5) },
    ]];
    let err = sim(ops).unwrap_err().to_string();
    assert!(
        err.contains("rank0:3") && err.contains("communicator 5 is unknown"),
        "{err}"
    );
}

#[test]
fn cartesian_grids_and_their_sub_grids() {
    // 7 ranks, a 2 x 3 grid: ranks 0..6 in row-major order, rank 6 gets
    // no communicator. Rows (remain [false, true]) are [0 1 2], [3 4 5];
    // columns (remain [true, false]) [0 3], [1 4], [2 5].
    // World 5 (row rank 2) -> world 3 (row rank 0): T(8); then world 3
    // (column rank 1) -> world 0 (column rank 0): T(8).
    let ops = (0..7)
        .map(|r: u32| {
            let mut o = vec![Op::CartCreate {
                comm: W,
                dims: vec![2, 3],
                periods: vec![true, false],
                new: CommId(1),
            }];
            if r < 6 {
                o.extend([
                    Op::CartSub {
                        comm: CommId(1),
                        remain: vec![false, true],
                        new: CommId(2),
                    },
                    Op::CartSub {
                        comm: CommId(1),
                        remain: vec![true, false],
                        new: CommId(3),
                    },
                ]);
            }
            match r {
                5 => o.push(send(0, 8, CommId(2))),
                3 => o.extend([recv(2, CommId(2)), send(0, 8, CommId(3))]),
                0 => o.push(recv(1, CommId(3))),
                _ => {}
            }
            o
        })
        .collect();
    let r = sim(ops).unwrap();
    assert_eq!(r.finish[0], t_short(8) * 2);
    assert_eq!(r.finish[6], Time::ZERO);
}

/// The point-to-point program of a neighbour exchange: each rank posts
/// a receive from each of `srcs`, then sends `bytes` to each of `dsts`,
/// then waits for all.
fn exchange(ranks: &[(Vec<u32>, Vec<u32>)], bytes: u64) -> Vec<Vec<Op>> {
    ranks
        .iter()
        .map(|(srcs, dsts)| {
            let mut o = Vec::new();
            let mut req = 0;
            for &s in srcs {
                req += 1;
                o.push(Op::Irecv {
                    src: Source::Rank(s),
                    tag: TagSel::Tag(9),
                    bytes,
                    comm: W,
                    req: mpi_layer::ReqId(req),
                });
            }
            for &d in dsts {
                req += 1;
                o.push(Op::Isend {
                    dst: d,
                    tag: 9,
                    bytes,
                    comm: W,
                    req: mpi_layer::ReqId(req),
                });
            }
            o.push(Op::WaitallPending);
            o
        })
        .collect()
}

#[test]
fn neighbour_collectives_on_graphs_are_point_to_point_exchanges() {
    // Graph of two pairs, 0 <-> 1 and 2 <-> 3 (index [1, 2, 3, 4], edges
    // [1, 0, 3, 2]): one receive and one send per rank, all at once, the
    // same as the point-to-point program. A rank's receive is posted
    // before its send; the partner's message arrives gamma before the
    // rank's own send is off its CPU (alpha + 63 B / R_b), and is
    // searched then.
    let graph = |_| {
        vec![
            Op::GraphCreate {
                comm: W,
                index: vec![1, 2, 3, 4],
                edges: vec![1, 0, 3, 2],
                new: CommId(1),
            },
            Op::NeighborAllgather {
                bytes: 64,
                comm: CommId(1),
            },
        ]
    };
    let r = sim((0..4).map(graph).collect()).unwrap();
    let pairs = [1, 0, 3, 2].map(|x| (vec![x], vec![x]));
    let p2p = sim(exchange(&pairs, 64)).unwrap();
    assert_eq!(r.messages(), 4);
    assert_eq!(r.makespan, p2p.makespan);
    assert_eq!(r.finish, p2p.finish);
    let gamma = mpi_layer::MpiParams::blue_waters().gamma_posted.gamma;
    let send = Time::from_ns(2300)
        + sim_core::PerByte::of_rate(Bandwidth::bytes_per_sec(1_300_000_000)).cost(63);
    assert_eq!(r.makespan, send + gamma);

    // A directed ring as a distributed graph, adjacent form and general
    // form (every rank names the edge into its successor): rank r sends
    // send[0] = 8 (r + 1) bytes to r + 1. Rank 0's 32 B from rank 3
    // arrive after its own send is off its CPU: T(32). Rank 1's 8 B from
    // rank 0 arrive while its CPU still sends 16 B (alpha + 15 B / R_b):
    // searched after that.
    let p = 4u32;
    let ring = |general: bool| {
        (0..p)
            .map(|r| {
                let (prev, next) = ((r + p - 1) % p, (r + 1) % p);
                let create = if general {
                    Op::DistGraph {
                        comm: W,
                        edges: vec![[r, next]],
                        new: CommId(2),
                    }
                } else {
                    Op::DistGraphAdjacent {
                        comm: W,
                        sources: vec![prev],
                        destinations: vec![next],
                        new: CommId(2),
                    }
                };
                vec![
                    create,
                    Op::NeighborAlltoallv {
                        send: vec![8 * (r as u64 + 1)],
                        comm: CommId(2),
                    },
                ]
            })
            .collect::<Vec<_>>()
    };
    for general in [false, true] {
        let r = sim(ring(general)).unwrap();
        assert_eq!(r.messages(), 4);
        assert_eq!(r.finish[0], t_short(32), "general {general}");
        let send16 = Time::from_ns(2300)
            + sim_core::PerByte::of_rate(Bandwidth::bytes_per_sec(1_300_000_000)).cost(15);
        let gamma = mpi_layer::MpiParams::blue_waters().gamma_posted.gamma;
        assert_eq!(r.finish[1], send16 + gamma, "general {general}");
    }
}

#[test]
fn cartesian_neighbours_skip_the_edges_of_a_non_periodic_grid() {
    // A line of 3 (dims [3], not periodic): rank 0's neighbours are
    // (PROC_NULL, 1), rank 1's (0, 2), rank 2's (1, PROC_NULL). Four
    // messages; the same times as the point-to-point program.
    let ops = (0..3)
        .map(|_| {
            vec![
                Op::CartCreate {
                    comm: W,
                    dims: vec![3],
                    periods: vec![false],
                    new: CommId(1),
                },
                Op::NeighborAlltoall {
                    bytes: 8,
                    comm: CommId(1),
                },
            ]
        })
        .collect();
    let r = sim(ops).unwrap();
    assert_eq!(r.messages(), 4);
    let line = [
        (vec![1], vec![1]),
        (vec![0, 2], vec![0, 2]),
        (vec![1], vec![1]),
    ];
    let p2p = sim(exchange(&line, 8)).unwrap();
    assert_eq!(r.messages(), p2p.messages());
    // Every send holds its rank's CPU alpha + 7 B / R_b (`send`); a
    // message arrives gamma before its sender's CPU is free, so rank 0
    // searches rank 1's first message right after its own send. Rank 1's
    // two sends, posted together by the collective, go first on its CPU,
    // then its two searches; rank 2 gets rank 1's second message when
    // that one is out. (The point-to-point program returns to rank 1's
    // program between its Isends, which lets the first arrival's search
    // in before the second send: rank 2 finishes 2 gamma later there.)
    let gamma = mpi_layer::MpiParams::blue_waters().gamma_posted.gamma;
    let send = Time::from_ns(2300)
        + sim_core::PerByte::of_rate(Bandwidth::bytes_per_sec(1_300_000_000)).cost(7);
    assert_eq!(
        r.finish,
        vec![send + gamma, send * 2 + gamma * 2, send + t_short(8)]
    );
    assert_eq!(p2p.finish[..2], r.finish[..2]);
    assert_eq!(p2p.finish[2], r.finish[2] + gamma * 2);
}

#[test]
fn bad_group_and_topology_calls_are_errors_naming_the_operation() {
    let one = |op: Op| sim(vec![vec![Op::CommGroup { comm: W, new: g(1) }, op]]);
    let e = one(Op::GroupIncl {
        group: g(1),
        ranks: vec![0, 0],
        new: g(2),
    })
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("rank0:2") && e.contains("rank 0 is named twice"),
        "{e}"
    );
    let e = one(Op::GroupRangeIncl {
        group: g(1),
        ranges: vec![[0, 4, 1]],
        new: g(2),
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("leaves the group (size 1)"), "{e}");
    let e = one(Op::CartSub {
        comm: W,
        remain: vec![true],
        new: CommId(3),
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("has no Cartesian topology"), "{e}");
    let e = one(Op::NeighborAllgather { bytes: 1, comm: W })
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs a Cartesian or graph communicator"), "{e}");
    let e = one(Op::CartCreate {
        comm: W,
        dims: vec![2],
        periods: vec![false],
        new: CommId(3),
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("more cells than"), "{e}");
    let e = one(Op::GroupFree { group: g(9) }).unwrap_err().to_string();
    assert!(e.contains("group 9 is unknown"), "{e}");
}

#[test]
fn collectives_on_a_sub_communicator_then_on_world() {
    // Only ranks 0 and 1 broadcast on their half; then all four meet in
    // a barrier on WORLD: the collective sequence numbers must not make
    // the halves disagree.
    let ops = (0..4)
        .map(|r: u32| {
            let mut o = vec![Op::CommSplit {
                comm: W,
                color: (r / 2) as i32,
                key: 0,
                new: CommId(1),
            }];
            if r < 2 {
                o.push(Op::Bcast {
                    elem_bytes: 8,
                    root: 0,
                    bytes: 8,
                    comm: CommId(1),
                });
            }
            o.push(Op::Barrier { comm: W });
            o
        })
        .collect();
    let r = sim(ops).unwrap();
    assert_eq!(r.messages(), 1 + 8);
}
