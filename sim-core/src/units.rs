//! Quantities with units, as written in scenario files and on the command
//! line: times (`"2.3 us"`, `"1616ns"`, `"0.5 s"`), rates (`"3.787 GB/s"`,
//! `"940 Mb/s"`, `"6.6e9 B/s"`) and sizes (`"12 KiB"`, `"8 B"`, `"1 MB"`).
//!
//! Units are required: a bare number is ambiguous (seconds or
//! microseconds? bits or bytes?), so it is an error that names the units
//! accepted. Parsing is exact where the value allows it: `"4.4e-07 s"`
//! becomes 440 000 ps, `"2.2e9 B/s"` 2 200 000 000 B/s.

use crate::{Bandwidth, PerByte, Time};

/// Why a quantity with a unit was refused; each message quotes the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    /// The text does not start with a number.
    #[error("`{text}` is not a {what} (e.g. {example})")]
    NotANumber {
        /// The text as given.
        text: String,
        /// The kind of quantity (`time`, `rate`, `size`, `cost per byte`).
        what: &'static str,
        /// One or two examples of what is accepted, quoted.
        example: &'static str,
    },
    /// A number without a unit.
    #[error("`{text}` has no unit: write {accepted}")]
    NoUnit {
        /// The text as given.
        text: String,
        /// The units accepted.
        accepted: &'static str,
    },
    /// A unit this kind of quantity does not have.
    #[error("`{text}`: unknown {kind} `{unit}` ({accepted})")]
    UnknownUnit {
        /// The text as given.
        text: String,
        /// `time unit`, `rate unit`, `size unit` or `unit`.
        kind: &'static str,
        /// The unit as given.
        unit: String,
        /// The units accepted.
        accepted: &'static str,
    },
    /// A value outside the quantity's range.
    #[error("`{text}`: {rule}")]
    Range {
        /// The text as given.
        text: String,
        /// The rule broken (`a time cannot be negative`).
        rule: &'static str,
    },
    /// A value too large for its representation.
    #[error("`{text}` is out of range")]
    OutOfRange {
        /// The text as given.
        text: String,
    },
    /// A size that is not a whole number of bytes.
    #[error("`{text}` is not a whole number of bytes")]
    NotWhole {
        /// The text as given.
        text: String,
    },
}

fn not_a(s: &str, what: &'static str, example: &'static str) -> UnitError {
    UnitError::NotANumber {
        text: s.to_string(),
        what,
        example,
    }
}

fn no_unit(s: &str, accepted: &'static str) -> UnitError {
    UnitError::NoUnit {
        text: s.to_string(),
        accepted,
    }
}

fn unknown(s: &str, kind: &'static str, unit: &str, accepted: &'static str) -> UnitError {
    UnitError::UnknownUnit {
        text: s.to_string(),
        kind,
        unit: unit.to_string(),
        accepted,
    }
}

fn range(s: &str, rule: &'static str) -> UnitError {
    UnitError::Range {
        text: s.to_string(),
        rule,
    }
}

fn out_of_range(s: &str) -> UnitError {
    UnitError::OutOfRange {
        text: s.to_string(),
    }
}

fn split(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '+'
                || c == '-'
                || ((c == 'e' || c == 'E')
                    && s[i + 1..]
                        .starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+')))
        })
        .map_or(s.len(), |(i, _)| i);
    let v: f64 = s[..end].parse().ok()?;
    Some((v, s[end..].trim()))
}

/// Parses a time: a number and one of `ps`, `ns`, `us` (or `µs`), `ms`, `s`.
pub fn parse_time(s: &str) -> Result<Time, UnitError> {
    let (v, unit) = split(s).ok_or_else(|| not_a(s, "time", "\"2.3 us\""))?;
    let scale = match unit {
        "ps" => 1e-12,
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "" => return Err(no_unit(s, "ps, ns, us, ms or s")),
        u => return Err(unknown(s, "time unit", u, "ps, ns, us, ms, s")),
    };
    if v < 0.0 {
        return Err(range(s, "a time cannot be negative"));
    }
    Time::try_from_secs_f64(v * scale).ok_or_else(|| out_of_range(s))
}

/// Parses a rate: a number and one of `B/s`, `KB/s`, `MB/s`, `GB/s`
/// (decimal bytes), `KiB/s`, `MiB/s`, `GiB/s`, or bits: `b/s`, `Kb/s`,
/// `Mb/s`, `Gb/s` (also `bps`, `Kbps`, `Mbps`, `Gbps`). Must be at least
/// 1 B/s.
pub fn parse_rate(s: &str) -> Result<Bandwidth, UnitError> {
    let (v, unit) = split(s).ok_or_else(|| not_a(s, "rate", "\"3.787 GB/s\""))?;
    let bytes_per_unit = match unit {
        "B/s" => 1.0,
        "KB/s" | "kB/s" => 1e3,
        "MB/s" => 1e6,
        "GB/s" => 1e9,
        "KiB/s" => 1024.0,
        "MiB/s" => 1024.0 * 1024.0,
        "GiB/s" => 1024.0 * 1024.0 * 1024.0,
        "b/s" | "bps" => 1.0 / 8.0,
        "Kb/s" | "kb/s" | "Kbps" => 1e3 / 8.0,
        "Mb/s" | "Mbps" => 1e6 / 8.0,
        "Gb/s" | "Gbps" => 1e9 / 8.0,
        "" => return Err(no_unit(s, "e.g. B/s, GB/s, Gb/s")),
        u => {
            return Err(unknown(
                s,
                "rate unit",
                u,
                "B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, b/s, Mb/s, Gb/s",
            ));
        }
    };
    let bps = v * bytes_per_unit;
    Bandwidth::try_bytes_per_sec_f64(bps).ok_or_else(|| {
        if bps >= 1.0 {
            range(s, "a rate must be below 1.8e19 B/s (2^64)")
        } else {
            range(s, "a rate must be at least 1 B/s")
        }
    })
}

