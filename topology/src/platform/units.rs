//! SimGrid's value units (`"125MBps"`, `"50us"`, `"1Gf"`), as its
//! platform parser reads them (SimGrid 3.32, `src/xbt/xbt_parse_units.cpp`,
//! `xbt_parse_get_value_with_unit`). As there, a number without a unit
//! takes the default unit (seconds, bytes per second, flop per second):
//! SimGrid accepts `latency="0"` silently and other unit-less values with
//! a deprecation warning.

use sim_core::limits::{self, LimitError};
use sim_core::{Bandwidth, Time};

/// A SimGrid value refused: the quantity, the text as written and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum ValueError {
    /// No number, or a unit SimGrid does not have.
    #[error("{what} `{text}`: expected a number and a unit ({units})")]
    Unit {
        /// `bandwidth`, `time` or `speed`.
        what: &'static str,
        /// The text as written.
        text: String,
        /// The units of the quantity.
        units: String,
    },
    /// A value outside the quantity's range.
    #[error("{what} `{text}`: {rule}")]
    Range {
        /// `bandwidth`, `time` or `speed`.
        what: &'static str,
        /// The text as written.
        text: String,
        /// The rule broken.
        rule: &'static str,
    },
    /// A time beyond netsim's `MAX_DURATION`.
    #[error("time `{text}`: {limit}")]
    Limit {
        /// The text as written.
        text: String,
        /// The limit.
        limit: LimitError,
    },
}

fn unit(what: &'static str, text: &str, units: &[(&str, f64)]) -> ValueError {
    ValueError::Unit {
        what,
        text: text.to_string(),
        units: names(units),
    }
}

fn range(what: &'static str, text: &str, rule: &'static str) -> ValueError {
    ValueError::Range {
        what,
        text: text.to_string(),
        rule,
    }
}

/// Longest suffixes first, so that `MBps` is not read as `Bps`; a bare
/// number is in the default unit (factor 1).
fn split(text: &str, units: &[(&str, f64)]) -> Option<(f64, f64)> {
    let t = text.trim();
    if let Ok(v) = t.parse::<f64>() {
        return Some((v, 1.0));
    }
    let mut best: Option<(&str, f64)> = None;
    for &(u, f) in units {
        if t.ends_with(u) && best.is_none_or(|(b, _)| u.len() > b.len()) {
            best = Some((u, f));
        }
    }
    let (u, f) = best?;
    let num = t[..t.len() - u.len()].trim();
    let v: f64 = num.parse().ok()?;
    Some((v, f))
}

const RATE_UNITS: &[(&str, f64)] = &[
    ("Bps", 1.0),
    ("kBps", 1e3),
    ("KBps", 1e3),
    ("MBps", 1e6),
    ("GBps", 1e9),
    ("TBps", 1e12),
    ("PBps", 1e15),
    ("KiBps", 1024.0),
    ("MiBps", 1048576.0),
    ("GiBps", 1073741824.0),
    ("TiBps", 1099511627776.0),
    ("bps", 0.125),
    ("kbps", 125.0),
    ("Kbps", 125.0),
    ("Mbps", 125e3),
    ("Gbps", 125e6),
    ("Tbps", 125e9),
    ("Kibps", 128.0),
    ("Mibps", 131072.0),
    ("Gibps", 134217728.0),
    ("Tibps", 137438953472.0),
];

const TIME_UNITS: &[(&str, f64)] = &[
    ("w", 604800.0),
    ("d", 86400.0),
    ("h", 3600.0),
    ("m", 60.0),
    ("s", 1.0),
    ("ms", 1e-3),
    ("us", 1e-6),
    ("ns", 1e-9),
    ("ps", 1e-12),
];

const SPEED_UNITS: &[(&str, f64)] = &[
    ("f", 1.0),
    ("kf", 1e3),
    ("Kf", 1e3),
    ("Mf", 1e6),
    ("Gf", 1e9),
    ("Tf", 1e12),
    ("Pf", 1e15),
    ("Ef", 1e18),
    ("Zf", 1e21),
    ("Yf", 1e24),
    ("flops", 1.0),
    ("kiloflops", 1e3),
    ("megaflops", 1e6),
    ("gigaflops", 1e9),
    ("teraflops", 1e12),
    ("petaflops", 1e15),
    ("exaflops", 1e18),
    ("zetaflops", 1e21),
    ("yottaflops", 1e24),
];

fn names(units: &[(&str, f64)]) -> String {
    units.iter().map(|u| u.0).collect::<Vec<_>>().join(" ")
}

