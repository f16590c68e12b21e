//! MPI-layer parameters: protocols, postal costs per protocol and
//! locality, match-queue costs, host and progress model, collective switch
//! points; and the presets from the seed papers.
//!
//! Every constant is a named field with its unit in brackets, its default
//! and its source. Times are [`Time`] (integer picoseconds), rates
//! [`Bandwidth`] (integer bytes per second).

use serde::Serialize;
use sim_core::{Bandwidth, Time};
use topology::Locality;

/// The point-to-point protocol a message uses, chosen by its size
/// (Bienz et al. 2018, Section 2: "short, eager, or rendezvous, based on
/// message size").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Protocol {
    /// Data travels inside the envelope.
    Short,
    /// Data is sent at once; an unexpected message is buffered by the
    /// receiver and copied at memcpy bandwidth when matched.
    Eager,
    /// Request-to-send (RTS), clear-to-send (CTS) once the receive is
    /// matched, then the data.
    Rendezvous,
}

impl Protocol {
    /// All protocols, in table order.
    pub const ALL: [Protocol; 3] = [Protocol::Short, Protocol::Eager, Protocol::Rendezvous];
    /// Index into per-protocol tables.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Index of a locality into per-locality tables (same socket, same node,
/// other node).
pub fn locality_index(l: Locality) -> usize {
    match l {
        Locality::SameSocket => 0,
        Locality::SameNode => 1,
        Locality::OtherNode => 2,
    }
}

/// All localities, in table order.
pub const LOCALITIES: [Locality; 3] = [
    Locality::SameSocket,
    Locality::SameNode,
    Locality::OtherNode,
];

/// One row-cell of the postal model `T = alpha + s / R_b` (Bienz et al.
/// eq. 1): what a single message of `s` bytes takes on an idle machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Postal {
    /// Latency `alpha` [time]: everything that does not scale with size.
    pub alpha: Time,
    /// Per-process rate `R_b` = 1 / beta [bytes/s].
    pub rate: Bandwidth,
}

impl Postal {
    /// From published decimal values: `alpha` [s] and `R_b` [bytes/s].
    pub fn from_secs(alpha_s: f64, rate_bps: f64) -> Postal {
        Postal {
            alpha: Time::from_secs_f64(alpha_s),
            rate: Bandwidth::try_bytes_per_sec_f64(rate_bps).expect("positive rate"),
        }
    }
}

/// Which match-queue implementation every rank uses (what-if studies).
/// All give the same matches; only the search cost differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MatcherKind {
    /// Two FIFO lists searched linearly (MPICH, Cray MPI; Bienz et al.
    /// Section 4.1). The default.
    Linear,
    /// Hash tables keyed by (communicator, source, tag), with wildcard
    /// receives kept in their own buckets and wildcard searches of the
    /// unexpected messages falling back to an arrival-ordered scan.
    Hashed,
    /// One list per source rank plus one for `MPI_ANY_SOURCE` receives.
    PerSourceBins,
    /// A matcher on the NIC whose every search costs `cost`, whatever the
    /// queue length, and does not occupy the host.
    Offloaded {
        /// Cost of one search [time].
        cost: Time,
    },
}

/// Who runs MPI progress (matching, copies, protocol overheads) on a node
/// (Bridges et al. 2015, Section 5: one core funnelling all progress
/// versus several progress engines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Progress {
    /// Every rank progresses its own messages on its own core
    /// (`MPI_THREAD_SINGLE`): a `Compute` delays that rank's MPI work.
    OwnCore,
    /// `engines` dedicated progress cores per node; the rank on core `c`
    /// is served by engine `c % engines`. With `engines = 1` all progress
    /// of a node is funnelled through one core (`MPI_THREAD_FUNNELED`).
    Engines {
        /// Progress engines per node (at least 1).
        engines: u16,
    },
}

/// Allreduce algorithm for large messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum AllreduceLarge {
    /// Reduce-scatter by recursive halving, then allgather by recursive
    /// doubling (Rabenseifner; Thakur et al. 2005).
    Rabenseifner,
    /// Ring reduce-scatter then ring allgather, `2 (P - 1)` steps.
    Ring,
}

