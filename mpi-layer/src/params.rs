//! MPI-layer parameters: protocols, postal costs per protocol and
//! locality, match-queue costs, host and progress model, collective switch
//! points; and the presets from the seed papers.
//!
//! Every constant is a named field with its unit in brackets, its default
//! and its source. Times are [`Time`] (integer picoseconds), rates
//! [`Bandwidth`] (integer bytes per second).

use serde::{Deserialize, Serialize};
use sim_core::{Bandwidth, PerByte, Time};
use topology::Locality;

/// The point-to-point protocol a message uses, chosen by its size
/// (Bienz et al. 2018, Section 2: "short, eager, or rendezvous, based on
/// message size").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
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

    /// The one spelling in files, reports and messages: `short`, `eager`
    /// or `rendezvous`.
    pub const fn name(self) -> &'static str {
        match self {
            Protocol::Short => "short",
            Protocol::Eager => "eager",
            Protocol::Rendezvous => "rendezvous",
        }
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
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
    /// Latency `alpha` \[time\]: everything that does not scale with size.
    pub alpha: Time,
    /// Per-process rate `R_b` = 1 / beta \[bytes/s\].
    pub rate: Bandwidth,
}

impl Postal {
    /// From published decimal values: `alpha` \[s\] and `R_b` \[bytes/s\].
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
        /// Cost of one search \[time\].
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

/// Who moves a rendezvous message's data once the receiver has matched
/// its RTS and answered with a CTS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rendezvous {
    /// The receiver pulls them: its answer reaches the sender's NIC, and
    /// the data leave from there without the sender's CPU (an RDMA or
    /// single-copy read: Open MPI 4.1 ob1's RGET,
    /// `ompi/mca/pml/ob1/pml_ob1_recvreq.c`,
    /// `mca_pml_ob1_recv_request_get_frag`; UCX's `get_zcopy` scheme,
    /// `src/ucp/rndv/rndv.c`, `ucp_rndv_is_get_zcopy`). The default.
    #[default]
    Get,
    /// The sender pushes them: the CTS is work on the sender's progress
    /// engine, free but served in turn, so the data leave only when a
    /// single-threaded engine gets to it (MPICH ch3's rendezvous over
    /// TCP, `src/mpid/ch3/src/ch3u_rndv.c`,
    /// `MPIDI_CH3_PktHandler_RndvClrToSend`, which sends the data from
    /// the sender's progress loop).
    Put,
}

/// Allreduce algorithm for large messages (`rabenseifner` or `ring` in
/// scenario files).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all(deserialize = "lowercase"))]
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
    /// below \[bytes\]. Default 12288 (MPICH `BCAST_SHORT_MSG`).
    pub bcast_long_min: u64,
    /// Bcast with fewer ranks than this is always binomial. Default 8
    /// (MPICH `BCAST_MIN_PROCS`).
    pub bcast_min_procs: u32,
    /// Allreduce uses recursive doubling up to this size, and
    /// `allreduce_large` above \[bytes\]. Default 2048 (MPICH).
    pub allreduce_short_max: u64,
    /// Allreduce algorithm above `allreduce_short_max`. Default Rabenseifner.
    pub allreduce_large: AllreduceLarge,
    /// Allgather uses recursive doubling (power-of-two sizes only) while
    /// the total gathered size is below this, ring otherwise \[bytes\].
    /// Default 524288 (MPICH `ALLGATHER_LONG_MSG`).
    pub allgather_long_min: u64,
    /// Alltoall uses Bruck up to this per-peer size, pairwise exchange
    /// above \[bytes\]. Default 256 (MPICH `ALLTOALL_SHORT_MSG`).
    pub alltoall_bruck_max: u64,
    /// Alltoall with fewer ranks than this never uses Bruck. Default 8.
    pub alltoall_bruck_min_procs: u32,
    /// Rate at which a reduction combines data \[bytes/s\] (time per byte =
    /// 1 / rate, charged on the core for every reduced byte). Default
    /// 2 GB/s, a placeholder (no seed gives one): set it per machine (the
    /// `bgp` preset sets [`BGP_REDUCE_RATE`]).
    pub reduce_rate: Bandwidth,
    /// Whether a reduction's combining costs core time at `reduce_rate`
    /// (true), or nothing beyond the workload's own computation (false).
    /// Default true. The `smpi` preset (a SimGrid platform's) sets false,
    /// as SimGrid 3.32's trace replay does: it runs the reducing
    /// collectives with `MPI_OP_NULL` and charges only the trace's flops
    /// (`src/smpi/internals/smpi_replay.cpp`, the `ReduceAction`,
    /// `AllReduceAction` and `ReduceScatterAction` kernels,
    /// `smpi_execute_flops(args.comp_size)`), which the TI reader turns
    /// into a computation after the call.
    pub charge_reductions: bool,
    /// Which library's rules choose the algorithms, and the algorithms
    /// the scenario fixes per collective. Default netsim's own rules (the
    /// switch points above), no override.
    pub selection: crate::collectives::kinds::Selection,
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
            charge_reductions: true,
            selection: crate::collectives::kinds::Selection::default(),
        }
    }
}

