//! What can be wrong with a line of a native trace: the operation, its
//! fields, a duration; the reader adds the file and line.

use crate::reader::ValueError;

/// What is wrong with an operation line of a native trace; the reader
/// adds the file and line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NativeError {
    /// A line without an operation.
    #[error("empty line")]
    EmptyLine,
    /// A field of operation `op`.
    #[error("{op}: {error}")]
    Op {
        /// The operation's name.
        op: String,
        /// What is wrong.
        error: FieldError,
    },
}

/// What is wrong with the fields of an operation line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// No such operation.
    #[error("unknown operation")]
    UnknownOp,
    /// A `key=` given twice.
    #[error("field `{0}` given twice")]
    Twice(String),
    /// A required `key=` absent.
    #[error("missing field `{0}=`")]
    Missing(String),
    /// A field that is not `key=value`.
    #[error("unexpected field `{0}` (fields are key=value)")]
    Positional(String),
    /// A `key=` the operation does not have.
    #[error("unknown field `{0}`")]
    Unknown(String),
    /// A value that does not read as its type.
    #[error(transparent)]
    Value(#[from] ValueError),
    /// A negative size.
    #[error("{key} must not be negative, found `{value}`")]
    Negative {
        /// The field.
        key: String,
        /// The value found.
        value: String,
    },
    /// A negative size in a list.
    #[error("{key} must not hold negative sizes, found `{value}`")]
    NegativeInList {
        /// The field.
        key: String,
        /// The entry found.
        value: String,
    },
    /// A size beyond netsim's limit (the limit's message).
    #[error("{key}: {message}")]
    Limit {
        /// The field.
        key: String,
        /// `sim_core::limits`' message.
        message: sim_core::limits::LimitError,
    },
    /// A rank outside `0..num_ranks`.
    #[error("{key}={value} names no rank (the trace has ranks 0..{num_ranks})")]
    NoRank {
        /// The field.
        key: String,
        /// The rank found.
        value: i64,
        /// The trace's ranks.
        num_ranks: u32,
    },
    /// Not exactly one duration.
    #[error("expected one duration with a unit, e.g. `2.5us`")]
    DurationCount,
    /// A duration that does not read.
    #[error(transparent)]
    Duration(#[from] DurationError),
    /// A duration beyond netsim's limit (the limit's message).
    #[error("{0}")]
    DurationLimit(sim_core::limits::LimitError),
    /// A size field that must be at least one byte (an element size).
    #[error("{0} must be at least 1 byte")]
    ZeroBytes(String),
    /// A flag list entry other than 0 or 1.
    #[error("{key} holds 0 or 1 per dimension, found {value}")]
    Flag {
        /// The field.
        key: String,
        /// The entry found.
        value: u8,
    },
    /// A tuple entry with the wrong number of numbers.
    #[error("{key} holds {n} numbers separated by `:` per entry, found `{entry}`")]
    Tuple {
        /// The field.
        key: String,
        /// Numbers per entry.
        n: usize,
        /// The entry found.
        entry: String,
    },
    /// `reorder=` other than 0 or 1.
    #[error("reorder is 0 or 1, found `{0}`")]
    Reorder(String),
}

/// A duration that does not read (see [`parse_duration`](super::parse_duration)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// No unit.
    #[error("duration `{0}` needs a unit (ps, ns, us, ms, s)")]
    NoUnit(String),
    /// A unit other than ps, ns, us, ms, s.
    #[error("unknown time unit `{0}` (ps, ns, us, ms, s)")]
    UnknownUnit(String),
    /// The number before the unit does not read.
    #[error("duration `{0}` is not a number with a unit")]
    NotANumber(String),
    /// Below zero or beyond [`Time`](sim_core::time::Time).
    #[error("duration `{0}` is negative or too large")]
    OutOfRange(String),
}
