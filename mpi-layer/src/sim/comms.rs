//! Communicators and groups: lookup of a rank's communicators, the group
//! algebra (rank-local, no simulated time), and every constructor
//! (`CommDup`, `CommSplit`, `CommCreate`, `CommCreateGroup`, the process
//! topologies) as one collective: members arrive with (color, key), and
//! when the last has arrived the new communicators exist and every member
//! goes on at that instant (no cost, no messages).
//!
//! The process topologies and the neighbour collectives are in `topo.rs`.

use super::control::{Failed, Next, Resume};
use super::local::Loc;
use super::ranks::CommEntry;
use super::topo::{Topo, coords_of};
use super::{Ev, Sim};
use crate::observe::Observer;
use crate::op::{CommId, GroupId, Op, OpStream, Origin, Rank};
use rustc_hash::FxHashSet;
use sim_core::{Schedule, Scheduler};
use std::sync::Arc;
use topology::Transport;

type Sch<'a, NE> = Scheduler<'a, Ev<NE>>;

/// A communicator, shared by its members.
pub(super) struct Comm {
    pub size: u32,
    /// World rank of each member; empty for `MPI_COMM_WORLD` (identity).
    pub members: Vec<u32>,
    /// Its process topology, if a topology constructor made it.
    pub topo: Topo,
}

/// What one rank brings to a creation besides its color and key.
#[derive(Clone, Debug)]
enum Shape {
    Plain,
    /// Its group has this many members (checked against the class).
    Group(u32),
    /// The new communicator's topology (same at every member: equal
    /// ones are shared while the creation waits).
    Whole(Arc<Topo>),
    /// This rank's own neighbours.
    Adjacent(Vec<u32>, Vec<u32>),
    /// Edges this rank contributes (source, destination).
    Edges(Vec<(u32, u32)>),
}

struct Arrival {
    /// World rank.
    world: u32,
    /// Rank in the parent (ties of (color, key) are ordered by it).
    me: u32,
    color: i32,
    key: i32,
    new: CommId,
    shape: Shape,
}

/// The members arrived so far at one creation.
#[derive(Default)]
pub(super) struct PendingCreate {
    arrived: Vec<Arrival>,
}

/// How the creation is matched: over the parent (by the rank's count of
/// creations on it), or over a group's members with a tag.
enum Over {
    Parent,
    Group(Vec<u32>, i32),
}

impl<T: Transport, S: OpStream, O: Observer> Sim<T, S, O> {
    /// (global index, my rank, size) of communicator `c` at rank `r`.
    pub(super) fn comm(&self, r: u32, c: CommId) -> Option<(u32, u32, u32)> {
        if c == CommId::WORLD {
            return Some((0, r, self.comms[0].size));
        }
        self.ranks[r as usize]
            .comms
            .iter()
            .rev()
            .find(|e| e.id == c)
            .map(|e| (e.global, e.me, self.comms[e.global as usize].size))
    }

    /// Counts a collective of rank `r` on `comm` (resolved); returns
    /// its sequence number there, which its tags carry, so that
    /// collectives on different communicators never shift each other's.
    pub(super) fn next_coll_seq(&mut self, r: u32, comm: CommId) -> u16 {
        let rk = &mut self.ranks[r as usize];
        if comm == CommId::WORLD {
            rk.world_colls = rk.world_colls.wrapping_add(1);
            return rk.world_colls;
        }
        let e = rk.comms.iter_mut().rev().find(|e| e.id == comm);
        let e = e.expect("resolved");
        e.colls = e.colls.wrapping_add(1);
        e.colls
    }

    pub(super) fn member(&self, g: u32, i: u32) -> u32 {
        if g == 0 {
            i
        } else {
            self.comms[g as usize].members[i as usize]
        }
    }

    pub(super) fn resolve(
        &mut self,
        r: u32,
        c: CommId,
        origin: &Origin,
    ) -> Result<(u32, u32, u32), Failed> {
        self.comm(r, c).ok_or_else(|| {
            self.fail(
                r,
                origin,
                format!("communicator {} is unknown to this rank", c.0),
            )
        })
    }