/// Parses a size: a number and one of `B`, `KB`, `MB`, `GB` (decimal),
/// `KiB`, `MiB`, `GiB`; must be a whole number of bytes.
pub fn parse_bytes(s: &str) -> Result<u64, UnitError> {
    let (v, unit) = split(s).ok_or_else(|| not_a(s, "size", "\"12 KiB\""))?;
    let mult = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1048576.0,
        "GiB" => 1073741824.0,
        "" => return Err(no_unit(s, "B, KB, KiB, MB, MiB, GB or GiB")),
        u => return Err(unknown(s, "size unit", u, "B, KB, KiB, MB, MiB, GB, GiB")),
    };
    let b = v * mult;
    if !(0.0..1.8e19).contains(&b) {
        return Err(range(s, "a size must be between 0 and 2^64 bytes"));
    }
    if b.fract() != 0.0 {
        return Err(UnitError::NotWhole {
            text: s.to_string(),
        });
    }
    Ok(b as u64)
}

/// Parses a cost per byte (LogGP's `G` or `O`): a time per byte, a number
/// and one of `fs/B`, `ps/B`, `ns/B`, `us/B`, `s/B`; or a rate (`"2.9 GB/s"`,
/// any unit of [`parse_rate`]), read as its inverse.
pub fn parse_per_byte(s: &str) -> Result<PerByte, UnitError> {
    let (v, unit) =
        split(s).ok_or_else(|| not_a(s, "cost per byte", "\"0.5 ns/B\" or \"2 GB/s\""))?;
    let scale = match unit {
        "fs/B" => 1e-15,
        "ps/B" => 1e-12,
        "ns/B" => 1e-9,
        "us/B" | "µs/B" => 1e-6,
        "s/B" => 1.0,
        "" => {
            return Err(no_unit(s, "a time per byte (ps/B, ns/B) or a rate (GB/s)"));
        }
        _ => {
            return parse_rate(s).map(PerByte::of_rate).map_err(|_| {
                unknown(
                    s,
                    "unit",
                    unit,
                    "fs/B, ps/B, ns/B, us/B, s/B, or a rate such as GB/s",
                )
            });
        }
    };
    if v < 0.0 {
        return Err(range(s, "a cost cannot be negative"));
    }
    PerByte::try_from_secs_f64(v * scale).ok_or_else(|| out_of_range(s))
}

/// Formats a cost per byte so that [`parse_per_byte`] reads it back
/// exactly.
pub fn format_per_byte(c: PerByte) -> String {
    if c.as_fs() % 1000 == 0 {
        format!("{} ps/B", c.as_fs() / 1000)
    } else {
        format!("{} fs/B", c.as_fs())
    }
}

/// Formats a time for a scenario file so that [`parse_time`] reads it back
/// exactly: whole picoseconds when needed, else the largest exact unit.
pub fn format_time(t: Time) -> String {
    let ps = t.as_ps();
    for (div, unit) in [
        (1_000_000_000_000u64, "s"),
        (1_000_000_000, "ms"),
        (1_000_000, "us"),
        (1_000, "ns"),
    ] {
        if ps % div == 0 && ps >= div {
            return format!("{} {unit}", ps / div);
        }
    }
    format!("{ps} ps")
}

