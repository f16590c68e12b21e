//! Integer simulated time and byte rates.
//!
//! All simulated time is a whole number of picoseconds in a `u64`
//! ([`Time`]); that covers 213 days of simulated time, far beyond any MPI
//! run, while resolving a single byte on a 1 TB/s link (1 ps). Floating
//! point never enters an event key: two events scheduled "at the same time"
//! by different code paths compare equal, and results do not depend on the
//! order of floating-point additions.
//!
//! Rates are whole bytes per second ([`Bandwidth`]). The one place where
//! bytes and a rate become a duration is [`transfer_time`], which computes
//! exactly (in `u64` when the product fits, else in `u128`) and rounds up, so a transfer is never credited as finished before
//! its last byte could have moved.

use std::fmt;
use std::num::NonZeroU64;
use std::ops::{Add, AddAssign, Mul, Sub, SubAssign};

/// Picoseconds per second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// A point in simulated time, or a span of it, in integer picoseconds.
///
/// One type serves for instants and durations, as in the papers' formulas
/// (`T = alpha + s / R_b` adds a duration to a start time). Addition and
/// multiplication saturate at [`Time::MAX`] in every build (never wrap to
/// an earlier time): [`Time::MAX`] lies beyond the horizon
/// [`crate::limits::MAX_SIM_TIME`], so a time that overflowed stops the
/// run with an error instead of being used as a value. Use the
/// `checked_*` forms to detect overflow where it happens.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
#[serde(transparent)]
pub struct Time(u64);

impl Time {
    /// Time zero, the start of every simulation.
    pub const ZERO: Time = Time(0);
    /// The largest representable time (about 213 days); used as "never".
    pub const MAX: Time = Time(u64::MAX);

    /// From whole picoseconds.
    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    /// From whole nanoseconds. Panics if the result overflows.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    /// From whole microseconds. Panics if the result overflows.
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    /// From whole milliseconds. Panics if the result overflows.
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    /// From seconds given as a float, rounded to the nearest picosecond.
    ///
    /// Model parameters are published as decimal seconds (`alpha = 4.4e-07`
    /// in Table 1 of Bienz et al.); rounding to the nearest picosecond makes
    /// `from_secs_f64(4.4e-07)` exactly 440 000 ps. Returns `None` for
    /// negative, NaN or too-large inputs, so callers validating user input can
    /// name the offending parameter.
    pub fn try_from_secs_f64(secs: f64) -> Option<Time> {
        if secs.is_nan() || secs < 0.0 {
            return None;
        }
        let ps = (secs * PS_PER_SEC as f64).round();
        if ps >= u64::MAX as f64 {
            return None;
        }
        Some(Time(ps as u64))
    }
    /// Like [`Time::try_from_secs_f64`] but panics on invalid input; for
    /// constants in code, not for user input.
    pub fn from_secs_f64(secs: f64) -> Time {
        Self::try_from_secs_f64(secs)
            .unwrap_or_else(|| panic!("time of {secs} s is negative, NaN or too large"))
    }
    /// Whole picoseconds.
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// Seconds as a float (for reports and closed-form comparisons only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    /// Microseconds as a float (for reports only).
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// `self + rhs`, or `None` on overflow.
    pub const fn checked_add(self, rhs: Time) -> Option<Time> {
        match self.0.checked_add(rhs.0) {
            Some(v) => Some(Time(v)),
            None => None,
        }
    }
    /// `self + rhs`, clamped to [`Time::MAX`].
    pub const fn saturating_add(self, rhs: Time) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
    /// `self * rhs`, clamped to [`Time::MAX`].
    pub const fn saturating_mul(self, rhs: u64) -> Time {
        Time(self.0.saturating_mul(rhs))
    }
    /// `self - rhs`, or zero if `rhs` is later.
    pub const fn saturating_sub(self, rhs: Time) -> Time {
        Time(self.0.saturating_sub(rhs.0))
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        Time(self.0 - rhs.0)
    }
}
impl SubAssign for Time {
    fn sub_assign(&mut self, rhs: Time) {
        self.0 -= rhs.0;
    }
}
impl Mul<u64> for Time {
    type Output = Time;
    fn mul(self, rhs: u64) -> Time {
        Time(self.0.saturating_mul(rhs))
    }
}
impl std::iter::Sum for Time {
    fn sum<I: Iterator<Item = Time>>(iter: I) -> Time {
        iter.fold(Time::ZERO, |a, b| a + b)
    }
}

