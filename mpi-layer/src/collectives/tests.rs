use super::*;
use crate::op::Op;

/// Runs every rank's plan to the end and checks that sends and
/// receives pair up step by step; returns (messages, bytes).
fn census(alg: CollAlg, op: Op, p: u32) -> (u64, u64) {
    let mut runs: Vec<CollRun> = (0..p).map(|me| CollRun::new(alg, &op, p, me)).collect();
    let mut sends = std::collections::BTreeMap::<(u32, u32), Vec<u64>>::new();
    let mut recvs = std::collections::BTreeMap::<(u32, u32), Vec<u64>>::new();
    let mut out = vec![];
    // As the simulator's step: sizes only for the algorithms that
    // read them.
    let c = if alg.reads_counts() {
        counts(&op)
    } else {
        NO_COUNTS
    };
    for r in runs.iter_mut() {
        while r.plan(c, &mut out).is_some() {
            for o in &out {
                if o.send {
                    sends.entry((r.me, o.peer)).or_default().push(o.bytes);
                } else {
                    recvs.entry((o.peer, r.me)).or_default().push(o.bytes);
                }
            }
            r.step += 1;
        }
    }
    assert_eq!(sends, recvs, "{alg:?} p={p}: sends and receives pair up");
    let m = sends.values().map(|v| v.len() as u64).sum();
    let b = sends.values().flatten().sum();
    (m, b)
}

#[test]
fn counts_by_hand() {
    let w = crate::CommId::WORLD;
    // Dissemination barrier, P = 5: 3 steps of 5 messages.
    assert_eq!(
        census(CollAlg::BarrierDissemination, Op::Barrier { comm: w }, 5),
        (15, 0)
    );
    // Binomial bcast: P - 1 messages of s.
    let b = Op::Bcast {
        elem_bytes: 8,
        root: 2,
        bytes: 10,
        comm: w,
    };
    assert_eq!(census(CollAlg::BcastBinomial, b.clone(), 7), (6, 60));
    // Recursive doubling allreduce, P = 6: pof2 = 4, rem = 2:
    // 2 fold + 4 * 2 exchange + 2 unfold = 12 messages.
    let a = Op::Allreduce {
        elem_bytes: 8,
        bytes: 8,
        comm: w,
    };
    assert_eq!(
        census(CollAlg::AllreduceRecursiveDoubling, a.clone(), 6),
        (12, 96)
    );
    // Rabenseifner, P = 4, s = 16: halving 4 x (8 + 4), doubling
    // 4 x (4 + 8) = 96 bytes in 16 messages.
    let a16 = Op::Allreduce {
        elem_bytes: 8,
        bytes: 16,
        comm: w,
    };
    assert_eq!(census(CollAlg::AllreduceRabenseifner, a16, 4), (16, 96));
    // Ring allreduce P = 4, s = 16: 2 * 3 steps * 4 ranks * 4 B.
    let a16 = Op::Allreduce {
        elem_bytes: 8,
        bytes: 16,
        comm: w,
    };
    assert_eq!(census(CollAlg::AllreduceRing, a16, 4), (24, 96));
    // Bruck alltoall, P = 5, s = 1: step k moves count_bit blocks:
    // k=0: j in {1,3} -> 2; k=1: {2,3} -> 2; k=2: {4} -> 1; times 5.
    let t = Op::Alltoall { bytes: 1, comm: w };
    assert_eq!(census(CollAlg::AlltoallBruck, t.clone(), 5), (15, 25));
    assert_eq!(census(CollAlg::AlltoallPairwise, t, 5), (20, 20));
    // Binomial gather P = 5, s = 1: every rank's byte moves once per
    // tree level it climbs: 1 (r1) + 2 (r2..3) + 1 (r3) + 1 (r4) = 5.
    let g = Op::Gather {
        root: 0,
        bytes: 1,
        comm: w,
    };
    assert_eq!(census(CollAlg::GatherBinomial, g, 5), (4, 5));
    let sc = Op::Scatter {
        root: 0,
        bytes: 1,
        comm: w,
    };
    assert_eq!(census(CollAlg::ScatterBinomial, sc, 5), (4, 5));
    // Scatter-allgather bcast P = 4, s = 8: scatter 2+1+1 chunks of 2 B,
    // ring 3 steps x 4 ranks x 2 B.
    let b = Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes: 8,
        comm: w,
    };
    assert_eq!(census(CollAlg::BcastScatterAllgather, b, 4), (15, 32));
    let rs = Op::ReduceScatter {
        counts: vec![1, 2, 3],
        elem_bytes: 1,
        comm: w,
    };
    // Each block travels P - 1 = 2 hops: 2 * 6 bytes.
    assert_eq!(census(CollAlg::ReduceScatterRing, rs, 3), (6, 12));
    let agv = Op::Allgatherv {
        counts: vec![1, 2, 3],
        comm: w,
    };
    assert_eq!(census(CollAlg::AllgathervRing, agv, 3), (6, 12));
    // Linear gatherv and scatterv, root 0: ranks 1 to 4 each send or
    // receive their own count, 2 + 3 + 4 + 5 bytes.
    let (root, counts5) = (0, vec![1, 2, 3, 4, 5]);
    let gv = Op::Gatherv {
        root,
        counts: counts5.clone(),
        comm: w,
    };
    assert_eq!(census(CollAlg::GathervLinear, gv, 5), (4, 14));
    let sv = Op::Scatterv {
        root,
        counts: counts5,
        comm: w,
    };
    assert_eq!(census(CollAlg::ScattervLinear, sv, 5), (4, 14));
    // Pairwise alltoallv, 2 bytes to and from every other rank.
    let tv = Op::Alltoallv {
        send: vec![2; 3],
        recv: vec![2; 3],
        comm: w,
    };
    assert_eq!(census(CollAlg::AlltoallvPairwise, tv, 3), (6, 12));
    let sc = Op::Scan {
        bytes: 1,
        comm: w,
        exclusive: false,
    };
    // P = 5: d=1: 4, d=2: 3, d=4: 1.
    assert_eq!(census(CollAlg::ScanRecursiveDoubling, sc, 5), (8, 8));
    let ag = Op::Allgather { bytes: 3, comm: w };
    assert_eq!(
        census(CollAlg::AllgatherRecursiveDoubling, ag, 4),
        (8, 4 * (3 + 6))
    );
}

