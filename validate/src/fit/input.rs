//! The input of the fit: the CSV's rows ([`Measurement`], [`read_csv`])
//! and which of them a fit uses ([`FitOptions`], [`select`]).
//!
//! # The CSV
//!
//! CSV (read with the `csv` crate; `#` starts a comment line) with a
//! header naming at least `kind`, `size` and `seconds`, any order, other
//! columns ignored. The rows of `netsim calibrate`'s benchmark
//! (`calibrate/README.md`) have exactly this form:
//!
//! | column | values |
//! |---|---|
//! | `kind` | `pingpong`, `hvpp-paper`, `hvpp-posted`, `hvpp-unexpected`, `msgrate` |
//! | `size` | message size (bytes) |
//! | `seconds` | pingpong: one-way time; hvpp-*: the whole exchange of `n` messages each way; msgrate: time per window |
//! | `n` | messages each way (hvpp-*), windows timed (msgrate), 1 (pingpong); needed for hvpp and msgrate rows |
//! | `order` | `in`/`in-order` or `rev`/`reversed` (hvpp rows); `-` or empty otherwise |
//! | `window` | messages per window (msgrate rows) |
//! | `locality` | `same_socket`, `same_node`, `other_node`; or `--locality` for rows without one. Never a silent default |
//! | `state` | placement state of the probe (`near`, `far`, `-`): data that mix states need `--state` |
//! | `library` | the MPI library: data that mix libraries need `--library` |
//!
//! Rows repeated for one measurement unit (same kind, locality, size, n,
//! order, window) are combined by their median.
//!

use super::*;
use crate::Error;

/// A benchmark kind (the `kind` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Blocking ping-pong; `seconds` is the one-way time.
    PingPong,
    /// HighVolumePingPong, Bienz et al. Algorithm 1.
    HvppPaper,
    /// HVPP with every receive posted before the sends.
    HvppPosted,
    /// HVPP with every message unexpected before the receives.
    HvppUnexpected,
    /// Windowed message rate with a closing acknowledgement.
    MsgRate,
}

impl Kind {
    /// All kinds.
    pub const ALL: [Kind; 5] = [
        Kind::PingPong,
        Kind::HvppPaper,
        Kind::HvppPosted,
        Kind::HvppUnexpected,
        Kind::MsgRate,
    ];

    /// The name in the `kind` column.
    pub fn name(self) -> &'static str {
        match self {
            Kind::PingPong => "pingpong",
            Kind::HvppPaper => "hvpp-paper",
            Kind::HvppPosted => "hvpp-posted",
            Kind::HvppUnexpected => "hvpp-unexpected",
            Kind::MsgRate => "msgrate",
        }
    }

    /// Reads a `kind` cell (`ping-pong` is accepted for `pingpong`).
    pub fn parse(s: &str) -> Option<Kind> {
        let s = s.to_ascii_lowercase();
        if s == "ping-pong" {
            return Some(Kind::PingPong);
        }
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// One of the three HighVolumePingPong kinds.
    pub fn is_hvpp(self) -> bool {
        matches!(
            self,
            Kind::HvppPaper | Kind::HvppPosted | Kind::HvppUnexpected
        )
    }
}

/// Receive posting order of an HVPP row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Order {
    /// Receives posted in the order the messages are sent.
    In,
    /// Receives posted in reverse.
    Rev,
}

/// One row of the CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// `file:line`, for messages.
    pub at: String,
    /// `library` cell, if the column exists.
    pub library: Option<String>,
    /// What was measured.
    pub kind: Kind,
    /// Where the two ranks were.
    pub locality: Locality,
    /// Message size (bytes).
    pub size: u64,
    /// Messages each way (hvpp), windows timed (msgrate), 1 (pingpong).
    pub n: u64,
    /// Receive order (hvpp rows).
    pub order: Option<Order>,
    /// Messages per window (msgrate rows), else 0.
    pub window: u64,
    /// The measured time (s) (meaning by kind, see the module doc).
    pub seconds: f64,
    /// `state` cell, if the column exists.
    pub state: Option<String>,
}

