//! The transport a scenario runs on: `[transport]` read into netsim's
//! transport configuration ([`Scenario::net_config`]), the machine's
//! routes and SMPI size factors as `[transport]` replaces them, and the
//! network built over the machine ([`transport`]).

use topology::{IdealNetwork, NetConfig, Network};

use super::machine::{BuiltMachine, Fabric};
use super::{Scenario, ScenarioError, ScenarioFile, spec};

impl Scenario {
    /// The machine routed by `[transport] routing = { file = ... }`'s
    /// forwarding tables, or as built.
    pub(super) fn forwarding_tables(
        &self,
        file: &ScenarioFile,
        built: BuiltMachine,
    ) -> Result<BuiltMachine, ScenarioError> {
        let Some(spec::RoutingSpec::File(path)) = &self.transport.routing else {
            return Ok(built);
        };
        let Fabric::Links(m) = built.fabric else {
            return Err(file.err(
                "transport",
                "routing",
                "forwarding tables need a machine with links, not the ideal network",
            ));
        };
        let path = self.resolve(file, path)?;
        let m = topology::lft::load(*m, &path).map_err(|e| file.plain(e.to_string()))?;
        Ok(BuiltMachine {
            fabric: Fabric::Links(Box::new(m)),
            ..built
        })
    }

    /// The machine with `[transport] bw_factor` and `lat_factor` in place
    /// of its size factors (each one given replaces that table; the
    /// other stays the platform's, or 1), or as built.
    pub(super) fn size_factors(
        &self,
        file: &ScenarioFile,
        built: BuiltMachine,
    ) -> Result<BuiltMachine, ScenarioError> {
        let t = &self.transport;
        if t.bw_factor.is_none() && t.lat_factor.is_none() {
            return Ok(built);
        }
        let Fabric::Links(mut m) = built.fabric else {
            return Err(file.err(
                "transport",
                if t.bw_factor.is_some() {
                    "bw_factor"
                } else {
                    "lat_factor"
                },
                "size factors need a machine with links, not the ideal network",
            ));
        };
        let one = || topology::FactorTable::bandwidth("0:1").expect("valid");
        let now = m.size_factors().cloned();
        let table =
            |key: &str,
             text: &Option<String>,
             parse: fn(&str) -> Result<topology::FactorTable, topology::FactorError>| {
                text.as_deref()
                    .map(|s| parse(s).map_err(|e| file.err("transport", key, e.to_string())))
                    .transpose()
            };
        let bandwidth = table("bw_factor", &t.bw_factor, topology::FactorTable::bandwidth)?
            .or_else(|| now.as_ref().map(|f| f.bandwidth.clone()))
            .unwrap_or_else(one);
        let latency = table("lat_factor", &t.lat_factor, topology::FactorTable::latency)?
            .or_else(|| now.map(|f| f.latency))
            .unwrap_or_else(one);
        m.set_size_factors(Some(topology::SizeFactors { bandwidth, latency }));
        Ok(BuiltMachine {
            fabric: Fabric::Links(m),
            ..built
        })
    }

    /// `[transport]` as the transport's configuration (its mode is
    /// packet until [`Scenario::choose_mode`]); `platform_window` is a
    /// SimGrid platform's TCP window, the default of `tcp_window`.
    pub(super) fn net_config(&self, platform_window: Option<u64>) -> NetConfig {
        let t = &self.transport;
        NetConfig {
            mode: t.mode.and_then(|m| m.fixed()).unwrap_or_default(),
            packet_bytes: t
                .packet_size
                .map_or(topology::DEFAULT_PACKET_BYTES, |b| b.0),
            switching: t.switching.unwrap_or_default(),
            routing: t
                .routing
                .as_ref()
                .map_or_else(topology::RouteMode::default, |r| r.mode()),
            backpressure: t.backpressure.unwrap_or(false),
            vcs: t.vcs.unwrap_or(0),
            vc_buffer: t.vc_buffer.map_or(topology::DEFAULT_VC_BUFFER, |b| b.0),
            tcp_window: t
                .tcp_window
                .map_or(platform_window, |b| (b.0 > 0).then_some(b.0)),
            seed: self.seed,
        }
    }
}

/// The transport over the built machine (the ideal network ignores `cfg`).
pub(super) fn transport(
    file: &ScenarioFile,
    machine: BuiltMachine,
    cfg: NetConfig,
) -> Result<Network, ScenarioError> {
    match machine.fabric {
        Fabric::Links(m) => {
            Network::new(*m, cfg).map_err(|e| file.err("transport", "", e.to_string()))
        }
        Fabric::Ideal {
            nodes,
            latency,
            bandwidth: Some(b),
        } => Ok(Network::Ideal(IdealNetwork::new(nodes, latency, b))),
        Fabric::Ideal {
            nodes,
            latency,
            bandwidth: None,
        } => Ok(Network::Ideal(IdealNetwork::unlimited(nodes, latency))),
    }
}