#[test]
fn library_algorithms_pair_up_and_move_what_they_should() {
    use CollAlg::*;
    let w = crate::CommId::WORLD;
    let bcast = |root| Op::Bcast {
        elem_bytes: 8,
        root,
        bytes: 10,
        comm: w,
    };
    let rooted = |alg| {
        let (root, bytes, comm) = (3, 4, w);
        match alg {
            ReduceLinear => Op::Reduce {
                elem_bytes: 8,
                root,
                bytes,
                comm,
            },
            GatherLinear => Op::Gather { root, bytes, comm },
            _ => Op::Scatter { root, bytes, comm },
        }
    };
    let v3 = |c: Vec<u64>| Op::Allgatherv { counts: c, comm: w };
    let tv = |c: u64| Op::Alltoallv {
        send: vec![c; 3],
        recv: vec![c; 3],
        comm: w,
    };
    let rs = |c: Vec<u64>| Op::ReduceScatter {
        counts: c,
        elem_bytes: 1,
        comm: w,
    };
    let scan = |exclusive| Op::Scan {
        bytes: 1,
        comm: w,
        exclusive,
    };
    let a2a = |bytes| Op::Alltoall { bytes, comm: w };
    let ag = |bytes| Op::Allgather { bytes, comm: w };
    let ar = |bytes| test_ops::allreduce(bytes, 8);
    // (alg, op, P, messages, bytes), counted by hand:
    let cases = [
        // Linear barrier: P - 1 reports and P - 1 answers.
        (BarrierLinear, Op::Barrier { comm: w }, 5, 8, 0),
        // Every binomial tree moves P - 1 messages of s.
        (BcastBinomialFarFirst, bcast(2), 6, 5, 50),
        (BcastBinomialFarFirst, bcast(0), 1, 0, 0),
        (BcastBinomialFarFirst, bcast(5), 8, 7, 70),
        (ReduceLinear, rooted(ReduceLinear), 5, 4, 16),
        (GatherLinear, rooted(GatherLinear), 5, 4, 16),
        (ScatterLinear, rooted(ScatterLinear), 5, 4, 16),
        // Reduce (5 messages) then bcast (5) of 8 B.
        (AllreduceReduceBcast, ar(8), 6, 10, 80),
        (AllgatherScattered, ag(3), 4, 12, 36),
        // Every rank sends its own count to the 2 others.
        (AllgathervScattered, v3(vec![1, 2, 3]), 3, 6, 12),
        (AlltoallScattered, a2a(1), 5, 20, 20),
        (AlltoallPairwiseXor, a2a(2), 8, 56, 112),
        (AlltoallvScattered, tv(2), 3, 6, 12),
        // Zero-byte messages are sent too (as SMPI's ialltoallv).
        (AlltoallvScattered, tv(0), 3, 6, 0),
        // A reduce of the 6 bytes to rank 0 (2 messages), then 2 B
        // to each of ranks 1 and 2.
        (ReduceScatterReduceScatterv, rs(vec![2, 2, 2]), 3, 4, 16),
        // Every block reaches its owner from the 2 other ranks.
        (ReduceScatterPairwise, rs(vec![1, 2, 3]), 3, 6, 12),
        // Every pair (lower, higher) once: P (P - 1) / 2.
        (ScanLinear, scan(false), 4, 6, 6),
        (ScanLinear, scan(true), 4, 6, 6),
        // Every rank to every other, whatever the blocks: 70 x 69.
        (AlltoallScatteredThrottled, a2a(1), 70, 4830, 4830),
        (AlltoallvScatteredThrottled, tv(2), 3, 6, 12),
        // Zero-byte messages are left out (as MPICH).
        (AlltoallvScatteredThrottled, tv(0), 3, 0, 0),
        // Bruck P = 5: 1, 2, then the 1 block left, per rank.
        (AllgatherBruck, ag(1), 5, 15, 20),
        (AllgatherBruck, ag(1), 4, 8, 12),
    ];
    let v = |c: Vec<u64>| Op::Allgatherv { counts: c, comm: w };
    let red = |root, bytes| test_ops::reduce(root, bytes, 8);
    let red1 = |root, bytes| test_ops::reduce(root, bytes, 1);
    let bc = |bytes| Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes,
        comm: w,
    };
    let mpich_cases = [
        // Scatter of 2 B chunks (4 + 2 + 2 B), then exchanges of 2
        // and 4 B by all 4 ranks.
        (BcastScatterRdAllgather, bc(8), 4, 11, 32),
        // P = 8, 1 B chunks: scatter 4 + 2 x 2 + 4 x 1 B; exchanges
        // of 1, 2, 4 B by all 8.
        (BcastScatterRdAllgather, bc(8), 8, 31, 68),
        // P = 6, 10 B chunks: scatter 20 + 20 + 3 x 10 B; exchanges
        // of 10 B by all 6, of 20 B by 0-3, of 40 (0, 1 to 4, 5) and
        // 20 B back; then 0 and 1 hand 2 and 3 the 20 B of 4-5.
        (BcastScatterRdAllgather, bc(60), 6, 21, 370),
        // P = 4, 16 chars: halving 4 x 8 + 4 x 4 B, gather 2 x 4 + 8 B.
        (ReduceScatterGather, red1(0, 16), 4, 11, 64),
        // P = 5, root 1 folded away: fold 16 B, halving as above,
        // rank 0 hands its 4 B piece to the root, gather 2 x 4 + 8.
        (ReduceScatterGather, red1(1, 16), 5, 13, 84),
        (ReduceScatterGather, red1(4, 16), 5, 12, 80),
        // P = 4, 7 doubles in MPICH's blocks of 2, 2, 2, 1
        // (`MPIR_Reduce_intra_reduce_scatter_gather`): distance 1, ranks
        // 0 and 2 send blocks 2-3 (3), 1 and 3 blocks 0-1 (4); distance
        // 2, 0 <-> 2 blocks 1 and 0 (2 + 2), 1 -> 3 block 3 (1), 3 -> 1
        // block 2 (2); rank n now holds block bitrev(n). Gather: 2 -> 0
        // block 1 (2), 3 -> 1 block 3 (1), 1 -> 0 blocks 2-3 (3). 27
        // doubles, 216 B (an even byte split: 224 B).
        (ReduceScatterGather, red(0, 56), 4, 11, 216),
        // Every rank receives all the other blocks once.
        (AllgathervRecursiveDoubling, v(vec![1, 2, 3, 4]), 4, 8, 30),
        (AllgathervBruck, v(vec![1, 2, 3, 4, 5]), 5, 15, 60),
        // Halving: 7 + 7 + 3 + 3, then 2 + 1 + 4 + 3 B.
        (
            ReduceScatterRecursiveHalving,
            rs(vec![1, 2, 3, 4]),
            4,
            8,
            30,
        ),
        // P = 3: 0 folds 6 B into 1; 1 and 2 trade 3 B each; 1
        // hands rank 0 its 1 B.
        (ReduceScatterRecursiveHalving, rs(vec![1, 2, 3]), 3, 4, 13),
        (ReduceScatterRecursiveHalving, rs(vec![0, 0, 0]), 3, 0, 0),
        // Pairs (0,1), (2,3); (0,2), (1,3); (0,4).
        (ScanRecursiveDoublingExchange, scan(false), 5, 10, 10),
    ];
    let rootb = |root| Op::Bcast {
        elem_bytes: 8,
        root,
        bytes: 10,
        comm: w,
    };
    let ompi_cases = [
        (BcastLinear, rootb(3), 5, 4, 40),
        (BcastChain, rootb(2), 5, 4, 40),
        (ReduceChain, red(1, 4), 5, 4, 16),
        (ScanChain, scan(false), 5, 4, 4),
        (ScanChain, scan(true), 5, 4, 4),
        // Binary trees: P - 1 messages of s (P = 8: rank 3 has 7).
        (BcastBinaryTree, rootb(4), 7, 6, 60),
        (BcastBinaryTree, rootb(0), 8, 7, 70),
        (ReduceBinaryTree, red(2, 4), 8, 7, 28),
        // P = 6: 2 reports, 2 rounds of 4, 2 releases.
        (BarrierRecursiveDoubling, Op::Barrier { comm: w }, 6, 12, 0),
        (BarrierRecursiveDoubling, Op::Barrier { comm: w }, 4, 8, 0),
    ];
    let bc16 = |root| Op::Bcast {
        elem_bytes: 8,
        root,
        bytes: 16,
        comm: w,
    };
    let red_g = |root, bytes| Op::Gather {
        root,
        bytes,
        comm: w,
    };
    let more = [
        // k-nomial, radix 4, P = 6: 0 -> 4, 0 -> 1, 2, 3, 4 -> 5.
        (BcastKnomial, rootb(1), 6, 5, 50),
        (BcastKnomial, rootb(0), 17, 16, 160),
        // Neighbour exchange, P = 6: 1 block, then 2 steps of 2.
        (AllgatherNeighborExchange, ag(1), 6, 18, 30),
        // Open MPI's tuned reduce then bcast (4 <= P < 8, < 64 B:
        // binary trees both): P - 1 messages each way.
        (AllreduceNonoverlapping, ar(8), 4, 6, 48),
        (AllreduceNonoverlapping, ar(32), 5, 8, 256),
        // P = 3, 6 B: Open MPI reduces below 8 B by rabenseifner:
        // fold 6 B, trade 3 B, gather 3 B; then 2 B to 1 and to 2.
        (ReduceScatterNonoverlapping, rs(vec![2, 2, 2]), 3, 6, 19),
        // Butterfly, P = 4, blocks 1, 2, 3, 4: distance 1 trades
        // halves (0, 2 send 7; 1, 3 send 3), distance 2 quarters
        // (0 sends 2, 2 sends 1, 1 sends 4, 3 sends 3); then ranks
        // 1 and 2 (bit-reversed 2 and 1) swap blocks 2 and 3.
        (ReduceScatterButterfly, rs(vec![1, 2, 3, 4]), 4, 10, 35),
        // P = 3: 0 folds 6 B into 1; 1 and 2 trade 3 B; 1 sends 0
        // its block; no swap (mirror of a 1-bit number is itself).
        (ReduceScatterButterfly, rs(vec![1, 2, 3]), 3, 4, 13),
        // Gatherv of 1 + 2 + 3 B to 0 (2 messages, 5 B), then a
        // bcast of the 6 B (Open MPI, P < 4, < 32 B: pipeline).
        (AllgathervDefault, v(vec![1, 2, 3]), 3, 4, 17),
        // Open MPI's redscat_allgather, P = 3, 3 doubles: halves 16 + 8
        // B, the reduced 16 B back, windows 16 + 8 B each way, 24 B to
        // the folded rank. P = 6, 7 doubles: ranks 0-3 trade 3 + 4 per
        // pair and hand 4 back; vranks 0-3 halve 7 into 3 | 4 (14),
        // then 3 into 1 | 2 and 4 into 2 | 2 (7), the allgather the same
        // 21 back; 2 x 7 doubles out: 78 doubles.
        (
            AllreduceRedscatAllgather,
            test_ops::allreduce(24, 8),
            3,
            8,
            112,
        ),
        (
            AllreduceRedscatAllgather,
            test_ops::allreduce(56, 8),
            6,
            24,
            8 * 78,
        ),
        // P = 17, 64 KiB each: gatherv of 16 blocks, then the bcast
        // of 1088 KiB, which Open MPI's table (16 <= P < 32, >= 1 MiB)
        // runs as scatter_allgather; as one element of an indexed
        // datatype (count 1 < P), that is basic_linear: 16 messages.
        (
            AllgathervDefault,
            v(vec![65_536; 17]),
            17,
            32,
            16 * 65_536 * 18,
        ),
        // Neighbour exchange allgatherv, P = 4: blocks 1 + 2 + 3 + 4
        // B in step 0, pairs of 3 and 7 B in step 1; every rank gets
        // the 3 blocks not its own once (P = 6: 6 x 21 - 21 B).
        (AllgathervNeighborExchange, v(vec![1, 2, 3, 4]), 4, 8, 30),
        (
            AllgathervNeighborExchange,
            v(vec![1, 2, 3, 4, 5, 6]),
            6,
            18,
            105,
        ),
        // Split binary tree, 16 B (2 elements): P - 1 tree messages
        // of 8 B, then P = 7: 6 ranks trade 8 B; P = 6: 4 trade, the
        // root sends rank 5 relative 8 B.
        (BcastSplitBinaryTree, bc16(2), 7, 12, 96),
        (BcastSplitBinaryTree, bc16(0), 6, 10, 80),
        // In-order binary, P - 1 tree messages of 4 B, and one more
        // when the root is not P - 1.
        (ReduceInOrderBinary, red(4, 4), 5, 4, 16),
        (ReduceInOrderBinary, red(0, 4), 6, 6, 24),
        (ReduceInOrderBinary, red(0, 4), 1, 0, 0),
        // Open MPI's allreduce, P = 300, 10000 B: the in-order binary
        // reduce to 0 (299 + 1 messages), then the k-nomial bcast
        // (299).
        (AllreduceNonoverlapping, ar(10_000), 300, 599, 5_990_000),
        // Recursive doubling reduce_scatter, P = 5, blocks 1..5 (15
        // B): level 0 trades 14/13 and 12/11 B, level 1 12/8 B twice,
        // level 2 5/10 B, then rank 0's 10 B go to 2, 1, and 2 to 3.
        (
            ReduceScatterRecursiveDoubling,
            rs(vec![1, 2, 3, 4, 5]),
            5,
            13,
            135,
        ),
        // P = 4, blocks 1..4 (10 B): 9/8, 7/6 B, then 7/3 B twice.
        (
            ReduceScatterRecursiveDoubling,
            rs(vec![1, 2, 3, 4]),
            4,
            8,
            50,
        ),
        // Linear sync gather, P = 5, root 3, 4 B: 4 zero-byte syncs,
        // 4 blocks, 4 zero-byte second segments.
        (GatherLinearSync, red_g(3, 4), 5, 12, 16),
        (GatherLinearSync, red_g(0, 4), 1, 0, 0),
        // Tree barrier, P = 5: up 2 + 1 + 1, down the same.
        (BarrierTree, Op::Barrier { comm: w }, 5, 8, 0),
    ];
    for (alg, op, p, m, b) in cases
        .into_iter()
        .chain(mpich_cases)
        .chain(ompi_cases)
        .chain(more)
    {
        assert_eq!(census(alg, op, p), (m, b), "{alg:?} P = {p}");
    }
    // Far-first tree on 6 ranks from the root: children 4, 2, 1, in
    // that order; 4 then sends to 5, 2 to 3.
    let op = bcast(0);
    let mut r = CollRun::new(BcastBinomialFarFirst, &op, 6, 0);
    let mut out = vec![];
    let mut peers = vec![];
    while r.plan(NO_COUNTS, &mut out).is_some() {
        peers.extend(out.iter().map(|o| o.peer));
        r.step += 1;
    }
    assert_eq!(peers, [4, 2, 1]);
    let mut r = CollRun::new(BcastBinomialFarFirst, &op, 6, 4);
    let mut ops = vec![];
    while r.plan(NO_COUNTS, &mut out).is_some() {
        ops.extend(out.iter().map(|o| (o.send, o.peer)));
        r.step += 1;
    }
    assert_eq!(ops, [(false, 0), (true, 5)]);
}