/// Switch points between collective algorithms. Defaults are MPICH's
/// (Thakur, Rabenseifner and Gropp, "Optimization of collective
/// communication operations in MPICH", IJHPCA 2005), not from the seeds,
/// which model collectives but do not name switch points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CollectiveParams {
    /// Bcast uses scatter + ring allgather from this size up, and binomial
    /// below [bytes]. Default 12288 (MPICH `BCAST_SHORT_MSG`).
    pub bcast_long_min: u64,
    /// Bcast with fewer ranks than this is always binomial. Default 8
    /// (MPICH `BCAST_MIN_PROCS`).
    pub bcast_min_procs: u32,
    /// Allreduce uses recursive doubling up to this size, and
    /// `allreduce_large` above [bytes]. Default 2048 (MPICH).
    pub allreduce_short_max: u64,
    /// Allreduce algorithm above `allreduce_short_max`. Default Rabenseifner.
    pub allreduce_large: AllreduceLarge,
    /// Allgather uses recursive doubling (power-of-two sizes only) while
    /// the total gathered size is below this, ring otherwise [bytes].
    /// Default 524288 (MPICH `ALLGATHER_LONG_MSG`).
    pub allgather_long_min: u64,
    /// Alltoall uses Bruck up to this per-peer size, pairwise exchange
    /// above [bytes]. Default 256 (MPICH `ALLTOALL_SHORT_MSG`).
    pub alltoall_bruck_max: u64,
    /// Alltoall with fewer ranks than this never uses Bruck. Default 8.
    pub alltoall_bruck_min_procs: u32,
    /// Rate at which a reduction combines data [bytes/s] (time per byte =
    /// 1 / rate, charged on the core for every reduced byte). Default
    /// 2 GB/s, a placeholder (no seed gives one): set it per machine.
    pub reduce_rate: Bandwidth,
}

impl Default for CollectiveParams {
    fn default() -> Self {
        CollectiveParams {
            bcast_long_min: 12_288,
            bcast_min_procs: 8,
            allreduce_short_max: 2048,
            allreduce_large: AllreduceLarge::Rabenseifner,
            allgather_long_min: 524_288,
            alltoall_bruck_max: 256,
            alltoall_bruck_min_procs: 8,
            reduce_rate: Bandwidth::bytes_per_sec(2_000_000_000),
        }
    }
}

/// All parameters of the MPI layer.
///
/// # The calibration contract
///
/// `postal[protocol][locality]` holds the fitted `alpha` and `R_b` of eq. 1
/// of Bienz et al. A *single message* on an idle machine is: the receive
/// posted first (the receiving rank blocked in it), the send posted at
/// `t0` by a rank that is otherwise idle, no other traffic. The receive
/// then completes at exactly `t0 + alpha + transfer_time(s, R_b)`.
///
/// The simulator reaches this by computing the host-side overhead `H` per
/// message:
///
/// ```text
/// H = alpha + transfer_time(s, R_b)
///     - wire(s)            data path: Transport::idle_time(src, dst, s, Some(R_b))
///                          between nodes; transfer_time(s, R_b) through shared memory
///     - handshake          rendezvous only: idle_time of the RTS and the CTS
///                          (zero payload) between nodes; zero through shared memory
///     - match_one          match_base + gamma (one element visited: the single
///                          message's one successful search), or the offloaded
///                          matcher's constant cost
/// ```
///
/// `H` is split between the sender (`send_share_pct` percent, charged before
/// the envelope or RTS leaves) and the receiver (the rest, charged after the
/// match for short and eager, after the data arrives for rendezvous). So
/// alpha is split as: software overhead (`H`, on the hosts), wire latency
/// (inside the transport's `idle_time`), and matching.
///
/// Rendezvous: Table 1's rendezvous alpha is a fitted ping-pong time, so
/// it already *includes* the handshake; the simulator still sends the RTS
/// and CTS explicitly (they queue, they wait for the matching receive, they
/// cross the network) and removes their idle cost from `H` so the idle
/// total stays eq. 1. The handshake's cost becomes visible whenever the
/// receive is late or the network is busy: the data cannot start before
/// the CTS is back.
///
/// If `H` would be negative (the transport alone is slower than the
/// calibrated time), [`crate::Simulation::new`] rejects the parameters
/// with [`crate::ConfigError::NegativeOverhead`] naming protocol,
/// locality and size, checked at the smallest size of each protocol; for
/// larger sizes at run time (a transport slower per byte than `R_b`), `H`
/// is clamped to zero and the message counted in
/// `RunResults::calibration_clamped`.
///
/// # Several processes per node (max-rate model)
///
/// `R_b` is passed as `Transfer::rate_cap`; the transport's node interface
/// has the injection limit `R_N` and shares it among the node's concurrent
/// transfers. With `ppn` ranks sending at once each gets
/// `min(R_b, R_N / ppn)`, which is eq. 2 of Bienz et al. The MPI layer
/// itself knows nothing of `R_N`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MpiParams {
    /// Largest message sent with the short protocol [bytes].
    pub short_max: u64,
    /// Largest message sent eagerly; larger ones use rendezvous [bytes].
    pub eager_max: u64,
    /// `alpha`, `R_b` per protocol (rows: short, eager, rendezvous) and
    /// locality (columns: same socket, same node, other node).
    pub postal: [[Postal; 3]; 3],
    /// Cost of visiting one queue element during a search, `gamma` [time].
    pub gamma: Time,
    /// Fixed cost of each successful match [time] (the constant of Bridges
    /// et al. eq. 1 and 2). Default 0.
    pub match_base: Time,
    /// Receiver's copy rate for unexpected short and eager messages
    /// [bytes/s].
    pub memcpy_rate: Bandwidth,
    /// Share of the host overhead `H` charged on the sender [percent,
    /// 0..=100]. Default 50 (LogP's symmetric `o`).
    pub send_share_pct: u8,
    /// Protocol overheads run on the NIC (offload: they delay the message
    /// but do not occupy a core) instead of the host (onload). Bridges et
    /// al. Section 3. Default false (onload).
    pub protocol_offload: bool,
    /// Who runs MPI progress. Default [`Progress::OwnCore`].
    pub progress: Progress,
    /// Match-queue implementation. Default [`MatcherKind::Linear`].
    pub matcher: MatcherKind,
    /// Collective algorithms and switch points.
    pub collectives: CollectiveParams,
}

