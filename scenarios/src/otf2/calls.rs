//! What OTF2's MPI records carry, as recorded calls
//! ([`RecordedCall`]): sizes in bytes, and a collective's per-rank size
//! read back from the bytes Score-P counts ([`collective`]).

use super::defs::{Otf2Error, UNDEFINED_U32};
use crate::recorded::{Comm, Count, Datatype, RecordedCall};

/// The datatype every recorded size is counted in: OTF2 records bytes.
const BYTE: Datatype = Datatype(0);

/// `n` bytes as a recorded count.
pub(super) fn bytes(n: u64) -> Result<Count, Otf2Error> {
    let count = i64::try_from(n).map_err(|_| Otf2Error::SizeTooLarge(n))?;
    Ok(Count {
        count,
        datatype: BYTE,
    })
}

/// `OTF2_CollectiveOp` values.
mod op {
    pub(super) const BARRIER: u8 = 0;
    pub(super) const BCAST: u8 = 1;
    pub(super) const GATHER: u8 = 2;
    pub(super) const GATHERV: u8 = 3;
    pub(super) const SCATTER: u8 = 4;
    pub(super) const SCATTERV: u8 = 5;
    pub(super) const ALLGATHER: u8 = 6;
    pub(super) const ALLGATHERV: u8 = 7;
    pub(super) const ALLTOALL: u8 = 8;
    pub(super) const ALLTOALLV: u8 = 9;
    pub(super) const ALLTOALLW: u8 = 10;
    pub(super) const ALLREDUCE: u8 = 11;
    pub(super) const REDUCE: u8 = 12;
    pub(super) const REDUCE_SCATTER: u8 = 13;
    pub(super) const SCAN: u8 = 14;
    pub(super) const EXSCAN: u8 = 15;
    pub(super) const REDUCE_SCATTER_BLOCK: u8 = 16;
}

/// `total` split over `n` ranks as evenly as integers allow (the first
/// ranks get the remainder).
fn split(total: u64, n: u32) -> Result<Vec<Count>, Otf2Error> {
    let n64 = u64::from(n.max(1));
    (0..n64)
        .map(|i| bytes(total / n64 + u64::from(i < total % n64)))
        .collect()
}

/// `x / d`, or `x` when `d` is 0.
fn per(x: u64, d: u32) -> u64 {
    if d == 0 { x } else { x / u64::from(d) }
}