    fn group(&mut self, r: u32, id: GroupId, origin: &Origin) -> Result<Arc<[u32]>, Failed> {
        if id == GroupId::EMPTY {
            return Ok(Arc::from([]));
        }
        match self.groups.get(&(r, id.0)) {
            Some(g) => Ok(g.clone()),
            None => Err(self.fail(r, origin, format!("group {} is unknown to this rank", id.0))),
        }
    }

    fn define_group(
        &mut self,
        r: u32,
        id: GroupId,
        members: Vec<u32>,
        origin: &Origin,
    ) -> Result<Next, Failed> {
        if id == GroupId::EMPTY {
            return Err(self.fail(
                r,
                origin,
                "cannot redefine MPI_GROUP_EMPTY (group id 0)".into(),
            ));
        }
        let list = match self.group_lists.get(&members[..]) {
            Some(l) => l.clone(),
            None => {
                let l: Arc<[u32]> = members.into();
                self.group_lists.insert(l.clone());
                l
            }
        };
        self.groups.insert((r, id.0), list);
        Ok(Next::Continue)
    }

    /// Executes a group or communicator operation of rank `r`; `None` if
    /// `op` is not one.
    pub(super) fn comm_op(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        op: &Op,
        origin: &Origin,
    ) -> Option<Result<Next, Failed>> {
        Some(match op {
            Op::CommDup { comm, new } => self.resolve(r, *comm, origin).and_then(|(g, me, _)| {
                // A duplicate keeps the parent's topology.
                let shape = match &self.comms[g as usize].topo {
                    Topo::None => Shape::Plain,
                    t => Shape::Whole(Arc::new(t.clone())),
                };
                self.create(s, r, *comm, (0, me as i32), *new, shape, origin)
            }),
            Op::CommSplit {
                comm,
                color,
                key,
                new,
            } => self.create(s, r, *comm, (*color, *key), *new, Shape::Plain, origin),
            Op::CommGroup { comm, new } => self.resolve(r, *comm, origin).and_then(|(g, _, n)| {
                let members = (0..n).map(|i| self.member(g, i)).collect();
                self.define_group(r, *new, members, origin)
            }),
            Op::GroupIncl { group, ranks, new } | Op::GroupExcl { group, ranks, new } => {
                let incl = matches!(op, Op::GroupIncl { .. });
                self.group(r, *group, origin).and_then(|g| {
                    let picked = self.positions(r, g.len(), ranks, origin)?;
                    let members = select(&g, &picked, incl);
                    self.define_group(r, *new, members, origin)
                })
            }
            Op::GroupRangeIncl { group, ranges, new } | Op::GroupRangeExcl { group, ranges, new } => {
                let incl = matches!(op, Op::GroupRangeIncl { .. });
                self.group(r, *group, origin).and_then(|g| {
                    let ranks = expand_ranges(ranges, g.len()).map_err(|m| self.fail(r, origin, m.to_string()))?;
                    let picked = self.positions(r, g.len(), &ranks, origin)?;
                    let members = select(&g, &picked, incl);
                    self.define_group(r, *new, members, origin)
                })
            }
            Op::GroupUnion { a, b, new }
            | Op::GroupIntersection { a, b, new }
            | Op::GroupDifference { a, b, new } => {
                let (ga, gb) = match (self.group(r, *a, origin), self.group(r, *b, origin)) {
                    (Ok(x), Ok(y)) => (x, y),
                    (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
                };
                let in_a: FxHashSet<u32> = ga.iter().copied().collect();
                let in_b: FxHashSet<u32> = gb.iter().copied().collect();
                let members: Vec<u32> = match op {
                    Op::GroupUnion { .. } => {
                        let mut m = ga.to_vec();
                        m.extend(gb.iter().filter(|x| !in_a.contains(x)));
                        m
                    }
                    Op::GroupIntersection { .. } => {
                        ga.iter().copied().filter(|x| in_b.contains(x)).collect()
                    }
                    _ => ga.iter().copied().filter(|x| !in_b.contains(x)).collect(),
                };
                self.define_group(r, *new, members, origin)
            }
            Op::GroupFree { group } => {
                if *group != GroupId::EMPTY && self.groups.remove(&(r, group.0)).is_none() {
                    Err(self.fail(
                        r,
                        origin,
                        format!("group {} is unknown to this rank", group.0),
                    ))
                } else {
                    Ok(Next::Continue)
                }
            }
            Op::CommFree { comm } => {
                let list = &mut self.ranks[r as usize].comms;
                match list.iter().rposition(|e| e.id == *comm) {
                    Some(i) if *comm != CommId::WORLD => {
                        list.remove(i);
                        Ok(Next::Continue)
                    }
                    _ => Err(self.fail(
                        r,
                        origin,
                        format!("cannot free communicator {}: unknown to this rank", comm.0),
                    )),
                }
            }
            Op::CommCreate { comm, group, new } => self.comm_create(s, r, *comm, *group, *new, origin),
            Op::CommCreateGroup {
                comm,
                group,
                tag,
                new,
            } => self.comm_create_group(s, r, *comm, *group, *tag, *new, origin),
            Op::CartCreate {
                comm,
                dims,
                periods,
                new,
            } => self.resolve(r, *comm, origin).and_then(|(_, me, size)| {
                if dims.len() != periods.len() || dims.contains(&0) {
                    return Err(self.fail(
                        r,
                        origin,
                        format!(
                            "a Cartesian grid needs one period per dimension and no empty dimension (dims {dims:?}, periods {periods:?})"
                        ),
                    ));
                }
                let n = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d as u64));
                if n.is_none_or(|n| n > size as u64) {
                    return Err(self.fail(
                        r,
                        origin,
                        format!("grid {dims:?} has more cells than the communicator's {size} ranks"),
                    ));
                }
                let color = if (me as u64) < n.unwrap_or(0) { 0 } else { -1 };
                let topo = Topo::Cart {
                    dims: dims.clone(),
                    periods: periods.clone(),
                };
                self.create(s, r, *comm, (color, me as i32), *new, Shape::Whole(Arc::new(topo)), origin)
            }),
            Op::CartSub { comm, remain, new } => self.cart_sub(s, r, *comm, remain, *new, origin),
            Op::GraphCreate {
                comm,
                index,
                edges,
                new,
            } => self.resolve(r, *comm, origin).and_then(|(_, me, size)| {
                let n = index.len() as u32;
                let valid = n <= size
                    && index.windows(2).all(|w| w[0] <= w[1])
                    && index.last().is_none_or(|&l| l as usize == edges.len())
                    && edges.iter().all(|&e| e < n);
                if !valid {
                    return Err(self.fail(
                        r,
                        origin,
                        format!(
                            "invalid graph: index {index:?} and edges {edges:?} for a communicator of {size} ranks"
                        ),
                    ));
                }
                let color = if me < n { 0 } else { -1 };
                let topo = Topo::Graph {
                    index: index.clone(),
                    edges: edges.clone(),
                };
                self.create(s, r, *comm, (color, me as i32), *new, Shape::Whole(Arc::new(topo)), origin)
            }),
            Op::DistGraphAdjacent {
                comm,
                sources,
                destinations,
                new,
            } => self.resolve(r, *comm, origin).and_then(|(_, me, size)| {
                self.in_comm(r, size, sources.iter().chain(destinations), origin)?;
                let shape = Shape::Adjacent(sources.clone(), destinations.clone());
                self.create(s, r, *comm, (0, me as i32), *new, shape, origin)
            }),
            Op::DistGraph { comm, edges, new } => {
                self.resolve(r, *comm, origin).and_then(|(_, me, size)| {
                    self.in_comm(r, size, edges.iter().flatten(), origin)?;
                    let edges = edges.iter().map(|&[a, b]| (a, b)).collect();
                    self.create(s, r, *comm, (0, me as i32), *new, Shape::Edges(edges), origin)
                })
            }
            Op::NeighborAllgather { bytes, comm } | Op::NeighborAlltoall { bytes, comm } => {
                self.neighbor(s, r, *comm, Err(*bytes), origin)
            }
            Op::NeighborAlltoallv { send, comm } => self.neighbor(s, r, *comm, Ok(send), origin),
            _ => return None,
        })
    }

    /// Checks that `ranks` are ranks of a communicator of `size`.
    fn in_comm<'a>(
        &mut self,
        r: u32,
        size: u32,
        mut ranks: impl Iterator<Item = &'a Rank>,
        origin: &Origin,
    ) -> Result<(), Failed> {
        match ranks.find(|&&x| x >= size) {
            Some(x) => Err(self.fail(
                r,
                origin,
                format!("rank {x} is outside the communicator (size {size})"),
            )),
            None => Ok(()),
        }
    }

    /// Positions `ranks` in a group of `n`, checked (in range, distinct).
    fn positions(
        &mut self,
        r: u32,
        n: usize,
        ranks: &[Rank],
        origin: &Origin,
    ) -> Result<Vec<u32>, Failed> {
        let mut seen = vec![false; n];
        for &x in ranks {
            match seen.get_mut(x as usize) {
                None => {
                    return Err(self.fail(
                        r,
                        origin,
                        format!("rank {x} is outside the group (size {n})"),
                    ));
                }
                Some(true) => {
                    return Err(self.fail(r, origin, format!("rank {x} is named twice")));
                }
                Some(s) => *s = true,
            }
        }
        Ok(ranks.to_vec())
    }

    #[allow(clippy::too_many_arguments)]
    fn comm_create(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        comm: CommId,
        group: GroupId,
        new: CommId,
        origin: &Origin,
    ) -> Result<Next, Failed> {
        let (g, _, size) = self.resolve(r, comm, origin)?;
        let members = self.group(r, group, origin)?;
        self.subset(r, g, size, &members, origin)?;
        let (color, key) = match members.iter().position(|&w| w == r) {
            // Disjoint groups are told apart by their first member.
            Some(k) => (members[0] as i32, k as i32),
            None => (-1, 0),
        };
        let shape = Shape::Group(members.len() as u32);
        self.create(s, r, comm, (color, key), new, shape, origin)
    }

    #[allow(clippy::too_many_arguments)]
    fn comm_create_group(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        comm: CommId,
        group: GroupId,
        tag: i32,
        new: CommId,
        origin: &Origin,
    ) -> Result<Next, Failed> {
        let (g, _, size) = self.resolve(r, comm, origin)?;
        let members = self.group(r, group, origin)?;
        self.subset(r, g, size, &members, origin)?;
        let Some(k) = members.iter().position(|&w| w == r) else {
            return Err(self.fail(
                r,
                origin,
                "MPI_Comm_create_group called by a rank outside the group".into(),
            ));
        };
        let arrival = Arrival {
            world: r,
            me: r,
            color: 0,
            key: k as i32,
            new,
            shape: Shape::Plain,
        };
        self.join_creation(s, r, g, Over::Group(members.to_vec(), tag), arrival, origin)
    }

    /// Checks that every world rank in `members` belongs to communicator
    /// `g` (of `size`).
    fn subset(
        &mut self,
        r: u32,
        g: u32,
        size: u32,
        members: &[u32],
        origin: &Origin,
    ) -> Result<(), Failed> {
        let set: FxHashSet<u32> = if g == 0 {
            FxHashSet::default()
        } else {
            self.comms[g as usize].members.iter().copied().collect()
        };
        let inside = |w: u32| if g == 0 { w < size } else { set.contains(&w) };
        let bad = members.iter().copied().find(|&w| !inside(w));
        match bad {
            Some(w) => Err(self.fail(
                r,
                origin,
                format!("the group names world rank {w}, which is not in the parent communicator"),
            )),
            None => Ok(()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn cart_sub(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        comm: CommId,
        remain: &[bool],
        new: CommId,
        origin: &Origin,
    ) -> Result<Next, Failed> {
        let (g, me, _) = self.resolve(r, comm, origin)?;
        let Topo::Cart { dims, periods } = &self.comms[g as usize].topo else {
            return Err(self.fail(
                r,
                origin,
                format!("communicator {} has no Cartesian topology", comm.0),
            ));
        };
        if remain.len() != dims.len() {
            let n = dims.len();
            return Err(self.fail(
                r,
                origin,
                format!("{} remain flags for a grid of {n} dimensions", remain.len()),
            ));
        }
        let coords = coords_of(dims, me);
        let mut color: i64 = 0;
        let (mut kd, mut kp) = (Vec::new(), Vec::new());
        for (d, &keep) in remain.iter().enumerate() {
            if keep {
                kd.push(dims[d]);
                kp.push(periods[d]);
            } else {
                color = color * dims[d] as i64 + coords[d] as i64;
            }
        }
        let topo = Topo::Cart {
            dims: kd,
            periods: kp,
        };
        let color = color as i32;
        self.create(
            s,
            r,
            comm,
            (color, me as i32),
            new,
            Shape::Whole(Arc::new(topo)),
            origin,
        )
    }

    /// A member of the parent arrives at a creation over the parent.
    #[allow(clippy::too_many_arguments)]
    fn create(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        comm: CommId,
        (color, key): (i32, i32),
        new: CommId,
        shape: Shape,
        origin: &Origin,
    ) -> Result<Next, Failed> {
        let (g, me, _) = self.resolve(r, comm, origin)?;
        let arrival = Arrival {
            world: r,
            me,
            color,
            key,
            new,
            shape,
        };
        self.join_creation(s, r, g, Over::Parent, arrival, origin)
    }

    fn join_creation(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        g: u32,
        over: Over,
        arrival: Arrival,
        origin: &Origin,
    ) -> Result<Next, Failed> {
        if arrival.new == CommId::WORLD && arrival.color >= 0 {
            return Err(self.fail(r, origin, "cannot redefine MPI_COMM_WORLD (id 0)".into()));
        }
        let all = match over {
            Over::Parent => {
                let counter = if g == 0 {
                    &mut self.ranks[r as usize].world_creations
                } else {
                    let e = self.ranks[r as usize]
                        .comms
                        .iter_mut()
                        .rev()
                        .find(|e| e.global == g)
                        .expect("resolved");
                    &mut e.creations
                };
                let seq = *counter;
                *counter += 1;
                let size = self.comms[g as usize].size as usize;
                let pending = self.creates.entry((g, seq)).or_default();
                let mut arrival = arrival;
                // A graph's or grid's lists once per creation, not per rank.
                if let (
                    Shape::Whole(t),
                    Some(Arrival {
                        shape: Shape::Whole(u),
                        ..
                    }),
                ) = (&arrival.shape, pending.arrived.last())
                {
                    if t == u {
                        arrival.shape = Shape::Whole(u.clone());
                    }
                }
                pending.arrived.push(arrival);
                if pending.arrived.len() < size {
                    return Ok(self.block(r, Resume::Nothing, 0));
                }
                self.creates.remove(&(g, seq)).expect("pending").arrived
            }
            Over::Group(members, tag) => {
                let n = members.len();
                let key = (g, tag, members);
                let pending = self.group_creates.entry(key.clone()).or_default();
                pending.arrived.push(arrival);
                if pending.arrived.len() < n {
                    return Ok(self.block(r, Resume::Nothing, 0));
                }
                self.group_creates.remove(&key).expect("pending").arrived
            }
        };
        self.finish_creation(s, r, all, origin)
    }

    /// The last member arrived: builds the new communicators and wakes
    /// every member.
    fn finish_creation(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        mut all: Vec<Arrival>,
        origin: &Origin,
    ) -> Result<Next, Failed> {
        // Ranks of the new communicators: by (color, key, parent rank).
        all.sort_by_key(|a| (a.color, a.key, a.me));
        let mut i = 0;
        while i < all.len() {
            let c = all[i].color;
            let j = i + all[i..].iter().take_while(|x| x.color == c).count();
            if c >= 0 {
                let class = &all[i..j];
                let topo = topology(class).map_err(|m| self.fail(r, origin, m.to_string()))?;
                let members: Vec<u32> = class.iter().map(|x| x.world).collect();
                let global = self.comms.len() as u32;
                for (k, a) in class.iter().enumerate() {
                    self.ranks[a.world as usize].comms.push(CommEntry {
                        id: a.new,
                        global,
                        me: k as u32,
                        creations: 0,
                        colls: 0,
                    });
                }
                self.comms.push(Comm {
                    size: members.len() as u32,
                    members,
                    topo,
                });
            }
            i = j;
        }
        let now = s.now();
        for a in &all {
            self.push_local(s, now, Loc::Wake(a.world));
        }
        Ok(self.block(r, Resume::Nothing, 0))
    }
}

/// Ranks that created a group from different groups of members.
#[derive(Debug, thiserror::Error)]
#[error(
    "the ranks of a group of {size} called the creation, but {agree} ranks agree on it (groups must be the same or disjoint)"
)]
struct GroupMismatch {
    /// The size of the group the first rank gave.
    size: u32,
    /// How many ranks arrived with the same group.
    agree: usize,
}

