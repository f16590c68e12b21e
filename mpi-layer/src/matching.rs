//! Message matching: the two queues of every rank, `posted_recvs` and
//! `unexpected_msgs`, behind one trait with several implementations.
//!
//! MPI's rule (MPI 4.0, Section 3.5, "Order"): an arriving envelope
//! matches the *earliest posted* receive whose communicator equals the
//! envelope's and whose source and tag equal the envelope's or are
//! wildcards; a newly posted receive matches the *earliest arrived*
//! unexpected envelope it accepts. The caller presents envelopes of each
//! (source, destination) pair in send order, which gives non-overtaking.
//!
//! Every implementation returns the same matches; they differ only in
//! how many elements a search visits (the cost the simulator charges,
//! gamma per element, Bienz et al. Section 4.1, eq. 3-4). Matching is kept
//! apart from time: these are plain data structures.
//!
//! Sources here are world ranks and contexts are the simulator's context
//! ids (one per communicator for point-to-point, another for collectives).

use crate::op::MsgId;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, VecDeque};

mod indexed;
pub use indexed::IndexedLinearQueues;

/// A posted receive waiting in `posted_recvs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PostedRecv {
    /// Context id (communicator and point-to-point or collective space).
    pub ctx: u32,
    /// Source world rank, or `None` for `MPI_ANY_SOURCE`.
    pub src: Option<u32>,
    /// Tag, or `None` for `MPI_ANY_TAG`.
    pub tag: Option<i32>,
    /// The simulator's receive request.
    pub req: u32,
}

/// An arrived envelope (short or eager data, or a rendezvous RTS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// Context id.
    pub ctx: u32,
    /// Source world rank.
    pub src: u32,
    /// Tag.
    pub tag: i32,
    /// The simulator's message.
    pub msg: MsgId,
}

/// Whether receive `p` accepts envelope `e`.
#[inline]
pub fn accepts(p: &PostedRecv, e: &Envelope) -> bool {
    p.ctx == e.ctx && p.src.is_none_or(|s| s == e.src) && p.tag.is_none_or(|t| t == e.tag)
}

/// The result of a search: the match, if any, and the number of queue
/// elements visited (compared) to find it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Search<T> {
    /// The removed matching entry.
    pub found: Option<T>,
    /// Elements visited.
    pub visited: u64,
}

/// The two match queues of one rank.
///
/// Contract: `match_arrival` removes and returns the earliest-posted
/// receive accepting the envelope; `match_post` removes and returns the
/// earliest-added envelope the receive accepts; `add_*` append. All
/// implementations return identical `found` values for identical call
/// sequences.
pub trait MatchQueue {
    /// Searches `posted_recvs` for an arriving envelope.
    fn match_arrival(&mut self, e: &Envelope) -> Search<PostedRecv>;
    /// Appends to `unexpected_msgs` (after a failed `match_arrival`).
    fn add_unexpected(&mut self, e: Envelope);
    /// Searches `unexpected_msgs` for a newly posted receive.
    fn match_post(&mut self, p: &PostedRecv) -> Search<Envelope>;
    /// Appends to `posted_recvs` (after a failed `match_post`).
    fn add_posted(&mut self, p: PostedRecv);
    /// `posted_recvs`, oldest first (for diagnostics; may allocate).
    fn posted_recvs(&self) -> Vec<PostedRecv>;
    /// `unexpected_msgs`, oldest first (for diagnostics; may allocate).
    fn unexpected_msgs(&self) -> Vec<Envelope>;
    /// The number of receives in `posted_recvs`: O(1) for the linear
    /// lists, O(keys) for the hashed ones (asked only where a cost
    /// depends on it, `HostCosts::o_inflight`).
    fn posted_len(&self) -> usize;
}

