//! The presets from the seed papers, each value with its source, and the
//! constants the papers give that belong to other layers.

use super::*;

impl MpiParams {
    /// Blue Waters (Cray XE6, Gemini), Bienz, Gropp and Olson, EuroMPI'18:
    /// Table 1 for alpha and R_b per protocol and locality; eq. 4,
    /// gamma = 8.4e-9 s for both queues ("the cost of stepping through
    /// either the posted or unexpected message queue"). `R_N = 6.6e9 B/s`
    /// and `delta = 1.0e-10 s/B` belong to the transport (node interface
    /// and links), see [`BLUE_WATERS_R_N`], [`BLUE_WATERS_DELTA`].
    ///
    /// Host costs ([`HostCosts::max_rate`]), read under the rule of one
    /// progress engine per process (`ARCHITECTURE.md`). Eq. 2 charges
    /// `alpha + s / R_b` per message *sent*, and Fig. 4 (left) measures
    /// in-order HighVolumePingPong on that line, `n (alpha + s / R_b)`:
    /// the rest of alpha is the sender's CPU time (`o_send` derived,
    /// `o_recv = L = 0`). Short and eager data are pushed by that CPU at
    /// `R_b` (`O_send = 1 / R_b`: Cray MPT sends them through SMSG
    /// mailboxes written by the core, FMA); rendezvous data by the DMA
    /// engine (BTE) at `R_b` per process on the port (`G`), the CPU free.
    /// Sec. 5 then follows: a process's sends (max-rate) and its
    /// arrivals' searches (eq. 3) add up on its one core, which is how the
    /// paper's AMG model adds the terms. Figs. 5 and 7 measure the
    /// reversed order as the max-rate line *plus* gamma n^2: a pair's
    /// search adds to its per-message cost instead of overlapping the next
    /// message, which a pair window of one message gives (`pair_window =
    /// 1`: a pair's next message is injected when the receiver has
    /// handled the last). The paper gives no split of alpha, no injection
    /// gap and names no flow control: these are our reading of those
    /// figures (`netsim presets` says so).
    ///
    /// Thresholds: the paper names the three protocols but not their switch
    /// points, and its fitted lines do not cross where a switch would be
    /// (inter-node, eager is above short and rendezvous below eager at
    /// every size). We take short up to 1024 B and eager up to 8192 B, our
    /// reading of Cray MPT's defaults on Gemini (the SMSG "vshort" path for
    /// envelopes of about 1 KB; `MPICH_GNI_MAX_EAGER_MSG_SIZE` = 8192 B).
    /// This is an assumption, not a number from the seed: override it when
    /// a measurement says otherwise.
    /// Unexpected-message copy rate: not in the paper; the intra-socket
    /// eager R_b (3.2e9 B/s) is a measured single-core copy rate on that
    /// node, so we use it. Node memory: two Opteron 6276 sockets with four
    /// DDR3-1600 channels each, 102.4 GB/s peak (public specification, not
    /// a measurement; the paper gives none).
    pub fn blue_waters() -> MpiParams {
        let p = Postal::from_secs;
        let mut bw = MpiParams {
            short_max: 1024,
            eager_max: 8192,
            isend_eager_max: None,
            postal: [
                [p(4.4e-07, 2.2e09), p(8.3e-07, 4.8e08), p(2.3e-06, 1.3e09)],
                [p(5.3e-07, 3.2e09), p(1.2e-06, 9.6e08), p(7.0e-06, 7.5e08)],
                [p(1.7e-06, 6.2e09), p(2.5e-06, 6.2e09), p(3.0e-06, 2.9e09)],
            ],
            host: [[HostCosts::max_rate(None); 3]; 3],
            gamma_posted: SearchCost::flat(Time::from_secs_f64(8.4e-9)),
            gamma_unexpected: SearchCost::flat(Time::from_secs_f64(8.4e-9)),
            match_base: Time::ZERO,
            unexpected_copy_rate: Some(Bandwidth::bytes_per_sec(3_200_000_000)),
            unexpected_cost: Time::ZERO,
            shm: ShmParams {
                memory_bandwidth: Some(Bandwidth::bytes_per_sec(102_400_000_000)),
                ..ShmParams::default()
            },
            pair_window: Some(1),
            protocol_offload: false,
            rendezvous: Rendezvous::Get,
            progress: Progress::OwnCore,
            matcher: MatcherKind::Linear,
            collectives: CollectiveParams::default(),
            header_bytes: 0,
        };
        for proto in [Protocol::Short, Protocol::Eager] {
            for (li, loc) in LOCALITIES.into_iter().enumerate() {
                let rate = bw.postal(proto, loc).rate;
                bw.host[proto.index()][li] = HostCosts::max_rate(Some(rate));
            }
        }
        bw
    }

