//! The library algorithms ([`mpi_layer::CollAlg`]) with hand-computed
//! times on the ideal machine: LogGP with `o` = 100 ns on both sides, `L`
//! = 1 us, no gap, one rank per node on a network without limits. A lone
//! message takes `o + L + o` = 1.2 us; a rank's core does one `o` at a
//! time, in the order the work becomes ready; a reduction of `b` bytes
//! costs `b / 2 GB/s` (`b / 2` ns) on the core after the step's messages.

use super::{W, loggp_params, one_per_node, progs};
use mpi_layer::{CollAlg, CollKind, MpiParams, Op, RunResults, Selector, run};
use sim_core::Time;
use topology::IdealNetwork;

fn params(selector: Selector) -> MpiParams {
    let mut p = loggp_params(100, 1000);
    p.collectives.selection.selector = selector;
    p
}

/// `op` on every one of `p` ranks with `alg` fixed for its kind.
fn with(p: u32, alg: CollAlg, op: Op) -> RunResults {
    let mut params = params(Selector::Netsim);
    let kind = CollKind::of(&op).expect("collective");
    params.collectives.selection.fix(kind, alg);
    go(p, op, params)
}

fn go(p: u32, op: Op, params: MpiParams) -> RunResults {
    run(
        one_per_node(p),
        IdealNetwork::unlimited(p, Time::ZERO),
        progs((0..p).map(|_| vec![op.clone()]).collect()),
        params,
    )
    .unwrap()
}

fn ns(v: &[u64]) -> Vec<Time> {
    v.iter().map(|&n| Time::from_ns(n)).collect()
}

#[test]
fn scattered_alltoall_pays_the_latency_once() {
    // P = 4: every rank sends for 3 o (to r - 1, r - 2, r - 3); rank r
    // gets its j-th message (from r + j) at j o + L and receives it for
    // o: the last ends at P o + L = 1.4 us. Pairwise exchange: 3 steps of
    // one lone message each, 3.6 us.
    let t = Op::Alltoall { bytes: 8, comm: W };
    let r = with(4, CollAlg::AlltoallScattered, t.clone());
    assert_eq!(r.finish, ns(&[1400; 4]));
    assert_eq!((r.messages(), r.bytes()), (12, 96));
    let r = with(4, CollAlg::AlltoallPairwise, t.clone());
    assert_eq!(r.makespan, Time::from_ns(3600));
    let r = with(4, CollAlg::AlltoallPairwiseXor, t);
    assert_eq!(r.makespan, Time::from_ns(3600));
}

#[test]
fn scattered_allgather_and_alltoallv_send_in_rank_order() {
    // P = 4, sends in ascending rank order: each rank's k-th send leaves
    // at (k + 1) o. Rank 0 is everyone's first peer (3 arrivals at 1.1
    // us, received until 1.4 us); rank 3 everyone's last (3 at 1.3 us,
    // until 1.6 us); rank 1 gets 1.1, 1.2, 1.2 (until 1.4); rank 2 gets
    // 1.2, 1.2, 1.3 (until 1.5).
    let want = ns(&[1400, 1400, 1500, 1600]);
    let r = with(
        4,
        CollAlg::AllgatherScattered,
        Op::Allgather { bytes: 8, comm: W },
    );
    assert_eq!(r.finish, want);
    let v = Op::Alltoallv {
        send: vec![8; 4],
        recv: vec![8; 4],
        comm: W,
    };
    let r = with(4, CollAlg::AlltoallvScattered, v);
    assert_eq!(r.finish, want);
    let g = Op::Allgatherv {
        counts: vec![8; 4],
        comm: W,
    };
    let r = with(4, CollAlg::AllgathervScattered, g);
    assert_eq!(r.finish, want);
}

