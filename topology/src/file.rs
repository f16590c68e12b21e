//! Machines loaded from a text file: any graph of hosts, switches and
//! routers joined by full-duplex cables, routed by shortest path.
//!
//! # Format
//!
//! One statement per line; `#` starts a comment; blank lines are ignored;
//! names are any non-blank word. Statements:
//!
//! ```text
//! machine <name>                       # optional, names the machine
//! sharing fair|asymmetric              # optional, default fair
//! host <name> [sockets=<n>] [cores=<n>]  # cores per socket; defaults 1 and 1
//! switch <name>
//! router <name>
//! link <a> <b> bw=<rate> lat=<time> [buffer=<bytes>] [bw_back=<rate>] [lat_back=<time>]
//! ```
//!
//! A `link` is a full-duplex cable; `bw` and `lat` apply to both
//! directions unless `bw_back` / `lat_back` give the b -> a direction its
//! own. Vertices must be declared before the links that use them. Each
//! host has exactly one link (its network interface, whose bandwidth is
//! the node's injection and ejection rate). Hosts are numbered in the
//! order declared: the first host is node 0.
//!
//! Units (decimal prefixes for rates): rates `B/s kB/s MB/s GB/s` (bytes)
//! or `b/s kb/s Mb/s Gb/s` (bits), e.g. `3.787GB/s`, `940Mb/s`; times
//! `ps ns us ms s`, e.g. `1616ns`; sizes `B KB MB KiB MiB`, e.g. `64KiB`.
//!
//! Routing: the shortest path in links; among equally short paths the one
//! leaving each switch by its earliest-declared link.
//!
//! Every error names `file:line` and what is wrong; nothing panics on bad
//! input. See `topology/MACHINE-FORMAT.md` and
//! `topology/examples/fat-tree.machine`.

use crate::error::MachineError;
use crate::link::LinkParams;
use crate::machine::{Machine, MachineBuilder, Sharing, VRef};
use rustc_hash::FxHashMap;
use sim_core::units;
use std::fmt;
use std::path::Path;

/// A machine file error: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineFileError {
    /// File name as given.
    pub file: String,
    /// 1-based line, or `None` for errors about the whole file.
    pub line: Option<usize>,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for MachineFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.msg),
            None => write!(f, "{}: {}", self.file, self.msg),
        }
    }
}

impl std::error::Error for MachineFileError {}

/// Reads and parses a machine file.
pub fn load(path: &Path) -> Result<Machine, MachineFileError> {
    let (name, text) = read(path)?;
    parse(&name, &text)
}

/// A file's name for messages and its text, or an error naming it (the
/// machine-file and platform readers).
pub(crate) fn read(path: &Path) -> Result<(String, String), MachineFileError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| MachineFileError {
        file: name.clone(),
        line: None,
        msg: format!("cannot read: {e}"),
    })?;
    Ok((name, text))
}

/// Parses machine-file text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Machine, MachineFileError> {
    let err = |line: usize, msg: String| MachineFileError {
        file: file.to_string(),
        line: Some(line),
        msg,
    };
    let mut b = MachineBuilder::new(file);
    let mut sharing = Sharing::Fair;
    // Name -> (vertex, declaring line). Lookups only; never iterated.
    let mut names: FxHashMap<String, (VRef, usize)> = FxHashMap::default();
    let mut host_lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[0] {
            "machine" => {
                if words.len() != 2 {
                    return Err(err(ln, "expected `machine <name>`".into()));
                }
                b.set_name(words[1]);
            }
            "sharing" => {
                sharing = match words.get(1).copied() {
                    Some("fair") if words.len() == 2 => Sharing::Fair,
                    Some("asymmetric") if words.len() == 2 => Sharing::Asymmetric,
                    _ => {
                        return Err(err(
                            ln,
                            "expected `sharing fair` or `sharing asymmetric`".into(),
                        ));
                    }
                }
            }
            kw @ ("host" | "switch" | "router") => {
                let Some(&name) = words.get(1) else {
                    return Err(err(ln, format!("expected `{kw} <name>`")));
                };
                if let Some((_, first)) = names.get(name) {
                    return Err(err(
                        ln,
                        format!("`{name}` is already declared on line {first}"),
                    ));
                }
                let opts = options(&words[2..]).map_err(|m| err(ln, m.to_string()))?;
                let v = if kw == "host" {
                    let (sockets, cores) = host_shape(&opts).map_err(|m| err(ln, m.to_string()))?;
                    host_lines.push(ln);
                    b.host(name, sockets, cores)
                } else {
                    if let Some((k, _)) = opts.first() {
                        return Err(err(ln, format!("unknown {kw} option `{k}`")));
                    }
                    b.net(name, kw == "router")
                };
                names.insert(name.to_string(), (v, ln));
            }
            "link" => {
                if words.len() < 3 {
                    return Err(err(
                        ln,
                        "expected `link <a> <b> bw=<rate> lat=<time> ...`".into(),
                    ));
                }
                let end = |w: &str| {
                    names.get(w).map(|&(v, _)| v).ok_or_else(|| {
                        err(
                            ln,
                            format!("unknown vertex `{w}` (declare it before the link)"),
                        )
                    })
                };
                let (a, bv) = (end(words[1])?, end(words[2])?);
                if words[1] == words[2] {
                    return Err(err(ln, format!("link from `{}` to itself", words[1])));
                }
                let (fwd, back) = link_params(&words[3..]).map_err(|m| err(ln, m.to_string()))?;
                b.cable(a, bv, fwd, back);
            }
            other => {
                return Err(err(
                    ln,
                    format!(
                        "unknown statement `{other}` (machine, sharing, host, switch, router, link)"
                    ),
                ));
            }
        }
    }
    // Graph errors name a host; point at the line that declared it.
    b.build(sharing).map_err(|e| {
        let msg = e.to_string();
        let line = match &e {
            // The host named first in the message.
            MachineError::Graph(m) => host_lines
                .iter()
                .filter_map(|&l| {
                    let decl = text.lines().nth(l - 1).unwrap_or("");
                    let name = decl.split_whitespace().nth(1)?;
                    m.find(&format!("`{name}`")).map(|pos| (pos, l))
                })
                .min()
                .map(|(_, l)| l),
            MachineError::Param { .. } => None,
        };
        MachineFileError {
            file: file.to_string(),
            line,
            msg,
        }
    })
}

