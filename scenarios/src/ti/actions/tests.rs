use super::*;
use sim_core::rand::Rng;

/// The pending requests against a map of deques: each key's requests
/// come back oldest first, through pushes, pops, peeks and clears.
#[test]
fn pending_lists_are_fifo_per_key() {
    let mut rng = sim_core::RngStreams::new(9).stream("ti-pending");
    let mut p = Pending::default();
    let mut m: rustc_hash::FxHashMap<(Rank, Rank, Tag), VecDeque<ReqId>> = Default::default();
    for step in 0..50_000u64 {
        let key = (rng.random_range(0..3u32), rng.random_range(0..3u32), 0);
        match rng.random_range(0..10) {
            0..=4 => {
                p.push(key, ReqId(step));
                m.entry(key).or_default().push_back(ReqId(step));
            }
            5 => assert_eq!(p.front(key), m.get(&key).and_then(|q| q.front().copied())),
            6..=8 => {
                let want = m.get_mut(&key).and_then(|q| q.pop_front());
                assert_eq!(p.pop_front(key), want, "step {step}");
            }
            _ => {
                if rng.random_range(0..20) == 0 {
                    p.clear();
                    m.clear();
                }
            }
        }
        assert_eq!(p.is_empty(), m.values().all(|q| q.is_empty()));
    }
}