/// Human units: the largest of s, ms, us, ns that keeps the value >= 1,
/// with up to three decimals, e.g. `2.300 us`; exact picoseconds below 1 ns.
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        let (div, unit) = if ps >= PS_PER_SEC {
            (PS_PER_SEC, "s")
        } else if ps >= 1_000_000_000 {
            (1_000_000_000, "ms")
        } else if ps >= 1_000_000 {
            (1_000_000, "us")
        } else if ps >= 1_000 {
            (1_000, "ns")
        } else {
            return write!(f, "{ps} ps");
        };
        let whole = ps / div;
        // Three decimals, truncated (not rounded) so the display never
        // claims a later time than the true one.
        let frac = (ps % div) as u128 * 1000 / div as u128;
        write!(f, "{whole}.{frac:03} {unit}")
    }
}

impl fmt::Debug for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ps", self.0)
    }
}

/// A data rate in whole bytes per second, never zero.
///
/// Published rates are integers in these units (3.787 GB/s for InfiniBand
/// QDR in Bridges et al. Table 2, 6.6e9 B/s for R_N in Bienz et al.
/// Table 1), so no rounding happens for them.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct Bandwidth(NonZeroU64);

impl Bandwidth {
    /// From bytes per second; `None` if zero.
    pub const fn try_bytes_per_sec(bps: u64) -> Option<Bandwidth> {
        match NonZeroU64::new(bps) {
            Some(v) => Some(Bandwidth(v)),
            None => None,
        }
    }
    /// From bytes per second. Panics if zero; for constants in code.
    pub const fn bytes_per_sec(bps: u64) -> Bandwidth {
        match Self::try_bytes_per_sec(bps) {
            Some(b) => b,
            None => panic!("bandwidth must be positive"),
        }
    }
    /// From gigabytes (1e9 B) per second, rounded to the nearest byte/s.
    /// `None` unless positive and finite.
    pub fn try_gbytes_per_sec(gbps: f64) -> Option<Bandwidth> {
        Self::try_bytes_per_sec_f64(gbps * 1e9)
    }
    /// From bits per second given as a float (e.g. `9.4e9` for a measured
    /// 10 GbE backbone), rounded to the nearest byte/s. `None` unless the
    /// result is at least 1 B/s.
    pub fn try_bits_per_sec_f64(bits: f64) -> Option<Bandwidth> {
        Self::try_bytes_per_sec_f64(bits / 8.0)
    }
    /// From bytes per second given as a float, rounded to the nearest
    /// byte/s. `None` unless the result is at least 1 B/s and finite.
    pub fn try_bytes_per_sec_f64(bps: f64) -> Option<Bandwidth> {
        if !bps.is_finite() || bps >= u64::MAX as f64 {
            return None;
        }
        Self::try_bytes_per_sec(bps.round() as u64)
    }
    /// Bytes per second.
    pub const fn as_bytes_per_sec(self) -> u64 {
        self.0.get()
    }
    /// Bytes per second as a float (for sharing computations and reports).
    pub fn as_f64(self) -> f64 {
        self.0.get() as f64
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.as_f64();
        if v >= 1e9 {
            write!(f, "{:.3} GB/s", v / 1e9)
        } else if v >= 1e6 {
            write!(f, "{:.3} MB/s", v / 1e6)
        } else {
            write!(f, "{v} B/s")
        }
    }
}

impl fmt::Debug for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B/s", self.0)
    }
}

/// A cost per byte, in whole femtoseconds per byte: LogGP's `G` (gap per
/// byte) and `O` (CPU overhead per byte), Alexandrov et al., SPAA'95.
///
/// A rate converts to the nearest femtosecond per byte ([`PerByte::of_rate`];
/// 1 / 2.9 GB/s = 344 828 fs/B, 0.1 ppm off), and a cost in whole
/// picoseconds per byte, as LogGOPSim reads it, is exact.
/// [`PerByte::cost`] turns a byte count into [`Time`], rounding up once.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct PerByte(u64);

