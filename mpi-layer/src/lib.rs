//! # mpi-layer: MPI semantics on top of a transport
//!
//! Ranks run programs of [`op::Op`]s pulled from [`op::OpStream`]s.

pub mod op;

pub use op::{
    CommId, Op, OpStream, Origin, ProgramError, Rank, ReqId, Source, Tag, TagSel, VecProgram,
};
