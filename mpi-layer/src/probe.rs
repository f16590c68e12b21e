//! A hash map for the simulator's hot per-message lookups: open
//! addressing, linear probing, keys and values inline in one slot.
//!
//! Written by hand rather than taken from `hashbrown` (std's map):
//! a lookup there reads the control bytes and then the bucket, two cache
//! misses when the table is cold, and the tables looked up once per
//! message (a rank's match lists, the pairs in flight, the user requests,
//! the sending ports' queues) are cold at every message of a large run. Here a lookup reads its
//! slot, and at a load of at most three quarters its probe mostly stays
//! in that cache line. Removal shifts the rest of the cluster back, so
//! there are no tombstones and a miss stops at the first empty slot.
//!
//! Measured against `FxHashMap` in the first three places, the user
//! requests then one per slot (`farm-bench`, paired CPU medians,
//! `netsim bench --child`): pairs-1m 0.82 (5 runs),
//! amg-spmv packet 0.95 (3 runs), peak memory 3 % lower on both. A load
//! of at most one half was as fast on pairs-1m (0.75) but took 143 MiB
//! more peak memory on amg-spmv.

/// A key of a [`ProbeMap`].
pub(crate) trait ProbeKey: Copy + Eq {
    /// A value no real key takes: it marks an empty slot.
    const VACANT: Self;
    /// The key folded into one word (the map mixes it further).
    fn fold(self) -> u64;
}

/// A (rank, rank) pair; no rank is `u32::MAX`.
impl ProbeKey for (u32, u32) {
    const VACANT: Self = (u32::MAX, u32::MAX);
    fn fold(self) -> u64 {
        (u64::from(self.0) << 32) | u64::from(self.1)
    }
}

/// A rank's network interface (`(rank << 16) | interface`); no rank is
/// `2^48 - 1`.
impl ProbeKey for u64 {
    const VACANT: Self = u64::MAX;
    fn fold(self) -> u64 {
        self
    }
}

/// A rank and a 64-bit id; no rank is `u32::MAX`.
impl ProbeKey for (u32, u64) {
    const VACANT: Self = (u32::MAX, u64::MAX);
    fn fold(self) -> u64 {
        self.1 ^ u64::from(self.0).rotate_left(40)
    }
}

/// A 128-bit key as two words (a slot of `u128` would be aligned to 16
/// bytes); the caller keeps `[u64::MAX; 2]` unused.
impl ProbeKey for [u64; 2] {
    const VACANT: Self = [u64::MAX; 2];
    fn fold(self) -> u64 {
        self[0] ^ self[1].wrapping_mul(PHI).rotate_left(29)
    }
}

/// 2^64 / the golden ratio (Fibonacci hashing: the top bits of the
/// product depend on every bit of the key).
const PHI: u64 = 0x9e37_79b9_7f4a_7c15;

/// The map; see the module's documentation.
#[derive(Clone, Debug)]
pub(crate) struct ProbeMap<K, V> {
    /// A power of two long (at least 16), or empty before the first
    /// insert; at most three quarters full.
    slots: Vec<(K, V)>,
    len: usize,
}

impl<K, V> Default for ProbeMap<K, V> {
    fn default() -> Self {
        ProbeMap {
            slots: Vec::new(),
            len: 0,
        }
    }
}

