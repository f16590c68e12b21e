//! The OTF2 global definitions this reader needs, as plain data, and what
//! they mean for a replay ([`Layout`]): which location is which MPI rank,
//! which regions are MPI calls, which communicator has which members,
//! and the clock resolution.
//!
//! The OTF2 library fills [`Definitions`] from the `.def` files (the `ffi`
//! module, with the `otf2` feature); everything from there on is this
//! module's own code, so the fuzz target `otf2` drives it without the
//! library.

use rustc_hash::FxHashMap;

use mpi_layer::{CommId, Rank};

use crate::reader::MAX_TRACE_RANKS;

/// What is wrong with an OTF2 archive: its definitions, a recorded size
/// or collective, or what the OTF2 library reported; the reader adds the
/// file and event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Otf2Error {
    /// No `CLOCK_PROPERTIES`.
    #[error("no clock resolution (CLOCK_PROPERTIES) in the definitions")]
    NoClock,
    /// No MPI locations group.
    #[error(
        "no MPI locations group (GROUP of type COMM_LOCATIONS, paradigm MPI): \
         not a trace of an MPI program"
    )]
    NoMpiGroup,
    /// An empty MPI locations group.
    #[error("the MPI locations group has no members")]
    EmptyMpiGroup,
    /// More ranks than a trace may have.
    #[error("{0} MPI ranks, more than the {MAX_TRACE_RANKS} a trace may have")]
    TooManyRanks(usize),
    /// A rank whose location is not defined.
    #[error("rank {rank}'s location {location} has no LOCATION definition")]
    NoLocation {
        /// The rank.
        rank: usize,
        /// Its location.
        location: u64,
    },
    /// A location that is two ranks.
    #[error("location {location} is rank {rank} and an earlier rank")]
    LocationTwice {
        /// The location.
        location: u64,
        /// The later rank.
        rank: usize,
    },
    /// A communicator whose group is not defined.
    #[error("communicator {comm} names group {group}, which is not defined")]
    NoGroup {
        /// The communicator.
        comm: u32,
        /// Its group.
        group: u32,
    },
    /// A communicator group naming a rank beyond the trace's.
    #[error(
        "communicator {comm}'s group {group} names rank {rank}; the trace has {num_ranks} ranks"
    )]
    GroupRankOutside {
        /// The communicator.
        comm: u32,
        /// Its group.
        group: u32,
        /// The rank.
        rank: u64,
        /// The trace's ranks.
        num_ranks: usize,
    },
    /// A communicator group naming a rank twice.
    #[error("communicator {comm}'s group {group} names rank {rank} twice")]
    GroupRankTwice {
        /// The communicator.
        comm: u32,
        /// Its group.
        group: u32,
        /// The rank.
        rank: u64,
    },
    /// A communicator whose group is of another type.
    #[error("communicator {comm}'s group {group} has type {kind}, not a communicator group")]
    NotACommGroup {
        /// The communicator.
        comm: u32,
        /// Its group.
        group: u32,
        /// The group's type.
        kind: u8,
    },
    /// A communicator reference netsim cannot number.
    #[error("communicator reference {0} is too large")]
    CommTooLarge(u32),
    /// A communicator defined twice.
    #[error("communicator {0} is defined twice")]
    CommTwice(u32),
    /// A communicator an event names but no definition gives.
    #[error("communicator {0} is not defined")]
    NoComm(u32),
    /// A size beyond 63 bits.
    #[error("size {0} bytes is too large")]
    SizeTooLarge(u64),
    /// A rooted collective without its root.
    #[error("collective operation {0} without a root")]
    NoRoot(u8),
    /// A root beyond the communicator's ranks.
    #[error("root {root} does not exist in a communicator of {size} ranks")]
    RootOutside {
        /// The root.
        root: u32,
        /// The communicator's ranks.
        size: u32,
    },
    /// The anchor's path holds a NUL byte.
    #[error("the path contains a NUL byte")]
    NulInPath,
    /// A call of the OTF2 library failed (its message).
    #[error("{0}")]
    Library(String),
}
use crate::recorded::Comm;