/// Every step of every rank of `alg` on `op`, as (send, peer, bytes).
fn schedule(alg: CollAlg, op: &Op, p: u32) -> Vec<Vec<Vec<(bool, u32, u64)>>> {
    let c = if alg.reads_counts() {
        counts(op)
    } else {
        NO_COUNTS
    };
    let mut out = vec![];
    (0..p)
        .map(|me| {
            let mut r = CollRun::new(alg, op, p, me);
            let mut steps = vec![];
            while r.plan(c, &mut out).is_some() {
                steps.push(out.iter().map(|o| (o.send, o.peer, o.bytes)).collect());
                r.step += 1;
            }
            steps
        })
        .collect()
}

#[test]
fn allgatherv_neighbor_exchange_by_hand_and_moves_each_block_once() {
    // Block i is 2^i bytes, so a message's size names its blocks.
    let p = 6;
    let op = Op::Allgatherv {
        counts: (0..p).map(|i| 1u64 << i).collect(),
        comm: crate::CommId::WORLD,
    };
    let s = schedule(CollAlg::AllgathervNeighborExchange, &op, p);
    // Rank 0 (Open MPI's comment in coll_base_allgatherv.c): block 0
    // to 1 for block 1; blocks 0-1 to 5 for 4-5; 4-5 to 1 for 2-3.
    let rank0: Vec<Vec<(bool, u32, u64)>> = vec![
        vec![(true, 1, 1), (false, 1, 2)],
        vec![(true, 5, 3), (false, 5, 48)],
        vec![(true, 1, 48), (false, 1, 12)],
    ];
    assert_eq!(s[0], rank0);
    // Rank 3 (odd): block 3 to 2 for 2; 2-3 to 4 for 4-5; 4-5 to 2
    // for 0-1.
    let rank3: Vec<Vec<(bool, u32, u64)>> = vec![
        vec![(true, 2, 8), (false, 2, 4)],
        vec![(true, 4, 12), (false, 4, 48)],
        vec![(true, 2, 48), (false, 2, 3)],
    ];
    assert_eq!(s[3], rank3);
    // Every rank sends only blocks it holds and ends with every block
    // exactly once.
    for (me, steps) in s.iter().enumerate() {
        let mut have = 1u64 << me;
        for step in steps {
            for &(send, _, b) in step {
                if send {
                    assert_eq!(b & have, b, "rank {me} sends {b:#b} holding {have:#b}");
                }
            }
            for &(send, _, b) in step {
                if !send {
                    assert_eq!(b & have, 0, "rank {me} gets {b:#b} twice");
                    have |= b;
                }
            }
        }
        assert_eq!(have, (1 << p) - 1, "rank {me}");
    }
}