impl MpiParams {
    /// The postal parameters of `proto` at locality `loc`.
    pub fn postal(&self, proto: Protocol, loc: Locality) -> Postal {
        self.postal[proto.index()][locality_index(loc)]
    }

    /// The protocol of a message of `bytes` bytes.
    pub fn protocol(&self, bytes: u64) -> Protocol {
        if bytes <= self.short_max {
            Protocol::Short
        } else if bytes <= self.eager_max {
            Protocol::Eager
        } else {
            Protocol::Rendezvous
        }
    }

    /// The smallest size that uses `proto`.
    pub fn min_size(&self, proto: Protocol) -> u64 {
        match proto {
            Protocol::Short => 0,
            Protocol::Eager => self.short_max + 1,
            Protocol::Rendezvous => self.eager_max + 1,
        }
    }

    /// The search cost of the single message of the calibration contract.
    pub fn match_one(&self) -> Time {
        match self.matcher {
            MatcherKind::Offloaded { cost } => cost,
            _ => self.match_base + self.gamma,
        }
    }

    /// Blue Waters (Cray XE6, Gemini), Bienz, Gropp and Olson, EuroMPI'18:
    /// Table 1 for alpha and R_b per protocol and locality; eq. 4,
    /// gamma = 8.4e-9 s. `R_N = 6.6e9 B/s` and `delta = 1.0e-10 s/B` belong
    /// to the transport (node interface and links), see
    /// [`BLUE_WATERS_R_N`], [`BLUE_WATERS_DELTA`].
    ///
    /// Thresholds: the paper names the three protocols but not their switch
    /// points, and its fitted lines do not cross where a switch would be
    /// (inter-node, eager is above short and rendezvous below eager at
    /// every size). We take short up to 1024 B and eager up to 8192 B, our
    /// reading of Cray MPT's defaults on Gemini (the SMSG "vshort" path for
    /// envelopes of about 1 KB; `MPICH_GNI_MAX_EAGER_MSG_SIZE` = 8192 B).
    /// This is an assumption, not a number from the seed: override it when
    /// a measurement says otherwise.
    /// Memcpy rate: not in the paper; the intra-socket eager R_b (3.2e9
    /// B/s) is a measured single-core copy rate on that node, so we use it.
    pub fn blue_waters() -> MpiParams {
        let p = Postal::from_secs;
        MpiParams {
            short_max: 1024,
            eager_max: 8192,
            postal: [
                [p(4.4e-07, 2.2e09), p(8.3e-07, 4.8e08), p(2.3e-06, 1.3e09)],
                [p(5.3e-07, 3.2e09), p(1.2e-06, 9.6e08), p(7.0e-06, 7.5e08)],
                [p(1.7e-06, 6.2e09), p(2.5e-06, 6.2e09), p(3.0e-06, 2.9e09)],
            ],
            gamma: Time::from_secs_f64(8.4e-9),
            match_base: Time::ZERO,
            memcpy_rate: Bandwidth::bytes_per_sec(3_200_000_000),
            send_share_pct: 50,
            protocol_offload: false,
            progress: Progress::OwnCore,
            matcher: MatcherKind::Linear,
            collectives: CollectiveParams::default(),
        }
    }