/// A FIFO whose oldest element sits inline: a rank with one receive
/// posted (every step of a collective) finds it in its own state, not
/// behind a pointer. The rest is boxed, allocated on first use: a
/// million ranks' states carry a pointer each, not an empty `VecDeque`
/// (24 bytes more). Empty `first` means empty `rest`.
#[derive(Clone, Debug)]
struct Fifo<T> {
    first: Option<T>,
    // Boxed on purpose: 8 bytes in every rank's state, where an empty
    // `VecDeque` is 32.
    #[allow(clippy::box_collection)]
    rest: Option<Box<VecDeque<T>>>,
}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Fifo {
            first: None,
            rest: None,
        }
    }
}

impl<T: Copy> Fifo<T> {
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.as_ref().map_or(0, |r| r.len())
    }
    fn push_back(&mut self, x: T) {
        if self.first.is_none() {
            self.first = Some(x);
        } else {
            self.rest.get_or_insert_default().push_back(x);
        }
    }
    fn iter(&self) -> impl Iterator<Item = &T> {
        self.first
            .iter()
            .chain(self.rest.iter().flat_map(|r| r.iter()))
    }
    /// Removes and returns the element at `i` (oldest first).
    fn remove(&mut self, i: usize) -> Option<T> {
        if i == 0 {
            let x = self.first.take();
            self.first = self.rest.as_mut().and_then(|r| r.pop_front());
            x
        } else {
            self.rest.as_mut()?.remove(i - 1)
        }
    }
    /// Removes every element, oldest first.
    fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.first
            .take()
            .into_iter()
            .chain(self.rest.iter_mut().flat_map(|r| r.drain(..)))
    }
}

/// Linear lists: the default and the reference. A search visits elements
/// from the oldest until the first match (or all of them).
#[derive(Clone, Debug, Default)]
pub struct LinearQueues {
    posted_recvs: Fifo<PostedRecv>,
    unexpected_msgs: Fifo<Envelope>,
}

impl MatchQueue for LinearQueues {
    fn match_arrival(&mut self, e: &Envelope) -> Search<PostedRecv> {
        let at = self.posted_recvs.iter().position(|p| accepts(p, e));
        match at {
            Some(i) => Search {
                found: self.posted_recvs.remove(i),
                visited: i as u64 + 1,
            },
            None => Search {
                found: None,
                visited: self.posted_recvs.len() as u64,
            },
        }
    }
    fn add_unexpected(&mut self, e: Envelope) {
        self.unexpected_msgs.push_back(e);
    }
    fn match_post(&mut self, p: &PostedRecv) -> Search<Envelope> {
        let at = self.unexpected_msgs.iter().position(|e| accepts(p, e));
        match at {
            Some(i) => Search {
                found: self.unexpected_msgs.remove(i),
                visited: i as u64 + 1,
            },
            None => Search {
                found: None,
                visited: self.unexpected_msgs.len() as u64,
            },
        }
    }
    fn add_posted(&mut self, p: PostedRecv) {
        self.posted_recvs.push_back(p);
    }
    fn posted_recvs(&self) -> Vec<PostedRecv> {
        self.posted_recvs.iter().copied().collect()
    }
    fn posted_len(&self) -> usize {
        self.posted_recvs.len()
    }
    fn unexpected_msgs(&self) -> Vec<Envelope> {
        self.unexpected_msgs.iter().copied().collect()
    }
}

type PostedKey = (u32, Option<u32>, Option<i32>);

/// The four buckets of posted receives that can match `e`: exact source
/// and tag, `MPI_ANY_TAG`, `MPI_ANY_SOURCE`, both wildcards. The match is
/// the oldest head among them.
fn posted_keys(e: &Envelope) -> [PostedKey; 4] {
    [
        (e.ctx, Some(e.src), Some(e.tag)),
        (e.ctx, Some(e.src), None),
        (e.ctx, None, Some(e.tag)),
        (e.ctx, None, None),
    ]
}