#[test]
fn open_mpi_scatter_allgather_off_powers_of_two_by_hand() {
    // P = 6, root 2, 10 B chunks: relative rank v is rank v + 2.
    let op = Op::Bcast {
        elem_bytes: 8,
        root: 2,
        bytes: 60,
        comm: crate::CommId::WORLD,
    };
    let s = schedule(CollAlg::BcastScatterRdAllgather, &op, 6);
    let v = |x: u32| (x + 2) % 6;
    // Scatter (3 steps), level 0 (1), level 1 (2), level 2 (3).
    for steps in &s {
        assert_eq!(steps.len(), 9);
    }
    // v0: 20 B to v4, 20 B to v2, 10 B to v1; trades 10 B with v1,
    // 20 B with v2 (then idles), 40 B for 20 with v4, then hands v2
    // the 20 B of v4-v5.
    let v0: Vec<Vec<(bool, u32, u64)>> = vec![
        vec![(true, v(4), 20)],
        vec![(true, v(2), 20)],
        vec![(true, v(1), 10)],
        vec![(true, v(1), 10), (false, v(1), 10)],
        vec![(true, v(2), 20), (false, v(2), 20)],
        vec![],
        vec![(true, v(4), 40), (false, v(4), 20)],
        vec![(true, v(2), 20)],
        vec![],
    ];
    assert_eq!(s[v(0) as usize], v0);
    // v3: its chunk from v2, trades with v2 and v1, no partner at
    // level 2 (v7), gets v4-v5's chunks from v1.
    let v3: Vec<Vec<(bool, u32, u64)>> = vec![
        vec![],
        vec![],
        vec![(false, v(2), 10)],
        vec![(true, v(2), 10), (false, v(2), 10)],
        vec![(true, v(1), 20), (false, v(1), 20)],
        vec![],
        vec![],
        vec![(false, v(1), 20)],
        vec![],
    ];
    assert_eq!(s[v(3) as usize], v3);
    // P = 5, root 0, 1 B chunks: level 2 pairs only v0 with v4,
    // whose 1 chunk then goes v0 -> v2 (distance 2), v0 -> v1 and
    // v2 -> v3 (distance 1); level 1 has no fill (v4's partner
    // subtree is empty).
    let op = Op::Bcast {
        elem_bytes: 8,
        root: 0,
        bytes: 5,
        comm: crate::CommId::WORLD,
    };
    let s = schedule(CollAlg::BcastScatterRdAllgather, &op, 5);
    assert_eq!(s[4][5], vec![]);
    assert_eq!(s[0][6], vec![(true, 4, 4), (false, 4, 1)]);
    assert_eq!(s[0][7], vec![(true, 2, 1)]);
    assert_eq!(s[0][8], vec![(true, 1, 1)]);
    assert_eq!(s[2][8], vec![(true, 3, 1)]);
    assert_eq!(s[3][8], vec![(false, 2, 1)]);
    // Every rank receives the 4 chunks it lacks at least once.
    for (me, steps) in s.iter().enumerate().skip(1) {
        let got: u64 = steps.iter().flatten().filter(|o| !o.0).map(|o| o.2).sum();
        assert!(got >= 4, "rank {me} gets {got} B");
    }
}

