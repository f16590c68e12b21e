//! Virtual channels of the packet model (`[transport] vcs`, `vc_buffer`):
//! which channel a packet may take on its next link, so that finite
//! buffers never deadlock under any torus routing.
//!
//! Each router-bound link has `vcs` channels, each with a buffer of
//! `vc_buffer / packet` whole packets; a packet holds one slot of the
//! channel it arrived on until it starts on its next link. A packet in a
//! link's queue never blocks another that can go (each waits for its own
//! channels), so deadlock can come only from a cycle of full channels.
//!
//! **Classes.** On a torus ring the wrap-around link (`k - 1 <-> 0`) is
//! the dateline: a packet whose remaining way in the ring still crosses
//! it takes the lower class (dateline bit 0, the crossing link included),
//! the upper one after (bit 1); this breaks every ring's cycle (Dally &
//! Towles, *Principles and Practices of Interconnection Networks*,
//! Ch. 14, deadlock avoidance by resource classes and the dateline). A routing's class is `2 * stage + bit`:
//!
//! | routing | stages | least `vcs` |
//! |---|---|---|
//! | dimension order | one | 2 |
//! | Valiant, ROMM, UGAL | to the intermediate, then to the destination (Dally & Towles Ch. 14: one class per phase) | 4 |
//! | O1TURN | the position of the link's dimension in the packet's order (Seo et al., ISCA 2005, one set of channels per order's phase) | 2 per dimension of size > 1 |
//! | minimal adaptive | channels 0 and 1 are the escape network (dimension order with the dateline), 2 and up adaptive (Duato's protocol: Dally & Towles Sec. 14.3; Duato, IEEE TPDS 4(12), 1993) | 3 |
//!
//! Every stage moves in dimension order within its class pair, so the
//! channel dependency graph is acyclic (Dally & Seitz's condition) and
//! the escape network of minimal adaptive routing is connected and
//! acyclic (Duato's condition).
//!
//! **Allocation rule.** The lowest-numbered channel of the packet's class
//! with a free slot (classes repeat every `least vcs` channels when there
//! are more). Minimal adaptive: when its head arrives, the packet reserves
//! an adaptive channel on the productive link with the fewest bytes
//! waiting among those with one free (ties: +x, -x, +y, -y, +z, -z);
//! with none free it queues for its dimension-order link and takes there
//! an adaptive channel if one is free when it starts, else its escape
//! channel. Injection links (never on a cycle) and non-torus machines:
//! any channel; ejection into a host never blocks.

use super::{NONE, PacketNet, Pkt};
use crate::config::RouteMode;
use crate::routing::oblivious::ORDERS;
use crate::torus_geom::TorusGeom;
use crate::transport::LinkId;

impl PacketNet {
    #[inline]
    fn vc_free(&self, l: u32, v: u32) -> bool {
        (self.vocc[l as usize * self.vcs as usize + v as usize] as u64) < self.vc_slots
    }

    /// Whether injection link `l` has a channel with a free slot.
    pub(super) fn vc_any_free(&self, l: u32) -> bool {
        (0..self.vcs).any(|v| self.vc_free(l, v))
    }

    /// Dateline bit of a packet leaving router `g` by `port` towards
    /// router `target`: 0 while its way in that ring still crosses the
    /// wrap-around link, 1 after.
    fn dateline(&self, t: &TorusGeom, g: u32, port: u8, target: u32) -> u32 {
        if !self.dateline {
            return 0;
        }
        let d = (port / 2) as usize;
        let (a, b) = (t.coords(g)[d], t.coords(target)[d]);
        let crosses = if port % 2 == 0 { b < a } else { b > a };
        u32::from(!crosses)
    }

    /// The channel packet `p` takes on link `l` by the allocation rule,
    /// `None` if every channel it may take is full.
    pub(super) fn pick_vc(&self, p: u32, l: u32) -> Option<u8> {
        let link = self.m.link(LinkId(l));
        let nodes = self.m.nodes();
        if link.to < nodes {
            return Some(0);
        }
        let pk: &Pkt = &self.pkts[p as usize];
        if pk.res {
            return Some(pk.vc);
        }
        let (class, stride, adaptive) = match self.m.torus() {
            Some(t) if link.from >= nodes => {
                let g = link.from - nodes;
                let port = self.link_port[l as usize];
                let home = self.msgs[pk.msg as usize].dst / t.nodes_per_router();
                match self.routing {
                    RouteMode::MinimalAdaptive => (self.dateline(t, g, port, home), self.vcs, true),
                    RouteMode::O1turn => {
                        let d = (port / 2) as usize;
                        let order = ORDERS[pk.order as usize];
                        let pos = order.iter().position(|&e| e == d).unwrap_or(0);
                        let stage = order[..pos].iter().filter(|&&e| t.dims()[e] > 1).count();
                        let bit = self.dateline(t, g, port, home);
                        (2 * stage as u32 + bit, self.routing.vc_classes(t), false)
                    }
                    RouteMode::Valiant | RouteMode::Romm | RouteMode::Ugal => {
                        let (stage, target) = if pk.via != NONE {
                            (0, pk.via)
                        } else {
                            (u32::from(pk.phase2), home)
                        };
                        (2 * stage + self.dateline(t, g, port, target), 4, false)
                    }
                    _ => (self.dateline(t, g, port, home), 2, false),
                }
            }
            _ => (0, 1, false),
        };
        if adaptive {
            if let Some(v) = (2..self.vcs).find(|&v| self.vc_free(l, v)) {
                return Some(v as u8);
            }
        }
        (class..self.vcs)
            .step_by(stride as usize)
            .find(|&v| self.vc_free(l, v))
            .map(|v| v as u8)
    }

