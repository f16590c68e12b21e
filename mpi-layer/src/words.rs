//! Operations in MPI's words, for messages a user reads (deadlock
//! reports, errors): `MPI_Waitall(requests 2, 3)` rather than the Rust
//! form `Waitall { reqs: [ReqId(2), ReqId(3)] }`.

use crate::op::{CommId, GroupId, Op, ReqId, Source, TagSel};
use std::fmt::{self, Display, Formatter};

/// Lists longer than this show their first entries and the count.
const SHOWN: usize = 8;

/// `a, b, c` (at most [`SHOWN`] entries, then `... (n in all)`).
fn list<T: Display>(items: &[T]) -> String {
    let mut s: Vec<String> = items.iter().take(SHOWN).map(T::to_string).collect();
    if items.len() > SHOWN {
        s.push(format!("... ({} in all)", items.len()));
    }
    s.join(", ")
}

impl Display for CommId {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if *self == CommId::WORLD {
            f.write_str("MPI_COMM_WORLD")
        } else {
            write!(f, "comm {}", self.0)
        }
    }
}

impl Display for GroupId {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if *self == GroupId::EMPTY {
            f.write_str("MPI_GROUP_EMPTY")
        } else {
            write!(f, "group {}", self.0)
        }
    }
}

impl Display for ReqId {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Display for Source {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Source::Rank(r) => write!(f, "source {r}"),
            Source::Any => f.write_str("MPI_ANY_SOURCE"),
        }
    }
}

impl Display for TagSel {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TagSel::Tag(t) => write!(f, "tag {t}"),
            TagSel::Any => f.write_str("MPI_ANY_TAG"),
        }
    }
}

/// `[a, b, c]` of plain numbers.
fn nums<T: Display>(v: &[T]) -> String {
    format!("[{}]", list(v))
}