/// Hash tables keyed by (context, source, tag).
///
/// `posted_recvs`: one FIFO bucket per key, wildcards included in the key,
/// so an arrival probes the four buckets (exact, any tag, any source,
/// both) and takes the oldest head; visited = non-empty heads compared.
/// `unexpected_msgs`: one bucket per exact key for receives without
/// wildcards (visited = 1 when the bucket exists), plus an arrival-ordered
/// index that wildcard receives scan linearly (visited = scanned entries).
#[derive(Clone, Debug, Default)]
pub struct HashedQueues {
    seq: u64,
    posted: FxHashMap<PostedKey, VecDeque<(u64, PostedRecv)>>,
    unexp: FxHashMap<(u32, u32, i32), VecDeque<(u64, Envelope)>>,
    unexp_order: BTreeMap<u64, Envelope>,
}

impl HashedQueues {
    fn next(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }
}

impl MatchQueue for HashedQueues {
    fn match_arrival(&mut self, e: &Envelope) -> Search<PostedRecv> {
        let keys = posted_keys(e);
        let mut best: Option<(u64, usize)> = None;
        let mut visited = 0;
        for (i, k) in keys.iter().enumerate() {
            if let Some(&(s, _)) = self.posted.get(k).and_then(|q| q.front()) {
                visited += 1;
                if best.is_none_or(|(b, _)| s < b) {
                    best = Some((s, i));
                }
            }
        }
        let found = best.map(|(_, i)| {
            let q = self.posted.get_mut(&keys[i]).expect("probed bucket");
            let (_, p) = q.pop_front().expect("non-empty bucket");
            if q.is_empty() {
                self.posted.remove(&keys[i]);
            }
            p
        });
        Search { found, visited }
    }
    fn add_unexpected(&mut self, e: Envelope) {
        let s = self.next();
        self.unexp
            .entry((e.ctx, e.src, e.tag))
            .or_default()
            .push_back((s, e));
        self.unexp_order.insert(s, e);
    }
    fn match_post(&mut self, p: &PostedRecv) -> Search<Envelope> {
        let (key, visited) = match (p.src, p.tag) {
            (Some(src), Some(tag)) => {
                let k = (p.ctx, src, tag);
                let v = u64::from(self.unexp.contains_key(&k));
                (Some(k), v)
            }
            _ => {
                let mut v = 0;
                let mut key = None;
                for e in self.unexp_order.values() {
                    v += 1;
                    if accepts(p, e) {
                        key = Some((e.ctx, e.src, e.tag));
                        break;
                    }
                }
                (key, v)
            }
        };
        let found = key.and_then(|k| {
            let q = self.unexp.get_mut(&k)?;
            // The oldest envelope accepted is the head of its exact bucket:
            // every older one in that bucket has the same (ctx, src, tag).
            let (s, e) = q.pop_front().expect("non-empty bucket");
            if q.is_empty() {
                self.unexp.remove(&k);
            }
            self.unexp_order.remove(&s);
            Some(e)
        });
        Search { found, visited }
    }
    fn add_posted(&mut self, p: PostedRecv) {
        let s = self.next();
        self.posted
            .entry((p.ctx, p.src, p.tag))
            .or_default()
            .push_back((s, p));
    }
    fn posted_recvs(&self) -> Vec<PostedRecv> {
        let mut v: Vec<(u64, PostedRecv)> = self.posted.values().flatten().copied().collect();
        v.sort_by_key(|x| x.0);
        v.into_iter().map(|x| x.1).collect()
    }
    fn unexpected_msgs(&self) -> Vec<Envelope> {
        self.unexp_order.values().copied().collect()
    }
    fn posted_len(&self) -> usize {
        self.posted.values().map(VecDeque::len).sum()
    }
}

/// One FIFO per source rank, plus one for `MPI_ANY_SOURCE` receives.
///
/// An arrival scans its source's bin and the any-source bin, each until
/// its first match, and takes the older. A receive naming its source scans
/// that bin; an `MPI_ANY_SOURCE` receive scans every bin until each bin's
/// first match and takes the oldest. Visited = all elements compared.
/// (The bins live in a hash map; results take the minimum sequence number
/// and a sum of counts, so the map's iteration order cannot change them.)
#[derive(Clone, Debug, Default)]
pub struct BinnedQueues {
    seq: u64,
    posted: FxHashMap<u32, VecDeque<(u64, PostedRecv)>>,
    posted_any: VecDeque<(u64, PostedRecv)>,
    unexp: FxHashMap<u32, VecDeque<(u64, Envelope)>>,
}