#[test]
fn open_mpi_linear_sync_gather_by_hand() {
    // P = 3, root 1, 8 B: rank 0 first, then rank 2.
    let op = Op::Gather {
        root: 1,
        bytes: 8,
        comm: crate::CommId::WORLD,
    };
    let s = schedule(CollAlg::GatherLinearSync, &op, 3);
    let root: Vec<Vec<(bool, u32, u64)>> = vec![
        vec![(true, 0, 0)],
        vec![(false, 0, 8)],
        vec![(true, 2, 0)],
        vec![(false, 2, 8)],
        vec![(false, 0, 0), (false, 2, 0)],
    ];
    assert_eq!(s[1], root);
    let r2: Vec<Vec<(bool, u32, u64)>> = vec![
        vec![],
        vec![],
        vec![(false, 1, 0)],
        vec![(true, 1, 8)],
        vec![(true, 1, 0)],
    ];
    assert_eq!(s[2], r2);
}

#[test]
fn open_mpi_split_binary_tree_by_hand() {
    // P = 6, root 1, 24 B (3 elements): left half 16 B (relative 1,
    // 3, 5), right 8 B (relative 2, 4). Tree: v0 -> v1, v2; v1 -> v3,
    // v5; v2 -> v4. Then v1 <-> v2, v3 <-> v4, v0 -> v5.
    let op = Op::Bcast {
        elem_bytes: 8,
        root: 1,
        bytes: 24,
        comm: crate::CommId::WORLD,
    };
    let s = schedule(CollAlg::BcastSplitBinaryTree, &op, 6);
    let v = |x: u32| (x + 1) % 6;
    let at = |x: u32| &s[v(x) as usize];
    assert_eq!(
        *at(0),
        vec![
            vec![(true, v(1), 16), (true, v(2), 8)],
            vec![],
            vec![(true, v(5), 8)],
        ]
    );
    assert_eq!(
        *at(1),
        vec![
            vec![(false, v(0), 16)],
            vec![(true, v(3), 16), (true, v(5), 16)],
            vec![(true, v(2), 16), (false, v(2), 8)],
        ]
    );
    assert_eq!(
        *at(4),
        vec![
            vec![],
            vec![(false, v(2), 8)],
            vec![(true, v(3), 8), (false, v(3), 16)],
        ]
    );
    assert_eq!(
        *at(5),
        vec![vec![], vec![(false, v(1), 16)], vec![(false, v(0), 8)]]
    );
    // Every non-root receives 24 B in all.
    for x in 1..6 {
        let got: u64 = at(x).iter().flatten().filter(|o| !o.0).map(|o| o.2).sum();
        assert_eq!(got, 24, "v{x}");
    }
}

