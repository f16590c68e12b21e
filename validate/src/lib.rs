//! # validate: the seed papers' models and the validation suite
//!
//! [`models`] holds every closed-form model of the four seed papers as
//! plain functions of their parameters. The `netsim` binary
//! (`src/main.rs`) sits in this crate because `netsim validate` needs the
//! whole stack.

pub mod calibrate;
pub mod cases;
pub mod fit;
pub mod models;
pub mod plot;
pub mod suite;