/// Which term of a single message's time is derived from the postal
/// `alpha + s / R_b`, so that the calibration contract holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Rest {
    /// LogGP's latency `L` is what is left of `alpha + s / R_b` after
    /// `o_send`, the wire, the rendezvous handshake, the match and the
    /// receive side (`o_recv` and its per-byte cost). The default: the
    /// unexplained part of alpha becomes a pure delay.
    #[serde(rename(deserialize = "L"))]
    Latency,
    /// `o_recv` is what is left (with `L` as given): the unexplained part
    /// of alpha occupies the receiving CPU.
    #[serde(rename(deserialize = "o_recv"))]
    RecvOverhead,
    /// `o_send` is what is left (with `L` and `o_recv` as given): the
    /// unexplained part of alpha occupies the sending CPU, the process's
    /// one progress engine, where the max-rate model (Bienz et al. eq. 2)
    /// charges it: `alpha` per message *sent*.
    #[serde(rename(deserialize = "o_send"))]
    SendOverhead,
    /// Nothing is derived: `L`, `o_send`, `o_recv` are as given (the LogGP
    /// form). `alpha` and `R_b` then do not enter the timing; the message's
    /// bytes are carried by the receive side's per-byte cost
    /// `max(O_recv, G_recv)` and the transfer is limited only by the
    /// machine.
    #[serde(rename(deserialize = "none"))]
    None,
}

