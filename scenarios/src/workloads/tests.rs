use super::*;

fn count(p: &Programs, f: impl Fn(&Op) -> bool) -> usize {
    p.iter().flatten().filter(|o| f(o)).count()
}

#[test]
fn hvpp_tags_match_in_both_orders() {
    for order in [RecvOrder::InOrder, RecvOrder::Reversed] {
        let p = high_volume_ping_pong(2, &[(0, 1)], 5, 8, order);
        // Each side: 5 isends + waitall + 5 irecvs + waitall.
        assert_eq!(p[0].len(), 12);
        let sent: Vec<i32> = p[0]
            .iter()
            .filter_map(|o| {
                if let Op::Isend { tag, .. } = o {
                    Some(*tag)
                } else {
                    None
                }
            })
            .collect();
        let posted: Vec<i32> = p[1]
            .iter()
            .filter_map(|o| {
                if let Op::Irecv {
                    tag: TagSel::Tag(t),
                    ..
                } = o
                {
                    Some(*t)
                } else {
                    None
                }
            })
            .collect();
        let mut a = sent.clone();
        let mut b = posted.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b, "every send has its receive");
        if order == RecvOrder::Reversed {
            assert_eq!(posted, vec![4, 3, 2, 1, 0]);
        } else {
            assert_eq!(posted, sent);
        }
    }
}

#[test]
fn calibration_modes_put_the_sync_where_the_benchmark_does() {
    let is_sync_send = |o: &Op| {
        matches!(
            o,
            Op::Send {
                tag: SYNC_TAG,
                bytes: 0,
                ..
            }
        )
    };
    let is_sync_recv = |o: &Op| {
        matches!(
            o,
            Op::Recv {
                tag: TagSel::Tag(SYNC_TAG),
                ..
            }
        )
    };
    for order in [RecvOrder::InOrder, RecvOrder::Reversed] {
        // Posted: rank 1 posts its 4 receives, then the sync; rank 0
        // waits for it before its first send. And back.
        let p = hvpp(4, 8, order, HvppMode::Posted);
        assert_eq!((p[0].len(), p[1].len()), (12, 12));
        assert!(p[1][..4].iter().all(|o| matches!(o, Op::Irecv { .. })));
        assert!(is_sync_send(&p[1][4]) && is_sync_recv(&p[0][0]));
        assert!(matches!(p[0][1], Op::Isend { .. }));
        assert!(is_sync_send(&p[0][10]) && is_sync_recv(&p[1][6]));
        // Unexpected: rank 0 starts its 4 sends, then the sync; rank 1
        // waits for it before its first receive. And back.
        let p = hvpp(4, 8, order, HvppMode::Unexpected);
        assert!(p[0][..4].iter().all(|o| matches!(o, Op::Isend { .. })));
        assert!(is_sync_send(&p[0][4]) && is_sync_recv(&p[1][0]));
        assert!(matches!(p[1][1], Op::Irecv { .. }));
        assert!(is_sync_send(&p[1][10]) && is_sync_recv(&p[0][6]));
        let first_recv_tag = p[1].iter().find_map(|o| match o {
            Op::Irecv {
                tag: TagSel::Tag(t),
                ..
            } => Some(*t),
            _ => None,
        });
        let want = if order == RecvOrder::Reversed { 3 } else { 0 };
        assert_eq!(first_recv_tag, Some(want));
    }
    assert_eq!(
        hvpp(4, 8, RecvOrder::InOrder, HvppMode::Paper),
        high_volume_ping_pong(2, &[(0, 1)], 4, 8, RecvOrder::InOrder)
    );
    // Message rate: every window closed by rank 1's acknowledgement.
    let m = message_rate_acked(3, 8, 2);
    assert_eq!((m[0].len(), m[1].len()), (10, 10));
    assert!(is_sync_recv(&m[0][4]) && is_sync_recv(&m[0][9]));
    assert!(is_sync_send(&m[1][4]) && is_sync_send(&m[1][9]));
}

