//! The channel-load bound of a pattern on a machine's own routes: the
//! ideal throughput `Θ = min_c b_c / γ_c` of Dally & Towles (*Principles
//! and Practices of Interconnection Networks*, Sec. 3.3.2), `γ_c` the
//! load of channel `c` per unit of offered load, summed over the routes
//! the transport takes. It is what the textbook derives by hand for a
//! torus, computed for any routing with one path per (source,
//! destination) pair, so that a measured saturation can be checked
//! against it both ways.

use super::{Pattern, RANDOM, SyntheticError, SyntheticParams, capacity, destinations, injection};
use topology::{Machine, NetConfig, Network, NodeId};

/// The ideal throughput of `p.pattern` under `cfg`'s routing on
/// `machine`, fraction of capacity ([`capacity`]), at most the injection
/// rate (the highest load a run can offer). Every host offers `λ` to
/// destination `d` at rate `λ_sd`: `1/N` for uniform (the source
/// included: a packet to itself loads nothing), `f + (1 - f)/N` and
/// `(1 - f)/N` for hot spot, 1 to the pattern's destination otherwise.
/// Refuses the per-packet routings (no fixed path). `O(N² route)` for
/// uniform and hot spot, `O(N route)` for the others.
pub fn channel_load_bound(
    machine: &Machine,
    cfg: NetConfig,
    p: &SyntheticParams,
) -> Result<f64, SyntheticError> {
    if cfg.routing.per_packet() {
        return Err(SyntheticError::Net(format!(
            "{} routing chooses per packet: no fixed route to load",
            cfg.routing
        )));
    }
    let dst = destinations(machine, p)?;
    let net = Network::new(machine.clone(), cfg).map_err(|e| SyntheticError::Net(e.to_string()))?;
    let m = net.machine();
    let n = m.nodes();
    let mut load = vec![0.0f64; m.links().len()];
    let mut route = Vec::new();
    let mut add = |s: u32, d: u32, rate: f64| {
        if s != d && rate > 0.0 {
            route.clear();
            m.route_into(NodeId(s), NodeId(d), &mut route);
            for &l in &route {
                load[l.index()] += rate;
            }
        }
    };
    for s in 0..n {
        match dst[s as usize] {
            RANDOM => {
                let (hot, f) = if p.pattern == Pattern::Hotspot {
                    (p.hotspot_node, p.hotspot_fraction)
                } else {
                    (u32::MAX, 0.0)
                };
                for d in 0..n {
                    let spot = if d == hot { f } else { 0.0 };
                    add(s, d, (1.0 - f) / n as f64 + spot);
                }
            }
            d => add(s, d, 1.0),
        }
    }
    let cap = capacity(m);
    let max = injection(m).as_f64() / cap;
    let theta = load
        .iter()
        .zip(m.links())
        .filter(|(g, _)| **g > 0.0)
        .map(|(g, l)| l.bandwidth.as_f64() / (g * cap))
        .fold(f64::INFINITY, f64::min);
    Ok(theta.min(max))
}