#[test]
fn linear_rooted_collectives_serialise_at_the_root() {
    // P = 4, root 0: three messages land at 1.1 us and the root receives
    // them one o after another until 1.4 us; the reduce then combines
    // 3 x 8 B (12 ns).
    let (root, bytes) = (0, 8);
    let r = with(
        4,
        CollAlg::ReduceLinear,
        Op::Reduce {
            elem_bytes: 8,
            root,
            bytes,
            comm: W,
        },
    );
    assert_eq!(r.finish, ns(&[1412, 100, 100, 100]));
    let r = with(
        4,
        CollAlg::GatherLinear,
        Op::Gather {
            root,
            bytes,
            comm: W,
        },
    );
    assert_eq!(r.finish, ns(&[1400, 100, 100, 100]));
    // Scatter: the root sends for 3 o; message k lands at k o + L.
    let r = with(
        4,
        CollAlg::ScatterLinear,
        Op::Scatter {
            root,
            bytes,
            comm: W,
        },
    );
    assert_eq!(r.finish, ns(&[300, 1200, 1300, 1400]));
    // Linear barrier: the root's 3 receives end at 1.4 us, its answers
    // leave at 1.5, 1.6, 1.7 us and are received by 2.6, 2.7, 2.8 us.
    let r = with(4, CollAlg::BarrierLinear, Op::Barrier { comm: W });
    assert_eq!(r.finish, ns(&[1700, 2600, 2700, 2800]));
}

#[test]
fn far_first_binomial_bcast() {
    // P = 6 from 0: the root sends to 4, 2, 1 (done at 0.1, 0.2, 0.3
    // us); 4 receives at 1.1-1.2 and sends to 5 (until 1.3), which
    // receives at 2.3-2.4; 2 receives at 1.2-1.3 and sends to 3 (until
    // 1.4), which receives at 2.4-2.5; 1 receives at 1.3-1.4.
    let b = Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes: 8,
        comm: W,
    };
    let r = with(6, CollAlg::BcastBinomialFarFirst, b);
    assert_eq!(r.finish, ns(&[300, 1400, 1400, 2500, 1300, 2400]));
}

#[test]
fn smpi_allreduce_is_a_linear_reduce_then_a_bcast() {
    // P = 4: the reduce ends at rank 0 at 1.412 us (as above); the bcast
    // goes 0 -> 2 (sent until 1.512, received 2.512-2.612), 0 -> 1 (sent
    // until 1.612, received until 2.712), 2 -> 3 (sent until 2.712,
    // received 3.712-3.812).
    let r = go(
        4,
        Op::Allreduce {
            elem_bytes: 8,
            bytes: 8,
            comm: W,
        },
        params(Selector::Smpi),
    );
    assert_eq!(r.finish, ns(&[1612, 2712, 2712, 3812]));
}

#[test]
fn reduce_scatter_by_reduce_and_scatterv_and_pairwise() {
    // Equal blocks of 8 B on 4 ranks, SMPI: a reduce of 32 B to rank 0
    // (receives until 1.4 us, 3 x 32 B reduced: 48 ns), then the root
    // sends 8 B to 1, 2, 3 (until 1.548, 1.648, 1.748), received by
    // 2.648, 2.748, 2.848.
    let rs = Op::ReduceScatter {
        counts: vec![8; 4],
        elem_bytes: 8,
        comm: W,
    };
    let r = go(4, rs.clone(), params(Selector::Smpi));
    assert_eq!(r.finish, ns(&[1748, 2648, 2748, 2848]));
    // Pairwise: 3 steps of a lone message and 8 B reduced (4 ns).
    let r = with(4, CollAlg::ReduceScatterPairwise, rs);
    assert_eq!(r.makespan, Time::from_ns(3 * 1204));
}

#[test]
fn linear_scan_receives_from_every_lower_rank() {
    // P = 4: rank r sends to r + 1.. in order and receives from 0..r.
    // Rank 3's messages land at 1.1 (from 2), 1.2 (from 1), 1.3 (from
    // 0) us: received until 1.4, then 3 x 8 B reduced (12 ns); rank 2
    // receives 1.1-1.2 and 1.2-1.3 and reduces 16 B; rank 1 at 1.1-1.2,
    // 8 B. An exclusive scan reduces one part fewer.
    let scan = |exclusive| Op::Scan {
        bytes: 8,
        comm: W,
        exclusive,
    };
    let r = go(4, scan(false), params(Selector::Smpi));
    assert_eq!(r.finish, ns(&[300, 1204, 1308, 1412]));
    let r = go(4, scan(true), params(Selector::Smpi));
    assert_eq!(r.finish, ns(&[300, 1200, 1304, 1408]));
}

