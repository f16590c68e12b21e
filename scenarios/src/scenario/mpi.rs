//! `[mpi]` to [`MpiParams`]: the preset (by default the machine's) and
//! the section's overrides.

use mpi_layer::{AllreduceLarge, MatcherKind, MpiParams, Postal, Progress};
use sim_core::Time;

use super::{
    AllreduceName, MachinePreset, MatcherName, MpiPreset, Scenario, ScenarioError, ScenarioFile,
};

impl Scenario {
    /// The MPI parameters: preset and overrides.
    pub fn mpi_params(&self, src: &ScenarioFile) -> Result<MpiParams, ScenarioError> {
        let m = &self.mpi;
        let preset = m.preset.unwrap_or(match self.machine.preset() {
            Some(MachinePreset::EthernetZhu) => MpiPreset::EthernetZhu,
            Some(MachinePreset::InfinibandQdr) => MpiPreset::InfinibandQdr,
            _ => MpiPreset::BlueWaters,
        });
        let mut p = preset.params();
        if let Some(v) = m.short_max {
            p.short_max = v.0;
        }
        if let Some(v) = m.eager_max {
            p.eager_max = v.0;
        }
        if p.eager_max < p.short_max {
            return Err(src.err(
                "mpi",
                "eager_max",
                format!("{} B is below short_max = {} B", p.eager_max, p.short_max),
            ));
        }
        if let Some(v) = m.gamma {
            p.gamma = v.0;
        }
        if let Some(v) = m.match_base {
            p.match_base = v.0;
        }
        if let Some(v) = m.memcpy_rate {
            p.memcpy_rate = v.0;
        }
        if let Some(v) = m.send_share_pct {
            if v > 100 {
                return Err(src.err("mpi", "send_share_pct", "is a percentage, 0..=100"));
            }
            p.send_share_pct = v;
        }
        if let Some(v) = m.protocol_offload {
            p.protocol_offload = v;
        }
        if let Some(v) = m.progress_engines {
            p.progress = if v == 0 {
                Progress::OwnCore
            } else {
                Progress::Engines { engines: v }
            };
        }
        if let Some(v) = m.matcher {
            p.matcher = match v {
                MatcherName::Linear => MatcherKind::Linear,
                MatcherName::Hashed => MatcherKind::Hashed,
                MatcherName::PerSourceBins => MatcherKind::PerSourceBins,
                MatcherName::Offloaded => MatcherKind::Offloaded {
                    cost: m.offload_cost.map_or(Time::from_ns(271), |c| c.0),
                },
            };
        } else if m.offload_cost.is_some() {
            return Err(src.err(
                "mpi",
                "offload_cost",
                "applies only with matcher = \"offloaded\"",
            ));
        }
        if let Some(ps) = &m.postal {
            for (li, row) in [&ps.same_socket, &ps.same_node, &ps.other_node]
                .into_iter()
                .enumerate()
            {
                let Some(row) = row else { continue };
                for (pi, cell) in [&row.short, &row.eager, &row.rendezvous]
                    .into_iter()
                    .enumerate()
                {
                    let Some(c) = cell else { continue };
                    let old = p.postal[pi][li];
                    p.postal[pi][li] = Postal {
                        alpha: c.alpha.map_or(old.alpha, |a| a.0),
                        rate: c.rate.map_or(old.rate, |r| r.0),
                    };
                }
            }
        }
        if let Some(c) = &m.collectives {
            let cp = &mut p.collectives;
            if let Some(v) = c.bcast_long_min {
                cp.bcast_long_min = v.0;
            }
            if let Some(v) = c.bcast_min_procs {
                cp.bcast_min_procs = v;
            }
            if let Some(v) = c.allreduce_short_max {
                cp.allreduce_short_max = v.0;
            }
            if let Some(v) = c.allreduce_large {
                cp.allreduce_large = match v {
                    AllreduceName::Rabenseifner => AllreduceLarge::Rabenseifner,
                    AllreduceName::Ring => AllreduceLarge::Ring,
                };
            }
            if let Some(v) = c.allgather_long_min {
                cp.allgather_long_min = v.0;
            }
            if let Some(v) = c.alltoall_bruck_max {
                cp.alltoall_bruck_max = v.0;
            }
            if let Some(v) = c.alltoall_bruck_min_procs {
                cp.alltoall_bruck_min_procs = v;
            }
            if let Some(v) = c.reduce_rate {
                cp.reduce_rate = v.0;
            }
        }
        Ok(p)
    }
}