    /// IBM Blue Gene/P, Hoefler, Gropp, Thakur and Traeff, EuroMPI'10:
    /// eq. 1, `T(S) = 4.5 us + 2.67 ns/B S` for `S <= 256 B`, `5.7 us` up to
    /// 1024 B, `9.8 us` above; matching `T_match(R) <= 100 ns * R`, so
    /// gamma = 100 ns for both queues. The three pieces map to short, eager
    /// and rendezvous; the paper gives one curve, so every locality gets
    /// the same values (BG/P runs one rank per node in that measurement).
    /// `2.67 ns/B` is `R_b = 1/2.67e-9 = 374 531 835 B/s` (rounded to the
    /// nearest B/s).
    ///
    /// Streams: Sec. 4, Fig. 3(a): a small-data alltoall costs
    /// `alpha + g (P - 1)` with `g = 0.84 us` per message of one process,
    /// so `g = 0.84 us` in every cell. The paper gives no CPU overheads:
    /// `o_send = o_recv = 0` and `L` is the rest of alpha (an assumption;
    /// LogP requires `o <= g`). Unexpected copy rate and node memory: not
    /// in the paper; 2 GB/s placeholder copy, unlimited memory.
    /// Reductions combine at [`BGP_REDUCE_RATE`].
    pub fn bgp() -> MpiParams {
        let rb = 1.0 / 2.67e-9;
        let row = |a: f64| [Postal::from_secs(a, rb); 3];
        MpiParams {
            short_max: 256,
            eager_max: 1024,
            isend_eager_max: None,
            postal: [row(4.5e-6), row(5.7e-6), row(9.8e-6)],
            host: [[HostCosts {
                gap: Some(Time::from_ns(840)),
                cpu_gap: Some(Time::ZERO),
                ..HostCosts::LATENCY_ONLY
            }; 3]; 3],
            gamma_posted: SearchCost::flat(Time::from_ns(100)),
            gamma_unexpected: SearchCost::flat(Time::from_ns(100)),
            match_base: Time::ZERO,
            unexpected_copy_rate: Some(Bandwidth::bytes_per_sec(2_000_000_000)),
            unexpected_cost: Time::ZERO,
            shm: ShmParams::default(),
            pair_window: None,
            protocol_offload: false,
            rendezvous: Rendezvous::Get,
            progress: Progress::OwnCore,
            matcher: MatcherKind::Linear,
            collectives: CollectiveParams {
                reduce_rate: BGP_REDUCE_RATE,
                ..CollectiveParams::default()
            },
            header_bytes: 0,
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
    ///
    /// Eager `R_b` = 1 / (1/3.787 GB/s + 1/16 GB/s) = 3.062 GB/s: the
    /// model's eager message always visits the receiving core for the copy
    /// into the user buffer (Section 3.2, "adds additional visits to the
    /// receiving CPU to account for copying"), in series with the wire:
    /// `O_recv = 1 / 16 GB/s` for eager, so the wire keeps 3.787 GB/s. The
    /// protocol is offloaded (Section 4, ConnectX), so `o_send = o_recv =
    /// 0`; the hardware latency is `L`, the rest of alpha. The link's
    /// bandwidth station serializes flits, not messages: `g = 0`.
    /// No short protocol is distinguished: `short_max = 0`.
    pub fn infiniband_qdr() -> MpiParams {
        let rate = Bandwidth::bytes_per_sec(3_787_000_000);
        let copy = Bandwidth::bytes_per_sec(16_000_000_000);
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
        let eager_host = HostCosts {
            recv_cpu_per_byte: PerByte::of_rate(copy),
            ..HostCosts::LATENCY_ONLY
        };
        MpiParams {
            short_max: 0,
            eager_max: 12_288,
            isend_eager_max: None,
            postal: [[cell; 3], [cell; 3], [rdv; 3]],
            host: [
                [eager_host; 3],
                [eager_host; 3],
                [HostCosts::LATENCY_ONLY; 3],
            ],
            gamma_posted: SearchCost::flat(Time::from_ns(4)),
            gamma_unexpected: SearchCost::flat(Time::from_ns(4)),
            match_base: Time::from_ns(267),
            unexpected_copy_rate: Some(copy),
            unexpected_cost: Time::ZERO,
            shm: ShmParams::default(),
            pair_window: None,
            protocol_offload: true,
            rendezvous: Rendezvous::Get,
            progress: Progress::OwnCore,
            matcher: MatcherKind::Linear,
            collectives: CollectiveParams::default(),
            header_bytes: 0,
        }
    }

    /// The two-rack Ethernet cluster of Zhu, Lastovetsky, Ali and Riesen:
    /// Open MPI over TCP, 1 GbE NICs, RTT between racks 450 us, TCP socket
    /// buffers 3 MB (`btl_tcp_sndbuf`/`rcvbuf`).
    ///
    /// The paper gives no postal fit, so: alpha = RTT / 2 = 225 us for
    /// short and eager between nodes, `R_b` = 940 Mb/s = 117.5 MB/s (the
    /// paper's measured per-flow TCP throughput). Eager up to 3 MB: with
    /// 3 MB socket buffers the kernel absorbs a message of that size
    /// without the receiver, which is eager behaviour; above it the sender
    /// blocks like rendezvous. Open MPI's TCP BTL eager limit (64 KB) is a
    /// protocol detail the paper's measurements hide, so we follow the
    /// buffer. Rendezvous between nodes: alpha = 3 x RTT / 2 = 675 us,
    /// since the RTS, the CTS and the data each make a one-way trip.
    ///
    /// Streams: the paper measures bandwidth only (10 MiB messages); TCP
    /// streams messages back to back, so `g = 0`, `o_send = o_recv = 0`,
    /// and `L` is the rest of alpha (an assumption, [`HostCosts::LATENCY_ONLY`]).
    ///
    /// Intra-node, gamma, copy rate, node memory: the paper measures none;
    /// they are Blue Waters' values ([`MpiParams::blue_waters`]), named
    /// here so no field is taken silently.
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
        let host_row = |i: usize| [bw.host[i][0], bw.host[i][0], HostCosts::LATENCY_ONLY];
        MpiParams {
            short_max: 0,
            eager_max: ZHU_SOCKET_BUFFER,
            isend_eager_max: None,
            postal: [row(0), row(1), row(2)],
            host: [host_row(0), host_row(1), host_row(2)],
            // TCP's own flow control is in the socket buffers (eager_max).
            pair_window: None,
            ..bw
        }
    }

    /// LogGP parameters as LogGOPSim takes them (Hoefler, Schneider and
    /// Lumsdaine, HPDC'10): the same `L`, `o` (both sides), `g` (both
    /// ports), `G` (both ports), `O` (both CPUs) for every cell, eager up to
    /// `s` bytes (LogGOPSim's `S`), no short protocol, no matching cost,
    /// no unexpected copy. Run it on a network without latency or
    /// bandwidth limits (an ideal network of zero latency) to get
    /// LogGOPSim's times for eager messages; see the crate docs for the
    /// rules and where they differ (rendezvous).
    #[allow(non_snake_case)]
    pub fn loggp(L: Time, o: Time, g: Time, G: PerByte, O: PerByte, s: u64) -> MpiParams {
        let h = HostCosts {
            o_send: o,
            o_recv: o,
            latency: L,
            rest: Rest::None,
            gap: Some(g),
            cpu_gap: Some(Time::ZERO),
            gap_per_byte: Some(G),
            recv_gap: g,
            recv_gap_per_byte: G,
            send_cpu_per_byte: O,
            recv_cpu_per_byte: O,
            o_inflight: Time::ZERO,
        };
        let postal = Postal {
            alpha: o + L + o,
            rate: G.as_rate().unwrap_or(Bandwidth::bytes_per_sec(u64::MAX)),
        };
        MpiParams {
            short_max: 0,
            eager_max: s,
            isend_eager_max: None,
            postal: [[postal; 3]; 3],
            host: [[h; 3]; 3],
            gamma_posted: SearchCost::flat(Time::ZERO),
            gamma_unexpected: SearchCost::flat(Time::ZERO),
            match_base: Time::ZERO,
            unexpected_copy_rate: None,
            unexpected_cost: Time::ZERO,
            shm: ShmParams::default(),
            pair_window: None,
            protocol_offload: false,
            rendezvous: Rendezvous::Get,
            progress: Progress::OwnCore,
            matcher: MatcherKind::Linear,
            collectives: CollectiveParams::default(),
            header_bytes: 0,
        }
    }
}

impl MpiParams {
    /// SimGrid's SMPI reduced to the physics netsim's platform import
    /// shares with it (CM02, `network/crosstraffic:0`,
    /// `smpi/send-is-detached-thresh` and `smpi/async-small-thresh` above
    /// every message, the SMPI defaults `smpi/os`, `smpi/or`, `smpi/ois`
    /// of 0): no host cost at all, the network alone times a message
    /// (the LogGP form, [`Rest::None`], with every cost 0), eager at any
    /// size, and SMPI's [`crate::SMPI_HEADER_BYTES`] on every message.
    /// A message of `s` bytes on an idle route of latency `l` and
    /// bottleneck `b` takes `l + (s + 16) / b`, SimGrid's CM02 answer.
    /// Reductions cost only the trace's flops, as in SimGrid's replay
    /// ([`CollectiveParams::charge_reductions`]).
    /// The default MPI preset of a SimGrid platform (`platform = ...`,
    /// `--platform`).
    pub fn smpi() -> MpiParams {
        let loggp = MpiParams::loggp(
            Time::ZERO,
            Time::ZERO,
            Time::ZERO,
            PerByte::ZERO,
            PerByte::ZERO,
            sim_core::limits::MAX_MESSAGE_BYTES,
        );
        MpiParams {
            header_bytes: crate::SMPI_HEADER_BYTES,
            collectives: CollectiveParams {
                charge_reductions: false,
                ..loggp.collectives
            },
            ..loggp
        }
    }
}

/// A named parameter set and where each of its values comes from, for
/// `netsim presets` and the scenario files' `[mpi] preset`.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Name in scenario files.
    pub name: &'static str,
    /// The parameters.
    pub params: fn() -> MpiParams,
    /// (what, source) for every group of values.
    pub sources: &'static [(&'static str, &'static str)],
}