/// The recorded call of an `MpiCollectiveEnd` at rank `me` of a
/// communicator of `n` ranks; `None` for operations that are not data
/// collectives (window and handle creation).
///
/// Score-P records, per rank, the bytes it sends and receives
/// (`scorep_mpi_coll_bytes_*`): with `b` the block size, an all-to-all
/// pattern (`Allgather`, `Alltoall`, `Allreduce`) records `n b` both ways
/// (in place: `(n - 1) b`); `Bcast` and `Scatter` `n b` sent at the root
/// and `b` received everywhere; `Gather` and `Reduce` `b` sent everywhere
/// and `n b` received at the root; `Scan` `(n - me) b` sent; `Exscan`
/// `me b` received. The size per rank is read back from those; the
/// vector forms record only totals, which are split evenly over the
/// ranks (an approximation: the per-rank counts are not in the trace).
pub fn collective(
    op: u8,
    comm: Comm,
    me: u32,
    n: u32,
    root: u32,
    sent: u64,
    received: u64,
) -> Result<Option<RecordedCall>, Otf2Error> {
    let rooted = || -> Result<i64, Otf2Error> {
        if root == UNDEFINED_U32 {
            return Err(Otf2Error::NoRoot(op));
        }
        if root >= n {
            return Err(Otf2Error::RootOutside { root, size: n });
        }
        Ok(i64::from(root))
    };
    // All-to-all patterns: n blocks, or n - 1 in place.
    let block = |x: u64| {
        if n > 1 && x % u64::from(n) != 0 && x % u64::from(n - 1) == 0 {
            x / u64::from(n - 1)
        } else {
            per(x, n)
        }
    };
    let at_root = |r: i64| me as i64 == r;
    Ok(Some(match op {
        op::BARRIER => RecordedCall::Barrier { comm },
        op::BCAST => {
            let root = rooted()?;
            RecordedCall::Bcast {
                data: bytes(if at_root(root) && received == 0 {
                    per(sent, n)
                } else {
                    received
                })?,
                root,
                comm,
            }
        }
        op::SCATTER => {
            let root = rooted()?;
            let b = if at_root(root) && received == 0 {
                per(sent, n.saturating_sub(1))
            } else {
                received
            };
            RecordedCall::Scatter {
                data: bytes(b)?,
                root,
                comm,
            }
        }
        op::GATHER | op::REDUCE => {
            let root = rooted()?;
            let b = if at_root(root) && sent == 0 {
                per(received, n.saturating_sub(1))
            } else {
                sent
            };
            let data = bytes(b)?;
            if op == op::GATHER {
                RecordedCall::Gather { data, root, comm }
            } else {
                RecordedCall::Reduce { data, root, comm }
            }
        }
        op::GATHERV | op::SCATTERV => {
            let root = rooted()?;
            let (own, total) = if op == op::GATHERV {
                (sent, received)
            } else {
                (received, sent)
            };
            let (rank, size, own) = (i64::from(me), i64::from(n), bytes(own)?);
            let at_root = if at_root(root) {
                split(total, n)?
            } else {
                Vec::new()
            };
            if op == op::GATHERV {
                RecordedCall::Gatherv {
                    rank,
                    size,
                    own,
                    root,
                    at_root,
                    comm,
                }
            } else {
                RecordedCall::Scatterv {
                    rank,
                    size,
                    own,
                    root,
                    at_root,
                    comm,
                }
            }
        }
        op::ALLGATHER => RecordedCall::Allgather {
            data: bytes(block(sent))?,
            comm,
        },
        op::ALLTOALL => RecordedCall::Alltoall {
            data: bytes(block(sent))?,
            comm,
        },
        op::ALLREDUCE => RecordedCall::Allreduce {
            data: bytes(block(sent))?,
            comm,
        },
        op::ALLGATHERV => RecordedCall::Allgatherv {
            counts: split(received, n)?,
            comm,
        },
        op::ALLTOALLV | op::ALLTOALLW => RecordedCall::Alltoallv {
            send: split(sent, n)?,
            recv: split(received, n)?,
            comm,
        },
        op::REDUCE_SCATTER | op::REDUCE_SCATTER_BLOCK => RecordedCall::ReduceScatter {
            counts: split(sent, n)?,
            comm,
        },
        op::SCAN => RecordedCall::Scan {
            data: bytes(per(sent, n.saturating_sub(me)))?,
            comm,
            exclusive: false,
        },
        op::EXSCAN => RecordedCall::Scan {
            data: bytes(if me > 0 {
                per(received, me)
            } else {
                per(sent, n.saturating_sub(1))
            })?,
            comm,
            exclusive: true,
        },
        _ => return Ok(None),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpi_layer::CommId;

    #[test]
    fn collective_sizes_per_rank_from_scorep_counts() {
        let c = Comm::Id(CommId::WORLD);
        let call = |op, me, root, sent, received| {
            collective(op, c, me, 10, root, sent, received)
                .unwrap()
                .unwrap()
        };
        let four = bytes(4).unwrap();
        // The sample's records: Allreduce sent 40 (10 ranks x 4 B); Bcast at
        // root 0 sent 40, received 4; Gather at root received 40, sent 4;
        // Scatter at a non-root received 4.
        assert_eq!(
            call(op::ALLREDUCE, 3, UNDEFINED_U32, 40, 40),
            RecordedCall::Allreduce {
                data: four,
                comm: c
            }
        );
        assert_eq!(
            call(op::BCAST, 0, 0, 40, 4),
            RecordedCall::Bcast {
                data: four,
                root: 0,
                comm: c
            }
        );
        assert_eq!(
            call(op::GATHER, 0, 0, 4, 40),
            RecordedCall::Gather {
                data: four,
                root: 0,
                comm: c
            }
        );
        assert_eq!(
            call(op::SCATTER, 5, 0, 0, 4),
            RecordedCall::Scatter {
                data: four,
                root: 0,
                comm: c
            }
        );
        // In place: Allgather records (n - 1) blocks: 36 = 9 x 4.
        assert_eq!(
            call(op::ALLGATHER, 5, UNDEFINED_U32, 36, 36),
            RecordedCall::Allgather {
                data: four,
                comm: c
            }
        );
        // Scan at rank 3 sends (10 - 3) blocks.
        assert_eq!(
            call(op::SCAN, 3, UNDEFINED_U32, 28, 16),
            RecordedCall::Scan {
                data: four,
                comm: c,
                exclusive: false
            }
        );
        assert!(
            collective(op::BCAST, c, 0, 10, UNDEFINED_U32, 4, 4)
                .unwrap_err()
                .to_string()
                .contains("without a root")
        );
        assert!(
            collective(op::REDUCE, c, 0, 10, 12, 4, 4)
                .unwrap_err()
                .to_string()
                .contains("root 12 does not exist")
        );
        assert_eq!(collective(17, c, 0, 10, 0, 0, 0).unwrap(), None);
    }
}