/// The LogGP costs of one (protocol, locality) cell: what a *stream* of
/// messages needs beyond the single-message postal fit (Culler et al.,
/// LogP, 1993; Alexandrov et al., LogGP, SPAA'95; the rules follow
/// LogGOPSim, Hoefler, Schneider and Lumsdaine, HPDC'10).
///
/// Per-byte terms apply to `s - 1` bytes, as LogGP defines them (the first
/// byte is in the per-message term); the wire moves all `s`.
///
/// A message of `s` bytes (see the crate docs for the state machine):
/// * **send**: the sender's CPU spends `o_send`, then `(s-1) O_send`; the
///   message leaves after `o_send`, or later when the sending process's
///   port is still busy; leaving occupies the port for `g + (s-1) G`.
///   Rendezvous: the RTS leaves after `o_send`; the data claims the port
///   when the CTS is back.
/// * **wire**: the transport (between nodes) or the node's memory (within
///   one), then `L`.
/// * **receive**: the receiving CPU searches `posted_recvs`, then spends
///   `o_recv + (s-1) max(O_recv, G_recv)` (the CPU takes the bytes no
///   faster than its port delivers them); the receive port is busy for the
///   search and then `g_recv + (s-1) G_recv` (a process takes in one
///   message at a time: a search delays the next message however the
///   CPU's work and the wire overlap). The job starts when both are free.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HostCosts {
    /// `o_send` \[time\]: sender CPU per message (ignored when derived,
    /// [`Rest::SendOverhead`]).
    pub o_send: Time,
    /// `o_recv` \[time\]: receiver CPU per message (ignored when derived,
    /// [`Rest::RecvOverhead`]).
    pub o_recv: Time,
    /// `L` \[time\]: latency left after the wire, a pure delay (ignored
    /// when derived, [`Rest::Latency`]).
    pub latency: Time,
    /// Which of `L`, `o_recv`, `o_send` is derived from `alpha + s / R_b`.
    pub rest: Rest,
    /// `g` \[time\]: least gap between two messages leaving one process's
    /// port (the NIC's or shared-memory path's injection gap). `None`: the
    /// cell's `alpha`.
    pub gap: Option<Time>,
    /// `g_cpu` \[time\]: least CPU time a message costs its sender: the
    /// send job holds the CPU `max(o_send, g_cpu) + (s-1) O_send`, the
    /// message leaving after `o_send` (LogP's gap as the processor's own,
    /// Culler et al. 1993: with the protocol onloaded, one progress engine
    /// injects one message at a time, and whatever else the process does,
    /// its receives' searches among them, waits for it). `None`: the
    /// cell's `alpha`, the max-rate model's cost per message sent (Bienz et
    /// al. eq. 2 and Fig. 4). Default 0 (no floor).
    pub cpu_gap: Option<Time>,
    /// `G` \[time/byte\]: the port's gap per byte. `None`: the per-byte part
    /// of `1 / R_b` that the wire carries ([`MpiParams::wire_rate`]), so a
    /// process's concurrent sends share its `R_b` (Bienz et al. eq. 2:
    /// one process cannot exceed `R_b`).
    pub gap_per_byte: Option<PerByte>,
    /// `g_recv` \[time\]: least gap between two messages entering one
    /// process's receive port, after the message's search (LogGP's `g` at
    /// the receiver). Default 0 (no limit).
    pub recv_gap: Time,
    /// `G_recv` \[time/byte\]: the receive port's gap per byte. Default 0.
    pub recv_gap_per_byte: PerByte,
    /// `O_send` \[time/byte\]: sender CPU per byte. Default 0.
    pub send_cpu_per_byte: PerByte,
    /// `O_recv` \[time/byte\]: receiver CPU per byte (a copy into the user
    /// buffer). Default 0.
    pub recv_cpu_per_byte: PerByte,
    /// `o_inflight` \[time per message\]: receiver CPU time, when an
    /// arrival is handled, for each receive of the process still posted
    /// after its match: the cost of the receives in flight that a library
    /// walks or polls per arrival whatever the match position (the
    /// position's own cost is `gamma`). A stream of `n` messages into
    /// `n` posted receives costs `o_inflight n (n - 1) / 2` more, a
    /// quadratic that `gamma` cannot give in order (seen in Open MPI
    /// `ob1` streams; fitted by `netsim fit`, `docs/CALIBRATION.md`). A
    /// lone message pays nothing, so the calibration contract holds.
    /// Default 0.
    pub o_inflight: Time,
}

impl HostCosts {
    /// The costs the max-rate model implies when only `alpha` and `R_b`
    /// are known, under the rule of one progress engine per process: the
    /// rest of alpha is CPU time of the *sender* (`o_send` derived,
    /// [`Rest::SendOverhead`]), since eq. 2 of Bienz et al. charges
    /// `alpha` per message sent; `o_recv = L = 0`; the port has no gap per
    /// message (`g = 0`) and the wire's `1 / R_b` per byte (`G` derived).
    /// `cpu_rate`: the sending CPU moves the data itself at this rate
    /// (`O_send = 1 / cpu_rate`: programmed I/O, or a copy into a shared
    /// buffer) and spends at least `alpha` per message (`g_cpu = alpha`:
    /// what is left once the message is out is its share of the process's
    /// serial per-message cost). `None` where a DMA engine moves the data
    /// (rendezvous): the CPU is free after `o_send`, and must be, since it
    /// handles the CTS within the single message's `alpha`.
    /// How each term adds up on a process is in `ARCHITECTURE.md`
    /// ("one progress engine per process").
    pub fn max_rate(cpu_rate: Option<Bandwidth>) -> HostCosts {
        HostCosts {
            o_send: Time::ZERO,
            o_recv: Time::ZERO,
            latency: Time::ZERO,
            rest: Rest::SendOverhead,
            gap: Some(Time::ZERO),
            cpu_gap: if cpu_rate.is_some() {
                None
            } else {
                Some(Time::ZERO)
            },
            gap_per_byte: None,
            recv_gap: Time::ZERO,
            recv_gap_per_byte: PerByte::ZERO,
            send_cpu_per_byte: cpu_rate.map_or(PerByte::ZERO, PerByte::of_rate),
            recv_cpu_per_byte: PerByte::ZERO,
            o_inflight: Time::ZERO,
        }
    }