/// `OTF2_PARADIGM_MPI`.
pub const PARADIGM_MPI: u8 = 4;
/// `OTF2_GROUP_TYPE_COMM_LOCATIONS`: the locations of a paradigm, in rank
/// order (`MPI_COMM_WORLD`'s ranks).
pub const GROUP_COMM_LOCATIONS: u8 = 4;
/// `OTF2_GROUP_TYPE_COMM_GROUP`: ranks (indices into the paradigm's
/// `COMM_LOCATIONS` group), in the communicator's rank order.
pub const GROUP_COMM_GROUP: u8 = 5;
/// `OTF2_GROUP_TYPE_COMM_SELF`: a communicator of one rank.
pub const GROUP_COMM_SELF: u8 = 6;
/// `OTF2_UNDEFINED_UINT32`: "none" for 32-bit references.
pub const UNDEFINED_U32: u32 = u32::MAX;

/// A `REGION` definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionDef {
    /// Name (a string reference).
    pub name: u32,
    /// `OTF2_Paradigm`.
    pub paradigm: u8,
}

/// A `GROUP` definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupDef {
    /// `OTF2_GroupType`.
    pub kind: u8,
    /// `OTF2_Paradigm`.
    pub paradigm: u8,
    /// Members: location ids (`COMM_LOCATIONS`) or ranks (`COMM_GROUP`).
    pub members: Vec<u64>,
}

/// A `COMM` definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommDef {
    /// This communicator's reference.
    pub id: u32,
    /// Its group.
    pub group: u32,
    /// The communicator it was made from (`UNDEFINED_U32`: none).
    pub parent: u32,
}

/// The global definitions a replay needs, as read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Definitions {
    /// `CLOCK_PROPERTIES`: ticks per second (0: not given).
    pub resolution: u64,
    /// `STRING` definitions.
    pub strings: FxHashMap<u32, String>,
    /// `REGION` definitions.
    pub regions: FxHashMap<u32, RegionDef>,
    /// `GROUP` definitions.
    pub groups: FxHashMap<u32, GroupDef>,
    /// `COMM` definitions, in definition order.
    pub comms: Vec<CommDef>,
    /// `LOCATION` definitions: (location id, number of events), in
    /// definition order.
    pub locations: Vec<(u64, u64)>,
}

/// What a communicator is for the replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommKind {
    /// `MPI_COMM_WORLD`.
    World,
    /// A communicator of one rank per rank (`MPI_COMM_SELF`, or a split
    /// that left every rank alone; Score-P defines one such
    /// communicator for all ranks).
    SelfOnly,
    /// Any other: its members as `MPI_COMM_WORLD` ranks, in its rank order.
    Sub(Vec<Rank>),
}

/// A communicator of the trace, with netsim's id for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommInfo {
    /// What it is.
    pub kind: CommKind,
    /// netsim's id ([`CommId::WORLD`] for `MPI_COMM_WORLD`).
    pub id: CommId,
}

impl CommInfo {
    /// Its number of ranks in a run of `world` ranks.
    pub fn size(&self, world: u32) -> u32 {
        match &self.kind {
            CommKind::World => world,
            CommKind::SelfOnly => 1,
            CommKind::Sub(m) => m.len() as u32,
        }
    }
    /// As a recorded communicator (every one has an id: ranks create
    /// their communicators of one rank too, so point-to-point to
    /// oneself on them replays).
    pub fn recorded(&self) -> Comm {
        Comm::Id(self.id)
    }
    /// The rank of world rank `r` in this communicator, if a member.
    pub fn rank_of(&self, r: Rank) -> Option<u32> {
        match &self.kind {
            CommKind::World => Some(r),
            CommKind::SelfOnly => Some(0),
            CommKind::Sub(m) => m.iter().position(|&x| x == r).map(|i| i as u32),
        }
    }
}