impl<K: ProbeKey, V: Copy + Default> ProbeMap<K, V> {
    /// Entries in the map.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot `k` hashes to.
    fn home(&self, k: K) -> usize {
        // At least 16 slots: the shift is less than 64.
        (k.fold().wrapping_mul(PHI) >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    /// Index of `k`'s slot, or `Err` with the empty slot that ends its
    /// probe (`Err(0)` in an empty table).
    fn find(&self, k: K) -> Result<usize, usize> {
        debug_assert!(k != K::VACANT, "the vacant key");
        if self.slots.is_empty() {
            return Err(0);
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(k);
        loop {
            let s = self.slots[i].0;
            if s == k {
                return Ok(i);
            }
            if s == K::VACANT {
                return Err(i);
            }
            i = (i + 1) & mask;
        }
    }

    pub(crate) fn get(&self, k: K) -> Option<&V> {
        let i = self.find(k).ok()?;
        Some(&self.slots[i].1)
    }

    pub(crate) fn get_mut(&mut self, k: K) -> Option<&mut V> {
        let i = self.find(k).ok()?;
        Some(&mut self.slots[i].1)
    }

    pub(crate) fn contains_key(&self, k: K) -> bool {
        self.find(k).is_ok()
    }

    /// `k`'s value, inserted as `V::default()` if absent.
    pub(crate) fn entry_default(&mut self, k: K) -> &mut V {
        let i = match self.find(k) {
            Ok(i) => i,
            Err(_) => self.put(k, V::default()),
        };
        &mut self.slots[i].1
    }

    /// Sets `k`'s value; returns the old one.
    pub(crate) fn insert(&mut self, k: K, v: V) -> Option<V> {
        match self.find(k) {
            Ok(i) => Some(std::mem::replace(&mut self.slots[i].1, v)),
            Err(_) => {
                self.put(k, v);
                None
            }
        }
    }

    /// Files absent `k`; returns its slot.
    fn put(&mut self, k: K, v: V) -> usize {
        if 4 * (self.len + 1) > 3 * self.slots.len() {
            let cap = (2 * self.slots.len()).max(16);
            let old = std::mem::replace(&mut self.slots, vec![(K::VACANT, V::default()); cap]);
            for s in old.into_iter().filter(|s| s.0 != K::VACANT) {
                let i = self.find(s.0).expect_err("keys are distinct");
                self.slots[i] = s;
            }
        }
        let i = self.find(k).expect_err("key absent");
        self.slots[i] = (k, v);
        self.len += 1;
        i
    }

    /// Removes `k`; returns its value. The slots after it whose probe
    /// passed through its slot move back.
    pub(crate) fn remove(&mut self, k: K) -> Option<V> {
        let Ok(mut hole) = self.find(k) else {
            return None;
        };
        let v = self.slots[hole].1;
        let mask = self.slots.len() - 1;
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let s = self.slots[j];
            if s.0 == K::VACANT {
                break;
            }
            // The slot stays if its home lies cyclically in (hole, j].
            if (j.wrapping_sub(self.home(s.0)) & mask) < (j.wrapping_sub(hole) & mask) {
                continue;
            }
            self.slots[hole] = s;
            hole = j;
        }
        self.slots[hole] = (K::VACANT, V::default());
        self.len -= 1;
        Some(v)
    }

    /// Empties the map (keeping its room).
    pub(crate) fn clear(&mut self) {
        self.slots.fill((K::VACANT, V::default()));
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::rand::Rng;

    /// The map against std's: random inserts, updates and removals over
    /// few keys, so clusters form and wrap around the table's end (the
    /// backward shift's cases).
    #[test]
    fn behaves_as_std_map() {
        let mut rng = sim_core::RngStreams::new(11).stream("probe");
        let mut h = ProbeMap::<(u32, u32), u32>::default();
        let mut m = rustc_hash::FxHashMap::default();
        let key =
            |rng: &mut sim_core::SimRng| (rng.random_range(0..40u32), rng.random_range(0..3u32));
        for step in 0..200_000u32 {
            let k = key(&mut rng);
            match rng.random_range(0..4) {
                0 => assert_eq!(h.insert(k, step), m.insert(k, step), "step {step}"),
                1 => {
                    *h.entry_default(k) += 1;
                    *m.entry(k).or_default() += 1;
                }
                _ => assert_eq!(h.remove(k), m.remove(&k), "step {step}"),
            }
            assert_eq!(h.len, m.len(), "step {step}");
            if step % 97 == 0 {
                for a in 0..40 {
                    for b in 0..3 {
                        assert_eq!(h.get((a, b)), m.get(&(a, b)), "step {step}");
                        assert_eq!(h.contains_key((a, b)), m.contains_key(&(a, b)));
                    }
                }
            }
        }
        h.clear();
        assert!(h.is_empty() && h.get((0, 0)).is_none());
    }

    /// Keys differing in either word, or in the other key types' parts,
    /// are told apart.
    #[test]
    fn wide_keys() {
        let mut h = ProbeMap::<[u64; 2], u8>::default();
        let mut u = ProbeMap::<(u32, u64), u8>::default();
        for i in 0..1000u64 {
            h.insert([i, 0], 1);
            h.insert([0, i + 1], 2);
            u.insert((i as u32, 7), 3);
            u.insert((7, i << 40), 4);
        }
        assert_eq!(h.len, 2000);
        assert_eq!(u.len, 2000);
        assert_eq!(h.get([5, 0]), Some(&1));
        assert_eq!(h.get([0, 6]), Some(&2));
        assert_eq!(u.get((7, 7 << 40)), Some(&4));
    }
}
