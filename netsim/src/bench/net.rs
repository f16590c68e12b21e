//! `netsim bench net`: random permutation traffic on a Gemini torus, in
//! the packet and the flow model.
//!
//! Every node sends `bytes` to the node a seeded random permutation maps
//! it to (fixed points skipped), all at time zero. Printed per mode: the
//! wall time of the run, events handled per second, peak memory of the
//! process (each mode runs in its own child process, as `bench engine`
//! does), the simulated makespan and, for the flow model, how many flows
//! one rate update recomputed (mean and largest), the figure that decides
//! whether flow-level simulation scales.

use crate::cli::CliError;
use sim_core::rand::seq::SliceRandom;
use sim_core::{Engine, Model, RngStreams, Scheduler, Time};
use std::time::Instant;
use topology::{
    Delivery, Mode, NetConfig, NetEvent, Network, NodeId, TorusParams, Transfer, Transport,
};

struct Driver {
    net: Network,
    out: Vec<Delivery>,
    delivered: u64,
    last: Time,
    checksum: u64,
}

impl Model for Driver {
    type Event = NetEvent;
    fn handle(&mut self, ev: NetEvent, s: &mut Scheduler<'_, NetEvent>) {
        self.net.handle(s, ev, &mut self.out);
        for d in self.out.drain(..) {
            self.delivered += 1;
            self.last = self.last.max(d.at);
            self.checksum = self
                .checksum
                .wrapping_mul(0x100_0000_01b3)
                .wrapping_add(d.at.as_ps() ^ d.token);
        }
    }
}

/// Figures of one run.
pub(crate) struct NetRun {
    pub messages: u64,
    pub events: u64,
    pub wall_secs: f64,
    pub makespan: Time,
    pub checksum: u64,
    /// Flow model only: (updates, mean flows, max flows).
    pub touched: Option<(u64, f64, usize)>,
}

/// Runs the permutation on a Blue Waters torus of `dims` in `mode`
/// (`backpressure`: finite buffers, packet mode only).
pub(crate) fn run_net(
    dims: [u32; 3],
    bytes: u64,
    seed: u64,
    mode: Mode,
    packet_bytes: u64,
    backpressure: bool,
) -> Result<NetRun, CliError> {
    let machine = TorusParams::blue_waters_dims(dims)
        .build()
        .map_err(CliError::input)?;
    let n = machine.nodes();
    let cfg = NetConfig {
        packet_bytes,
        backpressure,
        ..NetConfig::with_mode(mode)
    };
    let net = Network::new(machine, cfg).map_err(CliError::input)?;
    let mut perm: Vec<u32> = (0..n).collect();
    perm.shuffle(&mut RngStreams::new(seed).stream("permutation"));
    let mut eng: Engine<NetEvent> = Engine::new();
    let mut d = Driver {
        net,
        out: Vec::new(),
        delivered: 0,
        last: Time::ZERO,
        checksum: 0,
    };
    let start = Instant::now();
    let mut messages = 0;
    for (src, &dst) in perm.iter().enumerate() {
        if src as u32 == dst {
            continue;
        }
        let t = Transfer {
            src: NodeId(src as u32),
            dst: NodeId(dst),
            bytes,
            rate_cap: None,
            token: src as u64,
        };
        d.net.start(&mut eng.scheduler(), t, &mut d.out);
        messages += 1;
    }
    eng.run(&mut d);
    let wall_secs = start.elapsed().as_secs_f64();
    if d.delivered != messages {
        return Err(CliError::input(format!(
            "{} of {messages} messages delivered",
            d.delivered
        )));
    }
    let touched = d
        .net
        .flow_update_stats()
        .map(|u| (u.updates, u.mean_flows, u.max_flows));
    Ok(NetRun {
        messages,
        events: eng.events_handled(),
        wall_secs,
        makespan: d.last,
        checksum: d.checksum,
        touched,
    })
}
