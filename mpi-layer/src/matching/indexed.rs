//! The linear lists' semantics and search lengths without walking the
//! lists: [`IndexedLinearQueues`].
//!
//! Each queue is a list of positions in arrival order (a removed entry
//! leaves a hole until holes outnumber live entries, then the list is
//! rebuilt), a Fenwick tree over which positions are live (the number of
//! live entries before a position, `O(log n)`), and FIFO lists by key
//! threaded through the positions (`next` links, one lane per key shape),
//! whose heads and tails sit in one hash table. A search is then one or a
//! few hash probes, and taking the entry is an index: no per-entry hash
//! table, no search of the positions, no allocation per key.

use super::{Envelope, MatchQueue, PostedRecv, Search, posted_keys};
use crate::probe::ProbeMap;

/// No position (end of a list).
const NIL: u32 = u32::MAX;

/// A (context, source or any, tag or any) key packed in one integer:
/// tag in bits 0..33, source in 33..66 (bit 32 of each: the wildcard),
/// context above, as two words (never all ones: the table's vacant key).
fn pack(ctx: u32, src: Option<u32>, tag: Option<i32>) -> [u64; 2] {
    let src = src.map_or(1 << 32, u64::from);
    let tag = tag.map_or(1 << 32, |t| u64::from(t as u32));
    let k = (u128::from(ctx) << 66) | (u128::from(src) << 33) | u128::from(tag);
    [k as u64, (k >> 64) as u64]
}

/// Index of a key's shape: exact, any tag, any source, both wildcards
/// (the order of [`posted_keys`]).
fn shape(src: Option<u32>, tag: Option<i32>) -> usize {
    usize::from(src.is_none()) * 2 + usize::from(tag.is_none())
}

/// One queue: entries by arrival position, a Fenwick tree over the live
/// ones, and per-key FIFO lists.
#[derive(Clone, Debug)]
struct Lists<T> {
    items: Vec<Option<T>>,
    fen: Vec<u32>,
    live: usize,
    /// Next position in the same key's list, per lane (key shape);
    /// only the first `lanes` are kept.
    next: [Vec<u32>; 4],
    lanes: usize,
    /// (head, tail) of each key's list; a list may hold removed
    /// positions (an entry filed under several keys), skipped at the head.
    heads: ProbeMap<[u64; 2], (u32, u32)>,
}

impl<T> Default for Lists<T> {
    fn default() -> Self {
        Lists {
            items: Vec::new(),
            fen: Vec::new(),
            live: 0,
            next: Default::default(),
            lanes: 1,
            heads: ProbeMap::default(),
        }
    }
}

impl<T: Copy> Lists<T> {
    /// Number of live entries before position `i`.
    fn prefix(&self, mut i: usize) -> u32 {
        let mut s = 0;
        while i > 0 {
            s += self.fen[i - 1];
            i &= i - 1;
        }
        s
    }

    /// Appends `item`; returns its position (link it with `link`).
    fn push(&mut self, item: T) -> u32 {
        let i = self.items.len() + 1; // 1-based index of the new entry
        let low = i & i.wrapping_neg();
        // fen[i] covers (i - low, i]: the new entry plus the earlier ones.
        let v = 1 + self.prefix(i - 1) - self.prefix(i - low);
        self.items.push(Some(item));
        self.fen.push(v);
        for l in 0..self.lanes {
            self.next[l].push(NIL);
        }
        self.live += 1;
        (i - 1) as u32
    }

    /// Files position `pos` at the tail of `key`'s list in `lane`.
    fn link(&mut self, key: [u64; 2], lane: usize, pos: u32) {
        match self.heads.get_mut(key) {
            Some((_, tail)) => {
                self.next[lane][*tail as usize] = pos;
                *tail = pos;
            }
            None => {
                self.heads.insert(key, (pos, pos));
            }
        }
    }

    /// The oldest live position in `key`'s list (dropping removed ones
    /// at its head).
    fn head(&mut self, key: [u64; 2], lane: usize) -> Option<u32> {
        let h = self.heads.get(key)?.0;
        if self.items[h as usize].is_some() {
            return Some(h);
        }
        let mut h = h;
        while self.items[h as usize].is_none() {
            h = self.next[lane][h as usize];
            if h == NIL {
                self.heads.remove(key);
                return None;
            }
        }
        self.heads.get_mut(key).expect("list").0 = h;
        Some(h)
    }

