//! Why a recorded call has no operations; the reader adds the file and
//! record.

use mpi_layer::Rank;

/// Why a recorded call has no operations; the reader adds the file and
/// record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// A datatype neither predefined nor defined before.
    #[error("datatype {0} has no known size (a derived type this reader cannot size)")]
    UnknownDatatype(u16),
    /// A count below zero.
    #[error("negative count {0}")]
    NegativeCount(i64),
    /// A point-to-point call on `MPI_COMM_SELF`.
    #[error("point-to-point on MPI_COMM_SELF is not supported")]
    SelfPointToPoint,
    /// A rank of `MPI_COMM_WORLD` beyond the trace's ranks.
    #[error("rank {rank} does not exist (the trace has {num_ranks} ranks)")]
    NoRank {
        /// The rank.
        rank: Rank,
        /// The trace's ranks.
        num_ranks: u32,
    },
    /// A root that names no rank.
    #[error("invalid root {0}")]
    InvalidRoot(i64),
    /// A group or communicator call on `MPI_COMM_SELF`.
    #[error("{0} on MPI_COMM_SELF is not supported")]
    SelfComm(&'static str),
    /// A call given `MPI_GROUP_NULL`.
    #[error("{0} given MPI_GROUP_NULL")]
    NullGroup(&'static str),
    /// A rank, dimension, index or edge out of range.
    #[error("invalid {what} {value}")]
    Invalid {
        /// What the value is.
        what: &'static str,
        /// The value.
        value: i64,
    },
    /// A group range that is not three numbers.
    #[error("{call}: a range has {n} numbers, not 3")]
    RangeLength {
        /// The call.
        call: &'static str,
        /// The numbers given.
        n: usize,
    },
    /// A group range beyond 32 bits.
    #[error("{0}: invalid range")]
    InvalidRange(&'static str),
    /// `MPI_Comm_free` of `MPI_COMM_WORLD` or `MPI_COMM_SELF`.
    #[error("MPI_Comm_free of a predefined communicator")]
    FreePredefined,
    /// A call netsim does not model (why).
    #[error("{0}")]
    Unsupported(&'static str),
    /// A count of a datatype whose bytes do not fit 64 bits.
    #[error("{count} elements of {size} bytes each: more than 2^64 - 1 bytes")]
    BytesOverflow {
        /// The count.
        count: u64,
        /// The size of one element \[bytes\].
        size: u64,
    },
    /// A derived datatype whose blocks add up to more than 64 bits.
    #[error("datatype {0}: its blocks add up to more than 2^64 - 1 bytes")]
    TypeOverflow(u16),
}