    /// IBM Blue Gene/P, Hoefler, Gropp, Thakur and Traeff, EuroMPI'10:
    /// eq. 1, `T(S) = 4.5 us + 2.67 ns/B S` for `S <= 256 B`, `5.7 us` up to
    /// 1024 B, `9.8 us` above; matching `T_match(R) <= 100 ns * R`, so
    /// gamma = 100 ns. The three pieces map to short, eager and
    /// rendezvous; the paper gives one curve, so every locality gets the
    /// same values (BG/P runs one rank per node in that measurement).
    /// `2.67 ns/B` is `R_b = 1/2.67e-9 = 374 531 835 B/s` (rounded to the
    /// nearest B/s). Memcpy rate: not in the paper; 2 GB/s placeholder.
    pub fn bgp() -> MpiParams {
        let rb = 1.0 / 2.67e-9;
        let row = |a: f64| [Postal::from_secs(a, rb); 3];
        MpiParams {
            short_max: 256,
            eager_max: 1024,
            postal: [row(4.5e-6), row(5.7e-6), row(9.8e-6)],
            gamma: Time::from_ns(100),
            match_base: Time::ZERO,
            memcpy_rate: Bandwidth::bytes_per_sec(2_000_000_000),
            send_share_pct: 50,
            protocol_offload: false,
            progress: Progress::OwnCore,
            matcher: MatcherKind::Linear,
            collectives: CollectiveParams::default(),
        }
    }

    /// InfiniBand QDR 4x (Mellanox ConnectX-3, Open MPI 1.4.5), Bridges et
    /// al., ExaMPI'15, Table 2: bandwidth 3.787 GB/s, hardware latency
    /// 1616 ns, match latency 271 ns, memcpy 16 GB/s; eager to rendezvous
    /// at 12 KB (Section 4: "crossover ... set at 12KB", taken as 12288 B).
    ///
    /// Short and eager alpha = 1616 + 271 = 1887 ns for every locality
    /// (the paper's one-way latency is the hardware latency plus the match
    /// latency). Rendezvous alpha = 3 x 1616 + 271 = 5119 ns: the paper's
    /// model sends the RTS, the CTS and the data each across the link
    /// (Section 3, "two visits to the outgoing delay station ... one visit
    /// to the return delay station"), so the idle rendezvous pays three
    /// hardware latencies. The match latency was measured on a ping-pong,
    /// whose search visits one element, so `match_base + gamma = 271 ns`:
    /// gamma = 4 ns per element (eq. 2's heavyweight-core slope, 0.004 us
    /// per element) and `match_base = 267 ns`.
    /// Eager `R_b` = 1 / (1/3.787 GB/s + 1/16 GB/s) = 3.062 GB/s: the
    /// model's eager message always visits the receiving core for the copy
    /// into the user buffer (Section 3.2, "adds additional visits to the
    /// receiving CPU to account for copying"), in series with the wire;
    /// the calibration contract carries that per-byte cost in `R_b`.
    /// No short protocol is distinguished: `short_max = 0`.
    /// Offload is on: the ConnectX NIC offloads the protocol (Section 4).
    pub fn infiniband_qdr() -> MpiParams {
        let rate = Bandwidth::bytes_per_sec(3_787_000_000);
        let eager_rate =
            Bandwidth::try_bytes_per_sec_f64(1.0 / (1.0 / 3.787e9 + 1.0 / 16e9)).expect("positive");
        let cell = Postal {
            alpha: Time::from_ns(1616 + 271),
            rate: eager_rate,
        };
        let rdv = Postal {
            alpha: Time::from_ns(3 * 1616 + 271),
            rate,
        };
        MpiParams {
            short_max: 0,
            eager_max: 12_288,
            postal: [[cell; 3], [cell; 3], [rdv; 3]],
            gamma: Time::from_ns(4),
            match_base: Time::from_ns(267),
            memcpy_rate: Bandwidth::bytes_per_sec(16_000_000_000),
            send_share_pct: 50,
            protocol_offload: true,
            progress: Progress::OwnCore,
            matcher: MatcherKind::Linear,
            collectives: CollectiveParams::default(),
        }
    }