/// The definitions as a replay sees them.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// The location of each `MPI_COMM_WORLD` rank, rank order.
    pub rank_locations: Vec<u64>,
    /// Ticks per second.
    pub resolution: u64,
    /// Region reference -> (name, is an MPI call).
    pub regions: FxHashMap<u32, (String, bool)>,
    /// Communicator reference -> communicator.
    pub comms: FxHashMap<u32, CommInfo>,
    /// The communicators other than world, in definition order (each
    /// rank creates them before its first event).
    pub created: Vec<u32>,
}

impl Layout {
    /// The replay's view of `defs`; errors say which definition is wrong.
    pub fn new(defs: &Definitions) -> Result<Layout, Otf2Error> {
        if defs.resolution == 0 {
            return Err(Otf2Error::NoClock);
        }
        // The MPI locations in rank order: the MPI paradigm's
        // COMM_LOCATIONS group.
        let mut world_groups: Vec<(&u32, &GroupDef)> = defs
            .groups
            .iter()
            .filter(|(_, g)| g.kind == GROUP_COMM_LOCATIONS && g.paradigm == PARADIGM_MPI)
            .collect();
        world_groups.sort_by_key(|(id, _)| **id);
        let Some((_, world)) = world_groups.first() else {
            return Err(Otf2Error::NoMpiGroup);
        };
        let n = world.members.len();
        if n == 0 {
            return Err(Otf2Error::EmptyMpiGroup);
        }
        if n as u64 > MAX_TRACE_RANKS as u64 {
            return Err(Otf2Error::TooManyRanks(n));
        }
        for (r, loc) in world.members.iter().enumerate() {
            if !defs.locations.iter().any(|(l, _)| l == loc) {
                return Err(Otf2Error::NoLocation {
                    rank: r,
                    location: *loc,
                });
            }
            if world.members[..r].contains(loc) {
                return Err(Otf2Error::LocationTwice {
                    location: *loc,
                    rank: r,
                });
            }
        }
        let mut regions = FxHashMap::default();
        for (&id, r) in &defs.regions {
            let name = defs.strings.get(&r.name).cloned().unwrap_or_default();
            let mpi = r.paradigm == PARADIGM_MPI || name.starts_with("MPI_");
            regions.insert(id, (name, mpi));
        }
        let full = |m: &[u64]| m.iter().enumerate().all(|(i, &x)| x == i as u64);
        let mut comms = FxHashMap::default();
        let mut created = Vec::new();
        let mut world_seen = false;
        for c in &defs.comms {
            let g = defs.groups.get(&c.group).ok_or(Otf2Error::NoGroup {
                comm: c.id,
                group: c.group,
            })?;
            let kind = match g.kind {
                GROUP_COMM_SELF => CommKind::SelfOnly,
                GROUP_COMM_GROUP | GROUP_COMM_LOCATIONS
                    if !world_seen
                        && c.parent == UNDEFINED_U32
                        && g.members.len() == n
                        && (g.kind == GROUP_COMM_LOCATIONS || full(&g.members)) =>
                {
                    world_seen = true;
                    CommKind::World
                }
                GROUP_COMM_GROUP => {
                    let mut m = Vec::with_capacity(g.members.len());
                    for &x in &g.members {
                        if x >= n as u64 {
                            return Err(Otf2Error::GroupRankOutside {
                                comm: c.id,
                                group: c.group,
                                rank: x,
                                num_ranks: n,
                            });
                        }
                        if m.contains(&(x as Rank)) {
                            return Err(Otf2Error::GroupRankTwice {
                                comm: c.id,
                                group: c.group,
                                rank: x,
                            });
                        }
                        m.push(x as Rank);
                    }
                    if m.len() == 1 {
                        CommKind::SelfOnly
                    } else {
                        CommKind::Sub(m)
                    }
                }
                k => {
                    return Err(Otf2Error::NotACommGroup {
                        comm: c.id,
                        group: c.group,
                        kind: k,
                    });
                }
            };
            let id = match kind {
                CommKind::World => CommId::WORLD,
                // Ids 1.. for the others; u32::MAX means "no communicator".
                _ => match c.id.checked_add(1) {
                    Some(x) if x != u32::MAX => CommId(x),
                    _ => return Err(Otf2Error::CommTooLarge(c.id)),
                },
            };
            if kind != CommKind::World {
                created.push(c.id);
            }
            if comms.insert(c.id, CommInfo { kind, id }).is_some() {
                return Err(Otf2Error::CommTwice(c.id));
            }
        }
        Ok(Layout {
            rank_locations: world.members.clone(),
            resolution: defs.resolution,
            regions,
            comms,
            created,
        })
    }