    /// Unlinks `pos`, the head of `key`'s list, and removes its entry:
    /// the entry and how many live entries preceded it.
    fn take_head(&mut self, key: [u64; 2], lane: usize, pos: u32) -> (T, u64) {
        let n = self.next[lane][pos as usize];
        if n == NIL {
            self.heads.remove(key);
        } else if let Some(h) = self.heads.get_mut(key) {
            h.0 = n;
        }
        let i = pos as usize;
        let item = self.items[i].take().expect("live entry");
        let before = u64::from(self.prefix(i));
        let mut j = i + 1;
        while j <= self.fen.len() {
            self.fen[j - 1] -= 1;
            j += j & j.wrapping_neg();
        }
        self.live -= 1;
        (item, before)
    }

    /// Whether holes outnumber live entries (time to rebuild).
    fn sparse(&self) -> bool {
        self.items.len() > 64 && self.items.len() > 2 * self.live
    }

    /// Empties the queue, returning its live entries oldest first (the
    /// caller files them again; lanes are kept).
    fn drain(&mut self) -> Vec<T> {
        let live: Vec<T> = self.items.iter().filter_map(|x| *x).collect();
        self.items.clear();
        self.fen.clear();
        for n in &mut self.next {
            n.clear();
        }
        self.heads.clear();
        self.live = 0;
        live
    }

    /// Live entries, oldest first.
    fn entries(&self) -> Vec<T> {
        self.items.iter().filter_map(|x| *x).collect()
    }
}

/// The linear lists' semantics and search lengths, computed without
/// walking the lists.
///
/// The match is found through per-key FIFO lists as in
/// [`super::HashedQueues`] (posted receives by their own (context,
/// source-or-any, tag-or-any) key; unexpected envelopes under their exact
/// key, and under the three wildcard keys once a wildcard receive has
/// been posted), and `visited` is the match's position in the linear list
/// (live entries before it, plus one) or the list's length on a miss,
/// taken from a Fenwick tree. Results are identical to
/// [`super::LinearQueues`], visited counts included (tested against it);
/// a search costs `O(log n)` instead of `O(n)`, which keeps the reversed
/// HighVolumePingPong's `n^2 / 2` simulated visits cheap to simulate.
///
/// Wildcards are rare in real codes, so an arrival probes only the key
/// shapes that hold live posted receives, and the unexpected envelopes
/// get their wildcard keys only when a wildcard receive first looks for
/// them (filed then from the live envelopes, oldest first). Each hash
/// probe of 1,024 ranks' tables is a cache miss, so a match costs one
/// probe per shape present and the entry itself is found by position.
#[derive(Clone, Debug, Default)]
pub struct IndexedLinearQueues {
    posted: Lists<PostedRecv>,
    /// Live posted receives by shape, indexed like [`posted_keys`]:
    /// exact, any tag, any source, both wildcards.
    posted_shapes: [usize; 4],
    unexp: Lists<Envelope>,
}

impl IndexedLinearQueues {
    /// Whether both queues are empty.
    pub(super) fn is_empty(&self) -> bool {
        self.posted.live == 0 && self.unexp.live == 0
    }

    /// Whether the unexpected envelopes are filed under wildcard keys.
    fn unexp_wild(&self) -> bool {
        self.unexp.lanes == 4
    }

    fn file_posted(&mut self, p: PostedRecv) {
        let pos = self.posted.push(p);
        self.posted.link(pack(p.ctx, p.src, p.tag), 0, pos);
    }

    fn file_unexpected(&mut self, e: Envelope) {
        let pos = self.unexp.push(e);
        self.unexp
            .link(pack(e.ctx, Some(e.src), Some(e.tag)), 0, pos);
        if self.unexp_wild() {
            self.unexp.link(pack(e.ctx, Some(e.src), None), 1, pos);
            self.unexp.link(pack(e.ctx, None, Some(e.tag)), 2, pos);
            self.unexp.link(pack(e.ctx, None, None), 3, pos);
        }
    }