#[test]
fn open_mpi_in_order_binary_tree_by_hand() {
    // P = 7 (tree of coll_base_topo.c): 6 has right child 2 (ranks
    // 0-2) and left child 5 (3-5); 2 has 0 and 1; 5 has 3 and 4.
    // Leaves send at step 0, 2 and 5 at step 1; root 1 gets the
    // result from 6 at step 2.
    let op = Op::Reduce {
        elem_bytes: 8,
        root: 1,
        bytes: 8,
        comm: crate::CommId::WORLD,
    };
    let s = schedule(CollAlg::ReduceInOrderBinary, &op, 7);
    type Steps = Vec<Vec<(bool, u32, u64)>>;
    let want: [Steps; 7] = [
        vec![vec![(true, 2, 8)], vec![], vec![]],
        vec![vec![(true, 2, 8)], vec![], vec![(false, 6, 8)]],
        vec![
            vec![(false, 1, 8), (false, 0, 8)],
            vec![(true, 6, 8)],
            vec![],
        ],
        vec![vec![(true, 5, 8)], vec![], vec![]],
        vec![vec![(true, 5, 8)], vec![], vec![]],
        vec![
            vec![(false, 4, 8), (false, 3, 8)],
            vec![(true, 6, 8)],
            vec![],
        ],
        vec![
            vec![],
            vec![(false, 5, 8), (false, 2, 8)],
            vec![(true, 1, 8)],
        ],
    ];
    for (r, w) in want.iter().enumerate() {
        assert_eq!(&s[r], w, "rank {r}");
    }
    // P = 4: 3 has right child 1 (0-1, which has left child 0) and
    // left child 2: 0 and 2 send at step 0, 1 at step 1.
    let op = Op::Reduce {
        elem_bytes: 8,
        root: 3,
        bytes: 8,
        comm: crate::CommId::WORLD,
    };
    let s = schedule(CollAlg::ReduceInOrderBinary, &op, 4);
    assert_eq!(s[3], vec![vec![(false, 2, 8)], vec![(false, 1, 8)]]);
    assert_eq!(s[1], vec![vec![(false, 0, 8)], vec![(true, 3, 8)]]);
}

