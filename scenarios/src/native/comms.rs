//! The native format's group, communicator-constructor, topology and
//! neighbour-collective lines (see `scenarios/TRACE-FORMAT.md`): parsed
//! and written here so that `native.rs` keeps the point-to-point and
//! collective vocabulary.

use mpi_layer::{CommId, GroupId, Op, Rank};

use super::{FieldError, Fields};
use crate::text::parse_int;

impl Fields<'_> {
    fn group(&mut self, key: &str) -> Result<GroupId, FieldError> {
        Ok(GroupId(self.int(key)?))
    }

    fn new_comm(&mut self) -> Result<CommId, FieldError> {
        Ok(CommId(self.int("new")?))
    }

    fn ints<T: std::str::FromStr>(&mut self, key: &str) -> Result<Vec<T>, FieldError> {
        let v = self.req(key)?;
        if v.is_empty() {
            return Ok(Vec::new());
        }
        Ok(v.split(',')
            .map(|t| parse_int(t, key))
            .collect::<Result<_, _>>()?)
    }

    fn flags(&mut self, key: &str) -> Result<Vec<bool>, FieldError> {
        self.ints::<u8>(key)?
            .into_iter()
            .map(|x| match x {
                0 => Ok(false),
                1 => Ok(true),
                _ => Err(FieldError::Flag {
                    key: key.into(),
                    value: x,
                }),
            })
            .collect()
    }

    /// `a:b:c,...` or `a:b,...` tuples of `n` integers.
    fn tuples<T: std::str::FromStr + Copy + Default, const N: usize>(
        &mut self,
        key: &str,
    ) -> Result<Vec<[T; N]>, FieldError> {
        let v = self.req(key)?;
        if v.is_empty() {
            return Ok(Vec::new());
        }
        v.split(',')
            .map(|t| {
                let parts: Vec<&str> = t.split(':').collect();
                if parts.len() != N {
                    return Err(FieldError::Tuple {
                        key: key.into(),
                        n: N,
                        entry: t.into(),
                    });
                }
                let mut out = [T::default(); N];
                for (o, p) in out.iter_mut().zip(parts) {
                    *o = parse_int(p, key)?;
                }
                Ok(out)
            })
            .collect()
    }
}

/// The operation a communicator line names, or `None` if `name` is not
/// one of these lines.
pub(super) fn parse(name: &str, f: &mut Fields<'_>) -> Option<Result<Op, FieldError>> {
    parse_inner(name, f).transpose()
}

fn parse_inner(name: &str, f: &mut Fields<'_>) -> Result<Option<Op>, FieldError> {
    Ok(Some(match name {
        "comm_group" => Op::CommGroup {
            comm: f.comm()?,
            new: f.group("new")?,
        },
        "group_incl" | "group_excl" => {
            let (group, ranks, new) = (f.group("group")?, f.ints("ranks")?, f.group("new")?);
            if name == "group_incl" {
                Op::GroupIncl { group, ranks, new }
            } else {
                Op::GroupExcl { group, ranks, new }
            }
        }
        "group_range_incl" | "group_range_excl" => {
            let group = f.group("group")?;
            let ranges = f.tuples::<i32, 3>("ranges")?;
            let new = f.group("new")?;
            if name == "group_range_incl" {
                Op::GroupRangeIncl { group, ranges, new }
            } else {
                Op::GroupRangeExcl { group, ranges, new }
            }
        }
        "group_union" | "group_intersection" | "group_difference" => {
            let (a, b, new) = (f.group("a")?, f.group("b")?, f.group("new")?);
            match name {
                "group_union" => Op::GroupUnion { a, b, new },
                "group_intersection" => Op::GroupIntersection { a, b, new },
                _ => Op::GroupDifference { a, b, new },
            }
        }
        "group_free" => Op::GroupFree {
            group: f.group("group")?,
        },
        "comm_create" => Op::CommCreate {
            comm: f.comm()?,
            group: f.group("group")?,
            new: f.new_comm()?,
        },
        "comm_create_group" => Op::CommCreateGroup {
            comm: f.comm()?,
            group: f.group("group")?,
            tag: f.int("tag")?,
            new: f.new_comm()?,
        },
        "comm_free" => Op::CommFree {
            comm: CommId(f.int("comm")?),
        },
        "cart_create" => {
            let op = Op::CartCreate {
                comm: f.comm()?,
                dims: f.ints("dims")?,
                periods: f.flags("periods")?,
                new: f.new_comm()?,
            };
            // Accepted and ignored: netsim never reorders.
            if let Some(r) = f.opt("reorder") {
                if r != "0" && r != "1" {
                    return Err(FieldError::Reorder(r.into()));
                }
            }
            op
        }
        "cart_sub" => Op::CartSub {
            comm: f.comm()?,
            remain: f.flags("remain")?,
            new: f.new_comm()?,
        },
        "graph_create" => Op::GraphCreate {
            comm: f.comm()?,
            index: f.ints("index")?,
            edges: f.ints("edges")?,
            new: f.new_comm()?,
        },
        "dist_graph_adjacent" => Op::DistGraphAdjacent {
            comm: f.comm()?,
            sources: f.ints("sources")?,
            destinations: f.ints("destinations")?,
            new: f.new_comm()?,
        },
        "dist_graph" => Op::DistGraph {
            comm: f.comm()?,
            edges: f.tuples::<Rank, 2>("edges")?,
            new: f.new_comm()?,
        },
        "neighbor_allgather" => Op::NeighborAllgather {
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
        },
        "neighbor_alltoall" => Op::NeighborAlltoall {
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
        },
        "neighbor_alltoallv" => Op::NeighborAlltoallv {
            send: f.list("send")?,
            comm: f.comm()?,
        },
        _ => return Ok(None),
    }))
}