#[test]
fn throttled_alltoall_waits_for_each_block_of_32() {
    // P = 40. Unthrottled: a rank's 39 sends hold its core until 3.9 us;
    // its k-th message lands at 1 us + k o, before the core is free, so
    // the 39 receives follow one another until 7.8 us. Throttled (MPICH,
    // blocks of 32 peers including itself): 31 sends until 3.1 us and 31
    // receives until 6.2 us; then 8 sends until 7.0 us, whose messages
    // land at 7.3 us + j o (j = 0..7) and are received by 8.1 us.
    let t = Op::Alltoall { bytes: 8, comm: W };
    let r = with(40, CollAlg::AlltoallScattered, t.clone());
    assert_eq!(r.makespan, Time::from_ns(7800));
    let r = with(40, CollAlg::AlltoallScatteredThrottled, t);
    assert_eq!(r.makespan, Time::from_ns(8100));
    assert_eq!(r.messages(), 40 * 39);
}

#[test]
fn bruck_allgather_takes_ceil_log2_p_exchanges() {
    // P = 5: 3 steps of one exchange each (1, 2, then 1 block), each a
    // lone message: 3 x 1.2 us; 8 B blocks: 4 x 8 B sent per rank.
    let r = with(
        5,
        CollAlg::AllgatherBruck,
        Op::Allgather { bytes: 8, comm: W },
    );
    assert_eq!(r.makespan, Time::from_ns(3600));
    assert_eq!((r.messages(), r.bytes()), (15, 5 * 32));
}

#[test]
fn mpich_reduce_scatter_gather_halves_then_gathers() {
    // P = 4, 16 chars to root 0: two exchanges (8 B, then 4 B; each a lone
    // message, 1.2 us, then the received bytes reduced: 4 ns, 2 ns) end
    // at 2.406 us; ranks 2 and 3 send 4 B to 0 and 1 (until 2.506,
    // received by 3.606); rank 1 sends 8 B to 0 (until 3.706, received
    // by 4.806).
    let r = with(
        4,
        CollAlg::ReduceScatterGather,
        Op::Reduce {
            elem_bytes: 1,
            root: 0,
            bytes: 16,
            comm: W,
        },
    );
    assert_eq!(r.finish, ns(&[4806, 3706, 2506, 2506]));
}

