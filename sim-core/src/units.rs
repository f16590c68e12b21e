//! Quantities with units, as written in scenario files and on the command
//! line: times (`"2.3 us"`, `"1616ns"`, `"0.5 s"`), rates (`"3.787 GB/s"`,
//! `"940 Mb/s"`, `"6.6e9 B/s"`) and sizes (`"12 KiB"`, `"8 B"`, `"1 MB"`).
//!
//! Units are required: a bare number is ambiguous (seconds or
//! microseconds? bits or bytes?), so it is an error that names the units
//! accepted. Parsing is exact where the value allows it: `"4.4e-07 s"`
//! becomes 440 000 ps, `"2.2e9 B/s"` 2 200 000 000 B/s.

use crate::{Bandwidth, PerByte, Time};

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
pub fn parse_time(s: &str) -> Result<Time, String> {
    let (v, unit) = split(s).ok_or_else(|| format!("`{s}` is not a time (e.g. \"2.3 us\")"))?;
    let scale = match unit {
        "ps" => 1e-12,
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "" => return Err(format!("`{s}` has no unit: write ps, ns, us, ms or s")),
        u => {
            return Err(format!(
                "`{s}`: unknown time unit `{u}` (ps, ns, us, ms, s)"
            ));
        }
    };
    if v < 0.0 {
        return Err(format!("`{s}`: a time cannot be negative"));
    }
    Time::try_from_secs_f64(v * scale).ok_or_else(|| format!("`{s}` is out of range"))
}

/// Parses a rate: a number and one of `B/s`, `KB/s`, `MB/s`, `GB/s`
/// (decimal bytes), `KiB/s`, `MiB/s`, `GiB/s`, or bits: `b/s`, `Kb/s`,
/// `Mb/s`, `Gb/s` (also `bps`, `Kbps`, `Mbps`, `Gbps`). Must be at least
/// 1 B/s.
pub fn parse_rate(s: &str) -> Result<Bandwidth, String> {
    let (v, unit) = split(s).ok_or_else(|| format!("`{s}` is not a rate (e.g. \"3.787 GB/s\")"))?;
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
        "" => return Err(format!("`{s}` has no unit: write e.g. B/s, GB/s, Gb/s")),
        u => {
            return Err(format!(
                "`{s}`: unknown rate unit `{u}` (B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, b/s, Mb/s, Gb/s)"
            ));
        }
    };
    let bps = v * bytes_per_unit;
    Bandwidth::try_bytes_per_sec_f64(bps).ok_or_else(|| {
        if bps >= 1.0 {
            format!("`{s}`: a rate must be below 1.8e19 B/s (2^64)")
        } else {
            format!("`{s}`: a rate must be at least 1 B/s")
        }
    })
}

/// Parses a size: a number and one of `B`, `KB`, `MB`, `GB` (decimal),
/// `KiB`, `MiB`, `GiB`; must be a whole number of bytes.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (v, unit) = split(s).ok_or_else(|| format!("`{s}` is not a size (e.g. \"12 KiB\")"))?;
    let mult = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1048576.0,
        "GiB" => 1073741824.0,
        "" => {
            return Err(format!(
                "`{s}` has no unit: write B, KB, KiB, MB, MiB, GB or GiB"
            ));
        }
        u => {
            return Err(format!(
                "`{s}`: unknown size unit `{u}` (B, KB, KiB, MB, MiB, GB, GiB)"
            ));
        }
    };
    let b = v * mult;
    if !(0.0..1.8e19).contains(&b) {
        return Err(format!("`{s}`: a size must be between 0 and 2^64 bytes"));
    }
    if b.fract() != 0.0 {
        return Err(format!("`{s}` is not a whole number of bytes"));
    }
    Ok(b as u64)
}

/// Parses a cost per byte (LogGP's `G` or `O`): a time per byte, a number
/// and one of `fs/B`, `ps/B`, `ns/B`, `us/B`, `s/B`; or a rate (`"2.9 GB/s"`,
/// any unit of [`parse_rate`]), read as its inverse.
pub fn parse_per_byte(s: &str) -> Result<PerByte, String> {
    let (v, unit) = split(s)
        .ok_or_else(|| format!("`{s}` is not a cost per byte (e.g. \"0.5 ns/B\" or \"2 GB/s\")"))?;
    let scale = match unit {
        "fs/B" => 1e-15,
        "ps/B" => 1e-12,
        "ns/B" => 1e-9,
        "us/B" | "µs/B" => 1e-6,
        "s/B" => 1.0,
        "" => {
            return Err(format!(
                "`{s}` has no unit: write a time per byte (ps/B, ns/B) or a rate (GB/s)"
            ));
        }
        _ => {
            return parse_rate(s).map(PerByte::of_rate).map_err(|_| {
                format!("`{s}`: unknown unit `{unit}` (fs/B, ps/B, ns/B, us/B, s/B, or a rate such as GB/s)")
            });
        }
    };
    if v < 0.0 {
        return Err(format!("`{s}`: a cost cannot be negative"));
    }
    PerByte::try_from_secs_f64(v * scale).ok_or_else(|| format!("`{s}` is out of range"))
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
        assert!(parse_time("5").unwrap_err().contains("no unit"));
        assert!(
            parse_time("5 fortnights")
                .unwrap_err()
                .contains("unknown time unit")
        );
        assert!(parse_time("-1 us").unwrap_err().contains("negative"));
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
        assert!(parse_per_byte("5").unwrap_err().contains("no unit"));
        assert!(
            parse_per_byte("5 furlongs")
                .unwrap_err()
                .contains("unknown unit")
        );
        assert!(parse_per_byte("-1 ps/B").unwrap_err().contains("negative"));
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
        assert!(parse_rate("0 B/s").unwrap_err().contains("at least 1 B/s"));
        assert!(
            parse_rate("1e30 B/s")
                .unwrap_err()
                .contains("below 1.8e19 B/s")
        );
        assert!(
            parse_rate("10 GB")
                .unwrap_err()
                .contains("unknown rate unit")
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("12 KiB").unwrap(), 12288);
        assert_eq!(parse_bytes("8 B").unwrap(), 8);
        assert_eq!(parse_bytes("1 MB").unwrap(), 1_000_000);
        assert_eq!(parse_bytes("1.5 KiB").unwrap(), 1536);
        assert!(parse_bytes("1.5 B").unwrap_err().contains("whole number"));
        assert!(parse_bytes("-8 B").is_err());
        assert!(parse_bytes("8").unwrap_err().contains("no unit"));
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