    /// The number of ranks.
    pub fn num_ranks(&self) -> u32 {
        self.rank_locations.len() as u32
    }

    /// Communicator `c`, or an error naming it.
    pub fn comm(&self, c: u32) -> Result<&CommInfo, Otf2Error> {
        self.comms.get(&c).ok_or(Otf2Error::NoComm(c))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Three ranks, world (comm 0), a pair {2, 0} (comm 1), a self comm.
    pub(crate) fn three_ranks() -> Definitions {
        let mut d = Definitions {
            resolution: 1_000_000_000,
            ..Default::default()
        };
        d.strings.insert(0, "MPI_Send".into());
        d.strings.insert(1, "compute".into());
        d.regions.insert(
            7,
            RegionDef {
                name: 0,
                paradigm: PARADIGM_MPI,
            },
        );
        d.regions.insert(
            8,
            RegionDef {
                name: 1,
                paradigm: 0,
            },
        );
        d.locations = vec![(10, 0), (11, 0), (12, 0)];
        let g = |kind, members: Vec<u64>| GroupDef {
            kind,
            paradigm: PARADIGM_MPI,
            members,
        };
        d.groups
            .insert(0, g(GROUP_COMM_LOCATIONS, vec![10, 11, 12]));
        d.groups.insert(1, g(GROUP_COMM_GROUP, vec![0, 1, 2]));
        d.groups.insert(2, g(GROUP_COMM_GROUP, vec![2, 0]));
        d.groups.insert(3, g(GROUP_COMM_SELF, vec![]));
        for (id, group, parent) in [(0, 1, UNDEFINED_U32), (1, 2, 0), (2, 3, UNDEFINED_U32)] {
            d.comms.push(CommDef { id, group, parent });
        }
        d
    }

    #[test]
    fn layout_of_three_ranks() {
        let l = Layout::new(&three_ranks()).unwrap();
        assert_eq!(l.rank_locations, vec![10, 11, 12]);
        assert_eq!(l.comm(0).unwrap().kind, CommKind::World);
        assert_eq!(l.comm(1).unwrap().kind, CommKind::Sub(vec![2, 0]));
        assert_eq!(l.comm(1).unwrap().id, CommId(2));
        assert_eq!(l.comm(1).unwrap().rank_of(0), Some(1));
        assert_eq!(l.comm(2).unwrap().kind, CommKind::SelfOnly);
        assert_eq!(l.created, vec![1, 2]);
        assert_eq!(l.regions[&7], ("MPI_Send".to_string(), true));
        assert_eq!(l.regions[&8], ("compute".to_string(), false));
    }

    #[test]
    fn bad_definitions_say_what() {
        let mut d = three_ranks();
        d.locations.pop();
        assert_eq!(
            Layout::new(&d).unwrap_err().to_string(),
            "rank 2's location 12 has no LOCATION definition"
        );
        let mut d = three_ranks();
        d.groups.get_mut(&2).unwrap().members = vec![0, 5];
        assert_eq!(
            Layout::new(&d).unwrap_err().to_string(),
            "communicator 1's group 2 names rank 5; the trace has 3 ranks"
        );
        let mut d = three_ranks();
        d.resolution = 0;
        assert!(
            Layout::new(&d)
                .unwrap_err()
                .to_string()
                .contains("CLOCK_PROPERTIES")
        );
        let mut d = three_ranks();
        d.groups.remove(&0);
        assert!(
            Layout::new(&d)
                .unwrap_err()
                .to_string()
                .contains("not a trace of an MPI program")
        );
    }
}