    /// The two-rack Ethernet cluster of Zhu, Lastovetsky, Ali and Riesen:
    /// Open MPI over TCP, 1 GbE NICs, RTT between racks 450 us, TCP socket
    /// buffers 3 MB (`btl_tcp_sndbuf`/`rcvbuf`).
    ///
    /// The paper gives no postal fit, so: alpha = RTT / 2 = 225 us for
    /// every protocol and locality between nodes, `R_b` = 940 Mb/s =
    /// 117.5 MB/s (the paper's measured per-flow TCP throughput). Eager up
    /// to 3 MB: with 3 MB socket buffers the kernel absorbs a message of
    /// that size without the receiver, which is eager behaviour; above it
    /// the sender blocks like rendezvous. Open MPI's TCP BTL eager limit
    /// (64 KB) is a protocol detail the paper's measurements hide, so we
    /// follow the buffer. Intra-node: shared memory, taken as Blue Waters'
    /// intra-socket values; gamma, memcpy rate and the host model are Blue
    /// Waters' too (no number in the paper).
    ///
    /// Rendezvous between nodes: alpha = 3 x RTT / 2 = 675 us, since the
    /// RTS, the CTS and the data each make a one-way trip; with 225 us the
    /// calibration contract could not hold (the handshake alone takes
    /// 450 us on this network) and every run would be rejected.
    pub fn ethernet_zhu() -> MpiParams {
        let rate = Bandwidth::bytes_per_sec(117_500_000);
        let net = Postal {
            alpha: Time::from_us(225),
            rate,
        };
        let rend = Postal {
            alpha: Time::from_us(675),
            rate,
        };
        let bw = MpiParams::blue_waters();
        let row = |i: usize| {
            [
                bw.postal[i][0],
                bw.postal[i][0],
                if i == 2 { rend } else { net },
            ]
        };
        // Host-side costs (gamma, memcpy, progress) are Blue Waters': the
        // paper measures none.
        MpiParams {
            short_max: 0,
            eager_max: ZHU_SOCKET_BUFFER,
            postal: [row(0), row(1), row(2)],
            ..bw
        }
    }
}

impl Default for MpiParams {
    /// Blue Waters ([`MpiParams::blue_waters`]).
    fn default() -> Self {
        MpiParams::blue_waters()
    }
}

/// Blue Waters node injection rate `R_N` [bytes/s], Bienz et al. Table 1.
/// Belongs to the transport's node interface; here for the CLI layer.
pub const BLUE_WATERS_R_N: u64 = 6_600_000_000;
/// Blue Waters contention penalty `delta` [s/B], Bienz et al. eq. 5-6.
/// Belongs to the transport; here for the CLI layer.
pub const BLUE_WATERS_DELTA: f64 = 1.0e-10;
/// Zhu et al.: TCP socket buffer size set in Open MPI [bytes] (3 MB).
pub const ZHU_SOCKET_BUFFER: u64 = 3 * 1024 * 1024;
/// Zhu et al.: round-trip time between nodes on different racks [time].
pub const ZHU_RTT: Time = Time::from_us(450);
/// Bridges et al. eq. 1, many-core match delay: `10 + 0.06 * length` us,
/// as (`match_base`, `gamma`).
pub const BRIDGES_MANYCORE_MATCH: (Time, Time) = (Time::from_us(10), Time::from_ns(60));
/// Bridges et al. eq. 2, heavyweight-core match delay: `1 + 0.004 *
/// length` us, as (`match_base`, `gamma`).
pub const BRIDGES_HEAVY_MATCH: (Time, Time) = (Time::from_us(1), Time::from_ns(4));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_hold_published_numbers() {
        let bw = MpiParams::blue_waters();
        assert_eq!(
            bw.postal(Protocol::Rendezvous, Locality::OtherNode).alpha,
            Time::from_ns(3000)
        );
        assert_eq!(
            bw.postal(Protocol::Short, Locality::SameSocket)
                .rate
                .as_bytes_per_sec(),
            2_200_000_000
        );
        assert_eq!(bw.gamma, Time::from_ps(8400));
        let bgp = MpiParams::bgp();
        assert_eq!(bgp.protocol(256), Protocol::Short);
        assert_eq!(bgp.protocol(257), Protocol::Eager);
        assert_eq!(bgp.protocol(1025), Protocol::Rendezvous);
        assert_eq!(
            bgp.postal(Protocol::Eager, Locality::OtherNode)
                .rate
                .as_bytes_per_sec(),
            374_531_835
        );
        let ib = MpiParams::infiniband_qdr();
        assert_eq!(ib.protocol(12_288), Protocol::Eager);
        assert_eq!(ib.protocol(12_289), Protocol::Rendezvous);
    }
}
