//! Statistics collected during a run: summaries (count, mean, variance,
//! extremes) and log-binned histograms. Every collector can be merged with
//! another of its kind (runs of a sweep, ranks of a run, shards of a batch
//! job), and merging is associative and commutative up to floating-point
//! rounding of sums. Per-link busy time and utilization are the
//! transport's (`topology::stats`, in the crate above); a counter is a
//! `u64`.

use serde::Serialize;

/// Count, mean, variance, min and max of a series of values, kept in
/// constant space (Welford's update; Chan et al.'s pairwise merge).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    count: u64,
    mean: f64,
    m2: f64,
    min: f64,
    max: f64,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            count: 0,
            mean: 0.0,
            m2: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl Summary {
    /// Adds one value.
    pub fn record(&mut self, x: f64) {
        self.count += 1;
        let d = x - self.mean;
        self.mean += d / self.count as f64;
        self.m2 += d * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }
    /// Number of values.
    pub fn count(&self) -> u64 {
        self.count
    }
    /// Mean, or `None` when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then_some(self.mean)
    }
    /// Sample variance (n - 1 denominator), or `None` with fewer than two values.
    pub fn variance(&self) -> Option<f64> {
        (self.count > 1).then(|| self.m2 / (self.count - 1) as f64)
    }
    /// Smallest value, or `None` when empty.
    pub fn min(&self) -> Option<f64> {
        (self.count > 0).then_some(self.min)
    }
    /// Largest value, or `None` when empty.
    pub fn max(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max)
    }
    /// Sum of the values.
    pub fn sum(&self) -> f64 {
        self.mean * self.count as f64
    }
    /// Half-width of the normal-approximation 95 % confidence interval of
    /// the mean (1.96 s / sqrt(n)), or `None` with fewer than two values.
    pub fn ci95_half_width(&self) -> Option<f64> {
        self.variance()
            .map(|v| 1.96 * (v / self.count as f64).sqrt())
    }
    /// Pools another summary into this one.
    pub fn merge(&mut self, o: &Summary) {
        if o.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *o;
            return;
        }
        let n = (self.count + o.count) as f64;
        let d = o.mean - self.mean;
        self.mean += d * o.count as f64 / n;
        self.m2 += o.m2 + d * d * self.count as f64 * o.count as f64 / n;
        self.count += o.count;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }
}

/// Sub-bins per power of two in [`LogHistogram`]: 2^3 = 8, so a bin spans
/// at most 1/8 of its lower bound (12.5 % relative width).
const SUB_BITS: u32 = 3;
const SUB: u64 = 1 << SUB_BITS;

/// A histogram of non-negative integers (search lengths, latencies in ps,
/// message sizes in bytes) with logarithmic bins: exact below 8, then 8
/// bins per power of two. Memory is at most 8 x 64 counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LogHistogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    min: u64,
    max: u64,
}

/// The bin of `v`: values below `SUB` have a bin each; above, the bin is
/// the octave (position of the top bit) and the next `SUB_BITS` bits.
fn bin_of(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let top = 63 - v.leading_zeros(); // >= SUB_BITS
    let shift = top - SUB_BITS;
    let sub = (v >> shift) & (SUB - 1);
    ((top - SUB_BITS + 1) as u64 * SUB + sub) as usize
}

/// The smallest value falling in bin `b`.
fn bin_low(b: usize) -> u64 {
    let b = b as u64;
    if b < SUB {
        return b;
    }
    let octave = b / SUB - 1; // top bit position minus SUB_BITS
    let sub = b % SUB;
    (SUB | sub) << octave
}

impl LogHistogram {
    /// Records one value.
    pub fn record(&mut self, v: u64) {
        self.record_n(v, 1);
    }
    /// Records `n` occurrences of `v`.
    pub fn record_n(&mut self, v: u64, n: u64) {
        if n == 0 {
            return;
        }
        let b = bin_of(v);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += n;
        if self.total == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.total += n;
        self.sum += v as u128 * n as u128;
    }
    /// Number of recorded values.
    pub fn count(&self) -> u64 {
        self.total
    }
    /// Exact mean, or `None` when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum as f64 / self.total as f64)
    }
    /// Exact sum of the recorded values.
    pub fn sum(&self) -> u128 {
        self.sum
    }
    /// Exact smallest value, or `None` when empty.
    pub fn min(&self) -> Option<u64> {
        (self.total > 0).then_some(self.min)
    }
    /// Exact largest value, or `None` when empty.
    pub fn max(&self) -> Option<u64> {
        (self.total > 0).then_some(self.max)
    }
    /// An upper bound of the `q`-quantile (0 <= q <= 1): the largest value
    /// of the bin holding it, capped at the exact maximum.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some((bin_low(b + 1) - 1).min(self.max));
            }
        }
        Some(self.max)
    }
    /// Non-empty bins as `(lowest value, highest value, count)`.
    pub fn bins(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(b, &c)| (bin_low(b), bin_low(b + 1) - 1, c))
    }
    /// Adds another histogram's counts.
    pub fn merge(&mut self, o: &LogHistogram) {
        if o.total == 0 {
            return;
        }
        if o.counts.len() > self.counts.len() {
            self.counts.resize(o.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.min = if self.total == 0 {
            o.min
        } else {
            self.min.min(o.min)
        };
        self.max = self.max.max(o.max);
        self.total += o.total;
        self.sum += o.sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_partition_the_integers() {
        // Every value lies in its bin's [low, next low) range and bins are
        // contiguous.
        for v in (0..5000u64).chain([u64::MAX / 3, u64::MAX - 1, u64::MAX]) {
            let b = bin_of(v);
            assert!(bin_low(b) <= v, "v={v} b={b}");
            if b + 1 < 64 * SUB as usize {
                assert!(v < bin_low(b + 1) || bin_low(b + 1) == 0, "v={v}");
            }
        }
        for b in 0..200 {
            assert_eq!(bin_of(bin_low(b)), b);
        }
    }

    #[test]
    fn histogram_stats_and_merge() {
        let mut a = LogHistogram::default();
        let mut b = LogHistogram::default();
        for v in 1..=100 {
            a.record(v);
        }
        b.record_n(1000, 3);
        a.merge(&b);
        assert_eq!(a.count(), 103);
        assert_eq!(a.min(), Some(1));
        assert_eq!(a.max(), Some(1000));
        assert_eq!(a.sum(), 5050 + 3000);
        assert_eq!(a.quantile(1.0), Some(1000));
        let med = a.quantile(0.5).unwrap();
        assert!((52..=59).contains(&med), "median bound {med}");
        assert_eq!(a.bins().map(|(_, _, c)| c).sum::<u64>(), 103);
    }

    #[test]
    fn summary_merge_matches_direct() {
        let xs: Vec<f64> = (0..50).map(|i| (i * i % 17) as f64).collect();
        let mut all = Summary::default();
        xs.iter().for_each(|&x| all.record(x));
        let (mut l, mut r) = (Summary::default(), Summary::default());
        xs[..20].iter().for_each(|&x| l.record(x));
        xs[20..].iter().for_each(|&x| r.record(x));
        l.merge(&r);
        assert_eq!(l.count(), all.count());
        assert!((l.mean().unwrap() - all.mean().unwrap()).abs() < 1e-12);
        assert!((l.variance().unwrap() - all.variance().unwrap()).abs() < 1e-9);
        assert_eq!(l.max(), Some(16.0));
    }
}
