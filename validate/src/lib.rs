//! # validate: netsim's validation library
//!
//! The checks of the simulator against its seed papers: [`models`] (every
//! closed-form model as plain functions of the simulator's own parameter
//! types), [`cases`] (each a paper's experiment simulated and compared row
//! by row), [`suite`] (rows, stated rules, verdicts), [`fit`] (postal
//! parameters and gamma from timings), [`calibrate`] (microbenchmarks of a
//! real MPI library), [`predict`] and [`plot`] (SVG figures).
//!
//! The application, the `netsim` binary with its command line and
//! benchmark programs, is the `netsim` crate above this one; `netsim
//! validate` and `netsim fit` are its commands on this library.

pub mod calibrate;
pub mod cases;
mod error;
pub use error::Error;
pub mod fit;
pub mod models;
pub mod plot;
pub mod predict;
pub mod suite;
