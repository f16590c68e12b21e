//! The closed-form models of the seed papers, as plain functions of their
//! parameters. Each module cites its paper; each function its equation,
//! table or section.

pub mod bienz;
pub mod bridges;
pub mod hoefler;
pub mod loggp;
pub mod zhu;
