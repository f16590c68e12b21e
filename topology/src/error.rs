//! [`MachineError`]: what is wrong with a machine's parameters or graph,
//! for every builder (families, machine files) and torus partitions.

/// Error building a machine from parameters or a graph.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MachineError {
    /// A parameter is out of range; names the parameter.
    #[error("invalid parameter `{name}`: {why}")]
    Param {
        /// The parameter.
        name: &'static str,
        /// What is wrong.
        why: String,
    },
    /// The graph is malformed; names the vertex.
    #[error("{0}")]
    Graph(String),
}
