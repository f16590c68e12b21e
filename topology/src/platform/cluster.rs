//! Clusters: flat, TORUS and FAT_TREE.

use super::{Cx, NIC_RATE, Platform, Policy, machine_msg, units};
use crate::file::MachineFileError;
use crate::link::LinkParams;
use crate::machine::{MachineBuilder, VRef};
use crate::pair_routes::PairRoute;
use crate::routing::Router;
use crate::routing::fat_tree::FatTreeShape;
use crate::torus::TorusParams;
use crate::torus_geom::TieRule;
use crate::transport::LinkId;
use crate::transport::NodeId;
use roxmltree::Node;
use sim_core::{Bandwidth, Time, limits};

impl<'i> Cx<'_, 'i> {
    // ------------------------------------------------------ clusters

    pub(super) fn cluster(&self, c: Node<'_, 'i>) -> Result<Platform, MachineFileError> {
        for a in c.attributes() {
            if !CLUSTER_ATTRS.contains(&a.name()) {
                return Err(self.err(
                    c,
                    format!(
                        "<cluster {}=...>: unknown or unsupported attribute (netsim reads {})",
                        a.name(),
                        CLUSTER_ATTRS.join(", ")
                    ),
                ));
            }
        }
        self.only_props(c, &[])?;
        let id = self.need(c, "id")?;
        let HostSet {
            names,
            speed,
            bw,
            lat,
            ..
        } = self.host_set(c)?;
        let cores = self.cores(c)?;
        let policy = self.policy(c, "sharing_policy", Policy::SplitDuplex)?;
        let topology = c.attribute("topology").unwrap_or("FLAT");
        if topology != "FLAT" && policy != Policy::SplitDuplex {
            return Err(self.err(
                c,
                format!(
                    "<cluster topology=\"{topology}\" sharing_policy=\"{}\">: netsim's torus and fat-tree links carry each direction on its own (SPLITDUPLEX, SimGrid's default); a link shared by both directions or never shared is not modelled: use SPLITDUPLEX or leave sharing_policy out",
                    c.attribute("sharing_policy").unwrap_or("")
                ),
            ));
        }
        let mut p = match topology {
            "FLAT" => self.flat(c, id, &names, bw, lat, policy, cores, speed),
            "TORUS" => {
                let dims = self.topo_numbers(c, ",")?;
                // A torus host is its router: two links per dimension
                // leave it and two enter it.
                self.limiter(c, bw, 4 * dims.len() as u128)?;
                self.no_backbone(c);
                if dims.is_empty() || dims.len() > 3 || dims.contains(&0) {
                    return Err(self.err(c, "<cluster topo_parameters>: TORUS takes 1 to 3 positive ring sizes, `X,Y,Z`".into()));
                }
                let mut d = [1u32; 3];
                d[..dims.len()].copy_from_slice(&dims);
                let n: u64 = d.iter().map(|&k| k as u64).product();
                if n != names.len() as u64 {
                    return Err(self.err(
                        c,
                        format!(
                            "<cluster>: the torus {} has {n} nodes but `radical` names {} hosts",
                            dims.iter()
                                .map(u32::to_string)
                                .collect::<Vec<_>>()
                                .join("x"),
                            names.len()
                        ),
                    ));
                }
                limits::check_nodes(n).map_err(|m| self.err(c, m.to_string()))?;
                let nic = Bandwidth::bytes_per_sec(NIC_RATE);
                let tp = TorusParams {
                    dims: d,
                    nodes_per_router: 1,
                    link_bandwidth: [bw; 3],
                    hop_latency: lat,
                    injection: nic,
                    ejection: nic,
                    nic_latency: Time::ZERO,
                    buffer: crate::torus::GEMINI_BUFFER_BYTES,
                    sockets: 1,
                    cores_per_socket: cores,
                    tie: TieRule::Simgrid,
                };
                let machine = tp.build().map_err(|e| self.err(c, machine_msg(e)))?;
                self.mark_unequal_latencies(&machine);
                Ok(Platform {
                    machine,
                    host_speed: Some(speed),
                    host_speeds: vec![speed; names.len()],
                    speed_profiles: Vec::new(),
                    changes: Vec::new(),
                    tcp_window: None,
                    notes: Vec::new(),
                })
            }
            "FAT_TREE" => self.fat_tree(c, id, &names, bw, lat, cores, speed),
            other => Err(self.err(
                c,
                format!("<cluster topology=\"{other}\">: netsim imports FLAT, TORUS and FAT_TREE"),
            )),
        }?;
        self.set_cluster_loops(c, &mut p, topology == "FLAT")?;
        Ok(p)
    }

    /// A `<cluster>`'s or `<cabinet>`'s hosts: `prefix`, `suffix`,
    /// `radical`, `speed`, `bw` and `lat`.
    pub(super) fn host_set(&self, c: Node) -> Result<HostSet, MachineFileError> {
        let what = c.tag_name().name();
        let prefix = c.attribute("prefix").unwrap_or("");
        let suffix = c.attribute("suffix").unwrap_or("");
        let numbers = radical(self.need(c, "radical")?)
            .map_err(|m| self.err(c, format!("<{what} radical>: {m}")))?;
        let speed = self
            .value(c, "speed", units::speed)?
            .ok_or_else(|| self.err(c, format!("<{what}> needs `speed`")))?;
        let bw = self
            .value(c, "bw", units::rate)?
            .ok_or_else(|| self.err(c, format!("<{what}> needs `bw`")))?;
        let lat = self.value(c, "lat", units::time)?.unwrap_or(Time::ZERO);
        Ok(HostSet {
            names: numbers
                .iter()
                .map(|i| format!("{prefix}{i}{suffix}"))
                .collect(),
            numbers,
            speed,
            bw,
            lat,
        })
    }

    /// A cluster's loopback link, `loopback_bw` and `loopback_lat`, if it
    /// has one (SimGrid makes one, FATPIPE, for every host when either is
    /// above 0: `sg_platf_cluster_create_loopback`). A latency without a
    /// bandwidth (a loopback SimGrid would never finish a message on) is
    /// refused.
    pub(super) fn cluster_loopback(
        &self,
        c: Node,
    ) -> Result<Option<(Bandwidth, Time)>, MachineFileError> {
        let bw = self.value(c, "loopback_bw", units::rate)?;
        let lat = self
            .value(c, "loopback_lat", units::time)?
            .unwrap_or(Time::ZERO);
        match bw {
            Some(b) if b.as_bytes_per_sec() > 0 => Ok(Some((b, lat))),
            _ if lat > Time::ZERO => Err(self.err(c, "<cluster loopback_lat> without loopback_bw: a loopback of no bandwidth, on which SimGrid never finishes a message; give loopback_bw".into())),
            _ => Ok(None),
        }
    }

    /// Notes a DRAGONFLY cluster's loopback: netsim does not model a host's
    /// route to itself there, and refuses two ranks on one of its hosts.
    pub(super) fn note_loopback(&self, c: Node) {
        if c.attribute("loopback_bw").is_some() || c.attribute("loopback_lat").is_some() {
            self.note(c, "<cluster loopback_bw/loopback_lat>: only messages between ranks on one host take it, which netsim does not model on a DRAGONFLY cluster (it refuses two ranks on one host there)".into());
        }
    }

    /// Gives every host of cluster `c`'s machine its route to itself: its
    /// loopback link (bounding each flow alone), or without one on a flat
    /// cluster up and down its own cable (`StarZone::get_local_route`: the
    /// private link's two halves, with the backbone's latency the cables
    /// carry). A TORUS or FAT_TREE cluster without loopback has none: two
    /// ranks on one of its hosts are refused.
    fn set_cluster_loops(
        &self,
        c: Node,
        p: &mut Platform,
        flat: bool,
    ) -> Result<(), MachineFileError> {
        let m = &p.machine;
        let loops: Vec<PairRoute> = match self.cluster_loopback(c)? {
            Some((bw, lat)) => vec![
                PairRoute {
                    links: Vec::new(),
                    latency: lat,
                    cap: Some(bw),
                };
                m.nodes() as usize
            ],
            None if flat => (0..m.nodes())
                .map(|h| {
                    let (u, d) = (m.injection_link(NodeId(h)), m.ejection_link(NodeId(h)));
                    PairRoute {
                        links: vec![u, d],
                        latency: m.link(u).latency.saturating_add(m.link(d).latency),
                        cap: None,
                    }
                })
                .collect(),
            None => return Ok(()),
        };
        p.machine
            .set_loopback_routes(loops)
            .map_err(|e| self.err(c, machine_msg(e)))
    }

    /// Accepts `limiter_link` (a link SimGrid puts on every route from and
    /// to a host, shared by both directions) only where it cannot limit:
    /// at least the `links` host links of `bw` the host's traffic in and
    /// out can use at once. netsim has no per-host limiter.
    fn limiter(&self, c: Node, bw: Bandwidth, links: u128) -> Result<(), MachineFileError> {
        let Some(lim) = self.value(c, "limiter_link", units::rate)? else {
            return Ok(());
        };
        if (lim.as_bytes_per_sec() as u128) < links * bw.as_bytes_per_sec() as u128 {
            return Err(self.err(
                c,
                format!(
                    "<cluster limiter_link>: {lim} could limit a host sending and receiving at once ({links} x {bw}, its links in and out); netsim has no per-host limiter: leave limiter_link out, or use a machine whose host cable is {lim} (its injection and ejection rate)"
                ),
            ));
        }
        Ok(())
    }

    /// Notes the backbone and router attributes of a TORUS or FAT_TREE
    /// cluster, which SimGrid ignores for them as well
    /// (`src/surf/sg_platf.cpp`, `sg_platf_new_cluster_hierarchical` reads
    /// none of them).
    fn no_backbone(&self, c: Node) {
        for a in ["bb_bw", "bb_lat", "bb_sharing_policy", "router_id"] {
            if c.attribute(a).is_some() {
                self.note(c, format!("<cluster {a}>: SimGrid's {} clusters have no backbone or router; ignored as SimGrid does", c.attribute("topology").unwrap_or("")));
            }
        }
    }

    fn topo_numbers(&self, c: Node, sep: &str) -> Result<Vec<u32>, MachineFileError> {
        let t = self.need(c, "topo_parameters")?;
        t.split(sep)
            .map(|v| {
                v.trim().parse::<u32>().map_err(|_| {
                    self.err(
                        c,
                        format!("<cluster topo_parameters=\"{t}\">: `{v}` is not a count"),
                    )
                })
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn flat(
        &self,
        c: Node,
        id: &str,
        names: &[String],
        bw: Bandwidth,
        lat: Time,
        policy: Policy,
        cores: u16,
        speed: f64,
    ) -> Result<Platform, MachineFileError> {
        if policy == Policy::FatPipe {
            return Err(self.err(c, "<cluster sharing_policy=\"FATPIPE\">: private links that never share are not netsim's links (each direction is shared max-min); use SPLITDUPLEX".into()));
        }
        let n = names.len() as u64;
        limits::check_nodes(n).map_err(|m| self.err(c, m.to_string()))?;
        if let Some(r) = c.attribute("router_id") {
            self.note(c, format!("<cluster router_id=\"{r}\">: the router other zones' routes would enter by; this platform has no other zone"));
        }
        let bb_lat = self.value(c, "bb_lat", units::time)?.unwrap_or(Time::ZERO);
        if let Some(bb) = self.value(c, "bb_bw", units::rate)? {
            let bbp = self.policy(c, "bb_sharing_policy", Policy::Shared)?;
            let need = if bbp == Policy::FatPipe {
                bw.as_bytes_per_sec() as u128
            } else {
                bw.as_bytes_per_sec() as u128 * n as u128
            };
            if (bb.as_bytes_per_sec() as u128) < need {
                return Err(self.err(c, format!(
                    "<cluster bb_bw>: the backbone's {bb} could limit traffic ({}: {need} B/s would never be limited); netsim has no shared backbone resource, only per-host cables to one switch: raise bb_bw or leave it out",
                    if bbp == Policy::FatPipe { "FATPIPE, one host link" } else { "the hosts' links together" }
                )));
            }
        }
        self.limiter(c, bw, 2)?;
        // The backbone's latency over the two cables of every route.
        let half = bb_lat.as_ps() / 2;
        let up = LinkParams {
            bandwidth: bw,
            latency: lat.saturating_add(Time::from_ps(bb_lat.as_ps() - half)),
            buffer: 0,
        };
        let down = LinkParams {
            bandwidth: bw,
            latency: lat.saturating_add(Time::from_ps(half)),
            buffer: 0,
        };
        // Every route crosses one `up` and one `down` cable: one route
        // latency for all, so no link of unequal latencies to note
        // (`weighting.rs`), and no walk over every pair of a large cluster.
        let mut b = MachineBuilder::new(format!("cluster {id}"));
        let hosts: Vec<VRef> = names.iter().map(|h| b.host(h, 1, cores)).collect();
        let sw = b.net(format!("{id}-switch"), false);
        for h in hosts {
            b.cable(h, sw, up, down);
        }
        let mut p = self.build(c, b, vec![speed; names.len()])?;
        if policy == Policy::Shared {
            // A host's one SHARED link: what it sends and what it
            // receives draw on one capacity (flow model only).
            let m = &p.machine;
            let groups: Vec<Vec<LinkId>> = (0..m.nodes())
                .map(|h| vec![m.injection_link(NodeId(h)), m.ejection_link(NodeId(h))])
                .collect();
            let why = self.err(c, format!("<cluster id=\"{id}\" sharing_policy=\"SHARED\">: each host's private link is one capacity for what it sends and what it receives"));
            p.machine
                .share_capacity(&groups, why.to_string())
                .map_err(|e| self.err(c, machine_msg(e)))?;
        }
        Ok(p)
    }

    #[allow(clippy::too_many_arguments)]
    fn fat_tree(
        &self,
        c: Node,
        id: &str,
        names: &[String],
        bw: Bandwidth,
        lat: Time,
        cores: u16,
        speed: f64,
    ) -> Result<Platform, MachineFileError> {
        let t = self.need(c, "topo_parameters")?;
        let bad = |m: String| self.err(c, format!("<cluster topo_parameters=\"{t}\">: {m}"));
        let parts: Vec<&str> = t.split(';').collect();
        if parts.len() != 4 {
            return Err(bad(
                "FAT_TREE takes `levels;down;up;parallel`, e.g. `2;4,4;1,2;1,2`".into(),
            ));
        }
        let levels: usize = parts[0]
            .trim()
            .parse()
            .ok()
            .filter(|&l| (1..=8).contains(&l))
            .ok_or_else(|| bad("levels must be 1 to 8".into()))?;
        let list = |s: &str, what: &str| -> Result<Vec<u64>, MachineFileError> {
            let v: Vec<u64> = s
                .split(',')
                .map(|x| {
                    x.trim()
                        .parse::<u64>()
                        .ok()
                        .filter(|&k| k > 0 && k <= 1 << 16)
                })
                .collect::<Option<_>>()
                .ok_or_else(|| bad(format!("{what}: positive counts up to 65536")))?;
            if v.len() != levels {
                return Err(bad(format!(
                    "{what}: {} values for {levels} levels",
                    v.len()
                )));
            }
            Ok(v)
        };
        let (m, w, p) = (
            list(parts[1], "down")?,
            list(parts[2], "up")?,
            list(parts[3], "parallel")?,
        );
        if w[0] != 1 || p[0] != 1 {
            return Err(bad("a host has one network interface in netsim: the first `up` and `parallel` must be 1".into()));
        }
        // A host's one cable, both directions.
        self.limiter(c, bw, 2)?;
        self.no_backbone(c);
        let prod = |v: &[u64]| v.iter().try_fold(1u64, |a, &k| a.checked_mul(k));
        let hosts = prod(&m).filter(|&h| h == names.len() as u64).ok_or_else(|| {
            self.err(c, format!("<cluster>: the fat tree's hosts (the product of `down`) are not the {} hosts `radical` names", names.len()))
        })?;
        limits::check_nodes(hosts).map_err(|m| self.err(c, m.to_string()))?;
        // Nodes at level l: prod(m[l..]) * prod(w[..l]); a node's index is
        // (its a-digits above l) * prod(w[..l]) + (its b-digits). Switches,
        // cables and the routing table (switches x hosts) are bounded
        // before anything is built.
        let mut counts = vec![hosts];
        let (mut switches, mut cables) = (0u64, 0u64);
        for l in 1..=levels {
            let n = prod(&m[l..]).and_then(|a| prod(&w[..l]).and_then(|b| a.checked_mul(b)));
            let n = n.filter(|&n| n <= limits::MAX_ROUTERS).ok_or_else(|| {
                self.err(c, format!("<cluster>: level {l} of the fat tree exceeds netsim's MAX_ROUTERS ({}) switches", limits::MAX_ROUTERS))
            })?;
            switches += n;
            cables += counts[l - 1] * w[l - 1];
            counts.push(n);
        }
        let table = (switches as u128) * hosts as u128;
        if switches > limits::MAX_ROUTERS
            || table > limits::MAX_ROUTE_TABLE_ENTRIES as u128
            || cables > limits::MAX_ROUTE_TABLE_ENTRIES
        {
            return Err(self.err(c, format!(
                "<cluster>: {switches} switches, {cables} cables and a routing table of {table} entries; netsim's limits are MAX_ROUTERS ({}) and MAX_ROUTE_TABLE_ENTRIES ({})",
                limits::MAX_ROUTERS, limits::MAX_ROUTE_TABLE_ENTRIES
            )));
        }
        let count = |l: usize| counts[l];
        let mut b = MachineBuilder::new(format!("fat tree {id}"));
        let mut below: Vec<VRef> = names.iter().map(|h| b.host(h, 1, cores)).collect();
        for l in 1..=levels {
            let here: Vec<VRef> = (0..count(l))
                .map(|i| b.net(format!("{id}-L{l}-{i}"), false))
                .collect();
            let wb: u64 = w[..l - 1].iter().product();
            let par = p[l - 1];
            let cable = LinkParams {
                bandwidth: Bandwidth::bytes_per_sec(bw.as_bytes_per_sec().saturating_mul(par)),
                latency: lat,
                buffer: 0,
            };
            for (i, &v) in below.iter().enumerate() {
                let i = i as u64;
                let (a, bd) = (i / wb, i % wb);
                for k in 0..w[l - 1] {
                    let parent = (a / m[l - 1]) * (wb * w[l - 1]) + bd + wb * k;
                    b.cable(v, here[parent as usize], cable, cable);
                }
            }
            below = here;
        }
        let mut p = self.build(c, b, vec![speed; names.len()])?;
        if let Router::Table(t) = &p.machine.router {
            let shape = FatTreeShape::new(m, w, &counts);
            p.machine.router = Router::FatTree(t.clone(), shape);
        }
        self.mark_unequal_latencies(&p.machine);
        Ok(p)
    }
}

pub(super) const CLUSTER_ATTRS: &[&str] = &[
    "id",
    "prefix",
    "suffix",
    "radical",
    "speed",
    "core",
    "bw",
    "lat",
    "sharing_policy",
    "topology",
    "topo_parameters",
    "bb_bw",
    "bb_lat",
    "bb_sharing_policy",
    "loopback_bw",
    "loopback_lat",
    "limiter_link",
    "router_id",
];

/// What `<cluster>` and `<cabinet>` say of their hosts.
pub(super) struct HostSet {
    /// `prefix number suffix`, radical order.
    pub(super) names: Vec<String>,
    /// The radical's numbers.
    pub(super) numbers: Vec<u64>,
    pub(super) speed: f64,
    pub(super) bw: Bandwidth,
    pub(super) lat: Time,
}

/// A `radical` refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum RadicalError {
    /// A part that is not a number or a range.
    #[error("`{0}` is not `N` or `A-B`")]
    NotARange(String),
    /// A range `A-B` with `B < A`.
    #[error("`{0}`: the range ends before it starts")]
    Backwards(String),
    /// More hosts than netsim's limit.
    #[error("more than netsim's MAX_NODES ({}) hosts", limits::MAX_NODES)]
    TooMany,
}

/// `0-99` or `0-3,8,10-12`: the host numbers in order.
fn radical(text: &str) -> Result<Vec<u64>, RadicalError> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let p = part.trim();
        let num = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| RadicalError::NotARange(p.to_string()))
        };
        let (a, b) = match p.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(p)?, num(p)?),
        };
        if b < a {
            return Err(RadicalError::Backwards(p.to_string()));
        }
        if (out.len() as u64).saturating_add(b - a + 1) > limits::MAX_NODES as u64 {
            return Err(RadicalError::TooMany);
        }
        out.extend(a..=b);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radicals_and_their_errors() {
        assert_eq!(radical("0-2,5").unwrap(), [0, 1, 2, 5]);
        let e = |t: &str| radical(t).unwrap_err().to_string();
        assert_eq!(e("0-x"), "`0-x` is not `N` or `A-B`");
        assert_eq!(e("3-1"), "`3-1`: the range ends before it starts");
        assert_eq!(
            e("0-4194304"),
            "more than netsim's MAX_NODES (4194304) hosts"
        );
    }
}
