//! Where processes run: the node, socket and core of every process, and
//! the locality of a pair (Bienz et al. Table 1 distinguishes intra-socket,
//! intra-node and inter-node parameters).

use crate::machine::Machine;
use crate::transport::NodeId;
use rustc_hash::FxHashSet;

/// The location of one process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ProcLoc {
    /// The node.
    pub node: NodeId,
    /// Socket within the node, from zero.
    pub socket: u16,
    /// Core within the node, from zero.
    pub core: u16,
}

/// The locality of two processes, which selects the MPI parameter set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Locality {
    /// Same node, same socket.
    SameSocket,
    /// Same node, different sockets.
    SameNode,
    /// Different nodes: the message crosses the network.
    OtherNode,
}

impl Locality {
    /// All localities, in table order (nearest first).
    pub const ALL: [Locality; 3] = [
        Locality::SameSocket,
        Locality::SameNode,
        Locality::OtherNode,
    ];

    /// The one spelling in files, reports and messages: `same_socket`,
    /// `same_node` or `other_node`.
    pub const fn name(self) -> &'static str {
        match self {
            Locality::SameSocket => "same_socket",
            Locality::SameNode => "same_node",
            Locality::OtherNode => "other_node",
        }
    }

    /// The locality spelled `name`, if any.
    pub fn from_name(name: &str) -> Option<Locality> {
        Locality::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl std::fmt::Display for Locality {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The location of every process, indexed by process number (MPI rank in
/// `MPI_COMM_WORLD`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    locs: Vec<ProcLoc>,
}

impl Placement {
    /// A placement from explicit locations.
    pub fn from_locs(locs: Vec<ProcLoc>) -> Self {
        Placement { locs }
    }

    /// Block mapping: `ppn` consecutive processes per node, filling the
    /// node's `sockets` sockets in order (cores split evenly between them).
    /// `procs` processes in all.
    pub fn block(procs: u32, ppn: u16, sockets: u16) -> Self {
        assert!(ppn > 0 && sockets > 0, "ppn and sockets must be positive");
        let per_socket = ppn.div_ceil(sockets);
        let locs = (0..procs)
            .map(|p| {
                let core = (p % ppn as u32) as u16;
                ProcLoc {
                    node: NodeId(p / ppn as u32),
                    socket: core / per_socket,
                    core,
                }
            })
            .collect();
        Placement { locs }
    }

    /// Maps `procs` processes onto `nodes` (e.g. a torus partition from
    /// [`crate::TorusGeom::line`] or [`crate::TorusGeom::cube`]) with at
    /// most `ppn` per node on `sockets` sockets (cores split evenly, as in
    /// [`Placement::block`]). [`Mapping::Block`] fills a node before the
    /// next; [`Mapping::RoundRobin`] deals process `p` to node
    /// `p mod nodes.len()`.
    pub fn map(
        procs: u32,
        nodes: &[NodeId],
        ppn: u16,
        sockets: u16,
        how: Mapping,
    ) -> Result<Self, PlacementError> {
        if ppn == 0 || sockets == 0 || nodes.is_empty() {
            return Err(PlacementError::Shape(
                "ppn, sockets and the node list must be non-empty".into(),
            ));
        }
        if procs as u64 > nodes.len() as u64 * ppn as u64 {
            return Err(PlacementError::Shape(format!(
                "{procs} processes do not fit on {} nodes at {ppn} per node",
                nodes.len()
            )));
        }
        let per_socket = ppn.div_ceil(sockets);
        let n = nodes.len() as u32;
        let locs = (0..procs)
            .map(|p| {
                let (node, slot) = match how {
                    Mapping::Block => (p / ppn as u32, (p % ppn as u32) as u16),
                    Mapping::RoundRobin => (p % n, (p / n) as u16),
                };
                ProcLoc {
                    node: nodes[node as usize],
                    socket: slot / per_socket,
                    core: slot,
                }
            })
            .collect();
        Ok(Placement { locs })
    }

    /// Round-robin mapping over nodes `0..nodes`: process `p` on node
    /// `p mod nodes`, its core the count of earlier processes there.
    pub fn round_robin(
        procs: u32,
        nodes: u32,
        ppn: u16,
        sockets: u16,
    ) -> Result<Self, PlacementError> {
        let list: Vec<NodeId> = (0..nodes).map(NodeId).collect();
        Self::map(procs, &list, ppn, sockets, Mapping::RoundRobin)
    }

    /// An explicit list of locations, validated against `machine`: every
    /// node exists, every socket and core exists on its node (`core` is
    /// numbered within the node, `socket` must be the socket holding that
    /// core), and no two processes share a core.
    pub fn explicit(locs: Vec<ProcLoc>, machine: &Machine) -> Result<Self, PlacementError> {
        let mut used = FxHashSet::default();
        for (p, l) in locs.iter().enumerate() {
            check_loc(p as u32, l, machine)?;
            if !used.insert((l.node, l.core)) {
                return Err(PlacementError::Loc {
                    proc: p as u32,
                    why: format!("core {} of node {} is already taken", l.core, l.node.0),
                });
            }
        }
        Ok(Placement { locs })
    }

    /// Parses a map file: one line per process in rank order, `<node>
    /// <core>` (core numbered within the node; the socket follows from
    /// the machine's cores per socket); `#` comments and blank lines are
    /// ignored. Errors name `file:line`.
    pub fn parse_map(file: &str, text: &str, machine: &Machine) -> Result<Self, PlacementError> {
        let mut locs = Vec::new();
        let mut lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = |why: String| PlacementError::File {
                file: file.into(),
                line: i + 1,
                why,
            };
            let w: Vec<&str> = line.split_whitespace().collect();
            if w.len() != 2 {
                return Err(at(format!("expected `<node> <core>`, got `{line}`")));
            }
            let node: u32 = w[0]
                .parse()
                .map_err(|_| at(format!("bad node `{}`", w[0])))?;
            let core: u16 = w[1]
                .parse()
                .map_err(|_| at(format!("bad core `{}`", w[1])))?;
            if node >= machine.nodes() {
                return Err(at(format!(
                    "node {node} does not exist ({} nodes)",
                    machine.nodes()
                )));
            }
            let (_, cps) = machine.host_shape(NodeId(node));
            locs.push(ProcLoc {
                node: NodeId(node),
                socket: core / cps,
                core,
            });
            lines.push(i + 1);
        }
        Self::explicit(locs, machine).map_err(|e| match e {
            PlacementError::Loc { proc, why } => PlacementError::File {
                file: file.into(),
                line: lines[proc as usize],
                why: format!("process {proc}: {why}"),
            },
            other => other,
        })
    }

    /// Number of processes.
    pub fn len(&self) -> usize {
        self.locs.len()
    }

    /// Whether there are no processes.
    pub fn is_empty(&self) -> bool {
        self.locs.is_empty()
    }

    /// Location of process `p`.
    pub fn loc(&self, p: u32) -> ProcLoc {
        self.locs[p as usize]
    }

    /// Node of process `p`.
    pub fn node(&self, p: u32) -> NodeId {
        self.locs[p as usize].node
    }

    /// Locality of processes `a` and `b`.
    pub fn locality(&self, a: u32, b: u32) -> Locality {
        let (x, y) = (self.loc(a), self.loc(b));
        if x.node != y.node {
            Locality::OtherNode
        } else if x.socket != y.socket {
            Locality::SameNode
        } else {
            Locality::SameSocket
        }
    }

    /// Number of distinct nodes used.
    pub fn nodes_used(&self) -> u32 {
        let mut n: Vec<u32> = self.locs.iter().map(|l| l.node.0).collect();
        n.sort_unstable();
        n.dedup();
        n.len() as u32
    }
}

/// Order of a generated mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// Fill each node before the next.
    Block,
    /// Deal processes to nodes in turn.
    RoundRobin,
}

