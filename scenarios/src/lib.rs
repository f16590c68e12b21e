//! # scenarios: what to simulate
//!
//! Built-in workloads from the seed papers ([`workloads`]); scenario files,
//! trace readers and the command line build on them.

pub mod sweep;
pub mod units;
pub mod workloads;