/// The line of a communicator operation, or `None` for other operations.
pub(super) fn format(op: &Op) -> Option<String> {
    fn comm(c: CommId) -> String {
        if c == CommId::WORLD {
            String::new()
        } else {
            format!(" comm={}", c.0)
        }
    }
    fn list<T: std::fmt::Display>(v: &[T]) -> String {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }
    fn tuples<T: std::fmt::Display, const N: usize>(v: &[[T; N]]) -> String {
        v.iter()
            .map(|t| list(t).replace(',', ":"))
            .collect::<Vec<_>>()
            .join(",")
    }
    fn flags(v: &[bool]) -> String {
        list(&v.iter().map(|&b| b as u8).collect::<Vec<_>>())
    }
    Some(match op {
        Op::CommGroup { comm: c, new } => format!("comm_group new={}{}", new.0, comm(*c)),
        Op::GroupIncl { group, ranks, new } => {
            format!(
                "group_incl group={} ranks={} new={}",
                group.0,
                list(ranks),
                new.0
            )
        }
        Op::GroupExcl { group, ranks, new } => {
            format!(
                "group_excl group={} ranks={} new={}",
                group.0,
                list(ranks),
                new.0
            )
        }
        Op::GroupRangeIncl { group, ranges, new } => format!(
            "group_range_incl group={} ranges={} new={}",
            group.0,
            tuples(ranges),
            new.0
        ),
        Op::GroupRangeExcl { group, ranges, new } => format!(
            "group_range_excl group={} ranges={} new={}",
            group.0,
            tuples(ranges),
            new.0
        ),
        Op::GroupUnion { a, b, new } => format!("group_union a={} b={} new={}", a.0, b.0, new.0),
        Op::GroupIntersection { a, b, new } => {
            format!("group_intersection a={} b={} new={}", a.0, b.0, new.0)
        }
        Op::GroupDifference { a, b, new } => {
            format!("group_difference a={} b={} new={}", a.0, b.0, new.0)
        }
        Op::GroupFree { group } => format!("group_free group={}", group.0),
        Op::CommCreate {
            comm: c,
            group,
            new,
        } => format!("comm_create group={} new={}{}", group.0, new.0, comm(*c)),
        Op::CommCreateGroup {
            comm: c,
            group,
            tag,
            new,
        } => format!(
            "comm_create_group group={} tag={tag} new={}{}",
            group.0,
            new.0,
            comm(*c)
        ),
        Op::CommFree { comm: c } => format!("comm_free comm={}", c.0),
        Op::CartCreate {
            comm: c,
            dims,
            periods,
            new,
        } => format!(
            "cart_create dims={} periods={} new={}{}",
            list(dims),
            flags(periods),
            new.0,
            comm(*c)
        ),
        Op::CartSub {
            comm: c,
            remain,
            new,
        } => format!(
            "cart_sub remain={} new={}{}",
            flags(remain),
            new.0,
            comm(*c)
        ),
        Op::GraphCreate {
            comm: c,
            index,
            edges,
            new,
        } => format!(
            "graph_create index={} edges={} new={}{}",
            list(index),
            list(edges),
            new.0,
            comm(*c)
        ),
        Op::DistGraphAdjacent {
            comm: c,
            sources,
            destinations,
            new,
        } => format!(
            "dist_graph_adjacent sources={} destinations={} new={}{}",
            list(sources),
            list(destinations),
            new.0,
            comm(*c)
        ),
        Op::DistGraph {
            comm: c,
            edges,
            new,
        } => format!(
            "dist_graph edges={} new={}{}",
            tuples(edges),
            new.0,
            comm(*c)
        ),
        Op::NeighborAllgather { bytes, comm: c } => {
            format!("neighbor_allgather bytes={bytes}{}", comm(*c))
        }
        Op::NeighborAlltoall { bytes, comm: c } => {
            format!("neighbor_alltoall bytes={bytes}{}", comm(*c))
        }
        Op::NeighborAlltoallv { send, comm: c } => {
            format!("neighbor_alltoallv send={}{}", list(send), comm(*c))
        }
        _ => return None,
    })
}