#[test]
fn gemini_line_pairs_cross_the_middle() {
    let p = gemini_line(32, 2, 1024, RecvOrder::InOrder);
    assert_eq!(p.len(), 128);
    // Rank 0 (G0) talks to rank 64 (G2); rank 32 (G1) to rank 96 (G3).
    assert!(matches!(p[0][0], Op::Isend { dst: 64, .. }));
    assert!(matches!(p[32][0], Op::Isend { dst: 96, .. }));
    assert_eq!(count(&p, |o| matches!(o, Op::Isend { .. })), 128 * 2);
}

#[test]
fn halo_neighbour_counts_and_symmetry() {
    for (st, k) in [(Stencil::Point7, 6), (Stencil::Point27, 26)] {
        let h = Halo {
            dims: [4, 4, 4],
            stencil: st,
            face_bytes: 100,
            edge_bytes: 10,
            corner_bytes: 1,
            periodic: true,
            iters: 2,
            compute: Time::ZERO,
        };
        let progs = h.programs();
        for r in 0..64 {
            let nb = h.neighbours(r);
            assert_eq!(nb.len(), k);
            // Symmetric: r's neighbour in direction d has r in 26 - d.
            for &(q, bytes, dir) in &nb {
                assert!(h.neighbours(q).contains(&(r, bytes, 26 - dir)));
            }
        }
        assert_eq!(count(&progs, |o| matches!(o, Op::Isend { .. })), 64 * k * 2);
    }
    // Non-periodic corners of a 3x3x3 grid have 7 neighbours (27-point).
    let h = Halo {
        dims: [3, 3, 3],
        stencil: Stencil::Point27,
        face_bytes: 1,
        edge_bytes: 1,
        corner_bytes: 1,
        periodic: false,
        iters: 1,
        compute: Time::ZERO,
    };
    assert_eq!(h.neighbours(0).len(), 7);
    assert_eq!(h.neighbours(13).len(), 26);
}

#[test]
fn grid_dims_are_cubic() {
    assert_eq!(grid_dims(512), [8, 8, 8]);
    assert_eq!(grid_dims(4096), [16, 16, 16]);
    assert_eq!(grid_dims(1024), [8, 8, 16]);
    assert_eq!(grid_dims(7), [1, 1, 7]);
    assert_eq!(grid_dims(12), [2, 2, 3]);
}

#[test]
fn zhu_patterns_are_seeded_and_valid() {
    let a = ZhuPattern::random(30, 3, 1, 0);
    assert_eq!(a, ZhuPattern::random(30, 3, 1, 0));
    assert_ne!(a, ZhuPattern::random(30, 3, 1, 1));
    assert!(a.links.iter().all(|&(s, d)| s != d && s < 30 && d < 30));
    // 90 draws at probability 1/2: far from 0 and 90.
    assert!((20..70).contains(&a.links.len()), "{}", a.links.len());
    let p = a.programs(10 << 20);
    assert_eq!(p.len(), 2 * a.links.len());
    assert_eq!(a.node_of_rank().len(), p.len());
}

#[test]
fn random_pairs_are_perfect_matchings() {
    let p = random_pairs(16, 5, 64, 3);
    for (r, prog) in p.iter().enumerate() {
        assert_eq!(prog.len(), 15);
        for op in prog {
            if let Op::Isend { dst, .. } = op {
                assert_ne!(*dst as usize, r);
            }
        }
    }
    assert_eq!(p, random_pairs(16, 5, 64, 3));
}

#[test]
fn message_rate_and_collectives_shapes() {
    let m = message_rate(8, 64, 3);
    assert_eq!(count(&m, |o| matches!(o, Op::Isend { .. })), 24);
    assert_eq!(count(&m, |o| matches!(o, Op::Irecv { .. })), 24);
    for c in Collective::ALL {
        let p = collective(c, 4, 8, 2);
        assert_eq!(p.len(), 4);
        assert!(p.iter().all(|v| v.len() == 2));
    }
    let pp = ping_pong(2, &[8, 1024], 3);
    assert_eq!(pp[0].len(), 12);
}