    /// LogP's reading of a latency-only fit: no CPU overheads, no gap,
    /// the whole rest of alpha a latency. Streams are limited by the wire.
    pub const LATENCY_ONLY: HostCosts = HostCosts {
        o_send: Time::ZERO,
        o_recv: Time::ZERO,
        latency: Time::ZERO,
        rest: Rest::Latency,
        gap: Some(Time::ZERO),
        cpu_gap: Some(Time::ZERO),
        gap_per_byte: None,
        recv_gap: Time::ZERO,
        recv_gap_per_byte: PerByte::ZERO,
        send_cpu_per_byte: PerByte::ZERO,
        recv_cpu_per_byte: PerByte::ZERO,
        o_inflight: Time::ZERO,
    };

    /// The receive side's cost per byte, `max(O_recv, G_recv)`.
    pub fn recv_per_byte(&self) -> PerByte {
        self.recv_cpu_per_byte.max(self.recv_gap_per_byte)
    }
}

/// The cost of searching a match queue: `gamma` per element visited,
/// optionally larger from some queue position on (the cost per element
/// grows as the queue leaves the L1 and L2 caches).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SearchCost {
    /// `gamma` \[time\] per element at positions below the first band.
    pub gamma: Time,
    /// `(from, gamma)` \[position, time\]: elements at positions `>= from`
    /// (0-based, oldest first) cost `gamma`, until the next band. Sorted
    /// by `from`, strictly increasing.
    pub bands: Vec<(u64, Time)>,
}

impl SearchCost {
    /// One `gamma` for every position.
    pub fn flat(gamma: Time) -> SearchCost {
        SearchCost {
            gamma,
            bands: Vec::new(),
        }
    }

    /// The cost of the element at position `i` (0-based).
    pub fn at(&self, i: u64) -> Time {
        self.bands
            .iter()
            .rev()
            .find(|b| b.0 <= i)
            .map_or(self.gamma, |b| b.1)
    }

    /// The cost of visiting positions `0..visited`: `O(bands)`.
    pub fn cost(&self, visited: u64) -> Time {
        let mut total = Time::ZERO;
        let (mut from, mut g) = (0u64, self.gamma);
        for &(next, gn) in &self.bands {
            if next >= visited {
                break;
            }
            total = total.saturating_add(g.saturating_mul(next - from));
            (from, g) = (next, gn);
        }
        total.saturating_add(g.saturating_mul(visited.saturating_sub(from)))
    }
}

/// The node's memory as the shared-memory path between ranks of one node
/// (see [`MpiParams`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ShmParams {
    /// Copy bandwidth of one node's memory, shared max-min fairly by the
    /// copies in progress on that node \[bytes/s\]. `None`: unlimited, a copy
    /// takes `s / R_b` whatever else the node does.
    pub memory_bandwidth: Option<Bandwidth>,
    /// Copies of the payload through memory per protocol (short, eager,
    /// rendezvous). Default 2, 2, 1: eager data goes through a shared
    /// buffer (copy in, copy out, as MPICH's Nemesis and CH4 shared-memory
    /// cells and Open MPI's `vader` do); rendezvous is single-copy
    /// (CMA `process_vm_readv`, XPMEM or KNEM).
    pub copies: [u8; 3],
}

impl Default for ShmParams {
    fn default() -> Self {
        ShmParams {
            memory_bandwidth: None,
            copies: [2, 2, 1],
        }
    }
}

