//! How a record's decoded arguments read as a [`RecordedCall`]
//! (`recorded_call`), by the function's [`Role`] (the call table of
//! every function, its layout and role, is `table.rs`).
//!
//! The `as` casts here do not truncate: the decoder reads an `s` field
//! (communicator, group, datatype) and a `D` array element as u16, an
//! `i` field and an `A`/`R` element as a u32 sign-extended through i32,
//! so a handle fits u16, a tag, color or key fits i32, a rank read as
//! non-negative fits u32, and a request's u32 bits come back unchanged.
//! The test `casts_follow_the_decoders_field_widths` checks every
//! position read here against the call table.

use mpi_layer::{CommId, GroupId, ReqId, TagSel};

use crate::recorded::{Comm, Count, Datatype, Group, Peer, RecordedCall, SetOp};

pub use super::table::{NUM_FUNCTIONS, Role, function_name};

/// An argument as a record holds it, read by the decoder following the
/// function's layout.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    /// An integer or handle.
    I(i64),
    /// An array of integers or handles.
    A(Vec<i64>),
    /// An array of integer arrays (`Group_range_*`'s ranges).
    G(Vec<Vec<i64>>),
    /// A field read past (statuses, strings, ...).
    Skip,
}

impl Val {
    /// The integer. The call table fixes which field is an integer, so
    /// another kind here is a bug of the table, not of the trace.
    pub(crate) fn i(&self) -> i64 {
        match self {
            Val::I(v) => *v,
            other => unreachable!("the call table reads {other:?} as an integer"),
        }
    }
    /// The array (empty for an integer or a skipped field).
    pub(crate) fn a(&self) -> &[i64] {
        match self {
            Val::A(v) => v,
            _ => &[],
        }
    }
}

const COMM_WORLD: u16 = 2;
const COMM_SELF: u16 = 3;
const FIRST_USER_COMM: u16 = 4;
const REQUEST_NULL: u32 = 1;
/// `MPI_ANY_SOURCE` and `MPI_ANY_TAG` in DUMPI's numbering.
const ANY: i64 = -1;

const COMM_NULL: u16 = 1;
const GROUP_NULL: u16 = 1;
const GROUP_EMPTY: u16 = 2;

/// A communicator a call creates: `None` for `MPI_COMM_NULL`.
fn new_comm(v: &Val) -> Option<CommId> {
    match v.i() as u16 {
        x if x >= FIRST_USER_COMM || x == COMM_WORLD => Some(CommId(u32::from(x))),
        _ => None,
    }
}

/// A handle argument that names no group or communicator; the reader
/// adds the file and record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum HandleError {
    /// Not a group handle.
    #[error("invalid group {0}")]
    Group(u16),
    /// Not a communicator handle.
    #[error("invalid communicator {0}")]
    Comm(u16),
    /// A subarray type of more elements than 64 bits count (its
    /// number of dimensions).
    #[error("subarray of {0} dimensions: its sizes multiply to more than 2^64 - 1 elements")]
    SubarrayOverflow(usize),
}

fn group(v: &Val) -> Result<Group, HandleError> {
    match v.i() as u16 {
        GROUP_NULL => Ok(Group::Null),
        GROUP_EMPTY => Ok(Group::Id(GroupId::EMPTY)),
        x if x > GROUP_EMPTY => Ok(Group::Id(GroupId(u32::from(x)))),
        x => Err(HandleError::Group(x)),
    }
}

fn comm(v: &Val) -> Result<Comm, HandleError> {
    match v.i() as u16 {
        COMM_WORLD => Ok(Comm::Id(CommId::WORLD)),
        COMM_SELF => Ok(Comm::SelfOnly),
        x if x >= FIRST_USER_COMM => Ok(Comm::Id(CommId(u32::from(x)))),
        x => Err(HandleError::Comm(x)),
    }
}

/// A destination: negative is `MPI_PROC_NULL` (and friends).
fn dst(v: &Val) -> Peer {
    match v.i() {
        r if r < 0 => Peer::Null,
        r => Peer::Rank(r as u32),
    }
}

/// A source: `MPI_ANY_SOURCE`, or as a destination.
fn src(v: &Val) -> Peer {
    if v.i() == ANY { Peer::Any } else { dst(v) }
}

fn tag_sel(v: &Val) -> TagSel {
    match v.i() {
        ANY => TagSel::Any,
        t => TagSel::Tag(t as i32),
    }
}