impl PerByte {
    /// No cost per byte.
    pub const ZERO: PerByte = PerByte(0);
    /// From femtoseconds per byte.
    pub const fn from_fs(fs: u64) -> PerByte {
        PerByte(fs)
    }
    /// From picoseconds per byte.
    pub const fn from_ps(ps: u64) -> PerByte {
        PerByte(ps * 1000)
    }
    /// The time per byte of `rate`, `1 / rate`, to the nearest femtosecond.
    pub fn of_rate(rate: Bandwidth) -> PerByte {
        let r = rate.as_bytes_per_sec() as u128;
        PerByte(((1_000_000_000_000_000u128 + r / 2) / r) as u64)
    }
    /// From seconds per byte as a float, to the nearest femtosecond; `None`
    /// unless finite and not negative.
    pub fn try_from_secs_f64(secs_per_byte: f64) -> Option<PerByte> {
        let fs = secs_per_byte * 1e15;
        if !fs.is_finite() || fs < 0.0 || fs >= u64::MAX as f64 {
            return None;
        }
        Some(PerByte(fs.round() as u64))
    }
    /// Femtoseconds per byte.
    pub const fn as_fs(self) -> u64 {
        self.0
    }
    /// Seconds per byte as a float (for models and reports).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-15
    }
    /// The rate this cost allows, `1 / cost`, to the nearest byte per
    /// second; `None` for a zero cost (no limit).
    pub fn as_rate(self) -> Option<Bandwidth> {
        if self.0 == 0 {
            return None;
        }
        let fs = self.0 as u128;
        let bps = (1_000_000_000_000_000u128 + fs / 2) / fs;
        Bandwidth::try_bytes_per_sec(u64::try_from(bps).unwrap_or(u64::MAX).max(1))
    }
    /// The cost of `bytes` bytes: `ceil(bytes * fs / 1000)` picoseconds,
    /// exact in `u128`; saturates at [`Time::MAX`].
    pub fn cost(self, bytes: u64) -> Time {
        // The same value in `u64` when the product fits (a `u128`
        // division is a library call, a hot one in the MPI layer).
        if let Some(p) = bytes.checked_mul(self.0) {
            return Time(p.div_ceil(1000));
        }
        let ps = (bytes as u128 * self.0 as u128).div_ceil(1000);
        Time(u64::try_from(ps).unwrap_or(u64::MAX))
    }
    /// The larger of two costs.
    pub fn max(self, other: PerByte) -> PerByte {
        PerByte(self.0.max(other.0))
    }
}

impl fmt::Display for PerByte {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 % 1000 == 0 {
            write!(f, "{} ps/B", self.0 / 1000)
        } else {
            write!(f, "{:.3} ps/B", self.0 as f64 / 1000.0)
        }
    }
}

impl fmt::Debug for PerByte {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}fs/B", self.0)
    }
}