#[test]
fn smpi_mpich_rdb_reduce_scatter_by_hand() {
    let op = Op::ReduceScatter {
        counts: vec![1, 2, 3, 4, 5],
        elem_bytes: 1,
        comm: crate::CommId::WORLD,
    };
    let s = schedule(CollAlg::ReduceScatterRecursiveDoubling, &op, 5);
    // Rank 0: levels of 1, 2 and 3 steps.
    let r0: Vec<Vec<(bool, u32, u64)>> = vec![
        vec![(true, 1, 14), (false, 1, 13)],
        vec![(true, 2, 12), (false, 2, 8)],
        vec![],
        vec![(true, 4, 5), (false, 4, 10)],
        vec![(true, 2, 10)],
        vec![(true, 1, 10)],
    ];
    assert_eq!(s[0], r0);
    let r3: Vec<Vec<(bool, u32, u64)>> = vec![
        vec![(true, 2, 11), (false, 2, 12)],
        vec![(true, 1, 8), (false, 1, 12)],
        vec![],
        vec![],
        vec![],
        vec![(false, 2, 10)],
    ];
    assert_eq!(s[3], r3);
    // Reductions follow each level's last step: rank 0 reduces 13,
    // 8 and 10 B; rank 3 (no partner at level 2) 12, 12 and 10.
    let reduced = |me| {
        let mut r = CollRun::new(CollAlg::ReduceScatterRecursiveDoubling, &op, 5, me);
        let mut out = vec![];
        let mut v = vec![];
        while let Some(b) = r.plan(counts(&op), &mut out) {
            v.push(b);
            r.step += 1;
        }
        v
    };
    assert_eq!(reduced(0), [13, 0, 8, 0, 0, 10]);
    assert_eq!(reduced(3), [12, 0, 12, 0, 0, 10]);
}