fn first_match<T: Copy>(
    q: &VecDeque<(u64, T)>,
    ok: impl Fn(&T) -> bool,
) -> (Option<(usize, u64)>, u64) {
    match q.iter().position(|(_, x)| ok(x)) {
        Some(i) => (Some((i, q[i].0)), i as u64 + 1),
        None => (None, q.len() as u64),
    }
}

impl MatchQueue for BinnedQueues {
    fn match_arrival(&mut self, e: &Envelope) -> Search<PostedRecv> {
        let (a, va) = match self.posted.get(&e.src) {
            Some(q) => first_match(q, |p| accepts(p, e)),
            None => (None, 0),
        };
        let (b, vb) = first_match(&self.posted_any, |p| accepts(p, e));
        let found = match (a, b) {
            (Some((i, sa)), b) if b.is_none_or(|(_, sb)| sa < sb) => {
                let q = self.posted.get_mut(&e.src).expect("bin");
                let p = q.remove(i).expect("index").1;
                if q.is_empty() {
                    self.posted.remove(&e.src);
                }
                Some(p)
            }
            (_, Some((j, _))) => Some(self.posted_any.remove(j).expect("index").1),
            _ => None,
        };
        Search {
            found,
            visited: va + vb,
        }
    }
    fn add_unexpected(&mut self, e: Envelope) {
        self.seq += 1;
        self.unexp
            .entry(e.src)
            .or_default()
            .push_back((self.seq, e));
    }
    fn match_post(&mut self, p: &PostedRecv) -> Search<Envelope> {
        let mut visited = 0;
        let mut best: Option<(u64, u32, usize)> = None;
        let mut consider = |src: u32, q: &VecDeque<(u64, Envelope)>| {
            let (m, v) = first_match(q, |e| accepts(p, e));
            visited += v;
            if let Some((i, s)) = m {
                if best.is_none_or(|(b, _, _)| s < b) {
                    best = Some((s, src, i));
                }
            }
        };
        match p.src {
            Some(src) => {
                if let Some(q) = self.unexp.get(&src) {
                    consider(src, q);
                }
            }
            None => {
                for (&src, q) in &self.unexp {
                    consider(src, q);
                }
            }
        }
        let found = best.map(|(_, src, i)| {
            let q = self.unexp.get_mut(&src).expect("bin");
            let e = q.remove(i).expect("index").1;
            if q.is_empty() {
                self.unexp.remove(&src);
            }
            e
        });
        Search { found, visited }
    }
    fn add_posted(&mut self, p: PostedRecv) {
        self.seq += 1;
        match p.src {
            Some(s) => self.posted.entry(s).or_default().push_back((self.seq, p)),
            None => self.posted_any.push_back((self.seq, p)),
        }
    }
    fn posted_recvs(&self) -> Vec<PostedRecv> {
        let mut v: Vec<(u64, PostedRecv)> = self
            .posted
            .values()
            .flatten()
            .chain(self.posted_any.iter())
            .copied()
            .collect();
        v.sort_by_key(|x| x.0);
        v.into_iter().map(|x| x.1).collect()
    }
    fn unexpected_msgs(&self) -> Vec<Envelope> {
        let mut v: Vec<(u64, Envelope)> = self.unexp.values().flatten().copied().collect();
        v.sort_by_key(|x| x.0);
        v.into_iter().map(|x| x.1).collect()
    }
    fn posted_len(&self) -> usize {
        self.posted.values().map(VecDeque::len).sum::<usize>() + self.posted_any.len()
    }
}