/// The presets, with sources (the doc comment of each constructor has the
/// derivations).
pub const PRESETS: [Preset; 5] = [
    Preset {
        name: "blue-waters",
        params: MpiParams::blue_waters,
        sources: &[
            (
                "postal alpha, R_b",
                "Bienz, Gropp, Olson, EuroMPI'18, Table 1",
            ),
            (
                "short/eager/rendezvous thresholds",
                "Cray MPT defaults on Gemini (assumption, not in the paper)",
            ),
            (
                "o_send = rest of alpha (sender CPU), o_recv 0, L 0",
                "our reading of Bienz eq. 2 and Fig. 4 (alpha per message sent) and Sec. 5 (sends and searches add on one core); the seeds give no split of alpha",
            ),
            (
                "short/eager O_send = 1/R_b (CPU pushes the data); rendezvous O_send 0 (DMA)",
                "our reading of Bienz eq. 2 (alpha + s/R_b serial per message); Cray MPT SMSG/FMA vs BTE (not in the seeds)",
            ),
            (
                "g 0, G = 1/R_b",
                "Bienz eq. 2 (one process <= R_b); the seeds give no injection gap (0 assumed)",
            ),
            (
                "pair window 1 message (a pair's next send injected when the last is handled)",
                "our reading of Bienz Figs. 5, 7 (search on top of max-rate); the seeds name no flow control",
            ),
            ("gamma 8.4 ns, both queues", "Bienz eq. 4"),
            (
                "unexpected copy 3.2 GB/s",
                "Bienz Table 1 intra-socket eager R_b, a single-core copy (assumption)",
            ),
            (
                "node memory 102.4 GB/s, copies 2/2/1",
                "2 x Opteron 6276, 4 DDR3-1600 channels each (public peak, not measured); MPICH/vader eager cells, CMA single-copy rendezvous",
            ),
        ],
    },
    Preset {
        name: "bgp",
        params: MpiParams::bgp,
        sources: &[
            (
                "postal alpha, R_b; thresholds 256/1024 B",
                "Hoefler, Gropp, Thakur, Traeff, EuroMPI'10, eq. 1",
            ),
            (
                "g = g_recv = 0.84 us",
                "Hoefler Sec. 4, Fig. 3(a): small alltoall alpha + g (P - 1)",
            ),
            (
                "o_send = o_recv = 0, L = rest",
                "assumption: the paper gives no CPU overheads",
            ),
            (
                "gamma 100 ns, both queues",
                "Hoefler Sec. 3: T_match(R) <= 100 ns R",
            ),
            (
                "unexpected copy 2 GB/s, unlimited node memory",
                "placeholders (not in the paper)",
            ),
        ],
    },
    Preset {
        name: "infiniband-qdr",
        params: MpiParams::infiniband_qdr,
        sources: &[
            (
                "alpha 1616 + 271 ns, 3 x 1616 + 271 ns; R_b 3.787 GB/s",
                "Bridges et al., ExaMPI'15, Table 2 and Sec. 3 (RTS, CTS, data each cross)",
            ),
            (
                "eager O_recv = 1/16 GB/s (R_b 3.062 GB/s)",
                "Bridges Table 2 memcpy, Sec. 3.2 (eager copy on the receiving core)",
            ),
            (
                "o = 0 (offloaded), g = 0, L = rest",
                "Bridges Sec. 4 (ConnectX offload; the link station serializes flits)",
            ),
            (
                "match_base 267 ns + gamma 4 ns",
                "Bridges Table 2 (271 ns), eq. 2 slope",
            ),
            ("eager <= 12288 B", "Bridges Sec. 4 (12 KB crossover)"),
        ],
    },
    Preset {
        name: "ethernet-zhu",
        params: MpiParams::ethernet_zhu,
        sources: &[
            (
                "alpha 225 us (675 us rendezvous), R_b 940 Mb/s",
                "Zhu, Lastovetsky, Ali, Riesen Sec. 3.2 (RTT 450 us, per-flow TCP)",
            ),
            ("eager <= 3 MiB", "Zhu Sec. 3: 3 MB TCP socket buffers"),
            (
                "between nodes: o = 0, g = 0, L = rest",
                "assumption: the paper measures bandwidth only",
            ),
            (
                "within a node, gamma, copy, memory",
                "Blue Waters' values (the paper measures none)",
            ),
        ],
    },
    Preset {
        name: "smpi",
        params: MpiParams::smpi,
        sources: &[
            (
                "no host cost (o, g, G, O, L all 0), eager at any size",
                "SimGrid 3.32 SMPI defaults smpi/os, smpi/or, smpi/ois = 0; detached sends (bench/peers/peers.py settings)",
            ),
            (
                "header 16 B per message",
                "SMPI's envelope, measured with its TI replay (tests of netsim replay --platform)",
            ),
            (
                "reductions cost no core time (charge_reductions = false)",
                "SimGrid 3.32 smpi_replay.cpp: reduce, allreduce and reduce_scatter replay with MPI_OP_NULL and charge only the trace's flops",
            ),
        ],
    },
];