/// The topology of a new communicator from its members' arrivals (in
/// new rank order), or what is inconsistent.
fn topology(class: &[Arrival]) -> Result<Topo, GroupMismatch> {
    let n = class.len();
    Ok(match &class[0].shape {
        Shape::Plain => Topo::None,
        Shape::Group(size) => {
            if *size as usize != n {
                return Err(GroupMismatch {
                    size: *size,
                    agree: n,
                });
            }
            Topo::None
        }
        Shape::Whole(t) => Topo::clone(t),
        Shape::Adjacent(..) => Topo::Dist(
            class
                .iter()
                .map(|a| match &a.shape {
                    Shape::Adjacent(src, dst) => (src.clone(), dst.clone()),
                    _ => Default::default(),
                })
                .collect(),
        ),
        Shape::Edges(_) => {
            let mut adj = vec![(Vec::new(), Vec::new()); n];
            for a in class {
                if let Shape::Edges(edges) = &a.shape {
                    for &(src, dst) in edges {
                        adj[src as usize].1.push(dst);
                        adj[dst as usize].0.push(src);
                    }
                }
            }
            Topo::Dist(adj)
        }
    })
}

/// The members of `g` at `picked` (in that order), or all but them (in
/// `g`'s order).
fn select(g: &[u32], picked: &[u32], incl: bool) -> Vec<u32> {
    if incl {
        picked.iter().map(|&i| g[i as usize]).collect()
    } else {
        (0..g.len() as u32)
            .filter(|i| !picked.contains(i))
            .map(|i| g[i as usize])
            .collect()
    }
}

/// A range of `MPI_Group_range_incl`/`excl` refused.
#[derive(Debug, thiserror::Error)]
enum RangeError {
    /// A stride of 0.
    #[error("range ({first}, {last}, 0) has a zero stride")]
    ZeroStride { first: i32, last: i32 },
    /// A position outside the group.
    #[error("range ({first}, {last}, {stride}) leaves the group (size {n})")]
    Leaves {
        first: i32,
        last: i64,
        stride: i64,
        n: usize,
    },
}

/// The positions ranges `(first, last, stride)` enumerate, range after
/// range, in a group of `n`.
fn expand_ranges(ranges: &[[i32; 3]], n: usize) -> Result<Vec<u32>, RangeError> {
    let mut out = Vec::new();
    for &[first, last, stride] in ranges {
        if stride == 0 {
            return Err(RangeError::ZeroStride { first, last });
        }
        let (mut x, last, stride) = (first as i64, last as i64, stride as i64);
        while (stride > 0 && x <= last) || (stride < 0 && x >= last) {
            if x < 0 || x as usize >= n {
                return Err(RangeError::Leaves {
                    first,
                    last,
                    stride,
                    n,
                });
            }
            out.push(x as u32);
            x += stride;
        }
    }
    Ok(out)
}