/// A bandwidth: positive, whole bytes per second (rounded to nearest).
pub(super) fn rate(text: &str) -> Result<Bandwidth, ValueError> {
    let (v, f) = split(text, RATE_UNITS).ok_or_else(|| unit("bandwidth", text, RATE_UNITS))?;
    let b = v * f;
    if !(0.5..1.8e19).contains(&b) {
        return Err(range(
            "bandwidth",
            text,
            "must be at least 1 B/s and below 1.8e19 B/s",
        ));
    }
    Ok(Bandwidth::bytes_per_sec(b.round() as u64))
}

/// A latency: non-negative, whole picoseconds (rounded to nearest), at
/// most netsim's `MAX_DURATION`.
pub(super) fn time(text: &str) -> Result<Time, ValueError> {
    let (v, f) = split(text, TIME_UNITS).ok_or_else(|| unit("time", text, TIME_UNITS))?;
    let ps = v * f * 1e12;
    if !(0.0..1.8e19).contains(&ps) {
        return Err(range("time", text, "must be 0 or more and finite"));
    }
    let t = Time::from_ps(ps.round() as u64);
    limits::check_duration(t).map_err(|limit| ValueError::Limit {
        text: text.to_string(),
        limit,
    })?;
    Ok(t)
}

/// A host speed in flop/s (the first power state of a list), positive.
pub(super) fn speed(text: &str) -> Result<f64, ValueError> {
    let s = speeds(text)?[0];
    if s > 0.0 {
        Ok(s)
    } else {
        Err(range(
            "speed",
            text,
            "the first power state must be positive",
        ))
    }
}

/// A host's speeds in flop/s, one per power state (`"100Mf,50Mf"`); 0 is
/// allowed (SimGrid's energy examples give a switched-off state `0f`).
pub(super) fn speeds(text: &str) -> Result<Vec<f64>, ValueError> {
    text.split(',')
        .map(|one| {
            let (v, f) = split(one, SPEED_UNITS).ok_or_else(|| unit("speed", text, SPEED_UNITS))?;
            let s = v * f;
            if !(s.is_finite() && s >= 0.0) {
                return Err(range("speed", text, "must be 0 or more and finite"));
            }
            Ok(s)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simgrid_units() {
        assert_eq!(rate("125MBps").unwrap().as_bytes_per_sec(), 125_000_000);
        assert_eq!(rate("10Gbps").unwrap().as_bytes_per_sec(), 1_250_000_000);
        assert_eq!(rate("1GiBps").unwrap().as_bytes_per_sec(), 1 << 30);
        assert_eq!(
            rate("3787000000Bps").unwrap().as_bytes_per_sec(),
            3_787_000_000
        );
        assert_eq!(time("50us").unwrap(), Time::from_ns(50_000));
        assert_eq!(time("8.08e-07s").unwrap(), Time::from_ps(808_000));
        assert_eq!(time("1ms").unwrap(), Time::from_ns(1_000_000));
        assert_eq!(time("0s").unwrap(), Time::ZERO);
        assert_eq!(speed("1Gf").unwrap(), 1e9);
        assert_eq!(speed("100Mf,50Mf").unwrap(), 1e8);
        // Unit-less: the default unit, as SimGrid reads it.
        assert_eq!(rate("125").unwrap().as_bytes_per_sec(), 125);
        assert_eq!(time("0").unwrap(), Time::ZERO);
        assert_eq!(time("1e-6").unwrap(), Time::from_ns(1000));
        assert_eq!(speed("2e9").unwrap(), 2e9);
        assert_eq!(speed("3megaflops").unwrap(), 3e6);
        assert_eq!(speeds("1Gf, 500Mf").unwrap(), vec![1e9, 5e8]);
        assert_eq!(speeds("100Mf, 0f").unwrap(), vec![1e8, 0.0]);
        assert!(speed("0f,1Gf").is_err());
        assert!(
            rate("125 furlongs")
                .unwrap_err()
                .to_string()
                .contains("MBps")
        );
        assert_eq!(
            rate("0Bps").unwrap_err().to_string(),
            "bandwidth `0Bps`: must be at least 1 B/s and below 1.8e19 B/s"
        );
        assert_eq!(
            speed("0f,1Gf").unwrap_err().to_string(),
            "speed `0f,1Gf`: the first power state must be positive"
        );
        assert_eq!(
            time("2e6s").unwrap_err().to_string(),
            "time `2e6s`: 2000000000000000000 ps exceeds the limit of 1000000000000000000 ps (10^6 s, netsim's MAX_DURATION)"
        );
        assert!(rate("0Bps").is_err());
        assert!(time("-1s").is_err());
        assert!(time("1e300s").is_err());
        assert!(speed("1G").is_err());
    }
}
