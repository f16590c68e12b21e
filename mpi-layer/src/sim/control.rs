//! How a rank's program moves: where it is ([`Run`]), what it finishes
//! when unblocked ([`Resume`]), and what an operation leaves it to do
//! ([`Next`], or [`Failed`] on an error of the program).

/// Where a rank's program is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Run {
    Ready,
    Blocked,
    Finished,
}

/// What a rank does when it is unblocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Resume {
    /// Nothing to finish (the CPU part of a call, compute, sleep,
    /// communicator creation).
    Nothing,
    /// Free the user requests named by the current op (wait, waitall).
    FreeNamed,
    /// Free the first completed request of the current waitany.
    WaitAny,
    /// Free the internal requests (blocking send/recv/sendrecv).
    Internal,
    /// A collective step's messages are done; reduce its bytes
    /// (`CollRun::reduce`).
    CollRound,
    /// A collective step's reduction is done.
    CollNext,
}

/// What a rank's program does after an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Next {
    /// It goes on to its next operation now.
    Continue,
    /// It waits (for its core, a request, a collective's step).
    Blocked,
}

/// The operation was an error of the program, recorded in the run's
/// error (`Sim::fail`): the rank stops there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Failed;