/// A placement that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// Impossible shape parameters.
    #[error("invalid mapping: {0}")]
    Shape(String),
    /// A bad location for process `proc`.
    #[error("process {proc}: {why}")]
    Loc {
        /// The process (rank).
        proc: u32,
        /// What is wrong.
        why: String,
    },
    /// A bad line of a map file.
    #[error("{file}:{line}: {why}")]
    File {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
}

fn check_loc(p: u32, l: &ProcLoc, m: &Machine) -> Result<(), PlacementError> {
    let bad = |why: String| PlacementError::Loc { proc: p, why };
    if l.node.0 >= m.nodes() {
        return Err(bad(format!(
            "node {} does not exist ({} nodes)",
            l.node.0,
            m.nodes()
        )));
    }
    let (sockets, cps) = m.host_shape(l.node);
    let cores = sockets as u32 * cps as u32;
    if l.core as u32 >= cores {
        return Err(bad(format!(
            "core {} does not exist (node {} has {cores})",
            l.core, l.node.0
        )));
    }
    if l.socket != l.core / cps {
        return Err(bad(format!(
            "core {} is on socket {}, not {}",
            l.core,
            l.core / cps,
            l.socket
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_mapping_and_locality() {
        // 16 per node on 2 sockets (Blue Waters XE6 nodes): 8 per socket.
        let p = Placement::block(32, 16, 2);
        assert_eq!(p.node(15), NodeId(0));
        assert_eq!(p.node(16), NodeId(1));
        assert_eq!(p.locality(0, 7), Locality::SameSocket);
        assert_eq!(p.locality(0, 8), Locality::SameNode);
        assert_eq!(p.locality(0, 16), Locality::OtherNode);
        assert_eq!(p.nodes_used(), 2);
    }

    #[test]
    fn round_robin_and_explicit() {
        let p = Placement::round_robin(8, 4, 2, 2).unwrap();
        assert_eq!(p.node(5), NodeId(1));
        assert_eq!(p.loc(5).core, 1);
        assert_eq!(p.locality(1, 5), Locality::SameNode);
        assert!(Placement::round_robin(9, 4, 2, 2).is_err());
        let m = crate::InfinibandParams::qdr(4).build().unwrap();
        let ok = Placement::parse_map("map.txt", "0 0\n# c\n1 3\n", &m).unwrap();
        assert_eq!(ok.locality(0, 1), Locality::OtherNode);
        let e = Placement::parse_map("map.txt", "0 0\n\n0 0\n", &m).unwrap_err();
        assert_eq!(
            e.to_string(),
            "map.txt:3: process 1: core 0 of node 0 is already taken"
        );
        let e = Placement::parse_map("map.txt", "9 0\n", &m).unwrap_err();
        assert!(e.to_string().starts_with("map.txt:1: node 9"), "{e}");
        let e = Placement::parse_map("map.txt", "0 x\n", &m).unwrap_err();
        assert!(e.to_string().starts_with("map.txt:1: bad core"), "{e}");
        let e = Placement::parse_map("map.txt", "0 8\n", &m).unwrap_err();
        assert!(e.to_string().contains("core 8 does not exist"), "{e}");
    }
}