impl Display for Op {
    /// The call as an MPI programmer would write it in a report: the
    /// function's name, then its arguments in words (sizes in bytes).
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Op::Send {
                dst,
                tag,
                bytes,
                comm,
            } => {
                write!(f, "MPI_Send(dest {dst}, tag {tag}, {bytes} B, {comm})")
            }
            Op::Recv {
                src,
                tag,
                bytes,
                comm,
            } => {
                write!(f, "MPI_Recv({src}, {tag}, {bytes} B, {comm})")
            }
            Op::Isend {
                dst,
                tag,
                bytes,
                comm,
                req,
            } => write!(
                f,
                "MPI_Isend(dest {dst}, tag {tag}, {bytes} B, {comm}, request {req})"
            ),
            Op::Irecv {
                src,
                tag,
                bytes,
                comm,
                req,
            } => {
                write!(
                    f,
                    "MPI_Irecv({src}, {tag}, {bytes} B, {comm}, request {req})"
                )
            }
            Op::Wait { req } => write!(f, "MPI_Wait(request {req})"),
            Op::Waitall { reqs } => write!(f, "MPI_Waitall(requests {})", list(reqs)),
            Op::WaitallPending => f.write_str("MPI_Waitall(every pending request)"),
            Op::Waitany { reqs } => write!(f, "MPI_Waitany(requests {})", list(reqs)),
            Op::Test { req } => write!(f, "MPI_Test(request {req})"),
            Op::Sendrecv {
                dst,
                send_tag,
                send_bytes,
                src,
                recv_tag,
                recv_bytes,
                comm,
            } => write!(
                f,
                "MPI_Sendrecv(dest {dst}, tag {send_tag}, {send_bytes} B; {src}, {recv_tag}, \
                 {recv_bytes} B; {comm})"
            ),
            Op::Compute { duration } => write!(f, "compute {duration}"),
            Op::Sleep { duration } => write!(f, "sleep {duration}"),
            Op::RegionBegin { id } => write!(f, "region {id} begin"),
            Op::RegionEnd { id } => write!(f, "region {id} end"),
            Op::Barrier { comm } => write!(f, "MPI_Barrier({comm})"),
            Op::Bcast {
                root, bytes, comm, ..
            } => {
                write!(f, "MPI_Bcast({bytes} B, root {root}, {comm})")
            }
            Op::Reduce {
                root, bytes, comm, ..
            } => {
                write!(f, "MPI_Reduce({bytes} B, root {root}, {comm})")
            }
            Op::Allreduce { bytes, comm, .. } => write!(f, "MPI_Allreduce({bytes} B, {comm})"),
            Op::Scan {
                bytes,
                comm,
                exclusive,
            } => {
                let name = if *exclusive { "MPI_Exscan" } else { "MPI_Scan" };
                write!(f, "{name}({bytes} B, {comm})")
            }
            Op::Gather { root, bytes, comm } => {
                write!(f, "MPI_Gather({bytes} B, root {root}, {comm})")
            }
            Op::Gatherv { root, counts, comm } => {
                write!(
                    f,
                    "MPI_Gatherv(bytes {}, root {root}, {comm})",
                    nums(counts)
                )
            }
            Op::Scatter { root, bytes, comm } => {
                write!(f, "MPI_Scatter({bytes} B, root {root}, {comm})")
            }
            Op::Scatterv { root, counts, comm } => {
                write!(
                    f,
                    "MPI_Scatterv(bytes {}, root {root}, {comm})",
                    nums(counts)
                )
            }
            Op::Allgather { bytes, comm } => write!(f, "MPI_Allgather({bytes} B, {comm})"),
            Op::Allgatherv { counts, comm } => {
                write!(f, "MPI_Allgatherv(bytes {}, {comm})", nums(counts))
            }
            Op::Alltoall { bytes, comm } => write!(f, "MPI_Alltoall({bytes} B, {comm})"),
            Op::Alltoallv { send, recv, comm } => write!(
                f,
                "MPI_Alltoallv(send bytes {}, receive bytes {}, {comm})",
                nums(send),
                nums(recv)
            ),
            Op::ReduceScatter { counts, comm, .. } => {
                write!(f, "MPI_Reduce_scatter(bytes {}, {comm})", nums(counts))
            }
            Op::CommDup { comm, new } => write!(f, "MPI_Comm_dup({comm}) -> {new}"),
            Op::CommSplit {
                comm,
                color,
                key,
                new,
            } => {
                write!(
                    f,
                    "MPI_Comm_split({comm}, color {color}, key {key}) -> {new}"
                )
            }
            Op::CommGroup { comm, new } => write!(f, "MPI_Comm_group({comm}) -> {new}"),
            Op::GroupIncl {
                group,
                ranks: r,
                new,
            } => {
                write!(f, "MPI_Group_incl({group}, ranks {}) -> {new}", nums(r))
            }
            Op::GroupExcl {
                group,
                ranks: r,
                new,
            } => {
                write!(f, "MPI_Group_excl({group}, ranks {}) -> {new}", nums(r))
            }
            Op::GroupRangeIncl { group, ranges, new } => write!(
                f,
                "MPI_Group_range_incl({group}, {} ranges) -> {new}",
                ranges.len()
            ),
            Op::GroupRangeExcl { group, ranges, new } => write!(
                f,
                "MPI_Group_range_excl({group}, {} ranges) -> {new}",
                ranges.len()
            ),
            Op::GroupUnion { a, b, new } => write!(f, "MPI_Group_union({a}, {b}) -> {new}"),
            Op::GroupIntersection { a, b, new } => {
                write!(f, "MPI_Group_intersection({a}, {b}) -> {new}")
            }
            Op::GroupDifference { a, b, new } => {
                write!(f, "MPI_Group_difference({a}, {b}) -> {new}")
            }
            Op::GroupFree { group } => write!(f, "MPI_Group_free({group})"),
            Op::CommCreate { comm, group, new } => {
                write!(f, "MPI_Comm_create({comm}, {group}) -> {new}")
            }
            Op::CommCreateGroup {
                comm,
                group,
                tag,
                new,
            } => {
                write!(
                    f,
                    "MPI_Comm_create_group({comm}, {group}, tag {tag}) -> {new}"
                )
            }
            Op::CommFree { comm } => write!(f, "MPI_Comm_free({comm})"),
            Op::CartCreate {
                comm,
                dims,
                periods,
                new,
            } => write!(
                f,
                "MPI_Cart_create({comm}, dims {}, periods {}) -> {new}",
                nums(dims),
                nums(periods)
            ),
            Op::CartSub { comm, remain, new } => {
                write!(f, "MPI_Cart_sub({comm}, remain {}) -> {new}", nums(remain))
            }
            Op::GraphCreate {
                comm, index, new, ..
            } => {
                write!(
                    f,
                    "MPI_Graph_create({comm}, {} nodes) -> {new}",
                    index.len()
                )
            }
            Op::DistGraphAdjacent {
                comm,
                sources,
                destinations,
                new,
            } => write!(
                f,
                "MPI_Dist_graph_create_adjacent({comm}, sources {}, destinations {}) -> {new}",
                nums(sources),
                nums(destinations)
            ),
            Op::DistGraph { comm, edges, new } => {
                write!(
                    f,
                    "MPI_Dist_graph_create({comm}, {} edges) -> {new}",
                    edges.len()
                )
            }
            Op::NeighborAllgather { bytes, comm } => {
                write!(f, "MPI_Neighbor_allgather({bytes} B, {comm})")
            }
            Op::NeighborAlltoall { bytes, comm } => {
                write!(f, "MPI_Neighbor_alltoall({bytes} B, {comm})")
            }
            Op::NeighborAlltoallv { send, comm } => write!(
                f,
                "MPI_Neighbor_alltoallv(send bytes {}, {comm})",
                nums(send)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::Time;

    #[test]
    fn calls_read_as_mpi() {
        let w = CommId::WORLD;
        let cases: Vec<(Op, &str)> = vec![
            (
                Op::Waitall {
                    reqs: vec![ReqId(2), ReqId(3)],
                },
                "MPI_Waitall(requests 2, 3)",
            ),
            (
                Op::Recv {
                    src: Source::Any,
                    tag: TagSel::Tag(5),
                    bytes: 8,
                    comm: w,
                },
                "MPI_Recv(MPI_ANY_SOURCE, tag 5, 8 B, MPI_COMM_WORLD)",
            ),
            (
                Op::Isend {
                    dst: 3,
                    tag: 0,
                    bytes: 1024,
                    comm: CommId(4),
                    req: ReqId(7),
                },
                "MPI_Isend(dest 3, tag 0, 1024 B, comm 4, request 7)",
            ),
            (
                Op::Scan {
                    bytes: 8,
                    comm: w,
                    exclusive: true,
                },
                "MPI_Exscan(8 B, MPI_COMM_WORLD)",
            ),
            (
                Op::Compute {
                    duration: Time::from_ns(1500),
                },
                "compute 1.500 us",
            ),
            (
                Op::Waitany {
                    reqs: (0..10).map(ReqId).collect(),
                },
                "MPI_Waitany(requests 0, 1, 2, 3, 4, 5, 6, 7, ... (10 in all))",
            ),
        ];
        for (op, want) in cases {
            assert_eq!(op.to_string(), want);
        }
    }
}
