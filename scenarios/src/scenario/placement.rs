//! `[mapping]` to a [`Placement`]: ranks onto the cores of the nodes the
//! machine offers (block, round robin, an explicit list or a map file),
//! unless the workload places its ranks itself (Zhu's patterns).

use topology::{Mapping, NodeId, Placement, ProcLoc};

use super::machine::{BuiltMachine, Fabric};
use super::programs::Programs;
use super::{MappingKind, Scenario, ScenarioError, ScenarioFile};

impl Scenario {
    /// Ranks per node: the mapping's, else the workload's default.
    pub(super) fn ppn(&self, file: &ScenarioFile, progs: &Programs) -> Result<u16, ScenarioError> {
        let ppn = self.mapping.ppn.unwrap_or(progs.ppn);
        if ppn == 0 {
            return Err(file.err("mapping", "ppn", "must be at least 1"));
        }
        Ok(ppn)
    }

    /// The nodes the placement will use (at least 2): what sizes the
    /// machines whose node count defaults to the job's.
    pub(super) fn nodes_needed(&self, progs: &Programs, ranks: u32, ppn: u16) -> u32 {
        match &progs.node_of_rank {
            Some(v) => v.iter().copied().max().unwrap_or(0) + 1,
            None => match (self.mapping.kind, &self.mapping.cores) {
                (MappingKind::Explicit, Some(c)) => c.iter().map(|x| x[0]).max().unwrap_or(0) + 1,
                _ => ranks.div_ceil(ppn as u32),
            },
        }
        .max(2)
    }

    /// Places `ranks` ranks on `machine`.
    pub(super) fn placement(
        &self,
        file: &ScenarioFile,
        progs: &Programs,
        ranks: u32,
        ppn: u16,
        machine: &BuiltMachine,
    ) -> Result<Placement, ScenarioError> {
        let BuiltMachine {
            nodes,
            sockets,
            cores,
            ..
        } = machine;
        let (sockets, cores) = (*sockets, *cores);
        let links = match &machine.fabric {
            Fabric::Links(m) => Some(&**m),
            Fabric::Ideal { .. } => None,
        };
        if let Some(nor) = &progs.node_of_rank {
            if let Some(&bad) = nor.iter().find(|&&n| n as usize >= nodes.len()) {
                return Err(file.err(
                    "workload",
                    "nodes",
                    format!(
                        "the pattern uses node {bad} but the machine has {} nodes",
                        nodes.len()
                    ),
                ));
            }
            return Ok(crate::workloads::place_in_order(
                nor,
                |n| nodes[n as usize],
                sockets,
                cores,
            ));
        }
        Ok(match self.mapping.kind {
            MappingKind::Block | MappingKind::RoundRobin => {
                let per_node = sockets as u32 * cores as u32;
                if ppn as u32 > per_node {
                    return Err(file.err(
                        "mapping",
                        "ppn",
                        format!("{ppn} ranks per node, but nodes have {per_node} cores"),
                    ));
                }
                let how = if self.mapping.kind == MappingKind::Block {
                    Mapping::Block
                } else {
                    Mapping::RoundRobin
                };
                Placement::map(ranks, nodes, ppn, sockets, how)
                    .map_err(|e| file.err("mapping", "ppn", e.to_string()))?
            }
            MappingKind::Explicit => {
                let Some(list) = &self.mapping.cores else {
                    return Err(file.err(
                        "mapping",
                        "cores",
                        "kind = \"explicit\" needs `cores = [[node, core], ...]`",
                    ));
                };
                if list.len() != ranks as usize {
                    return Err(file.err(
                        "mapping",
                        "cores",
                        format!("lists {} ranks but the workload has {ranks}", list.len()),
                    ));
                }
                let mut locs = Vec::with_capacity(list.len());
                for (r, &[n, c]) in list.iter().enumerate() {
                    if n as usize >= nodes.len() || c >= sockets as u32 * cores as u32 {
                        return Err(file.err(
                            "mapping",
                            "cores",
                            format!(
                                "rank {r}: node {n} core {c} does not exist ({} nodes of {} cores)",
                                nodes.len(),
                                sockets as u32 * cores as u32
                            ),
                        ));
                    }
                    locs.push(ProcLoc {
                        node: NodeId(n),
                        socket: (c / cores as u32) as u16,
                        core: c as u16,
                    });
                }
                match links {
                    Some(mach) => Placement::explicit(locs, mach)
                        .map_err(|e| file.err("mapping", "cores", e.to_string()))?,
                    None => Placement::from_locs(locs),
                }
            }
            MappingKind::File => {
                let Some(f) = &self.mapping.file else {
                    return Err(file.err("mapping", "file", "kind = \"file\" needs `file`"));
                };
                let Some(mach) = links else {
                    return Err(file.err(
                        "mapping",
                        "file",
                        "map files need a machine (not `ideal`)",
                    ));
                };
                let path = self.resolve(file, f)?;
                let name = path.display().to_string();
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| file.plain(format!("{name}: cannot read map file: {e}")))?;
                let p = Placement::parse_map(&name, &text, mach)
                    .map_err(|e| file.plain(e.to_string()))?;
                if p.len() != ranks as usize {
                    return Err(file.plain(format!(
                        "{name}: places {} ranks but the workload has {ranks}",
                        p.len()
                    )));
                }
                p
            }
        })
    }
}