#[test]
fn rabenseifner_and_ring_split_whole_elements() {
    // P = 2, 3 doubles: blocks of 2 and 1 doubles (MPICH's cnts, Open
    // MPI's early and late segments). Each exchange is a lone message
    // (1.2 us), then the received bytes are reduced (0.5 ns/B).
    let a = Op::Allreduce {
        bytes: 24,
        elem_bytes: 8,
        comm: W,
    };
    // Rabenseifner: rank 0 keeps block 0, so receives 16 B (8 ns) and
    // sends 8 B; rank 1 receives 8 B (4 ns): 1.208 and 1.204 us. The
    // allgather hands each the other block: rank 0's 16 B lands at
    // rank 1 at 1.308 + 1.0, received by 2.408; rank 1's 8 B at rank
    // 0 by 2.404. An even split (12 B) gives 2.406 for both.
    let r = with(2, CollAlg::AllreduceRabenseifner, a.clone());
    assert_eq!(r.finish, ns(&[2404, 2408]));
    assert_eq!(r.bytes(), 2 * 24);
    // Ring: rank r sends block r and reduces block r - 1: rank 0
    // reduces block 1 (8 B, 4 ns), rank 1 block 0 (16 B, 8 ns): 1.204
    // and 1.208 us; then each sends its reduced block: rank 0's 8 B
    // reach rank 1 by 1.304 + 1.1 = 2.404, rank 1's 16 B rank 0 by
    // 2.408.
    let r = with(2, CollAlg::AllreduceRing, a.clone());
    assert_eq!(r.finish, ns(&[2408, 2404]));
    assert_eq!(r.bytes(), 2 * 24);
    // Open MPI's redscat_allgather, P = 3 (rank 2 is vrank 1): ranks 0
    // and 1 trade halves (0 gets the left double, 1 the right two);
    // rank 2's reduce-scatter message (8 B, sent at 0) reaches 0 at 1.1
    // too, and 0's core receives it then (1.1 to 1.3 for the two). 1
    // reduces by 1.208 and sends its reduced 16 B to 0 (until 1.308,
    // received by 2.408). Reduce-scatter: vrank 0 keeps floor(3 / 2) =
    // 1 double: 0 sends 16 B (2.408-2.508; at 2 by 3.608, reduced
    // 3.616) and reduces its 8 B by 2.512. Allgather: 0 sends its 8 B
    // (2.512-2.612, at 2 at 3.612, received 3.616-3.716); 2 sends its
    // 16 B (3.716-3.816), received by 0 at 4.916; then 0 sends all 24
    // B to 1 (until 5.016, received by 6.116).
    let r = with(3, CollAlg::AllreduceRedscatAllgather, a);
    assert_eq!(r.finish, ns(&[5016, 6116, 3816]));
    assert_eq!((r.messages(), r.bytes()), (8, 112));
}

#[test]
fn mpich_exchange_algorithms_take_one_lone_message_per_step() {
    // Recursive halving reduce_scatter, P = 4, 8 B blocks: exchanges of
    // 16 B then 8 B, each reduced (8 ns, 4 ns).
    let rs = Op::ReduceScatter {
        counts: vec![8; 4],
        elem_bytes: 8,
        comm: W,
    };
    let r = with(4, CollAlg::ReduceScatterRecursiveHalving, rs);
    assert_eq!(r.finish, ns(&[2412; 4]));
    // Exchange scan, P = 4: 2 steps of an exchange and 8 B reduced.
    let sc = Op::Scan {
        bytes: 8,
        comm: W,
        exclusive: false,
    };
    let r = with(4, CollAlg::ScanRecursiveDoublingExchange, sc);
    assert_eq!(r.finish, ns(&[2408; 4]));
    // Allgatherv: recursive doubling on 4 (2 exchanges), Bruck on 5 (3).
    let v = |p| Op::Allgatherv {
        counts: vec![8; p],
        comm: W,
    };
    let r = with(4, CollAlg::AllgathervRecursiveDoubling, v(4));
    assert_eq!(r.finish, ns(&[2400; 4]));
    let r = with(5, CollAlg::AllgathervBruck, v(5));
    assert_eq!(r.makespan, Time::from_ns(3600));
}

#[test]
fn mpich_scatter_recursive_doubling_bcast() {
    // P = 2, 16 B: the scatter sends rank 1 its 8 B chunk (0-0.1 us,
    // received 1.1-1.2); in the exchange rank 0 sends at 0.1-0.2. That
    // message lands at 1.2 us, as rank 1 posts its step, and its
    // receive comes first (1.2-1.3); rank 1 then sends (1.3-1.4), which
    // rank 0 receives at 2.4-2.5.
    let b = Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes: 16,
        comm: W,
    };
    let r = with(2, CollAlg::BcastScatterRdAllgather, b);
    assert_eq!(r.finish, ns(&[2500, 1400]));
}

#[test]
fn mpich_selector_runs_its_choice() {
    // Alltoall of 8 B on 4 ranks: MPICH scatters it (fewer than 8
    // ranks), as the unthrottled scattered alltoall above: 1.4 us.
    let r = go(
        4,
        Op::Alltoall { bytes: 8, comm: W },
        params(Selector::Mpich),
    );
    assert_eq!(r.finish, ns(&[1400; 4]));
    // Allreduce of 8 B: recursive doubling, 2 exchanges with 8 B reduced.
    let r = go(
        4,
        Op::Allreduce {
            elem_bytes: 8,
            bytes: 8,
            comm: W,
        },
        params(Selector::Mpich),
    );
    assert_eq!(r.finish, ns(&[2408; 4]));
}