/// All parameters of the MPI layer.
///
/// # The calibration contract (one message)
///
/// `postal[protocol][locality]` holds the fitted `alpha` and `R_b` of eq. 1
/// of Bienz et al. A *single message* on an idle machine is: the receive
/// posted first (the receiving rank blocked in it), the send posted at
/// `t0` by a rank that is otherwise idle, no other traffic. The receive
/// then completes at exactly `t0 + alpha + transfer_time(s, R_b)`.
///
/// The chain of a message (its [`HostCosts`]) is
///
/// ```text
/// o_send + wire(s) + handshake + L + match_one + o_recv + (s-1) max(O_recv, G_recv)
///   wire(s)     Transport::idle_time(src, dst, s, wire_rate) between nodes;
///               the node's memory (copies x s bytes at copies x wire_rate) within one
///   handshake   rendezvous only: idle time of the RTS and the CTS
///   match_one   match_base + gamma_posted of one element (or the offloaded cost)
/// ```
///
/// and the term named by [`HostCosts::rest`] (`L` or `o_recv`) is what is
/// left of `alpha + transfer_time(s, R_b)`, computed per message, so the
/// sum is exact. The wire carries the bytes at [`MpiParams::wire_rate`]:
/// `R_b` less the receive side's per-byte cost (Bridges et al.: the eager
/// copy on the receiving core in series with the wire).
///
/// If the rest would be negative (the transport alone is slower than the
/// calibrated time), [`crate::Simulation::new`] rejects the parameters
/// with [`crate::ConfigError::NegativeOverhead`] naming protocol,
/// locality and size, checked at the smallest size of each protocol; for
/// larger sizes at run time (a transport slower per byte than `R_b`), the
/// rest is clamped to zero and the message counted in
/// `RunResults::calibration_clamped`. With [`Rest::None`] nothing is
/// derived and the contract is LogGP's instead.
///
/// # The stream contract
///
/// `n` messages of `s` bytes (short or eager) from one rank to another,
/// their receives posted first, sent by `n` `Isend`s back to back from
/// `t0` on an idle machine whose wire is not the bottleneck: message `i`
/// (from 0) completes its receive at exactly `t0 + T1 + i P`, where `T1`
/// is the single message's time and
///
/// ```text
/// P = max(max(o_send, g_cpu) + (s-1) O_send,   the sender's CPU
///         g + (s-1) G,                         the sender's port
///         match_one + o_recv + (s-1) max(O_recv, G_recv),   the receiver's CPU
///         match_one + g_recv + (s-1) G_recv,   the receiver's port
///         window bound)                        see below
/// ```
///
/// With a [`MpiParams::pair_window`] of `W` messages, the pair's `W`-th
/// next message is injected (its send job ready on the sender's CPU, its
/// `o_send` paid then) only when the receiver's job for the earlier one
/// has ended: for `W = 1` the window bound is `T1` itself. The tests
/// state the exact figure for the cases they use.
///
/// # Several processes per node (max-rate model)
///
/// A process's messages leave through its port, one at a time at
/// `g + (s-1) G` each, so its concurrent sends share `R_b` (`G = 1 / R_b`
/// by default). The wire rate is passed as `Transfer::rate_cap`; the
/// transport's node interface has the injection limit `R_N` and shares it
/// among the node's concurrent transfers. With `ppn` ranks sending at once
/// each gets `min(R_b, R_N / ppn)`, which is eq. 2 of Bienz et al.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MpiParams {
    /// Largest message sent with the short protocol \[bytes\].
    pub short_max: u64,
    /// Largest message sent eagerly; larger ones use rendezvous \[bytes\].
    pub eager_max: u64,
    /// Largest message a non-blocking send of the program (`Isend`) sends
    /// short or eagerly; larger ones use rendezvous \[bytes\]. `None`: the
    /// blocking limits hold for both. Open MPI's `pml ucx` has its own
    /// (measured here, `docs/CALIBRATION.md`: an `MPI_Isend` of 16 KiB
    /// goes by rendezvous while a blocking send stays eager up to
    /// 256 KiB); `netsim fit` finds it from the posted streams.
    pub isend_eager_max: Option<u64>,
    /// `alpha`, `R_b` per protocol (rows: short, eager, rendezvous) and
    /// locality (columns: same socket, same node, other node).
    pub postal: [[Postal; 3]; 3],
    /// LogGP costs per protocol and locality (same layout as `postal`).
    pub host: [[HostCosts; 3]; 3],
    /// Cost of searching `posted_recvs` (an arriving envelope or RTS).
    pub gamma_posted: SearchCost,
    /// Cost of searching `unexpected_msgs` (a newly posted receive).
    pub gamma_unexpected: SearchCost,
    /// Fixed cost of each successful match \[time\] (the constant of Bridges
    /// et al. eq. 1 and 2). Default 0.
    pub match_base: Time,
    /// Rate of the receiver's copy of an unexpected short or eager message
    /// out of the library's buffer into the user's \[bytes/s\]; `None`: no
    /// copy is charged.
    pub unexpected_copy_rate: Option<Bandwidth>,
    /// Fixed receiver CPU cost \[time\] of a short or eager message that
    /// arrived unexpected, paid with its copy when a posted receive takes
    /// it (the library's buffer taken back and the receive completed on
    /// its own path). Fitted by `netsim fit` from `hvpp-unexpected`
    /// against `hvpp-posted` streams. Default 0.
    pub unexpected_cost: Time,
    /// The shared-memory path within a node.
    pub shm: ShmParams,
    /// Credit-based flow control per (sender, receiver) pair: at most this
    /// many of a pair's envelopes (short, eager, RTS) may have left the
    /// sender and not yet been handled by the receiver (its job for them
    /// ended, matched or buffered as unexpected); the credit comes back at
    /// no cost. `None`: unlimited (LogP, LogGOPSim).
    pub pair_window: Option<u32>,
    /// Protocol overheads (`o_send`, `o_recv` and their per-byte terms) run
    /// on the NIC (offload: they delay the message but do not occupy a
    /// core) instead of the host (onload). Bridges et al. Section 3.
    /// Default false (onload).
    pub protocol_offload: bool,
    /// Who moves rendezvous data after the CTS. Default
    /// [`Rendezvous::Get`]; with `protocol_offload` the NIC handles the
    /// CTS either way.
    pub rendezvous: Rendezvous,
    /// Who runs MPI progress. Default [`Progress::OwnCore`].
    pub progress: Progress,
    /// Match-queue implementation. Default [`MatcherKind::Linear`].
    pub matcher: MatcherKind,
    /// Collective algorithms and switch points.
    pub collectives: CollectiveParams,
    /// Bytes the library adds to every message it puts on the network
    /// between nodes (its header or envelope) \[bytes\]: the transport
    /// carries `s + header_bytes` for a message of `s` bytes, and
    /// `header_bytes` for a rendezvous RTS or CTS. Default 0 (every
    /// preset). SimGrid's SMPI adds [`SMPI_HEADER_BYTES`]; Open MPI's
    /// ob1 PML over vader has [`OB1_HEADER_BYTES`]. Where a term is
    /// derived from `alpha + s / R_b` ([`HostCosts::rest`]) the header's
    /// wire time comes out of that term (one message still takes `alpha +
    /// s / R_b`; the header shows under contention); in the LogGP form
    /// ([`Rest::None`]) it adds `header_bytes / bandwidth` per message.
    /// Messages within a node do not carry it (the node memory moves the
    /// payload).
    pub header_bytes: u64,
}