/// Reads the CSV. `locality` is the locality of rows without one (the
/// `--locality` option); rows without either are an error. Errors name
/// `source:line` and the column.
pub fn read_csv(
    text: &str,
    source: &str,
    locality: Option<Locality>,
) -> Result<Vec<Measurement>, Error> {
    let mut rdr = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header: Vec<String> = rdr
        .headers()
        .map_err(|e| Error::Input(format!("{source}: {e}")))?
        .iter()
        .map(|h| h.to_ascii_lowercase())
        .collect();
    if header.iter().all(|h| h.is_empty()) {
        return Err(Error::Input(format!(
            "{source}: empty file (need a header line)"
        )));
    }
    let col = |name: &str| header.iter().position(|h| h == name);
    let need = |name: &str| {
        col(name).ok_or_else(|| {
            Error::Input(format!(
                "{source}: header lacks column `{name}` (needs kind,size,seconds; n,order for hvpp \
                 rows, n,window for msgrate rows; calibrate/README.md)"
            ))
        })
    };
    let (c_kind, c_size, c_secs) = (need("kind")?, need("size")?, need("seconds")?);
    let (c_n, c_order, c_window) = (col("n"), col("order"), col("window"));
    let (c_loc, c_state, c_lib) = (col("locality"), col("state"), col("library"));
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| match e.position() {
            Some(p) => Error::Input(format!("{source}:{}: {e}", p.line())),
            None => Error::Input(format!("{source}: {e}")),
        })?;
        let line = rec.position().map_or(0, |p| p.line());
        let at = format!("{source}:{line}");
        let cell = |c: usize| rec.get(c).unwrap_or("");
        let kind = Kind::parse(cell(c_kind)).ok_or_else(|| {
            Error::Input(format!(
                "{at}: column `kind`: `{}` is not one of pingpong, hvpp-paper, hvpp-posted, \
                 hvpp-unexpected, msgrate",
                cell(c_kind)
            ))
        })?;
        let size: u64 = cell(c_size).parse().map_err(|_| {
            Error::Input(format!(
                "{at}: column `size`: `{}` is not a whole number of bytes",
                cell(c_size)
            ))
        })?;
        let seconds: f64 = cell(c_secs).parse().map_err(|_| {
            Error::Input(format!(
                "{at}: column `seconds`: `{}` is not a number",
                cell(c_secs)
            ))
        })?;
        if !(seconds > 0.0 && seconds.is_finite()) {
            return Err(Error::Input(format!(
                "{at}: column `seconds`: must be positive, got {}",
                cell(c_secs)
            )));
        }
        let n = match c_n.map(cell).filter(|s| !s.is_empty() && *s != "-") {
            Some(v) => v.parse::<u64>().ok().filter(|&n| n >= 1).ok_or_else(|| {
                Error::Input(format!(
                    "{at}: column `n`: `{v}` is not a whole number >= 1"
                ))
            })?,
            None if kind == Kind::PingPong => 1,
            None => {
                return Err(Error::Input(format!(
                    "{at}: a {} row needs column `n` (messages each way for hvpp, windows \
                     timed for msgrate)",
                    kind.name()
                )));
            }
        };
        if kind == Kind::PingPong && n != 1 {
            return Err(Error::Input(format!(
                "{at}: column `n`: a pingpong row has n = 1 (one message), got {n}"
            )));
        }
        let order = match c_order.map(cell).unwrap_or("") {
            "in" | "in-order" => Some(Order::In),
            "rev" | "reversed" => Some(Order::Rev),
            "" | "-" => None,
            o => {
                return Err(Error::Input(format!(
                    "{at}: column `order`: `{o}` is not in, in-order, rev or reversed"
                )));
            }
        };
        if kind.is_hvpp() && order.is_none() {
            return Err(Error::Input(format!(
                "{at}: a {} row needs column `order` (in or rev)",
                kind.name()
            )));
        }
        let window = if kind == Kind::MsgRate {
            let w = c_window.map(cell).unwrap_or("");
            w.parse::<u64>().ok().filter(|&w| w >= 1).ok_or_else(|| {
                Error::Input(format!(
                    "{at}: column `window`: a msgrate row needs a window >= 1, got `{w}`"
                ))
            })?
        } else {
            0
        };
        let locality = match c_loc.map(cell).unwrap_or("") {
            "" | "-" => locality.ok_or_else(|| {
                Error::Input(format!(
                    "{at}: no locality: give a `locality` column (same_socket, same_node, \
                     other_node) or --locality"
                ))
            })?,
            l => Locality::from_name(l).ok_or_else(|| {
                Error::Input(format!(
                    "{at}: column `locality`: `{l}` is not same_socket, same_node or other_node"
                ))
            })?,
        };
        let opt_cell = |c: Option<usize>| c.map(|c| cell(c).to_string()).filter(|s| !s.is_empty());
        out.push(Measurement {
            at,
            library: opt_cell(c_lib),
            kind,
            locality,
            size,
            n,
            order,
            window,
            seconds,
            state: opt_cell(c_state),
        });
    }
    if out.is_empty() {
        return Err(Error::Input(format!("{source}: no data rows")));
    }
    Ok(out)
}