    /// Files every live unexpected envelope under its wildcard keys,
    /// oldest first, so lists stay in arrival order.
    fn index_wildcards(&mut self) {
        let live = self.unexp.drain();
        self.unexp.lanes = 4;
        for e in live {
            self.file_unexpected(e);
        }
    }
}

impl MatchQueue for IndexedLinearQueues {
    fn match_arrival(&mut self, e: &Envelope) -> Search<PostedRecv> {
        let keys = posted_keys(e);
        let mut best: Option<(u32, [u64; 2], usize)> = None;
        for (i, k) in keys.iter().enumerate() {
            if self.posted_shapes[i] == 0 {
                continue;
            }
            let key = pack(k.0, k.1, k.2);
            if let Some(pos) = self.posted.head(key, 0) {
                if best.is_none_or(|(b, _, _)| pos < b) {
                    best = Some((pos, key, i));
                }
            }
        }
        let Some((pos, key, i)) = best else {
            return Search {
                found: None,
                visited: self.posted.live as u64,
            };
        };
        let (p, before) = self.posted.take_head(key, 0, pos);
        self.posted_shapes[i] -= 1;
        if self.posted.live == 0 || self.posted.sparse() {
            for p in self.posted.drain() {
                self.file_posted(p);
            }
        }
        Search {
            found: Some(p),
            visited: before + 1,
        }
    }
    fn add_unexpected(&mut self, e: Envelope) {
        self.file_unexpected(e);
    }
    fn match_post(&mut self, p: &PostedRecv) -> Search<Envelope> {
        let lane = shape(p.src, p.tag);
        if lane != 0 && !self.unexp_wild() {
            self.index_wildcards();
        }
        let key = pack(p.ctx, p.src, p.tag);
        let Some(pos) = self.unexp.head(key, lane) else {
            return Search {
                found: None,
                visited: self.unexp.live as u64,
            };
        };
        let (e, before) = self.unexp.take_head(key, lane, pos);
        if self.unexp.live == 0 {
            // Only removed positions are left in the lists.
            self.unexp.drain();
            self.unexp.lanes = 1;
        } else if self.unexp.sparse() {
            for e in self.unexp.drain() {
                self.file_unexpected(e);
            }
        }
        Search {
            found: Some(e),
            visited: before + 1,
        }
    }
    fn add_posted(&mut self, p: PostedRecv) {
        self.posted_shapes[shape(p.src, p.tag)] += 1;
        self.file_posted(p);
    }
    fn posted_recvs(&self) -> Vec<PostedRecv> {
        self.posted.entries()
    }
    fn unexpected_msgs(&self) -> Vec<Envelope> {
        self.unexp.entries()
    }
    fn posted_len(&self) -> usize {
        self.posted.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_different_shapes_differ() {
        let a = pack(1, Some(2), Some(-1));
        assert_ne!(a, pack(1, Some(2), None));
        assert_ne!(a, pack(1, None, Some(-1)));
        assert_ne!(pack(1, None, None), pack(1, Some(u32::MAX >> 10), None));
        assert_ne!(pack(0, Some(0), Some(0)), pack(1, Some(0), Some(0)));
    }

    /// A removal in the middle: the Fenwick tree counts the live entries
    /// before it; the removed entry's position is skipped after it.
    #[test]
    fn visited_counts_live_entries_before() {
        let mut q = IndexedLinearQueues::default();
        for (i, src) in [1, 2, 3, 2].into_iter().enumerate() {
            q.add_posted(PostedRecv {
                ctx: 0,
                src: Some(src),
                tag: Some(0),
                req: i as u32,
            });
        }
        let arrive = |q: &mut IndexedLinearQueues, src| {
            let s = q.match_arrival(&Envelope {
                ctx: 0,
                src,
                tag: 0,
                msg: crate::MsgId(0),
            });
            (s.found.map(|p| p.req), s.visited)
        };
        // Source 2's first receive is second in the list.
        assert_eq!(arrive(&mut q, 2), (Some(1), 2));
        // Source 2's second: live entries 1, 3 before it, third.
        assert_eq!(arrive(&mut q, 2), (Some(3), 3));
        assert_eq!(arrive(&mut q, 3), (Some(2), 2));
        // A miss visits the one left.
        assert_eq!(arrive(&mut q, 9), (None, 1));
    }
}