/// SMPI's per-message envelope: 16 bytes (SimGrid 3.32; measured with
/// its TI replay: a message of `s` bytes on an idle CM02 platform takes
/// `latency + (s + 16 B) / bandwidth`, `bench/peers/peers.py`
/// `SMPI_ENVELOPE`, and the platform test of `netsim replay` in
/// `netsim/tests/netsim/platform.rs`).
pub const SMPI_HEADER_BYTES: u64 = 16;

/// Open MPI's ob1 PML header over the vader BTL: 56 bytes (the figure
/// issue 14 gives for Open MPI's ob1/vader; not measured here).
pub const OB1_HEADER_BYTES: u64 = 56;

/// Why a cell has no wire rate ([`MpiParams::wire_rate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireRateError {
    /// The receive side alone is slower per byte than `R_b`.
    #[error(
        "the receive side's {recv} per byte leaves nothing of 1 / R_b = {per_byte} for the wire"
    )]
    NoBudget {
        /// The receive side's cost per byte.
        recv: PerByte,
        /// `1 / R_b`.
        per_byte: PerByte,
    },
    /// A rate too large for a [`Bandwidth`].
    #[error("wire rate out of range")]
    OutOfRange,
}

impl MpiParams {
    /// The postal parameters of `proto` at locality `loc`.
    pub fn postal(&self, proto: Protocol, loc: Locality) -> Postal {
        self.postal[proto.index()][locality_index(loc)]
    }

    /// The LogGP costs of `proto` at locality `loc`.
    pub fn host(&self, proto: Protocol, loc: Locality) -> &HostCosts {
        &self.host[proto.index()][locality_index(loc)]
    }

    /// The same costs for every cell.
    pub fn set_host_all(&mut self, h: HostCosts) {
        self.host = [[h; 3]; 3];
    }

