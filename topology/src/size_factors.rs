//! SimGrid's SMPI network model: per message size, a bandwidth factor
//! and a latency factor on top of CM02 (SimGrid 3.32,
//! `src/surf/network_smpi.cpp`, `NetworkSmpiModel::get_bandwidth_factor`
//! and `get_latency_factor`; calibrated by Clauss et al., "Single Node
//! On-Line Simulation of MPI Applications with SMPI", IPDPS 2011).
//!
//! A table is `threshold:factor;threshold:factor;...` (`smpi/bw-factor`,
//! `smpi/lat-factor`), thresholds in bytes, read in ascending order
//! whatever the written one. A message of `s` bytes (SMPI's: payload plus
//! its 16-byte envelope) takes the factor of the largest threshold
//! *strictly below* `s`, and 1 when `s` is at or below every threshold
//! (a message exactly at a threshold takes the factor of the one below).
//!
//! The flow model ([`crate::FlowNet`]) applies them as CM02 does
//! (`NetworkCm02Model::comm_action_set_bounds`):
//!
//! - the bandwidth factor `b` scales the rate at which a flow's bytes
//!   progress, not what it takes from its links: at a rate `r` of max-min
//!   sharing (bounded by the route's slowest link and the TCP window) it
//!   delivers `b r` bytes per second, so it occupies its links for
//!   `s / b` bytes' worth ([`SizeFactors::work`]);
//! - the latency factor scales the route's latency; the TCP window's
//!   bound `gamma / (2 lat)` keeps the unscaled latency.
//!
//! Machines carry none unless a platform's `<config>` selects SMPI or a
//! scenario sets them ([`crate::Machine::set_size_factors`]); without
//! them a flow's time is exactly what it was.

use sim_core::Time;
use std::fmt;

/// SimGrid 3.32's default `smpi/bw-factor` (`src/simgrid/sg_config.cpp`,
/// `declare_flag` of `smpi/bw-factor`): the table the SMPI model uses when
/// nothing sets another.
pub const SIMGRID_SMPI_BW_FACTOR: &str = "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084";

/// SimGrid 3.32's default `smpi/lat-factor` (same place).
pub const SIMGRID_SMPI_LAT_FACTOR: &str = "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467";

/// What is wrong with a factor table; the caller names the setting.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FactorError {
    /// A threshold that is not a whole number of bytes.
    #[error("`{chunk}`: the threshold `{threshold}` is not a whole number of bytes")]
    Threshold {
        /// The `threshold:factor` entry.
        chunk: String,
        /// Its threshold as written.
        threshold: String,
    },
    /// An entry without `:factor`.
    #[error("`{chunk}`: expected `threshold:factor`")]
    NoFactor {
        /// The entry.
        chunk: String,
    },
    /// A factor that is not a number in range.
    #[error("`{chunk}`: the factor `{factor}` is not a number {rel} {min}")]
    Factor {
        /// The entry.
        chunk: String,
        /// Its factor as written.
        factor: String,
        /// `above` or `at least`.
        rel: &'static str,
        /// The bound.
        min: f64,
    },
    /// The same threshold twice.
    #[error("threshold {0} given twice")]
    Twice(u64),
    /// No entry at all.
    #[error("no `threshold:factor` entry")]
    Empty,
}

/// One factor table: (threshold \[bytes\], factor \[1\]) in ascending
/// threshold order.
#[derive(Clone, Debug, PartialEq)]
pub struct FactorTable {
    steps: Vec<(u64, f64)>,
}

impl FactorTable {
    /// Reads `threshold:factor;...` as SimGrid's `parse_factor`
    /// (`src/smpi/internals/smpi_utils.cpp`) does: chunks split on `;`
    /// (empty ones skipped), each `threshold:value[:value...]` of which the
    /// network models take the first value; sorted by threshold.
    /// Thresholds are whole bytes, factors plain numbers; `min` is the
    /// smallest factor allowed (exclusive when `open`). The error says
    /// what is wrong, for the caller to name the setting.
    fn parse(text: &str, min: f64, open: bool) -> Result<Self, FactorError> {
        let mut steps = Vec::new();
        for chunk in text.split(';').map(str::trim).filter(|c| !c.is_empty()) {
            let mut parts = chunk.split(':').map(str::trim);
            let t = parts.next().unwrap_or("");
            let threshold = t.parse::<u64>().map_err(|_| FactorError::Threshold {
                chunk: chunk.into(),
                threshold: t.into(),
            })?;
            let v = parts.next().ok_or_else(|| FactorError::NoFactor {
                chunk: chunk.into(),
            })?;
            let factor = v
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite() && (*f > min || (!open && *f == min)))
                .ok_or_else(|| FactorError::Factor {
                    chunk: chunk.into(),
                    factor: v.into(),
                    rel: if open { "above" } else { "at least" },
                    min,
                })?;
            if steps.iter().any(|&(s, _)| s == threshold) {
                return Err(FactorError::Twice(threshold));
            }
            steps.push((threshold, factor));
        }
        if steps.is_empty() {
            return Err(FactorError::Empty);
        }
        steps.sort_by_key(|&(t, _)| t);
        Ok(FactorTable { steps })
    }

    /// A bandwidth factor table (factors above 0: SimGrid refuses 0).
    pub fn bandwidth(text: &str) -> Result<Self, FactorError> {
        Self::parse(text, 0.0, true)
    }

    /// A latency factor table (factors 0 or more).
    pub fn latency(text: &str) -> Result<Self, FactorError> {
        Self::parse(text, 0.0, false)
    }

    /// The factor of a message of `bytes`: that of the largest threshold
    /// strictly below it, 1 if there is none.
    pub fn at(&self, bytes: u64) -> f64 {
        let n = self.steps.partition_point(|&(t, _)| t < bytes);
        n.checked_sub(1).map_or(1.0, |i| self.steps[i].1)
    }

    /// Every factor is 1 for every size.
    fn is_one(&self) -> bool {
        self.steps.iter().all(|&(_, f)| f == 1.0)
    }
}