/// Linear lists that start as [`LinearQueues`] (a short walk beats any
/// index) and move to [`IndexedLinearQueues`] when a queue grows past
/// [`SmallLinear::LIMIT`]. Same matches and search lengths either way.
#[derive(Clone, Debug)]
pub enum SmallLinear {
    /// Plain lists.
    Small(LinearQueues),
    /// Indexed lists.
    Large(Box<IndexedLinearQueues>),
}

impl Default for SmallLinear {
    fn default() -> Self {
        SmallLinear::Small(LinearQueues::default())
    }
}

impl SmallLinear {
    /// Queue length above which the lists are indexed.
    pub const LIMIT: usize = 32;

    fn grow(&mut self) {
        if let SmallLinear::Small(q) = self {
            if q.posted_recvs.len() > Self::LIMIT || q.unexpected_msgs.len() > Self::LIMIT {
                let mut big = IndexedLinearQueues::default();
                for p in q.posted_recvs.drain() {
                    big.add_posted(p);
                }
                for e in q.unexpected_msgs.drain() {
                    big.add_unexpected(e);
                }
                *self = SmallLinear::Large(Box::new(big));
            }
        }
    }
    fn shrink(&mut self) {
        if let SmallLinear::Large(q) = self {
            if q.is_empty() {
                *self = SmallLinear::default();
            }
        }
    }
}

impl MatchQueue for SmallLinear {
    fn match_arrival(&mut self, e: &Envelope) -> Search<PostedRecv> {
        let s = match self {
            SmallLinear::Small(q) => q.match_arrival(e),
            SmallLinear::Large(q) => q.match_arrival(e),
        };
        self.shrink();
        s
    }
    fn add_unexpected(&mut self, e: Envelope) {
        match self {
            SmallLinear::Small(q) => q.add_unexpected(e),
            SmallLinear::Large(q) => q.add_unexpected(e),
        }
        self.grow();
    }
    fn match_post(&mut self, p: &PostedRecv) -> Search<Envelope> {
        let s = match self {
            SmallLinear::Small(q) => q.match_post(p),
            SmallLinear::Large(q) => q.match_post(p),
        };
        self.shrink();
        s
    }
    fn add_posted(&mut self, p: PostedRecv) {
        match self {
            SmallLinear::Small(q) => q.add_posted(p),
            SmallLinear::Large(q) => q.add_posted(p),
        }
        self.grow();
    }
    fn posted_recvs(&self) -> Vec<PostedRecv> {
        match self {
            SmallLinear::Small(q) => q.posted_recvs(),
            SmallLinear::Large(q) => q.posted_recvs(),
        }
    }
    fn unexpected_msgs(&self) -> Vec<Envelope> {
        match self {
            SmallLinear::Small(q) => q.unexpected_msgs(),
            SmallLinear::Large(q) => q.unexpected_msgs(),
        }
    }
    fn posted_len(&self) -> usize {
        match self {
            SmallLinear::Small(q) => q.posted_len(),
            SmallLinear::Large(q) => q.posted_len(),
        }
    }
}

/// The queues of one rank, in the implementation chosen by
/// [`crate::MatcherKind`] (the offloaded matcher keeps linear lists; only
/// its cost differs).
#[derive(Clone, Debug)]
pub enum Queues {
    /// Linear lists ([`SmallLinear`]: [`LinearQueues`], indexed when long).
    Linear(SmallLinear),
    /// [`HashedQueues`] (boxed, as [`BinnedQueues`]: a rank's state keeps
    /// only the linear lists' room).
    Hashed(Box<HashedQueues>),
    /// [`BinnedQueues`].
    Binned(Box<BinnedQueues>),
}