fn count(n: &Val, d: &Val) -> Count {
    Count {
        count: n.i(),
        datatype: Datatype(d.i() as u16),
    }
}

fn counts(ns: &Val, d: &Val) -> Vec<Count> {
    ns.a().iter().map(|&n| count(&Val::I(n), d)).collect()
}

/// Counts with a datatype each (`Alltoallw`; a missing type is 0).
fn typed_counts(ns: &Val, ds: &Val) -> Vec<Count> {
    ns.a()
        .iter()
        .enumerate()
        .map(|(i, &n)| Count {
            count: n,
            datatype: Datatype(ds.a().get(i).copied().unwrap_or(0) as u16),
        })
        .collect()
}

/// A request handle: the u32 the decoder read (sign-extended through
/// i32, so its low 32 bits are the handle).
fn handle(r: i64) -> u64 {
    u64::from(r as u32)
}

fn request(r: i64) -> Option<ReqId> {
    (handle(r) != u64::from(REQUEST_NULL) && r != 0).then_some(ReqId(handle(r)))
}

fn requests(v: &Val) -> Vec<Option<ReqId>> {
    v.a().iter().map(|&r| request(r)).collect()
}

fn datatype(v: &Val) -> Datatype {
    Datatype(v.i() as u16)
}

/// A derived type of `n` elements of one type.
fn define(new: &Val, n: i64, old: &Val) -> RecordedCall {
    RecordedCall::DefineType {
        new: datatype(new),
        blocks: vec![(n.max(0) as u64, datatype(old))],
    }
}

