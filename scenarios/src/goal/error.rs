//! What can be wrong with one line of a GOAL schedule; the reader adds
//! the file and line.

/// What is wrong with one line of a GOAL schedule; the reader adds the
/// file and line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GoalError {
    /// An integer beyond 64 bits.
    #[error("{0} is larger than 2^64 - 1")]
    Overflow(&'static str),
    /// No integer where one belongs.
    #[error("expected {what} (an integer), found {found}")]
    ExpectedInt {
        /// What the integer is.
        what: &'static str,
        /// What is there instead.
        found: String,
    },
    /// Something other than what ends the item.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What may follow.
        expected: &'static str,
        /// What is there instead.
        found: String,
    },
    /// A tag, `cpu` or `nic` beyond its range.
    #[error("{what} {value} is larger than {max}")]
    TooLarge {
        /// The field.
        what: &'static str,
        /// The value.
        value: u64,
        /// Its largest value.
        max: u64,
    },
    /// A line that starts no item.
    #[error(
        "expected `send`, `recv`, `calc`, a label, a dependency, `rank R {{`, `num_ranks N` or `}}`, found {0}"
    )]
    ExpectedItem(String),
    /// `rank R` without `{`.
    #[error("expected `{{` after `rank {rank}`, found {found}")]
    ExpectedBrace {
        /// The rank.
        rank: u64,
        /// What is there instead.
        found: String,
    },
    /// A label not followed by an operation.
    #[error("expected `send`, `recv` or `calc` after the label, found {0}")]
    ExpectedKind(String),
    /// A word that is no operation, label or dependency.
    #[error(
        "unknown operation `{0}` (send, recv, calc, a label `l:`, or a dependency `a requires b`)"
    )]
    UnknownOp(String),
    /// A dependency without its second label.
    #[error("expected a label after `{after}`, found {found}")]
    ExpectedLabel {
        /// `requires` or `irequires`.
        after: &'static str,
        /// What is there instead.
        found: String,
    },
    /// A negative size.
    #[error("size must not be negative, found {0}")]
    NegativeSize(String),
    /// A size without `b`.
    #[error("size `{0}` must be bytes, e.g. `{0}b`")]
    SizeUnit(u64),
    /// No `to` or `from` after a size.
    #[error("expected `{dir}` after the size, found {found}")]
    ExpectedPeer {
        /// `to` or `from`.
        dir: &'static str,
        /// What is there instead.
        found: String,
    },
    /// A peer beyond 32 bits (or the wildcard's value).
    #[error("rank {0} does not exist")]
    NoRank(u64),
    /// A send with the wildcard tag.
    #[error(
        "a send's tag 4294967295 (-1) is LogGOPSim's wildcard, which netsim's sends do not have"
    )]
    AnyTagSend,
    /// A second `num_ranks` line.
    #[error("a second `num_ranks` line")]
    SecondNumRanks,
    /// `num_ranks` beyond netsim's limit (the limit's message).
    #[error("num_ranks: {0}")]
    NumRanksLimit(sim_core::limits::LimitError),
    /// A `rank R {` line before `num_ranks`.
    #[error("`rank` block before `num_ranks`")]
    BlockBeforeNumRanks,
    /// A block for a rank beyond `num_ranks`.
    #[error("rank {rank} does not exist (num_ranks {num_ranks})")]
    NoBlockRank {
        /// The block's rank.
        rank: u64,
        /// The schedule's ranks.
        num_ranks: u32,
    },
    /// A second block for one rank.
    #[error("rank {0} has two blocks")]
    TwoBlocks(u32),
    /// A peer beyond `num_ranks`.
    #[error("rank {peer} does not exist (num_ranks {num_ranks})")]
    NoPeer {
        /// The peer.
        peer: u32,
        /// The schedule's ranks.
        num_ranks: u32,
    },
    /// A size beyond netsim's limit (the limit's message).
    #[error("size: {0}")]
    SizeLimit(sim_core::limits::LimitError),
    /// A computation beyond netsim's limit (the limit's message).
    #[error("calc {amount} (x {unit_ps} ps): {message}")]
    CalcLimit {
        /// The amount.
        amount: u64,
        /// The `calc` unit \[ps\].
        unit_ps: u64,
        /// `sim_core::limits`' message.
        message: sim_core::limits::LimitError,
    },
}