impl Queues {
    /// Empty queues of the kind `k` (allocates nothing until used).
    pub fn new(k: crate::MatcherKind) -> Queues {
        match k {
            crate::MatcherKind::Linear | crate::MatcherKind::Offloaded { .. } => {
                Queues::Linear(SmallLinear::default())
            }
            crate::MatcherKind::Hashed => Queues::Hashed(Box::default()),
            crate::MatcherKind::PerSourceBins => Queues::Binned(Box::default()),
        }
    }
    fn inner(&mut self) -> &mut dyn MatchQueue {
        match self {
            Queues::Linear(q) => q,
            Queues::Hashed(q) => &mut **q,
            Queues::Binned(q) => &mut **q,
        }
    }
    fn inner_ref(&self) -> &dyn MatchQueue {
        match self {
            Queues::Linear(q) => q,
            Queues::Hashed(q) => &**q,
            Queues::Binned(q) => &**q,
        }
    }
}

impl MatchQueue for Queues {
    fn match_arrival(&mut self, e: &Envelope) -> Search<PostedRecv> {
        self.inner().match_arrival(e)
    }
    fn add_unexpected(&mut self, e: Envelope) {
        self.inner().add_unexpected(e)
    }
    fn match_post(&mut self, p: &PostedRecv) -> Search<Envelope> {
        self.inner().match_post(p)
    }
    fn add_posted(&mut self, p: PostedRecv) {
        self.inner().add_posted(p)
    }
    fn posted_recvs(&self) -> Vec<PostedRecv> {
        self.inner_ref().posted_recvs()
    }
    fn unexpected_msgs(&self) -> Vec<Envelope> {
        self.inner_ref().unexpected_msgs()
    }
    fn posted_len(&self) -> usize {
        self.inner_ref().posted_len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inline-first FIFO against a plain `VecDeque`: random pushes,
    /// removals anywhere (the first included) and drains keep the same
    /// elements in the same order.
    #[test]
    fn fifo_behaves_as_a_deque() {
        use sim_core::rand::Rng;
        let mut rng = sim_core::RngStreams::new(11).stream("fifo");
        let (mut f, mut m) = (Fifo::<u32>::default(), VecDeque::new());
        for step in 0..20_000u32 {
            match rng.random_range(0..10) {
                0..5 => {
                    f.push_back(step);
                    m.push_back(step);
                }
                5..9 => {
                    let i = rng.random_range(0..m.len() + 1);
                    assert_eq!(f.remove(i), m.remove(i), "step {step}");
                }
                _ if rng.random_bool(0.1) => {
                    assert!(f.drain().eq(m.drain(..)), "step {step}");
                }
                _ => {}
            }
            assert_eq!(f.len(), m.len());
            assert!(f.iter().eq(m.iter()), "step {step}");
        }
    }

    #[test]
    fn linear_search_lengths() {
        let mut q = LinearQueues::default();
        for t in 0..4 {
            q.add_posted(PostedRecv {
                ctx: 0,
                src: Some(1),
                tag: Some(t),
                req: t as u32,
            });
        }
        // Tag 3 is the fourth element: four visited.
        let s = q.match_arrival(&Envelope {
            ctx: 0,
            src: 1,
            tag: 3,
            msg: MsgId(0),
        });
        assert_eq!((s.found.map(|p| p.req), s.visited), (Some(3), 4));
        // A miss visits all three left.
        let s = q.match_arrival(&Envelope {
            ctx: 1,
            src: 1,
            tag: 0,
            msg: MsgId(0),
        });
        assert_eq!((s.found, s.visited), (None, 3));
    }

    #[test]
    fn hashed_prefers_oldest_across_wildcard_buckets() {
        let mut q = HashedQueues::default();
        q.add_posted(PostedRecv {
            ctx: 0,
            src: None,
            tag: None,
            req: 1,
        });
        q.add_posted(PostedRecv {
            ctx: 0,
            src: Some(2),
            tag: Some(5),
            req: 2,
        });
        let e = Envelope {
            ctx: 0,
            src: 2,
            tag: 5,
            msg: MsgId(0),
        };
        let s = q.match_arrival(&e);
        assert_eq!((s.found.map(|p| p.req), s.visited), (Some(1), 2));
        assert_eq!(q.match_arrival(&e).found.map(|p| p.req), Some(2));
    }
}
