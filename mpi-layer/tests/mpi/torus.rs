//! The torus-tree broadcast and allreduce (`torus_trees`) with
//! hand-computed times on the ideal machine of `collectives.rs`: LogGP
//! with `o` = 100 ns, `L` = 1 us, one rank per node, reductions at
//! 2 GB/s (0.5 ns per byte) after a step's messages.

use super::{W, loggp_params, one_per_node, progs};
use mpi_layer::{CollAlg, CollKind, Op, RunResults, run};
use sim_core::Time;
use topology::IdealNetwork;

fn with(p: u32, alg: CollAlg, op: Op) -> RunResults {
    let mut params = loggp_params(100, 1000);
    let kind = CollKind::of(&op).expect("collective");
    params.collectives.selection.fix(kind, alg);
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
fn torus_tree_bcast_on_a_ring_by_hand() {
    // P = 3 is a ring of 3: the + tree 0 -> 1 -> 2 carries the first
    // 4 B, the - tree 0 -> 2 -> 1 the other 4. Step 0: the root sends to
    // 1 (until 0.1 us, lands 1.1) and to 2 (until 0.2, lands 1.2); 1
    // receives until 1.2, 2 until 1.3. Step 1: 1 sends to 2 (1.2-1.3,
    // lands 2.3) and 2 to 1 (1.3-1.4, lands 2.4); 2 receives until 2.4,
    // 1 until 2.5.
    let b = Op::Bcast {
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
        Op::Allreduce { bytes: 8, comm: W },
    );
    assert_eq!(r.finish, ns(&[2706, 5006, 4906]));
    assert_eq!((r.messages(), r.bytes()), (8, 32));
}