#[test]
fn open_mpi_trees_and_chains() {
    let b = |bytes| Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes,
        comm: W,
    };
    // Chain on 3: 0 -> 1 (0-0.1, received 1.1-1.2), 1 -> 2 (1.2-1.3,
    // received 2.3-2.4).
    let r = with(3, CollAlg::BcastChain, b(8));
    assert_eq!(r.finish, ns(&[100, 1300, 2400]));
    // Binary tree on 4: 0 sends to 1 and 2 (until 0.1, 0.2 us), they
    // receive at 1.1-1.2 and 1.2-1.3; 1 sends to 3 (1.2-1.3), which
    // receives at 2.3-2.4.
    let r = with(4, CollAlg::BcastBinaryTree, b(8));
    assert_eq!(r.finish, ns(&[200, 1300, 1300, 2400]));
    // Reduce up the same tree: 3 sends to 1 (received 1.1-1.2, 4 ns
    // reduced), 1 then sends to 0 (1.204-1.304, lands 2.304); 2 sends at
    // once (lands 1.1); 0 receives at 1.1-1.2 and 2.304-2.404 and
    // reduces 16 B (8 ns).
    let red = Op::Reduce {
        elem_bytes: 8,
        root: 0,
        bytes: 8,
        comm: W,
    };
    let r = with(4, CollAlg::ReduceBinaryTree, red);
    assert_eq!(r.finish, ns(&[2412, 1304, 100, 100]));
    // Chain scan on 3: 0 -> 1, received 1.1-1.2, 4 ns reduced; 1 -> 2
    // (1.204-1.304), received 2.304-2.404, reduced by 2.408.
    let sc = Op::Scan {
        bytes: 8,
        comm: W,
        exclusive: false,
    };
    let r = with(3, CollAlg::ScanChain, sc);
    assert_eq!(r.finish, ns(&[100, 1304, 2408]));
}

#[test]
fn recursive_doubling_barrier_folds_the_extra_ranks() {
    // P = 3: rank 2 reports to 0 (received 1.1-1.2 us); 1's exchange
    // message, sent at 0-0.1, landed at 1.1 and is received at 1.2-1.3;
    // 0 then sends to 1 (1.3-1.4; received 2.4-2.5) and releases 2
    // (1.4-1.5; received 2.5-2.6).
    let r = with(
        3,
        CollAlg::BarrierRecursiveDoubling,
        Op::Barrier { comm: W },
    );
    assert_eq!(r.finish, ns(&[1500, 2500, 2600]));
}

#[test]
fn openmpi_selector_runs_its_choice() {
    // Alltoall of 8 B on 4 ranks: linear_sync without a request limit,
    // all at once: 1.4 us as above.
    let r = go(
        4,
        Op::Alltoall { bytes: 8, comm: W },
        params(Selector::Openmpi),
    );
    assert_eq!(r.finish, ns(&[1400; 4]));
    // Bcast of 8 B on 3 ranks: the table says pipeline, a chain:
    // 0.1, 1.3, 2.4 us as the chain above.
    let b = Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes: 8,
        comm: W,
    };
    let r = go(3, b, params(Selector::Openmpi));
    assert_eq!(r.finish, ns(&[100, 1300, 2400]));
}

