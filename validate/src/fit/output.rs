//! `netsim fit`'s output: the fit as a runnable scenario and as a short
//! human report.

use super::*;
use mpi_layer::Protocol;

const PROTOCOLS: [&str; 3] = [
    Protocol::Short.name(),
    Protocol::Eager.name(),
    Protocol::Rendezvous.name(),
];

/// Seconds as an exact picosecond time string for scenario files.
pub fn format_secs(s: f64) -> String {
    format!("{} ps", Time::from_secs_f64(s).as_ps())
}

/// Seconds in the most readable unit.
fn human(s: f64) -> String {
    let a = s.abs();
    if a >= 1.0 {
        format!("{s:.3} s")
    } else if a >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if a >= 1e-6 {
        format!("{:.3} us", s * 1e6)
    } else {
        format!("{:.1} ns", s * 1e9)
    }
}

/// A rate in B/s for scenario files: `1 / slope`, capped for a zero slope.
pub(super) fn rate_bps(beta: f64) -> u64 {
    const CAP: u64 = 1_000_000_000_000_000; // 1 PB/s: "does not grow with size"
    if beta > 0.0 {
        Bandwidth::try_bytes_per_sec_f64(1.0 / beta)
            .map_or(CAP, |b| b.as_bytes_per_sec())
            .min(CAP)
    } else {
        CAP
    }
}

fn human_rate(bps: f64) -> String {
    if !bps.is_finite() {
        "inf".into()
    } else if bps >= 1e9 {
        format!("{:.3} GB/s", bps / 1e9)
    } else {
        format!("{:.1} MB/s", bps / 1e6)
    }
}

/// Alpha in whole picoseconds (nearest), never below `min_ps` (the match
/// cost), so that rounding cannot break the calibration contract.
pub(super) fn alpha_ps(alpha_s: f64, min_ps: u64) -> u64 {
    ((alpha_s * 1e12).round().max(0.0) as u64).max(min_ps)
}

/// The marker a fit without ping-pong rows writes into its scenario and
/// its report: its postal values are another machine's.
pub const BORROWED_POSTAL: &str = "BORROWED POSTAL VALUES: no ping-pong rows of this machine; \
     every postal cell (alpha, R_b, L, o) is Blue Waters' (preset blue-waters), not measured here";

