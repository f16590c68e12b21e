//! Command-line options that stand for scenario fields (`--set`,
//! `--collectives`), as dotted paths and TOML values.

use super::CliError;
use scenarios::scenario::parse_assignment;
use toml::Value;

/// `--collectives NAME` as the scenario override it stands for.
pub(super) fn collectives_set(name: Option<&str>) -> Option<(String, Value)> {
    name.map(|n| {
        (
            "mpi.collectives.selector".to_string(),
            Value::String(n.to_string()),
        )
    })
}

/// `--set path=value` options as (path, value) pairs.
pub(super) fn overrides(set: &[String]) -> Result<Vec<(String, Value)>, CliError> {
    set.iter()
        .map(|s| parse_assignment(s).map_err(|e| CliError::input(format!("--set {e}"))))
        .collect()
}