    /// The rate at which the wire carries a message of this cell
    /// (`Transfer::rate_cap`): `1 / (1 / R_b - max(O_recv, G_recv))`, so
    /// that the wire and the receive side's per-byte cost add up to
    /// `1 / R_b`. `None` (no cap) in the LogGP form ([`Rest::None`]), and
    /// an error if the receive side alone is slower per byte than `R_b`.
    pub fn wire_rate(
        &self,
        proto: Protocol,
        loc: Locality,
    ) -> Result<Option<Bandwidth>, WireRateError> {
        let h = self.host(proto, loc);
        if h.rest == Rest::None {
            return Ok(None);
        }
        let rb = self.postal(proto, loc).rate;
        let recv = h.recv_per_byte();
        if recv == PerByte::ZERO {
            return Ok(Some(rb));
        }
        let budget = 1.0 / rb.as_f64() - recv.as_secs_f64();
        if budget <= 0.0 {
            return Err(WireRateError::NoBudget {
                recv,
                per_byte: PerByte::of_rate(rb),
            });
        }
        Bandwidth::try_bytes_per_sec_f64(1.0 / budget)
            .map(Some)
            .ok_or(WireRateError::OutOfRange)
    }

    /// The gap `g` of a cell (its `alpha` when not given).
    pub fn gap(&self, proto: Protocol, loc: Locality) -> Time {
        self.host(proto, loc)
            .gap
            .unwrap_or_else(|| self.postal(proto, loc).alpha)
    }

    /// The sender CPU's least time per message `g_cpu` of a cell (its
    /// `alpha` when not given).
    pub fn cpu_gap(&self, proto: Protocol, loc: Locality) -> Time {
        self.host(proto, loc)
            .cpu_gap
            .unwrap_or_else(|| self.postal(proto, loc).alpha)
    }

    /// The port's gap per byte `G` of a cell (`1 / wire_rate` when not
    /// given; zero when the wire is uncapped).
    pub fn gap_per_byte(&self, proto: Protocol, loc: Locality) -> PerByte {
        match self.host(proto, loc).gap_per_byte {
            Some(g) => g,
            None => match self.wire_rate(proto, loc) {
                Ok(Some(r)) => PerByte::of_rate(r),
                _ => PerByte::ZERO,
            },
        }
    }

    /// The protocol of a message of `bytes` bytes.
    pub fn protocol(&self, bytes: u64) -> Protocol {
        self.send_protocol(bytes, false)
    }

    /// The protocol of a send of `bytes`, non-blocking (`Isend`) or not
    /// (see [`MpiParams::isend_eager_max`]).
    pub fn send_protocol(&self, bytes: u64, nonblocking: bool) -> Protocol {
        if nonblocking && self.isend_eager_max.is_some_and(|m| bytes > m) {
            return Protocol::Rendezvous;
        }
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
            _ => self.match_base + self.gamma_posted.cost(1),
        }
    }
}

mod presets;
pub use presets::*;

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
        assert_eq!(bw.gamma_posted.gamma, Time::from_ps(8400));
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
        // The eager wire keeps the link's 3.787 GB/s once the receiving
        // core's copy (16 GB/s) is taken out of R_b.
        let w = ib
            .wire_rate(Protocol::Eager, Locality::OtherNode)
            .unwrap()
            .unwrap();
        assert!((w.as_f64() - 3.787e9).abs() < 2.0, "{w}");
    }

    #[test]
    fn search_cost_bands_by_position() {
        let flat = SearchCost::flat(Time::from_ns(3));
        assert_eq!(flat.cost(0), Time::ZERO);
        assert_eq!(flat.cost(10), Time::from_ns(30));
        // 3 ns for positions 0..4, 5 ns for 4..6, 8 ns from 6 on.
        let banded = SearchCost {
            gamma: Time::from_ns(3),
            bands: vec![(4, Time::from_ns(5)), (6, Time::from_ns(8))],
        };
        assert_eq!(banded.cost(3), Time::from_ns(9));
        assert_eq!(banded.cost(5), Time::from_ns(12 + 5));
        assert_eq!(banded.cost(9), Time::from_ns(12 + 10 + 24));
        // The slow obvious sum agrees at every length.
        for v in 0..20 {
            let slow: Time = (0..v).map(|i| banded.at(i)).sum();
            assert_eq!(banded.cost(v), slow, "{v}");
        }
    }
}