/// The decoded arguments `v` of a record of a function of role `role`
/// as a [`RecordedCall`]; argument positions follow [`FUNCTIONS`]'s
/// layouts. Errors: an invalid communicator handle.
pub(super) fn recorded_call(role: Role, v: &[Val]) -> Result<RecordedCall, HandleError> {
    use RecordedCall as C;
    Ok(match role {
        Role::Send => C::Send {
            comm: comm(&v[4])?,
            data: count(&v[0], &v[1]),
            dst: dst(&v[2]),
            tag: v[3].i() as i32,
        },
        Role::Isend | Role::SendInit => C::Isend {
            comm: comm(&v[4])?,
            data: count(&v[0], &v[1]),
            dst: dst(&v[2]),
            tag: v[3].i() as i32,
            req: handle(v[5].i()),
            persistent: role == Role::SendInit,
        },
        Role::Recv => C::Recv {
            comm: comm(&v[4])?,
            data: count(&v[0], &v[1]),
            src: src(&v[2]),
            tag: tag_sel(&v[3]),
        },
        Role::Irecv | Role::RecvInit => C::Irecv {
            comm: comm(&v[4])?,
            data: count(&v[0], &v[1]),
            src: src(&v[2]),
            tag: tag_sel(&v[3]),
            req: handle(v[5].i()),
            persistent: role == Role::RecvInit,
        },
        Role::Start => C::Start {
            reqs: vec![handle(v[0].i())],
        },
        Role::Startall => C::Start {
            reqs: v[1].a().iter().map(|&r| handle(r)).collect(),
        },
        Role::RequestFree => C::RequestFree {
            req: handle(v[0].i()),
        },
        Role::Sendrecv => C::Sendrecv {
            comm: comm(&v[8])?,
            send: count(&v[0], &v[1]),
            dst: dst(&v[2]),
            send_tag: v[3].i() as i32,
            recv: count(&v[4], &v[5]),
            src: src(&v[6]),
            recv_tag: tag_sel(&v[7]),
        },
        Role::SendrecvReplace => C::Sendrecv {
            comm: comm(&v[6])?,
            send: count(&v[0], &v[1]),
            dst: dst(&v[2]),
            send_tag: v[3].i() as i32,
            recv: count(&v[0], &v[1]),
            src: src(&v[4]),
            recv_tag: tag_sel(&v[5]),
        },
        Role::Wait => C::Wait {
            req: request(v[0].i()),
        },
        Role::Test => C::Test {
            req: request(v[0].i()),
        },
        Role::Waitall => C::Waitall {
            reqs: requests(&v[1]),
        },
        Role::Waitany | Role::Testany => C::Any {
            reqs: requests(&v[1]),
            index: v[2].i(),
            completed: role == Role::Waitany || v[3].i() != 0,
            wait: role == Role::Waitany,
        },
        Role::Waitsome | Role::Testsome => C::Some {
            reqs: requests(&v[1]),
            indices: v[3].a().to_vec(),
            wait: role == Role::Waitsome,
        },
        Role::Testall => C::Testall {
            reqs: requests(&v[1]),
            completed: v[2].i() != 0,
        },
        Role::Barrier => C::Barrier { comm: comm(&v[0])? },
        Role::Bcast => C::Bcast {
            comm: comm(&v[3])?,
            data: count(&v[0], &v[1]),
            root: v[2].i(),
        },
        Role::Reduce => C::Reduce {
            comm: comm(&v[4])?,
            data: count(&v[0], &v[1]),
            root: v[3].i(),
        },
        Role::Allreduce => C::Allreduce {
            comm: comm(&v[3])?,
            data: count(&v[0], &v[1]),
        },
        Role::Scan | Role::Exscan => C::Scan {
            comm: comm(&v[3])?,
            data: count(&v[0], &v[1]),
            exclusive: role == Role::Exscan,
        },
        Role::Allgather => C::Allgather {
            comm: comm(&v[4])?,
            data: count(&v[0], &v[1]),
        },
        Role::Alltoall => C::Alltoall {
            comm: comm(&v[4])?,
            data: count(&v[0], &v[1]),
        },
        Role::Allgatherv => C::Allgatherv {
            comm: comm(&v[6])?,
            counts: counts(&v[3], &v[5]),
        },
        Role::Alltoallv => C::Alltoallv {
            comm: comm(&v[7])?,
            send: counts(&v[1], &v[3]),
            recv: counts(&v[4], &v[6]),
        },
        Role::Alltoallw => C::Alltoallv {
            comm: comm(&v[7])?,
            send: typed_counts(&v[1], &v[3]),
            recv: typed_counts(&v[4], &v[6]),
        },
        Role::ReduceScatter => C::ReduceScatter {
            comm: comm(&v[4])?,
            counts: counts(&v[1], &v[2]),
        },
        Role::Gather => C::Gather {
            comm: comm(&v[4])?,
            data: count(&v[1], &v[2]),
            root: v[3].i(),
        },
        Role::Scatter => C::Scatter {
            comm: comm(&v[4])?,
            data: count(&v[1], &v[2]),
            root: v[3].i(),
        },
        // Gatherv: commrank, commsize, sendcount, sendtype, root, comm,
        // [recvcounts, displs] (at the root), recvtype.
        Role::Gatherv => C::Gatherv {
            comm: comm(&v[5])?,
            rank: v[0].i(),
            size: v[1].i(),
            own: count(&v[2], &v[3]),
            root: v[4].i(),
            at_root: counts(&v[6], &v[8]),
        },
        // Scatterv: commrank, commsize, sendtype, recvcount, recvtype,
        // root, comm, [sendcounts, displs] (at the root).
        Role::Scatterv => C::Scatterv {
            comm: comm(&v[6])?,
            rank: v[0].i(),
            size: v[1].i(),
            own: count(&v[3], &v[4]),
            root: v[5].i(),
            at_root: match v.get(7) {
                Some(sendcounts) => counts(sendcounts, &v[2]),
                None => Vec::new(),
            },
        },
        Role::CommDup => C::CommDup {
            comm: comm(&v[0])?,
            new: comm(&v[1])?,
        },
        Role::CommSplit => C::CommSplit {
            comm: comm(&v[0])?,
            color: v[1].i() as i32,
            key: v[2].i() as i32,
            new: new_comm(&v[3]),
        },
        // Comm_create: oldcomm, group, newcomm.
        Role::CommCreate => C::CommCreate {
            comm: comm(&v[0])?,
            group: group(&v[1])?,
            new: new_comm(&v[2]),
        },
        Role::CommGroup => C::CommGroup {
            comm: comm(&v[0])?,
            new: group(&v[1])?,
        },
        // Group_incl / excl: group, count, ranks, newgroup.
        Role::GroupIncl | Role::GroupExcl => C::GroupRanks {
            group: group(&v[0])?,
            ranks: v[2].a().to_vec(),
            new: group(&v[3])?,
            excl: role == Role::GroupExcl,
        },
        // Group_range_incl / excl: group, count, ranges[count][3], newgroup.
        Role::GroupRangeIncl | Role::GroupRangeExcl => C::GroupRanges {
            group: group(&v[0])?,
            ranges: match &v[2] {
                Val::G(g) => g.clone(),
                _ => Vec::new(),
            },
            new: group(&v[3])?,
            excl: role == Role::GroupRangeExcl,
        },
        Role::GroupUnion | Role::GroupIntersection | Role::GroupDifference => C::GroupSet {
            a: group(&v[0])?,
            b: group(&v[1])?,
            new: group(&v[2])?,
            set: match role {
                Role::GroupUnion => SetOp::Union,
                Role::GroupIntersection => SetOp::Intersection,
                _ => SetOp::Difference,
            },
        },
        Role::GroupFree => C::GroupFree {
            group: group(&v[0])?,
        },
        Role::CommFree => C::CommFree {
            comm: match v[0].i() as u16 {
                COMM_NULL => None,
                _ => Some(comm(&v[0])?),
            },
        },
        // Cart_create: oldcomm, ndim, dims, periods, reorder, newcomm.
        Role::CartCreate => C::CartCreate {
            comm: comm(&v[0])?,
            dims: v[2].a().to_vec(),
            periods: v[3].a().to_vec(),
            new: new_comm(&v[5]),
        },
        // Cart_sub: ndim, oldcomm, remain_dims, newcomm.
        Role::CartSub => C::CartSub {
            comm: comm(&v[1])?,
            remain: v[2].a().to_vec(),
            new: new_comm(&v[3]),
        },
        // Graph_create: numedges, oldcomm, nodes, index, edges, reorder,
        // newcomm.
        Role::GraphCreate => C::GraphCreate {
            comm: comm(&v[1])?,
            index: v[3].a().to_vec(),
            edges: v[4].a().to_vec(),
            new: new_comm(&v[6]),
        },
        Role::Intercomm => C::Unsupported {
            why: "intercommunicators are not modelled (netsim replays intracommunicators only)",
        },
        Role::TypeContiguous => define(&v[2], v[0].i(), &v[1]),
        Role::TypeVector => define(&v[4], v[0].i() * v[1].i(), &v[3]),
        Role::TypeIndexed => C::DefineType {
            new: datatype(&v[4]),
            blocks: vec![(
                v[1].a().iter().map(|&l| l.max(0) as u64).sum(),
                datatype(&v[3]),
            )],
        },
        Role::TypeIndexedBlock => define(&v[4], v[0].i() * v[1].i(), &v[3]),
        Role::TypeResized => define(&v[3], 1, &v[0]),
        Role::TypeSubarray => C::DefineType {
            new: datatype(&v[6]),
            blocks: vec![(
                v[2].a()
                    .iter()
                    .try_fold(1u64, |p, &l| p.checked_mul(l.max(0) as u64))
                    .ok_or_else(|| HandleError::SubarrayOverflow(v[2].a().len()))?,
                datatype(&v[5]),
            )],
        },
        Role::TypeStruct => C::DefineType {
            new: datatype(&v[4]),
            blocks: v[1]
                .a()
                .iter()
                .enumerate()
                .map(|(i, &l)| {
                    (
                        l.max(0) as u64,
                        Datatype(v[3].a().get(i).copied().unwrap_or(0) as u16),
                    )
                })
                .collect(),
        },
        Role::TypeDup => define(&v[1], 1, &v[0]),
        Role::Other => C::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::super::table::{layout, role};
    use super::*;

    /// The argument positions `recorded_call` casts, per role, with the
    /// layout letters whose decoded width makes the cast lossless: `s`
    /// (u16) for a handle, `D` for a datatype array, `i` (i32) for a
    /// tag, rank or request, `A`/`R` for a request array.
    fn cast_fields(role: Role) -> &'static [(usize, &'static [u8])] {
        const S: &[u8] = b"s";
        const I: &[u8] = b"i";
        const D: &[u8] = b"D";
        const R: &[u8] = b"AR";
        use Role::*;
        match role {
            Send | Recv => &[(1, S), (2, I), (3, I), (4, S)],
            Isend | SendInit | Irecv | RecvInit => &[(1, S), (2, I), (3, I), (4, S), (5, I)],
            Start | RequestFree | Wait | Test => &[(0, I)],
            Startall | Waitall | Waitany | Testany | Waitsome | Testsome | Testall => &[(1, R)],
            Sendrecv => &[(1, S), (2, I), (3, I), (5, S), (6, I), (7, I), (8, S)],
            SendrecvReplace => &[(1, S), (2, I), (3, I), (4, I), (5, I), (6, S)],
            Barrier | CommFree | GroupFree => &[(0, S)],
            Bcast | Allreduce | Scan | Exscan => &[(1, S), (3, S)],
            Reduce | Allgather | Alltoall => &[(1, S), (4, S)],
            Allgatherv => &[(5, S), (6, S)],
            Alltoallv => &[(3, S), (6, S), (7, S)],
            Alltoallw => &[(3, D), (6, D), (7, S)],
            ReduceScatter => &[(2, S), (4, S)],
            // Read by the decoder's `root_dependent`, handles as u16.
            Gather | Scatter | Gatherv | Scatterv => &[],
            CommDup | CommGroup | TypeDup => &[(0, S), (1, S)],
            CommSplit => &[(0, S), (1, I), (2, I), (3, S)],
            CommCreate | GroupUnion | GroupIntersection | GroupDifference => {
                &[(0, S), (1, S), (2, S)]
            }
            GroupIncl | GroupExcl | GroupRangeIncl | GroupRangeExcl => &[(0, S), (3, S)],
            CartCreate => &[(0, S), (5, S)],
            CartSub => &[(1, S), (3, S)],
            GraphCreate => &[(1, S), (6, S)],
            TypeContiguous => &[(1, S), (2, S)],
            TypeVector | TypeIndexed | TypeIndexedBlock => &[(3, S), (4, S)],
            TypeResized => &[(0, S), (3, S)],
            TypeSubarray => &[(5, S), (6, S)],
            TypeStruct => &[(3, D), (4, S)],
            Intercomm | Other => &[],
        }
    }

    /// The positions `recorded_call` reads as arrays (`Val::a`, which is
    /// empty for anything else): array letters in every layout, so an
    /// empty array means an empty or skipped field, never a mismatch.
    fn array_fields(role: Role) -> &'static [usize] {
        use Role::*;
        match role {
            Startall | Waitall | Waitany | Testany | Testall => &[1],
            Waitsome | Testsome => &[1, 3],
            Allgatherv => &[3],
            Alltoallv | Alltoallw => &[1, 4],
            ReduceScatter => &[1],
            GroupIncl | GroupExcl | GroupRangeIncl | GroupRangeExcl | CartSub => &[2],
            CartCreate => &[2, 3],
            GraphCreate => &[3, 4],
            TypeIndexed | TypeStruct => &[1],
            TypeSubarray => &[2],
            _ => &[],
        }
    }

    #[test]
    fn casts_follow_the_decoders_field_widths() {
        let mut checked = 0;
        for f in 0..NUM_FUNCTIONS {
            let (spec, r) = (layout(f).as_bytes(), role(f));
            if spec == b"?" {
                continue;
            }
            if matches!(
                r,
                Role::Gather | Role::Scatter | Role::Gatherv | Role::Scatterv
            ) {
                assert_eq!(spec, b"g", "{}", function_name(f));
            }
            for &(pos, ok) in cast_fields(r) {
                let got = spec.get(pos).copied();
                assert!(
                    got.is_some_and(|c| ok.contains(&c)),
                    "{} field {pos} is {:?}, the cast needs one of {:?}",
                    function_name(f),
                    got.map(char::from),
                    std::str::from_utf8(ok).unwrap()
                );
                checked += 1;
            }
        }
        assert!(checked > 150, "{checked} fields checked");
        for f in 0..NUM_FUNCTIONS {
            let spec = layout(f).as_bytes();
            for &pos in array_fields(role(f)) {
                let got = spec.get(pos).copied();
                assert!(
                    got.is_some_and(|c| b"ARDG".contains(&c)),
                    "{} field {pos} is {:?}, read as an array",
                    function_name(f),
                    got.map(char::from)
                );
            }
        }
    }

    #[test]
    fn a_subarray_of_too_many_elements_is_an_error() {
        let v = [
            Val::I(2),
            Val::A(vec![1 << 31, 1 << 31]),
            Val::A(vec![i64::from(i32::MAX); 3]),
            Val::A(vec![0; 3]),
            Val::I(0),
            Val::I(4),
            Val::I(40),
        ];
        let e = recorded_call(Role::TypeSubarray, &v).unwrap_err();
        assert_eq!(
            e.to_string(),
            "subarray of 3 dimensions: its sizes multiply to more than 2^64 - 1 elements"
        );
    }
}