impl Preset {
    /// The preset called `name`.
    pub fn named(name: &str) -> Option<&'static Preset> {
        PRESETS.iter().find(|p| p.name == name)
    }
}

impl Default for MpiParams {
    /// Blue Waters ([`MpiParams::blue_waters`]).
    fn default() -> Self {
        MpiParams::blue_waters()
    }
}

/// Blue Waters node injection rate `R_N` \[bytes/s\], Bienz et al. Table 1.
/// Belongs to the transport's node interface; here for the CLI layer.
pub const BLUE_WATERS_R_N: u64 = 6_600_000_000;
/// Blue Waters contention penalty `delta` \[s/B\], Bienz et al. eq. 5-6.
/// Belongs to the transport; here for the CLI layer.
pub const BLUE_WATERS_DELTA: f64 = 1.0e-10;
/// BG/P main-memory bandwidth per node \[bytes/s\]: 13.6 GB/s ("Overview
/// of the IBM Blue Gene/P project", IBM J. Res. Dev. 52(1/2):199-220,
/// 2008, doi:10.1147/rd.521.0199, Table 1: two DDR2 controllers, 16 B
/// wide at 425 MHz each). Not the node's peak of 13.6 GFLOPS (4 cores at
/// 850 MHz, 4 flops a cycle), which is the same number.
pub const BGP_MEMORY_BANDWIDTH: u64 = 13_600_000_000;
/// Rate at which a BG/P core combines a reduction \[bytes/s\]:
/// [`BGP_MEMORY_BANDWIDTH`] / 3 = 4.53 GB/s. Summing an arriving vector of
/// doubles into the node's own moves 3 bytes of memory per reduced byte
/// (load the arriving double, load the own one, store the sum), and the
/// large allreduce's buffers (960 MiB in Hoefler et al. Sec. 4) are far
/// larger than the 8 MB L3 cache, so they stream from main memory. An
/// upper bound on the rate: the DMA engine's deposits of the arriving
/// data, which the simulator does not charge to memory, would share the
/// same bandwidth (4 bytes per reduced byte: 3.4 GB/s). The seeds give no
/// reduction rate.
pub const BGP_REDUCE_RATE: Bandwidth = Bandwidth::bytes_per_sec(BGP_MEMORY_BANDWIDTH / 3);
/// Zhu et al.: TCP socket buffer size set in Open MPI \[bytes\] (3 MB).
pub const ZHU_SOCKET_BUFFER: u64 = 3 * 1024 * 1024;
/// Zhu et al.: round-trip time between nodes on different racks \[time\].
pub const ZHU_RTT: Time = Time::from_us(450);
/// Bridges et al. eq. 1, many-core match delay: `10 + 0.06 * length` us,
/// as (`match_base`, `gamma`).
pub const BRIDGES_MANYCORE_MATCH: (Time, Time) = (Time::from_us(10), Time::from_ns(60));
/// Bridges et al. eq. 2, heavyweight-core match delay: `1 + 0.004 *
/// length` us, as (`match_base`, `gamma`).
pub const BRIDGES_HEAVY_MATCH: (Time, Time) = (Time::from_us(1), Time::from_ns(4));