#[test]
fn open_mpi_knomial_neighbour_exchange_and_tree_barrier() {
    // Radix-4 k-nomial bcast on 5: the root sends to 4 (0-0.1 us,
    // received 1.1-1.2), then to 1, 2, 3 (until 0.2, 0.3, 0.4; received
    // by 1.3, 1.4, 1.5).
    let b = Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes: 8,
        comm: W,
    };
    let r = with(5, CollAlg::BcastKnomial, b);
    assert_eq!(r.finish, ns(&[400, 1300, 1400, 1500, 1200]));
    // Neighbour exchange on 4: two exchanges (8 B, then 16 B), against
    // three for the ring.
    let r = with(
        4,
        CollAlg::AllgatherNeighborExchange,
        Op::Allgather { bytes: 8, comm: W },
    );
    assert_eq!(r.finish, ns(&[2400; 4]));
    assert_eq!(r.bytes(), 4 * (8 + 16));
    // Tree barrier on 4: 1 and 3 report to 0 and 2 (received 1.1-1.2),
    // 2 to 0 (1.2-1.3, received 2.3-2.4); 0 releases 2 (2.4-2.5,
    // received 3.5-3.6) and 1 (2.5-2.6, received 3.6-3.7); 2 releases 3
    // (3.6-3.7, received 4.7-4.8).
    let r = with(4, CollAlg::BarrierTree, Op::Barrier { comm: W });
    assert_eq!(r.finish, ns(&[2600, 3700, 3700, 4800]));
}

#[test]
fn open_mpi_nonoverlapping_allreduce_is_its_reduce_then_its_bcast() {
    // P = 2, 8 B: Open MPI's fixed rules reduce by the binary tree (1
    // sends at 0-0.1 us; 0 receives 1.1-1.2 and reduces 8 B, 4 ns) and
    // broadcast by the pipeline (0 sends 1.204-1.304; 1 receives
    // 2.304-2.404).
    let r = with(
        2,
        CollAlg::AllreduceNonoverlapping,
        Op::Allreduce {
            elem_bytes: 8,
            bytes: 8,
            comm: W,
        },
    );
    assert_eq!(r.finish, ns(&[1304, 2404]));
}

#[test]
fn butterfly_reduce_scatter_swaps_bit_reversed_blocks() {
    // P = 4, 8 B blocks: exchanges of 16 B (8 ns reduced) and 8 B (4 ns)
    // end at 2.412 us; ranks 1 and 2 then swap their blocks (sent
    // 2.412-2.512, received 3.512-3.612).
    let rs = Op::ReduceScatter {
        counts: vec![8; 4],
        elem_bytes: 8,
        comm: W,
    };
    let r = with(4, CollAlg::ReduceScatterButterfly, rs);
    assert_eq!(r.finish, ns(&[2412, 3612, 3612, 2412]));
}

#[test]
fn open_mpi_default_allgatherv_gathers_then_broadcasts() {
    // P = 3, 8 B each: 1 and 2 send to 0 (land 1.1 us; received 1.1-1.2
    // and 1.2-1.3); Open MPI broadcasts the 24 B by the pipeline: 0 -> 1
    // (1.3-1.4, received 2.4-2.5), 1 -> 2 (2.5-2.6, received 3.6-3.7).
    let v = Op::Allgatherv {
        counts: vec![8; 3],
        comm: W,
    };
    let r = with(3, CollAlg::AllgathervDefault, v);
    assert_eq!(r.finish, ns(&[1400, 2600, 3700]));
    assert_eq!(r.bytes(), 16 + 2 * 24);
}

#[test]
fn neighbor_exchange_allgatherv_takes_p_over_2_exchanges() {
    // P = 6: 3 exchanges of one lone message each way (o, L, o: 1.2 us
    // per step), against P - 1 = 5 for the ring (6.0 us).
    let op = Op::Allgatherv {
        counts: vec![8, 16, 8, 16, 8, 16],
        comm: W,
    };
    let r = with(6, CollAlg::AllgathervNeighborExchange, op.clone());
    assert_eq!(r.finish, ns(&[3600; 6]));
    assert_eq!((r.messages(), r.bytes()), (18, 6 * 72 - 72));
    let r = with(6, CollAlg::AllgathervRing, op.clone());
    assert_eq!(r.makespan, Time::from_ns(6000));
    // Open MPI's rules pick it for 3 <= P < 8 and 256 to 4095 B per rank.
    let op = Op::Allgatherv {
        counts: vec![1000; 6],
        comm: W,
    };
    let r = go(6, op, params(Selector::Openmpi));
    assert_eq!(r.makespan, Time::from_ns(3600));
}