/// Formats a rate as whole bytes per second (read back exactly).
pub fn format_rate(r: Bandwidth) -> String {
    format!("{} B/s", r.as_bytes_per_sec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(parse_time("2.3 us").unwrap(), Time::from_ns(2300));
        assert_eq!(parse_time("1616ns").unwrap(), Time::from_ns(1616));
        assert_eq!(parse_time("4.4e-07 s").unwrap(), Time::from_ps(440_000));
        assert_eq!(parse_time("8.4 ns").unwrap(), Time::from_ps(8400));
        assert_eq!(parse_time("3 ms").unwrap(), Time::from_us(3000));
        assert!(parse_time("5").unwrap_err().to_string().contains("no unit"));
        assert!(
            parse_time("5 fortnights")
                .unwrap_err()
                .to_string()
                .contains("unknown time unit")
        );
        assert!(
            parse_time("-1 us")
                .unwrap_err()
                .to_string()
                .contains("negative")
        );
        assert!(parse_time("fast").is_err());
    }

    #[test]
    fn costs_per_byte() {
        assert_eq!(parse_per_byte("5 ps/B").unwrap(), PerByte::from_ps(5));
        assert_eq!(parse_per_byte("0.25 ns/B").unwrap(), PerByte::from_ps(250));
        assert_eq!(parse_per_byte("250fs/B").unwrap(), PerByte::from_fs(250));
        // A rate is read as its inverse.
        assert_eq!(
            parse_per_byte("2.9 GB/s").unwrap(),
            PerByte::of_rate(Bandwidth::bytes_per_sec(2_900_000_000))
        );
        assert!(
            parse_per_byte("5")
                .unwrap_err()
                .to_string()
                .contains("no unit")
        );
        assert!(
            parse_per_byte("5 furlongs")
                .unwrap_err()
                .to_string()
                .contains("unknown unit")
        );
        assert!(
            parse_per_byte("-1 ps/B")
                .unwrap_err()
                .to_string()
                .contains("negative")
        );
        for c in [
            PerByte::from_fs(344_828),
            PerByte::from_ps(7),
            PerByte::ZERO,
        ] {
            assert_eq!(parse_per_byte(&format_per_byte(c)).unwrap(), c);
        }
    }

    #[test]
    fn rates() {
        assert_eq!(
            parse_rate("3.787 GB/s").unwrap().as_bytes_per_sec(),
            3_787_000_000
        );
        assert_eq!(
            parse_rate("940 Mb/s").unwrap().as_bytes_per_sec(),
            117_500_000
        );
        assert_eq!(
            parse_rate("9.4Gbps").unwrap().as_bytes_per_sec(),
            1_175_000_000
        );
        assert_eq!(
            parse_rate("6.6e9 B/s").unwrap().as_bytes_per_sec(),
            6_600_000_000
        );
        assert!(
            parse_rate("0 B/s")
                .unwrap_err()
                .to_string()
                .contains("at least 1 B/s")
        );
        assert!(
            parse_rate("1e30 B/s")
                .unwrap_err()
                .to_string()
                .contains("below 1.8e19 B/s")
        );
        assert!(
            parse_rate("10 GB")
                .unwrap_err()
                .to_string()
                .contains("unknown rate unit")
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("12 KiB").unwrap(), 12288);
        assert_eq!(parse_bytes("8 B").unwrap(), 8);
        assert_eq!(parse_bytes("1 MB").unwrap(), 1_000_000);
        assert_eq!(parse_bytes("1.5 KiB").unwrap(), 1536);
        assert!(
            parse_bytes("1.5 B")
                .unwrap_err()
                .to_string()
                .contains("whole number")
        );
        assert!(parse_bytes("-8 B").is_err());
        assert!(
            parse_bytes("8")
                .unwrap_err()
                .to_string()
                .contains("no unit")
        );
    }

    /// Every message, whole: file readers and tests quote them.
    #[test]
    fn messages_are_exact() {
        let m = |r: Result<u64, UnitError>| r.unwrap_err().to_string();
        assert_eq!(m(parse_bytes("x")), "`x` is not a size (e.g. \"12 KiB\")");
        assert_eq!(
            m(parse_bytes("8")),
            "`8` has no unit: write B, KB, KiB, MB, MiB, GB or GiB"
        );
        assert_eq!(
            m(parse_bytes("8 furlongs")),
            "`8 furlongs`: unknown size unit `furlongs` (B, KB, KiB, MB, MiB, GB, GiB)"
        );
        assert_eq!(
            m(parse_bytes("-8 B")),
            "`-8 B`: a size must be between 0 and 2^64 bytes"
        );
        assert_eq!(
            m(parse_bytes("1.5 B")),
            "`1.5 B` is not a whole number of bytes"
        );
        assert_eq!(
            parse_per_byte("x").unwrap_err().to_string(),
            "`x` is not a cost per byte (e.g. \"0.5 ns/B\" or \"2 GB/s\")"
        );
        assert_eq!(
            parse_per_byte("1 m").unwrap_err().to_string(),
            "`1 m`: unknown unit `m` (fs/B, ps/B, ns/B, us/B, s/B, or a rate such as GB/s)"
        );
        assert_eq!(
            parse_time("1e300 s").unwrap_err().to_string(),
            "`1e300 s` is out of range"
        );
        assert_eq!(
            parse_rate("0.1 B/s").unwrap_err().to_string(),
            "`0.1 B/s`: a rate must be at least 1 B/s"
        );
    }

    #[test]
    fn formats_read_back_exactly() {
        for ps in [
            0u64,
            1,
            440_000,
            8_400,
            1_616_000,
            3_000_000_000,
            12_345_678_901,
        ] {
            let t = Time::from_ps(ps);
            assert_eq!(
                parse_time(&format_time(t)).unwrap(),
                t,
                "{}",
                format_time(t)
            );
        }
        let r = Bandwidth::bytes_per_sec(374_531_835);
        assert_eq!(parse_rate(&format_rate(r)).unwrap(), r);
    }
}
