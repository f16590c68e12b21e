//! # validate: the validation library and the `netsim` application
//!
//! The top crate of the workspace holds two things, kept apart by Cargo's
//! own split between a library and a binary:
//!
//! * **this library**, the checks of the simulator against its seed
//!   papers: [`models`] (every closed-form model as plain functions of
//!   the simulator's own parameter types), [`cases`] (each a paper's
//!   experiment simulated and compared row by row), [`suite`] (rows,
//!   stated rules, verdicts), [`fit`] (postal parameters and gamma from
//!   timings) and [`plot`] (SVG figures);
//! * **the `netsim` binary** (`src/main.rs`), the application: the
//!   command line (`src/cli/`: run, replay, presets, sweep, and their
//!   renderings) and the benchmark programs (`src/bench/`). These modules
//!   are the binary's alone; they use this library and the crates below.
//!
//! The binary lives here, not in `scenarios`, because `netsim validate`
//! needs the whole stack, and the five crates of the workspace are fixed
//! by the design; the library/binary split is the nearest equivalent of
//! an application crate of its own.

#![warn(missing_docs)]

pub mod calibrate;
pub mod cases;
pub mod fit;
pub mod models;
pub mod plot;
pub mod predict;
pub mod suite;