impl fmt::Display for FactorTable {
    /// SimGrid's spelling, ascending.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (t, v)) in self.steps.iter().enumerate() {
            let sep = if i == 0 { "" } else { ";" };
            write!(f, "{sep}{t}:{v}")?;
        }
        Ok(())
    }
}

/// The bandwidth and latency factors of SimGrid's SMPI model.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeFactors {
    /// `smpi/bw-factor`.
    pub bandwidth: FactorTable,
    /// `smpi/lat-factor`.
    pub latency: FactorTable,
}

impl SizeFactors {
    /// SimGrid 3.32's defaults ([`SIMGRID_SMPI_BW_FACTOR`],
    /// [`SIMGRID_SMPI_LAT_FACTOR`]).
    pub fn simgrid_default() -> Self {
        SizeFactors {
            bandwidth: FactorTable::bandwidth(SIMGRID_SMPI_BW_FACTOR).expect("valid default"),
            latency: FactorTable::latency(SIMGRID_SMPI_LAT_FACTOR).expect("valid default"),
        }
    }

    /// `None` when both tables are 1 everywhere (nothing to apply).
    pub fn if_any(self) -> Option<Self> {
        (!(self.bandwidth.is_one() && self.latency.is_one())).then_some(self)
    }

    /// What a flow of `bytes` occupies its links for \[bytes\]: `bytes`
    /// over its bandwidth factor.
    pub fn work(&self, bytes: u64) -> f64 {
        bytes as f64 / self.bandwidth.at(bytes)
    }

    /// The latency of a message of `bytes` over a route of latency `lat`:
    /// `lat` times its latency factor, to the nearest picosecond.
    pub fn latency_of(&self, lat: Time, bytes: u64) -> Time {
        let f = self.latency.at(bytes);
        if f == 1.0 {
            return lat;
        }
        Time::from_ps((lat.as_ps() as f64 * f).round().min(u64::MAX as f64) as u64)
    }
}

impl fmt::Display for SizeFactors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bandwidth factor `{}`, latency factor `{}`",
            self.bandwidth, self.latency
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_takes_the_factor_of_the_largest_threshold_strictly_below() {
        // config.xml of SimGrid 3.32's examples/platforms.
        let t = FactorTable::bandwidth("65472:0.940694;15424:0.697866;9376:0.58729").unwrap();
        assert_eq!(t.at(0), 1.0);
        assert_eq!(t.at(9376), 1.0, "at the smallest threshold: 1");
        assert_eq!(t.at(9377), 0.58729);
        assert_eq!(t.at(15424), 0.58729, "at a threshold: the one below");
        assert_eq!(t.at(15425), 0.697866);
        assert_eq!(t.at(65473), 0.940694);
        assert_eq!(t.at(u64::MAX), 0.940694);
        assert_eq!(t.to_string(), "9376:0.58729;15424:0.697866;65472:0.940694");
    }

    #[test]
    fn simgrids_defaults() {
        let d = SizeFactors::simgrid_default();
        // 0 B (a message is never below SMPI's 16-byte envelope): 1.
        assert_eq!(d.bandwidth.at(0), 1.0);
        assert_eq!(d.latency.at(0), 1.0);
        assert_eq!(d.bandwidth.at(16), 0.812084);
        assert_eq!(d.latency.at(16), 2.01467);
        assert_eq!(d.bandwidth.at(1_000_016), 0.940694);
        assert_eq!(d.latency.at(1_000_016), 11.6436);
        assert_eq!(d.bandwidth.at(1426), 0.341987);
        assert_eq!(d.bandwidth.at(1427), 0.608902);
        // 50 us x 11.6436 = 582.18 us.
        assert_eq!(
            d.latency_of(Time::from_ps(50_000_000), 1_000_016),
            Time::from_ps(582_180_000)
        );
        assert_eq!(d.work(16), 16.0 / 0.812084);
    }

    #[test]
    fn bad_tables_are_refused_with_the_chunk() {
        for (text, what) in [
            ("", "no `threshold:factor`"),
            ("12", "expected `threshold:factor`"),
            ("-5:1", "not a whole number"),
            ("1k:1", "not a whole number"),
            ("5:0", "not a number above 0"),
            ("5:1ms", "not a number above 0"),
            ("5:1;5:2", "given twice"),
        ] {
            let e = FactorTable::bandwidth(text).unwrap_err().to_string();
            assert!(e.contains(what), "{text}: {e}");
        }
        assert_eq!(FactorTable::latency("0:0").unwrap().at(1), 0.0);
        assert!(FactorTable::latency("0:-1").is_err());
        // Empty chunks are skipped; extra values after the first ignored.
        let t = FactorTable::bandwidth(";10:0.5:7;").unwrap();
        assert_eq!((t.at(10), t.at(11)), (1.0, 0.5));
    }

    #[test]
    fn ones_are_no_factors() {
        let one = SizeFactors {
            bandwidth: FactorTable::bandwidth("0:1").unwrap(),
            latency: FactorTable::latency("0:1").unwrap(),
        };
        assert!(one.if_any().is_none());
        assert!(SizeFactors::simgrid_default().if_any().is_some());
    }
}