#[test]
fn open_mpi_scatter_allgather_fills_in_off_powers_of_two() {
    // P = 3, 1 B chunks. Rank 0 sends to 2 (0-0.1 us) and 1 (0.1-0.2):
    // 2 has its chunk at 1.2, 1 at 1.3. Level 0: 0 and 1 trade (0 sends
    // 0.2-0.3, 1 sends 1.3-1.4 and receives 1.4-1.5; 0 receives
    // 2.4-2.5). Level 1: 2 sends at 1.2-1.3; 0 first receives it (there
    // since 2.3) 2.5-2.6, then sends 2.6-2.7 (2 receives 3.7-3.8); then
    // 0 hands 1 rank 2's chunk (2.7-2.8, received 3.8-3.9). Bytes:
    // 1 + 1, 1 + 1, 2 + 1, 1.
    let b = Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes: 3,
        comm: W,
    };
    let r = with(3, CollAlg::BcastScatterRdAllgather, b);
    assert_eq!(r.finish, ns(&[2800, 3900, 3800]));
    assert_eq!((r.messages(), r.bytes()), (7, 8));
}

#[test]
fn open_mpi_linear_sync_gather_takes_the_ranks_one_at_a_time() {
    // P = 3, root 0, 8 B: per non-root a sync (root sends o, the rank
    // receives o after L) and its block back (o, L, o): 2.4 us. Rank 1's
    // block is in at 2.4 us; its zero-byte second segment (sent
    // 1.3-1.4) arrives at 2.4 and takes the root's core 2.4-2.5, so the
    // sync to rank 2 leaves 2.5-2.6, its block is in at 4.9 and its
    // second segment (sent 3.8-3.9) is received 4.9-5.0. Open MPI picks
    // it below 2 B on P < 4.
    let g = |bytes| Op::Gather {
        root: 0,
        bytes,
        comm: W,
    };
    let r = with(3, CollAlg::GatherLinearSync, g(8));
    assert_eq!(r.finish, ns(&[5000, 1400, 3900]));
    assert_eq!((r.messages(), r.bytes()), (6, 16));
    let r = go(3, g(1), params(Selector::Openmpi));
    assert_eq!(r.finish, ns(&[5000, 1400, 3900]));
}

#[test]
fn open_mpi_split_binary_tree_trades_halves() {
    // P = 3, 16 B: the root sends 8 B to 1 (0-0.1 us) and 8 B to 2
    // (0.1-0.2); 1 has its half at 1.2, 2 at 1.3. They trade: 1 sends
    // 1.2-1.3 (in at 2.3), 2 sends 1.3-1.4 (in at 2.4); 2 receives
    // 2.3-2.4, 1 receives 2.4-2.5.
    let b = Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes: 16,
        comm: W,
    };
    let r = with(3, CollAlg::BcastSplitBinaryTree, b);
    assert_eq!(r.finish, ns(&[200, 2500, 2400]));
    assert_eq!((r.messages(), r.bytes()), (4, 32));
}

#[test]
fn open_mpi_in_order_binary_reduce_ends_at_the_last_rank() {
    // P = 4, root 0, 8 B (reducing 8 B takes 4 ns): 0 sends to 1 and 2
    // to 3 (0-0.1 us); 1 receives 1.1-1.2, reduces to 1.204, sends to 3
    // 1.204-1.304; 3 receives 2 at 1.1-1.2 (reduced 1.204) and 1 at
    // 2.304-2.404 (reduced 2.408), then sends the result to the root
    // 2.408-2.508, which receives it 3.508-3.608.
    let op = Op::Reduce {
        elem_bytes: 8,
        root: 0,
        bytes: 8,
        comm: W,
    };
    let r = with(4, CollAlg::ReduceInOrderBinary, op);
    assert_eq!(r.finish, ns(&[3608, 1304, 100, 2508]));
    assert_eq!((r.messages(), r.bytes()), (4, 32));
}

