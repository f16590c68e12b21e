//! Groups, communicator constructors and topologies as recorded: which
//! operations they become. Group membership is resolved by the MPI layer
//! (only it knows each communicator's members), so a group call maps to a
//! group operation one to one; handles keep the trace's numbers, and a
//! handle freed and reused names the new object from then on (the MPI
//! layer forgets a freed id).

use mpi_layer::{CommId, GroupId, Op};

use super::{CallError, Comm, Group, RecordedCall, SetOp};

/// A communicator argument: `MPI_COMM_SELF` has no netsim communicator.
fn comm(c: Comm, call: &'static str) -> Result<CommId, CallError> {
    match c {
        Comm::Id(id) => Ok(id),
        Comm::SelfOnly => Err(CallError::SelfComm(call)),
    }
}

/// A group argument: `MPI_GROUP_NULL` is an error.
fn group(g: Group, call: &'static str) -> Result<GroupId, CallError> {
    match g {
        Group::Id(id) => Ok(id),
        Group::Null => Err(CallError::NullGroup(call)),
    }
}

/// A new group: `None` if the result names no user group
/// (`MPI_GROUP_NULL`, or `MPI_GROUP_EMPTY`, which exists already).
fn new_group(g: Group) -> Option<GroupId> {
    match g {
        Group::Id(id) if id != GroupId::EMPTY => Some(id),
        _ => None,
    }
}

/// The new communicator of a rank that gets none (`MPI_COMM_NULL`).
const NO_COMM: CommId = CommId(u32::MAX);

fn ranks(v: &[i64], what: &'static str) -> Result<Vec<u32>, CallError> {
    v.iter()
        .map(|&x| u32::try_from(x).map_err(|_| CallError::Invalid { what, value: x }))
        .collect()
}

/// Appends the operations of a group, constructor or topology call.
pub(super) fn ops(call: RecordedCall, out: &mut Vec<Op>) -> Result<(), CallError> {
    use RecordedCall as C;
    match call {
        C::CommGroup { comm: c, new } => {
            let comm = comm(c, "MPI_Comm_group")?;
            if let Some(new) = new_group(new) {
                out.push(Op::CommGroup { comm, new });
            }
        }
        C::GroupRanks {
            group: g,
            ranks: r,
            new,
            excl,
        } => {
            let name = if excl {
                "MPI_Group_excl"
            } else {
                "MPI_Group_incl"
            };
            let group = group(g, name)?;
            let ranks = ranks(&r, "rank")?;
            if let Some(new) = new_group(new) {
                out.push(if excl {
                    Op::GroupExcl { group, ranks, new }
                } else {
                    Op::GroupIncl { group, ranks, new }
                });
            }
        }
        C::GroupRanges {
            group: g,
            ranges: r,
            new,
            excl,
        } => {
            let name = if excl {
                "MPI_Group_range_excl"
            } else {
                "MPI_Group_range_incl"
            };
            let group = group(g, name)?;
            let mut ranges = Vec::with_capacity(r.len());
            for t in &r {
                let [a, b, c] = t[..] else {
                    return Err(CallError::RangeLength {
                        call: name,
                        n: t.len(),
                    });
                };
                let fit = |x: i64| i32::try_from(x).map_err(|_| CallError::InvalidRange(name));
                ranges.push([fit(a)?, fit(b)?, fit(c)?]);
            }
            if let Some(new) = new_group(new) {
                out.push(if excl {
                    Op::GroupRangeExcl { group, ranges, new }
                } else {
                    Op::GroupRangeIncl { group, ranges, new }
                });
            }
        }
        C::GroupSet { a, b, new, set } => {
            let name = match set {
                SetOp::Union => "MPI_Group_union",
                SetOp::Intersection => "MPI_Group_intersection",
                SetOp::Difference => "MPI_Group_difference",
            };
            let (a, b) = (group(a, name)?, group(b, name)?);
            if let Some(new) = new_group(new) {
                out.push(match set {
                    SetOp::Union => Op::GroupUnion { a, b, new },
                    SetOp::Intersection => Op::GroupIntersection { a, b, new },
                    SetOp::Difference => Op::GroupDifference { a, b, new },
                });
            }
        }
        C::GroupFree { group } => {
            if let Some(group) = new_group(group) {
                out.push(Op::GroupFree { group });
            }
        }
        C::CommCreate {
            comm: c,
            group: g,
            new,
        } => out.push(Op::CommCreate {
            comm: comm(c, "MPI_Comm_create")?,
            group: group(g, "MPI_Comm_create")?,
            new: new.unwrap_or(NO_COMM),
        }),
        C::CommFree { comm: c } => match c {
            Some(Comm::Id(id)) if id != CommId::WORLD => out.push(Op::CommFree { comm: id }),
            Some(_) => return Err(CallError::FreePredefined),
            None => {}
        },
        C::CartCreate {
            comm: c,
            dims,
            periods,
            new,
        } => out.push(Op::CartCreate {
            comm: comm(c, "MPI_Cart_create")?,
            dims: ranks(&dims, "dimension")?,
            periods: periods.iter().map(|&p| p != 0).collect(),
            new: new.unwrap_or(NO_COMM),
        }),
        C::CartSub {
            comm: c,
            remain,
            new,
        } => out.push(Op::CartSub {
            comm: comm(c, "MPI_Cart_sub")?,
            remain: remain.iter().map(|&p| p != 0).collect(),
            new: new.unwrap_or(NO_COMM),
        }),
        C::GraphCreate {
            comm: c,
            index,
            edges,
            new,
        } => out.push(Op::GraphCreate {
            comm: comm(c, "MPI_Graph_create")?,
            index: ranks(&index, "index")?,
            edges: ranks(&edges, "edge")?,
            new: new.unwrap_or(NO_COMM),
        }),
        C::Unsupported { why } => return Err(CallError::Unsupported(why)),
        _ => unreachable!("not a communicator call"),
    }
    Ok(())
}