// ------------------------------------------------------------ options and selection

/// How to fit.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Fit only rows of this state (`--state`); required when the rows
    /// mix states.
    pub state: Option<String>,
    /// Fit only rows of this library (`--library`); required when the rows
    /// mix libraries.
    pub library: Option<String>,
    /// Most ping-pong segments (`--max-segments`). Default 8.
    pub max_segments: usize,
    /// Relative noise below which reversed faster than in order is not a
    /// contradiction (`--noise`). Default 0.1.
    pub noise: f64,
    /// The library's own eager limit for non-blocking sends
    /// (`--isend-eager-max`, e.g. UCX's rendezvous threshold for
    /// `MPI_Isend`): written to the scenario, and the posted streams
    /// (non-blocking sends) above it fit the rendezvous cell. Three stream
    /// sizes cannot place it, so it is the library's configuration, not
    /// a fitted value. Default none.
    pub isend_eager_max: Option<u64>,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            state: None,
            library: None,
            max_segments: 8,
            noise: 0.1,
            isend_eager_max: None,
        }
    }
}

/// Keeps the rows of one library and one state; errors if the rows mix
/// them and the options do not choose.
pub fn select(rows: Vec<Measurement>, o: &FitOptions) -> Result<Vec<Measurement>, Error> {
    fn pick(
        rows: Vec<Measurement>,
        what: &str,
        whats: &str,
        opt: &str,
        chosen: Option<&String>,
        get: impl Fn(&Measurement) -> Option<&String>,
    ) -> Result<Vec<Measurement>, Error> {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for r in &rows {
            if let Some(v) = get(r) {
                *counts.entry(v.clone()).or_default() += 1;
            }
        }
        let list = || {
            counts
                .iter()
                .map(|(k, n)| format!("{k} ({n} rows)"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match chosen {
            Some(c) => {
                if counts.is_empty() {
                    return Err(Error::Input(format!(
                        "{opt} {c}: the data have no `{what}` column"
                    )));
                }
                let kept: Vec<Measurement> =
                    rows.into_iter().filter(|r| get(r) == Some(c)).collect();
                if kept.is_empty() {
                    return Err(Error::Input(format!(
                        "{opt} {c}: no rows; the data have {}",
                        list()
                    )));
                }
                Ok(kept)
            }
            None if counts.len() > 1 => Err(Error::Input(format!(
                "the data mix {whats}: {}; fit one at a time with {opt}",
                list()
            ))),
            None => Ok(rows),
        }
    }
    let rows = pick(
        rows,
        "library",
        "libraries",
        "--library",
        o.library.as_ref(),
        |r| r.library.as_ref(),
    )?;
    pick(rows, "state", "states", "--state", o.state.as_ref(), |r| {
        r.state.as_ref()
    })
}