/// Time to move `bytes` at `rate`: `ceil(bytes * 1e12 / rate)` picoseconds,
/// computed exactly in `u128`.
///
/// This is the only conversion from (bytes, rate) to time in netsim;
/// rounding up means a transfer never completes before its last byte could
/// have moved. Saturates at [`Time::MAX`] (only reachable with absurd
/// inputs: 18 EB at 1 B/s).
pub fn transfer_time(bytes: u64, rate: Bandwidth) -> Time {
    // The same value in `u64` when `bytes * 10^12` fits (up to about
    // 18 MB; a `u128` division is a library call).
    if let Some(num) = bytes.checked_mul(PS_PER_SEC) {
        return Time(num.div_ceil(rate.as_bytes_per_sec()));
    }
    let num = bytes as u128 * PS_PER_SEC as u128;
    let den = rate.as_bytes_per_sec() as u128;
    let ps = num.div_ceil(den);
    Time(u64::try_from(ps).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_agree() {
        assert_eq!(Time::from_us(3), Time::from_ns(3000));
        assert_eq!(Time::from_ns(1), Time::from_ps(1000));
        assert_eq!(Time::from_ms(1), Time::from_us(1000));
        assert_eq!(Time::from_secs_f64(4.4e-07), Time::from_ps(440_000));
        assert_eq!(Time::from_secs_f64(1.0), Time::from_ps(PS_PER_SEC));
        assert_eq!(Time::try_from_secs_f64(-1e-9), None);
        assert_eq!(Time::try_from_secs_f64(f64::NAN), None);
        assert_eq!(Time::try_from_secs_f64(1e10), None);
    }

    #[test]
    fn display_picks_human_units() {
        assert_eq!(Time::from_ps(999).to_string(), "999 ps");
        assert_eq!(Time::from_ns(2300).to_string(), "2.300 us");
        assert_eq!(Time::from_ps(1_234_567).to_string(), "1.234 us");
        assert_eq!(Time::from_ms(1500).to_string(), "1.500 s");
        assert_eq!(Time::from_ns(5).to_string(), "5.000 ns");
    }

    #[test]
    fn transfer_time_rounds_up_exactly() {
        // 1 byte at 3 B/s is 333 333 333 333.33.. ps, rounded up.
        let r = Bandwidth::bytes_per_sec(3);
        assert_eq!(transfer_time(1, r), Time::from_ps(333_333_333_334));
        assert_eq!(transfer_time(3, r), Time::from_secs_f64(1.0));
        // Bienz Table 1: 1 MiB at R_b = 2.9e9 B/s.
        let rb = Bandwidth::bytes_per_sec(2_900_000_000);
        let t = transfer_time(1 << 20, rb);
        assert_eq!(
            t.as_ps(),
            ((1u128 << 20) * 1_000_000_000_000).div_ceil(2_900_000_000) as u64
        );
        assert_eq!(transfer_time(0, rb), Time::ZERO);
        // No overflow for huge inputs: u64::MAX bytes saturates.
        assert_eq!(
            transfer_time(u64::MAX, Bandwidth::bytes_per_sec(1)),
            Time::MAX
        );
    }

    #[test]
    fn per_byte_costs_round_once() {
        // 1 / 2.9 GB/s = 344 827.586.. fs/B, to the nearest fs.
        let g = PerByte::of_rate(Bandwidth::bytes_per_sec(2_900_000_000));
        assert_eq!(g.as_fs(), 344_828);
        // 1000 B at 344 828 fs/B = 344 828 ps exactly; 3 B = 1034.484 ps -> 1035.
        assert_eq!(g.cost(1000), Time::from_ps(344_828));
        assert_eq!(g.cost(3), Time::from_ps(1035));
        // Whole picoseconds per byte (LogGOPSim's integers) are exact.
        assert_eq!(PerByte::from_ps(5).cost(1 << 20), Time::from_ps(5 << 20));
        assert_eq!(PerByte::ZERO.cost(u64::MAX), Time::ZERO);
        assert_eq!(PerByte::from_fs(u64::MAX).cost(u64::MAX), Time::MAX);
        assert_eq!(
            PerByte::from_ps(5).as_rate().map(|r| r.as_bytes_per_sec()),
            Some(200_000_000_000)
        );
        assert_eq!(PerByte::ZERO.as_rate(), None);
        assert_eq!(
            PerByte::try_from_secs_f64(2.5e-13),
            Some(PerByte::from_fs(250))
        );
        assert_eq!(PerByte::try_from_secs_f64(-1.0), None);
        assert_eq!(PerByte::from_ps(5).to_string(), "5 ps/B");
    }

    /// The `u64` fast paths of `transfer_time` and `PerByte::cost` give
    /// the `u128` formula's value on both sides of where the product
    /// stops fitting in 64 bits (`bytes * 10^12` overflows above
    /// 18 446 744 bytes).
    #[test]
    fn fast_paths_equal_the_wide_formula() {
        let edge = u64::MAX / PS_PER_SEC;
        let sizes = [
            0,
            1,
            7,
            4096,
            1 << 20,
            edge - 1,
            edge,
            edge + 1,
            1 << 40,
            u64::MAX,
        ];
        let rates = [
            1,
            3,
            1_000_000_007,
            2_900_000_000,
            100_000_000_000,
            u64::MAX,
        ];
        for &b in &sizes {
            for &r in &rates {
                let wide = (b as u128 * PS_PER_SEC as u128).div_ceil(r as u128);
                let want = Time(u64::try_from(wide).unwrap_or(u64::MAX));
                assert_eq!(
                    transfer_time(b, Bandwidth::bytes_per_sec(r)),
                    want,
                    "{b} B at {r} B/s"
                );
            }
            for fs in [0, 1, 999, 344_828, 1 << 32, u64::MAX / 3, u64::MAX] {
                let wide = (b as u128 * fs as u128).div_ceil(1000);
                let want = Time(u64::try_from(wide).unwrap_or(u64::MAX));
                assert_eq!(PerByte::from_fs(fs).cost(b), want, "{b} B at {fs} fs/B");
            }
        }
    }

    #[test]
    fn bandwidth_units() {
        assert_eq!(
            Bandwidth::try_bits_per_sec_f64(9.4e9)
                .unwrap()
                .as_bytes_per_sec(),
            1_175_000_000
        );
        assert_eq!(
            Bandwidth::try_gbytes_per_sec(3.787)
                .unwrap()
                .as_bytes_per_sec(),
            3_787_000_000
        );
        assert!(Bandwidth::try_bytes_per_sec(0).is_none());
        assert!(Bandwidth::try_bytes_per_sec_f64(f64::INFINITY).is_none());
        assert!(Bandwidth::try_bytes_per_sec_f64(0.2).is_none());
    }
}