    /// Minimal adaptive choice with virtual channels for packet `p`,
    /// whose head is at the router at the end of its link: reserves an
    /// adaptive channel (module docs) and returns its link, or returns
    /// the dimension-order link, where the escape channel waits.
    pub(super) fn adaptive_vc(&mut self, p: u32) -> u32 {
        let pk = self.pkts[p as usize];
        let v = self.m.link(LinkId(pk.link)).to;
        let dst = self.msgs[pk.msg as usize].dst;
        let t = self.m.torus().expect("adaptive routing runs on a torus");
        let mut ports = [0u32; crate::routing::adaptive::MAX_CANDIDATES];
        let n = t.productive_links(v, dst, &mut ports);
        let mut best: Option<(u32, u32, u64)> = None;
        for &l in &ports[..n] {
            if self.m.link(LinkId(l)).to < self.m.nodes() {
                return l;
            }
            if let Some(c) = (2..self.vcs).find(|&c| self.vc_free(l, c)) {
                let w = self.q[l as usize].waiting_bytes;
                if best.is_none_or(|b| w < b.2) {
                    best = Some((l, c, w));
                }
            }
        }
        let dor = t.dor_next(v, dst);
        let pk = &mut self.pkts[p as usize];
        match best {
            Some((l, c, _)) => {
                self.vocc[l as usize * self.vcs as usize + c as usize] += 1;
                pk.vc = c as u8;
                pk.res = true;
                l
            }
            None => {
                pk.res = false;
                dor
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{PacketEvent, PacketNet};
    use crate::transport::{Delivery, NodeId, Transfer, Transport};
    use crate::{Mode, NetConfig, TorusParams};
    use sim_core::{Engine, Model, Scheduler, Time};

    struct Drive(PacketNet, Vec<Delivery>);
    impl Model for Drive {
        type Event = PacketEvent;
        fn handle(&mut self, ev: PacketEvent, s: &mut Scheduler<'_, PacketEvent>) {
            self.0.handle(s, ev, &mut self.1);
        }
    }

    /// Messages delivered out of `sent` when every node of an 8-router
    /// ring sends `sent / 8` one-packet messages to the router 3 ahead
    /// (tornado) at once, dimension order, two channels of one packet.
    fn tornado_on_a_ring(dateline: bool) -> (usize, usize) {
        let mut p = TorusParams::blue_waters_dims([8, 1, 1]);
        p.nodes_per_router = 1;
        let cfg = NetConfig {
            backpressure: true,
            vcs: 2,
            vc_buffer: crate::DEFAULT_PACKET_BYTES,
            ..NetConfig::with_mode(Mode::Packet)
        };
        let mut net = PacketNet::new(p.build().unwrap(), cfg).unwrap();
        net.dateline = dateline;
        let mut eng = Engine::new();
        let mut sent = 0;
        let mut d = Drive(net, Vec::new());
        {
            let mut s = eng.scheduler();
            for k in 0..16 {
                for src in 0..8u32 {
                    let t = Transfer {
                        src: NodeId(src),
                        dst: NodeId((src + 3) % 8),
                        bytes: crate::DEFAULT_PACKET_BYTES,
                        rate_cap: None,
                        token: k,
                    };
                    d.0.start(&mut s, t, &mut d.1);
                    sent += 1;
                }
            }
        }
        eng.run(&mut d);
        assert!(eng.now() < Time::from_ms(1));
        (d.1.len(), sent)
    }

    #[test]
    fn the_dateline_is_what_keeps_a_ring_from_deadlock() {
        let (got, sent) = tornado_on_a_ring(true);
        assert_eq!(got, sent);
        // The same channels without the dateline: every packet in the
        // lower class, the ring's cycle of full buffers stops it.
        let (got, sent) = tornado_on_a_ring(false);
        assert!(got < sent, "{got} of {sent} delivered without a dateline");
    }
}