/// An option of a `host` or `link` line refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum OptionError {
    /// A word that is not `key=value`.
    #[error("expected `key=value`, got `{0}`")]
    NotKeyValue(String),
    /// A count that is not a positive integer.
    #[error("`{key}` must be a positive integer, got `{value}`")]
    NotPositive { key: String, value: String },
    /// A key the line does not have.
    #[error("unknown {line} option `{key}` ({known})")]
    Unknown {
        line: &'static str,
        key: String,
        known: &'static str,
    },
    /// A quantity with a bad unit or value.
    #[error("`{key}`: {error}")]
    Unit {
        key: String,
        error: units::UnitError,
    },
    /// A required option left out (`bw=<rate>`).
    #[error("link needs `{0}`")]
    Missing(&'static str),
}

/// A host's `sockets=` and `cores=` (1 each by default).
fn host_shape(opts: &[(&str, &str)]) -> Result<(u16, u16), OptionError> {
    let (mut sockets, mut cores) = (1u16, 1u16);
    for &(k, val) in opts {
        let n: u16 =
            val.parse()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| OptionError::NotPositive {
                    key: k.to_string(),
                    value: val.to_string(),
                })?;
        match k {
            "sockets" => sockets = n,
            "cores" => cores = n,
            _ => {
                return Err(OptionError::Unknown {
                    line: "host",
                    key: k.to_string(),
                    known: "sockets, cores",
                });
            }
        }
    }
    Ok((sockets, cores))
}

/// A link's options: its parameters forward and back (`bw_back` and
/// `lat_back` default to `bw` and `lat`).
fn link_params(words: &[&str]) -> Result<(LinkParams, LinkParams), OptionError> {
    let (mut bw, mut lat, mut buf, mut bw_back, mut lat_back) = (None, None, 0u64, None, None);
    for (k, val) in options(words)? {
        let bad = |error| OptionError::Unit {
            key: k.to_string(),
            error,
        };
        match k {
            "bw" => bw = Some(units::parse_rate(val).map_err(bad)?),
            "bw_back" => bw_back = Some(units::parse_rate(val).map_err(bad)?),
            "lat" => lat = Some(units::parse_time(val).map_err(bad)?),
            "lat_back" => lat_back = Some(units::parse_time(val).map_err(bad)?),
            // A bare byte count is unambiguous for a size.
            "buffer" => {
                buf = match val.parse::<u64>() {
                    Ok(b) => b,
                    Err(_) => units::parse_bytes(val).map_err(bad)?,
                }
            }
            _ => {
                return Err(OptionError::Unknown {
                    line: "link",
                    key: k.to_string(),
                    known: "bw, lat, buffer, bw_back, lat_back",
                });
            }
        }
    }
    let bw = bw.ok_or(OptionError::Missing("bw=<rate>"))?;
    let lat = lat.ok_or(OptionError::Missing("lat=<time>"))?;
    let fwd = LinkParams {
        bandwidth: bw,
        latency: lat,
        buffer: buf,
    };
    let back = LinkParams {
        bandwidth: bw_back.unwrap_or(bw),
        latency: lat_back.unwrap_or(lat),
        buffer: buf,
    };
    Ok((fwd, back))
}

fn options<'a>(words: &[&'a str]) -> Result<Vec<(&'a str, &'a str)>, OptionError> {
    words
        .iter()
        .map(|w| {
            w.split_once('=')
                .filter(|(k, v)| !k.is_empty() && !v.is_empty())
                .ok_or_else(|| OptionError::NotKeyValue(w.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_garbage_is_an_error_never_a_panic() {
        // Seeded random files from a vocabulary of valid and broken
        // pieces: every parse returns, and every error names the file.
        use sim_core::rand::{Rng, SeedableRng};
        let words = [
            "host",
            "switch",
            "router",
            "link",
            "machine",
            "sharing",
            "fair",
            "asymmetric",
            "a",
            "b",
            "s",
            "t",
            "bw=1GB/s",
            "bw=940Mb/s",
            "bw=0B/s",
            "bw=",
            "=1",
            "lat=1ns",
            "lat=1e99s",
            "lat=-3us",
            "buffer=64KiB",
            "buffer=1e30MB",
            "sockets=2",
            "cores=0",
            "cores=99999",
            "#",
            "\u{20ac}",
            "1.2.3GB/s",
            "bw_back=2GB/s",
            "lat_back=3ns",
        ];
        let mut rng = sim_core::SimRng::seed_from_u64(11);
        for _ in 0..2000 {
            let mut text = String::new();
            for _ in 0..rng.random_range(0..12) {
                for _ in 0..rng.random_range(0..6) {
                    text.push_str(words[rng.random_range(0..words.len())]);
                    text.push(' ');
                }
                text.push('\n');
            }
            if let Err(e) = parse("fuzz.machine", &text) {
                assert!(e.to_string().starts_with("fuzz.machine"), "{e}");
            }
        }
    }
}