impl Fit {
    /// [`BORROWED_POSTAL`] when no locality has a ping-pong fit.
    pub fn borrowed_postal(&self) -> Option<&'static str> {
        self.postal.is_empty().then_some(BORROWED_POSTAL)
    }

    /// The protocol thresholds `(short_max, eager_max)` of the first
    /// locality, and the protocol cell of every protocol per locality.
    pub(super) fn thresholds(&self) -> Option<(u64, u64)> {
        let pf = self
            .postal
            .iter()
            .find(|p| p.locality == "other_node")
            .or(self.postal.first())?;
        let s = &pf.segments;
        Some(match s.len() {
            1 => (0, s[0].hi),
            2 => (0, s[0].hi),
            _ => (s[0].hi, s[1].hi),
        })
    }

    pub(super) fn cell(pf: &PostalFit, protocol: usize) -> &Segment {
        let n = pf.segments.len();
        // One segment: all three; two: no short protocol.
        &pf.segments[protocol.saturating_sub(3 - n.min(3)).min(n - 1)]
    }

    /// The fit as a runnable scenario: a machine and mapping that match
    /// the measured localities (two ranks on one node for intra-node
    /// data), the `[mpi]` section, and a ping-pong workload over a few
    /// measured sizes. `netsim run` accepts it (checked by
    /// [`check_scenario`]).
    pub fn to_scenario(&self, source: &str) -> String {
        let mut out = self.scenario_header(source);
        out += &self.scenario_machine();
        out += "\n[mpi]\npreset = \"blue-waters\"   # for what the data do not determine (above)\n";
        out += &self.scenario_thresholds();
        out += &self.scenario_queues();
        out += &self.scenario_memory();
        out += &self.scenario_postal();
        out += &self.scenario_host();
        out += &self.scenario_workload();
        out
    }

    /// The opening comments: where the fit came from and what it leaves open.
    fn scenario_header(&self, source: &str) -> String {
        let mut out = String::new();
        let label = [
            self.library.as_ref().map(|l| format!("library {l}")),
            self.state.as_ref().map(|s| format!("state {s}")),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ");
        out += &format!(
            "# Fitted by `netsim fit {source}`{}.\n# Run it as is (`netsim run`), or \
             replace [workload] with yours.\n",
            if label.is_empty() {
                String::new()
            } else {
                format!(" ({label})")
            }
        );
        if let Some(b) = self.borrowed_postal() {
            out += &format!("# {b}.\n");
        }
        let locs: Vec<&str> = self.postal.iter().map(|p| p.locality.as_str()).collect();
        let unfitted: Vec<&str> = ["same_socket", "same_node", "other_node"]
            .into_iter()
            .filter(|l| !locs.contains(l))
            .collect();
        out += "# Not determined by these data (the preset's values stay): match_base";
        if self.gamma.is_none() {
            out += ", gamma";
        }
        if !unfitted.is_empty() {
            out += &format!(", the postal cells of {}", unfitted.join(", "));
        }
        out += ".\n";
        for n in self
            .notes
            .iter()
            .chain(self.postal.iter().flat_map(|p| &p.notes))
        {
            out += &format!("# Note: {n}\n");
        }
        out
    }

    /// `[machine]` and `[mapping]`: the most remote measured locality decides.
    fn scenario_machine(&self) -> String {
        let mut out = String::new();
        // Machine and mapping: the most remote measured locality decides.
        out += "\n[machine]\npreset = \"ideal\"\n";
        if self.localities.contains(&Locality::OtherNode) {
            // The fitted alpha holds the whole latency: a zero-latency
            // wire leaves the calibration contract room; the wire is
            // faster than every fitted R_b so that R_b limits.
            let max_rate = self
                .postal
                .iter()
                .flat_map(|p| &p.segments)
                .map(|s| rate_bps(s.beta_s_per_b))
                .max()
                .unwrap_or(0);
            out += "latency = \"0 ps\"   # the fitted alphas hold the whole latency\n";
            out += &format!(
                "bandwidth = \"{} B/s\"\n\n[mapping]\nppn = 1   # one rank per node, as measured (other_node)\n",
                max_rate.max(100_000_000_000)
            );
        } else if self.localities.contains(&Locality::SameNode) {
            out += "sockets = 2\n\n[mapping]\nppn = 2   # both ranks on one node, one per socket (same_node)\n";
        } else {
            out += "sockets = 1\n\n[mapping]\nppn = 2   # both ranks on one node and socket (same_socket)\n";
        }
        out
    }

    /// The protocol thresholds and the given isend eager limit.
    fn scenario_thresholds(&self) -> String {
        let mut out = String::new();
        if let Some((short_max, eager_max)) = self.thresholds() {
            let pf = self
                .postal
                .iter()
                .find(|p| p.locality == "other_node")
                .or(self.postal.first())
                .expect("thresholds come from a postal fit");
            let s = &pf.segments;
            let bracket = |i: usize| format!("switch between {} B and {} B", s[i].hi, s[i + 1].lo);
            match s.len() {
                1 => {
                    out += &format!(
                        "short_max = 0\neager_max = {eager_max}   # one line fits every size\n"
                    )
                }
                2 => {
                    out += &format!(
                        "short_max = 0   # two segments: eager and rendezvous\neager_max = {eager_max}   # {}\n",
                        bracket(0)
                    )
                }
                _ => {
                    out += &format!(
                        "short_max = {short_max}   # {}\neager_max = {eager_max}   # {}\n",
                        bracket(0),
                        bracket(1)
                    )
                }
            }
        }
        if let Some(max) = self.isend_eager_max {
            out += &format!(
                "isend_eager_max = {max}   # given (--isend-eager-max): streams above it fit the rendezvous cell\n"
            );
        }
        out
    }

    /// Queue search: gamma and its bands, posted and unexpected.
    fn scenario_queues(&self) -> String {
        let mut out = String::new();
        if let (Some((g, e)), Some((kind, size))) = (self.gamma, self.gamma_source) {
            out += &format!(
                "gamma = \"{}\"   # {} {size} B, {} (n, in, rev) pairs{}\n",
                format_secs(g),
                kind.name(),
                self.gamma_points,
                if e.is_finite() {
                    format!(", excess grows as n^{e:.2}")
                } else {
                    String::new()
                }
            );
            let list = |bands: &[(u64, f64)]| -> String {
                bands
                    .iter()
                    .map(|&(from, g)| format!("[{from}, \"{}\"]", format_secs(g)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let posted = self
                .queues
                .iter()
                .find(|q| (q.kind, q.size) == (kind, size))
                .map_or(&[][..], |q| &q.banded.1[..]);
            if !posted.is_empty() {
                out += &format!(
                    "gamma_posted_bands = [{}]   # cost per element from these queue positions on\n",
                    list(posted)
                );
            }
            // The unexpected queue: its own fit when hvpp-unexpected pairs
            // were given (smallest size), else the posted queue's (the
            // same memory, the same cost per position).
            match self
                .queues
                .iter()
                .find(|q| q.kind == Kind::HvppUnexpected && kind != Kind::HvppUnexpected)
            {
                Some(u) => {
                    out += &format!(
                        "gamma_unexpected = \"{}\"   # hvpp-unexpected {} B, {} pairs\n",
                        format_secs(u.banded.0),
                        u.size,
                        u.pairs.len()
                    );
                    if !u.banded.1.is_empty() {
                        out += &format!("gamma_unexpected_bands = [{}]\n", list(&u.banded.1));
                    }
                }
                None if !posted.is_empty() => {
                    out += &format!(
                        "gamma_unexpected_bands = [{}]   # as posted_recvs\n",
                        list(posted)
                    );
                }
                None => {}
            }
        }
        out
    }

    /// Memory path, pair window and the unexpected copy.
    fn scenario_memory(&self) -> String {
        let mut out = String::new();
        // The Blue Waters preset's node memory and pair window describe
        // that machine; here the fitted R_b hold the memory path, and a
        // stream is limited by the fitted gap, not by a window.
        out += "memory_bandwidth = \"unlimited\"   # the fitted R_b hold the memory path\n";
        out += "pair_window = \"unlimited\"   # streams are limited by the fitted gap g\n";
        if let Some(pf) = self
            .postal
            .iter()
            .find(|p| p.locality == self.mapped_locality().name())
        {
            let eager = Self::cell(pf, 1);
            match &self.copy_rate {
                Some(c) => {
                    out += &format!(
                        "unexpected_copy_rate = \"{} B/s\"   # hvpp-unexpected against hvpp-posted streams at {:?} B\n\
                         unexpected_cost = \"{} ps\"   # the same streams' difference at 0 B\n",
                        c.rate.round() as u64,
                        c.sizes,
                        (c.fixed * 1e12).round() as u64
                    )
                }
                None => {
                    out += &format!(
                        "unexpected_copy_rate = \"{} B/s\"   # not in these data: one copy at the eager R_b of {}\n",
                        rate_bps(eager.beta_s_per_b),
                        pf.locality
                    )
                }
            }
        }
        out
    }

    /// One `[mpi.postal.<locality>]` table per fitted locality.
    fn scenario_postal(&self) -> String {
        let mut out = String::new();
        let min_ps = self.gamma.map_or(
            mpi_layer::MpiParams::blue_waters()
                .gamma_posted
                .cost(1)
                .as_ps(),
            |g| Time::from_secs_f64(g.0).as_ps(),
        );
        for pf in &self.postal {
            out += &format!("\n[mpi.postal.{}]\n", pf.locality);
            for (i, name) in PROTOCOLS.iter().enumerate() {
                let s = Self::cell(pf, i);
                let mut notes = vec![format!(
                    "{}..{} B, {} sizes, rms {:.2} %, max {:.2} %",
                    s.lo,
                    s.hi,
                    s.points,
                    100.0 * s.rms_rel,
                    100.0 * s.max_rel
                )];
                match s.bound {
                    Bound::Free => {}
                    Bound::Alpha | Bound::Both => notes.push(format!(
                        "alpha held at the match cost (free fit {})",
                        human(s.free.0)
                    )),
                    Bound::Slope => notes.push("slope held at 0".into()),
                }
                out += &format!(
                    "{name} = {{ alpha = \"{} ps\", rate = \"{} B/s\" }}   # {}\n",
                    alpha_ps(s.alpha_s, min_ps),
                    rate_bps(s.beta_s_per_b),
                    notes.join("; ")
                );
            }
        }
        out
    }

    /// The host costs of the measured streams.
    fn scenario_host(&self) -> String {
        let mut out = String::new();
        // The preset's own per-byte CPU cost is its R_b's, not these data's:
        // every cell's sender CPU holds a message alpha (g_cpu) and the
        // port carries the bytes at the fitted rate.
        out += "\n# Every cell: the sender's CPU holds a message alpha (g_cpu), the port\n\
                # carries its bytes at the fitted R_b (G); no per-byte CPU cost.\n\
                [mpi.host.all]\nO_send = \"0 ps/B\"\n";
        for h in &self.host {
            let mut big_g = h.gap_per_byte.map_or(String::new(), |b| {
                format!("G = \"{} ps/B\"\n", fmt_per_byte(b))
            });
            if h.inflight > 0.0 {
                big_g += &format!(
                    "o_inflight = \"{} ps\"   # per receive still posted: the streams grow as n^2\n",
                    (h.inflight * 1e12).round() as u64
                );
            }
            out += &format!(
                "\n[mpi.host.{}.{}]   # {} {} in order: {} per message ({} n)\n\
                 g = \"{} ps\"\n{big_g}g_cpu = \"0 ps\"\no_send = \"{} ps\"\no_recv = \"{} ps\"\nrest = \"L\"\n",
                h.locality,
                PROTOCOLS[h.protocol],
                h.kind.name(),
                sizes_text(&h.sizes),
                human(h.tau),
                h.points,
                (h.g * 1e12).round() as u64,
                (h.o * 1e12).floor() as u64,
                (h.o * 1e12).floor() as u64,
            );
        }
        let fitted: BTreeSet<usize> = self.host.iter().map(|h| h.protocol).collect();
        let rest: Vec<&str> = (0..3)
            .filter(|p| !fitted.contains(p))
            .map(|p| PROTOCOLS[p])
            .collect();
        if !rest.is_empty() {
            out += &format!(
                "\n# {}: no stream measured, so the max-rate costs stay (g_cpu = alpha:\n\
                 # one message at a time, Bienz et al. 2018 eq. 2).\n",
                rest.join(", ")
            );
        }
        out
    }

    /// A ping-pong workload over the measured segments' ends.
    fn scenario_workload(&self) -> String {
        let mut out = String::new();
        // A workload that runs as is: ping-pong at a few measured sizes,
        // one per protocol segment and the extremes.
        let mut sizes: BTreeSet<u64> = BTreeSet::new();
        if let Some(pf) = self.postal.first() {
            for s in &pf.segments {
                sizes.insert(s.lo);
                sizes.insert(s.hi);
            }
        } else {
            sizes.insert(8);
        }
        let list: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
        out += &format!(
            "\n[workload]\nkind = \"ping-pong\"\nsizes = [{}]\nreps = 1\n",
            list.join(", ")
        );
        out
    }

    /// A short human report: segments with residuals and switch points,
    /// the protocol mapping, queue search, streams, message rate.
    pub fn report(&self, source: &str) -> String {
        let mut o = String::new();
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|(k, n)| format!("{} {n}", k.name()))
            .collect();
        o += &format!(
            "netsim fit {source}: library {}, state {}; rows: {}\n",
            self.library.as_deref().unwrap_or("-"),
            self.state.as_deref().unwrap_or("-"),
            rows.join(", ")
        );
        if let Some(b) = self.borrowed_postal() {
            o += &format!("warning: {b}\n");
        }
        let table = |o: &mut String, segs: &[Segment], names: Option<&[&str]>| {
            *o += "    segment            sizes   points       alpha          R_b      rms      max  bound\n";
            for (i, s) in segs.iter().enumerate() {
                let name = names.map_or(format!("{}", i + 1), |n| {
                    n[i.saturating_sub(3 - segs.len().min(3)).min(2)].to_string()
                });
                *o += &format!(
                    "    {name:<10} {:>16} {:>8} {:>11} {:>12} {:>7.2}% {:>7.2}%  {}\n",
                    format!("{}..{}", s.lo, s.hi),
                    s.points,
                    human(s.alpha_s),
                    human_rate(s.rate()),
                    100.0 * s.rms_rel,
                    100.0 * s.max_rel,
                    match s.bound {
                        Bound::Free => "-".to_string(),
                        Bound::Alpha | Bound::Both =>
                            format!("alpha >= match cost (free {})", human(s.free.0)),
                        Bound::Slope => "slope >= 0".to_string(),
                    }
                );
            }
            for w in segs.windows(2) {
                *o += &format!("    switch between {} B and {} B\n", w[0].hi, w[1].lo);
            }
        };
        for pf in &self.postal {
            o += &format!(
                "ping-pong {}: {} sizes, {} segment(s) by the penalized criterion\n",
                pf.locality,
                pf.points.len(),
                pf.regimes.len()
            );
            table(&mut o, &pf.regimes, None);
            if pf.regimes != pf.segments {
                o += "  mapped onto the protocols:\n";
                table(&mut o, &pf.segments, Some(&PROTOCOLS));
            }
            for n in &pf.notes {
                o += &format!("  note: {n}\n");
            }
        }
        if !self.queues.is_empty() {
            o += "queue search (reversed minus in order = gamma n (n - 1)):\n";
            for g in &self.queues {
                o += &format!(
                    "    {:<16} {:>6} B: gamma {:>10} from {:>2} pairs, excess {}, largest excess {:+.1} % of in order{}\n",
                    g.kind.name(),
                    g.size,
                    human(g.gamma),
                    g.pairs.len(),
                    g.exponent
                        .map_or("n/a (fewer than 3 positive)".into(), |e| format!(
                            "~ n^{e:.2}"
                        )),
                    100.0 * g.max_rel_excess,
                    if self.gamma_source == Some((g.kind, g.size)) {
                        "  <- printed"
                    } else {
                        ""
                    }
                );
            }
        }
        if !self.streams.is_empty() {
            o += "in-order streams, T = a + b n (unweighted; reported):\n";
            for s in &self.streams {
                o += &format!(
                    "    {:<16} {:>6} B: a {:>10}, b {:>10} per n ({} per message each way), {} points\n",
                    s.kind.name(),
                    s.size,
                    human(s.a),
                    human(s.b),
                    human(s.b / 2.0),
                    s.points
                );
            }
        }
        for h in &self.host {
            o += &format!(
                "host costs {} {}: {} {} in order (relative weights, {} n): {} per message; \
                 g {}{}, o_send = o_recv {}, L the rest\n",
                h.locality,
                PROTOCOLS[h.protocol],
                h.kind.name(),
                sizes_text(&h.sizes),
                h.points,
                human(h.tau),
                human(h.g),
                h.gap_per_byte
                    .map_or(String::new(), |b| format!(", G {} ps/B", fmt_per_byte(b)))
                    + &if h.inflight > 0.0 {
                        format!(", o_inflight {}", human(h.inflight))
                    } else {
                        String::new()
                    },
                human(h.o)
            );
        }
        if !self.msgrate.is_empty() {
            o += "message rate (reported; not fitted):\n";
            for &(size, window, t) in &self.msgrate {
                o += &format!(
                    "    {size:>6} B window {window:>3}: {} per window, {} per message, {:.3} M messages/s\n",
                    human(t),
                    human(t / window as f64),
                    window as f64 / t / 1e6
                );
            }
        }
        for n in &self.notes {
            o += &format!("note: {n}\n");
        }
        o
    }
}

/// `8 B` or `8, 1024 B`.
fn sizes_text(sizes: &[u64]) -> String {
    let v: Vec<String> = sizes.iter().map(u64::to_string).collect();
    format!("{} B", v.join(", "))
}

/// A cost per byte in picoseconds per byte, three decimals.
fn fmt_per_byte(s_per_b: f64) -> String {
    format!("{:.3}", s_per_b * 1e12)
}