#[test]
fn recursive_doubling_reduce_scatter_takes_log_p_exchanges() {
    // P = 4, 8 B blocks: level 0 trades the 24 B outside the own block
    // (o, L, o: 1.2 us) and reduces them (12 ns), level 1 the 16 B
    // outside the own pair (1.212-2.412) and reduces them (8 ns):
    // 2.420 us on every rank, against 3 pairwise steps.
    let op = Op::ReduceScatter {
        counts: vec![8; 4],
        elem_bytes: 8,
        comm: W,
    };
    let r = with(4, CollAlg::ReduceScatterRecursiveDoubling, op);
    assert_eq!(r.finish, ns(&[2420; 4]));
    assert_eq!((r.messages(), r.bytes()), (8, 4 * (24 + 16)));
}

#[test]
fn smpi_runs_mpich_rdb_for_small_unequal_blocks() {
    // Blocks 8, 8, 8, 16 B (40 B <= 524288): SMPI's reduce_scatter__mpich
    // runs recursive doubling. Level 0: 0 and 1 trade 32 B, 2 sends 32 B
    // and gets 24 B, 3 the reverse; all in by 1.2 us, reduced by 1.216
    // (32 B) or 1.212 (24 B). Level 1: 0 and 1 send the 24 B outside
    // their pair and get 16 B, 2 and 3 the reverse: 0 gets 2's (sent
    // 1.212-1.312) at 2.312-2.412 and reduces 16 B (2.420); 1 gets 3's
    // (sent 1.216-1.316) at 2.316-2.416 (2.424); 2 and 3 receive
    // 2.316-2.416 and reduce 24 B (2.428).
    let rs = Op::ReduceScatter {
        counts: vec![8, 8, 8, 16],
        elem_bytes: 8,
        comm: W,
    };
    let r = go(4, rs, params(Selector::Smpi));
    assert_eq!(r.finish, ns(&[2420, 2424, 2428, 2428]));
    assert_eq!((r.messages(), r.bytes()), (8, 200));
}

#[test]
fn torus_tree_bcast_on_a_ring_by_hand() {
    // P = 3 is a ring of 3: the + tree 0 -> 1 -> 2 carries the first
    // 4 B, the - tree 0 -> 2 -> 1 the other 4. Step 0: the root sends to
    // 1 (until 0.1 us, lands 1.1) and to 2 (until 0.2, lands 1.2); 1
    // receives until 1.2, 2 until 1.3. Step 1: 1 sends to 2 (1.2-1.3,
    // lands 2.3) and 2 to 1 (1.3-1.4, lands 2.4); 2 receives until 2.4,
    // 1 until 2.5.
    let b = Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes: 8,
        comm: W,
    };
    let r = with(3, CollAlg::BcastTorusTrees, b);
    assert_eq!(r.finish, ns(&[200, 2500, 2400]));
    assert_eq!((r.messages(), r.bytes()), (4, 16));
}

#[test]
fn torus_tree_allreduce_reduces_up_then_broadcasts_by_hand() {
    // P = 3, 8 B. Reduce, step 0: the leaves of the two trees (2 of the
    // + tree, 1 of the - tree) send their parts (0-0.1 us, land 1.1); 1
    // and 2 receive until 1.2 and reduce 4 B (2 ns). Step 1: both send
    // to the root (1.202-1.302, land 2.302), which receives until 2.402
    // and 2.502 and reduces 8 B (4 ns): 2.506. Then the broadcast above,
    // 2.506 later: the root sends until 2.606 and 2.706; 1 receives
    // 3.606-3.706, sends to 2 (lands 4.806); 2 receives 3.706-3.806,
    // sends to 1 (until 3.906, lands 4.906); 2 done at 4.906, 1 at 5.006.
    let r = with(
        3,
        CollAlg::AllreduceTorusTrees,
        Op::Allreduce {
            elem_bytes: 8,
            bytes: 8,
            comm: W,
        },
    );
    assert_eq!(r.finish, ns(&[2706, 5006, 4906]));
    assert_eq!((r.messages(), r.bytes()), (8, 32));
}
