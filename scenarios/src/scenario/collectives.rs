//! `[mpi.collectives]`, or `[mpi] collectives = "name"`: the collective
//! selector, per-collective algorithm overrides (a name, or conditional
//! rules tried in order) and netsim's own switch points.

use super::{Bytes, Rate, Scenario, ScenarioError, ScenarioFile};
use mpi_layer::{AllreduceLarge, CollKind, CollectiveParams, MAX_OVERRIDES, Override, Selector};
use serde::{Deserialize, Deserializer};
use sim_core::units;

/// `[mpi] collectives`: a selector's name, or the `[mpi.collectives]`
/// table (whose `selector` key names it).
#[derive(Clone, Debug, Default)]
pub struct CollectivesField(pub CollectivesSpec);

impl<'de> Deserialize<'de> for CollectivesField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = CollectivesSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a selector's name (\"netsim\", \"smpi\", \"mpich\", \"openmpi\") or a [mpi.collectives] table")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<CollectivesSpec, E> {
                Ok(CollectivesSpec {
                    selector: Some(v.to_string()),
                    ..CollectivesSpec::default()
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                m: A,
            ) -> Result<CollectivesSpec, A::Error> {
                CollectivesSpec::deserialize(serde::de::value::MapAccessDeserializer::new(m))
            }
        }
        d.deserialize_any(V).map(CollectivesField)
    }
}

/// `[mpi.collectives]`: the selector, an algorithm per collective, and
/// netsim's switch points.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectivesSpec {
    /// Whose rules choose the algorithms: `netsim`, `smpi`, `mpich` or
    /// `openmpi`.
    pub selector: Option<String>,
    /// Barrier algorithm (replaces the selector's choice; a list gives
    /// conditional ones, `"alg@bytes<=64KiB,procs>=8"`, tried in order).
    pub barrier: Option<AlgRules>,
    /// Bcast algorithm.
    pub bcast: Option<AlgRules>,
    /// Reduce algorithm.
    pub reduce: Option<AlgRules>,
    /// Allreduce algorithm.
    pub allreduce: Option<AlgRules>,
    /// Scan algorithm.
    pub scan: Option<AlgRules>,
    /// Exscan algorithm.
    pub exscan: Option<AlgRules>,
    /// Gather algorithm.
    pub gather: Option<AlgRules>,
    /// Gatherv algorithm.
    pub gatherv: Option<AlgRules>,
    /// Scatter algorithm.
    pub scatter: Option<AlgRules>,
    /// Scatterv algorithm.
    pub scatterv: Option<AlgRules>,
    /// Allgather algorithm.
    pub allgather: Option<AlgRules>,
    /// Allgatherv algorithm.
    pub allgatherv: Option<AlgRules>,
    /// Alltoall algorithm.
    pub alltoall: Option<AlgRules>,
    /// Alltoallv algorithm.
    pub alltoallv: Option<AlgRules>,
    /// Reduce_scatter algorithm.
    pub reduce_scatter: Option<AlgRules>,
    /// Bcast scatter-allgather from this size.
    pub bcast_long_min: Option<Bytes>,
    /// Bcast binomial below this many ranks.
    pub bcast_min_procs: Option<u32>,
    /// Allreduce recursive doubling up to this size.
    pub allreduce_short_max: Option<Bytes>,
    /// `rabenseifner` or `ring`.
    pub allreduce_large: Option<AllreduceLarge>,
    /// Allgather ring from this total size.
    pub allgather_long_min: Option<Bytes>,
    /// Alltoall Bruck up to this size.
    pub alltoall_bruck_max: Option<Bytes>,
    /// Alltoall never Bruck below this many ranks.
    pub alltoall_bruck_min_procs: Option<u32>,
    /// Reduction rate.
    pub reduce_rate: Option<Rate>,
    /// Whether reductions cost core time at `reduce_rate`.
    pub charge_reductions: Option<bool>,
}

/// `[mpi.collectives] <kind>`: an algorithm's name, or a list of
/// `"name@condition,condition"` tried in order.
#[derive(Clone, Debug, Default)]
pub struct AlgRules(pub Vec<String>);

impl<'de> Deserialize<'de> for AlgRules {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            One(String),
            Many(Vec<String>),
        }
        match Raw::deserialize(d) {
            Ok(Raw::One(s)) => Ok(AlgRules(vec![s])),
            Ok(Raw::Many(v)) => Ok(AlgRules(v)),
            Err(_) => Err(serde::de::Error::custom(
                "write an algorithm's name, or a list of \"name@bytes<=64KiB,procs>=8\" rules",
            )),
        }
    }
}

/// What is wrong with one rule of [`AlgRules`]; the scenario error adds
/// the file, line and key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum RuleError {
    /// No such algorithm for this collective (`names` lists them).
    #[error("unknown {kind} algorithm `{name}`: one of {names}")]
    UnknownAlgorithm {
        kind: &'static str,
        name: String,
        names: String,
    },
    /// A condition on neither `bytes` nor `procs`.
    #[error("`{rule}`: condition `{cond}` names neither `bytes` nor `procs`")]
    NoVariable { rule: String, cond: String },
    /// A condition without a comparison.
    #[error("`{rule}`: condition `{cond}` needs <, <=, >, >= or =")]
    NoComparison { rule: String, cond: String },
    /// A `bytes` condition on a collective without a size.
    #[error("`{rule}`: {kind} calls have no size to compare (only `procs`)")]
    NoSize { rule: String, kind: &'static str },
    /// A size that does not read (the units parser's message).
    #[error("`{rule}`: {message}")]
    Bytes {
        rule: String,
        message: sim_core::units::UnitError,
    },
    /// A `procs` value that is not a number.
    #[error("`{rule}`: `{value}` is not a number of ranks")]
    NotRanks { rule: String, value: String },
    /// A condition that never holds.
    #[error("`{rule}`: `{cond}` never holds")]
    Never { rule: String, cond: String },
    /// Conditions that never hold together.
    #[error("`{0}`: the conditions never hold together")]
    NeverTogether(String),
}

/// One rule of [`AlgRules`], `name[@cond,cond...]` with `cond` one of
/// `bytes` or `procs`, then `<`, `<=`, `>`, `>=` or `=`, then a value
/// (bytes with a unit, or a plain number); checked against `kind`.
fn parse_rule(kind: CollKind, rule: &str) -> Result<Override, RuleError> {
    let (name, conds) = match rule.split_once('@') {
        Some((n, c)) => (n.trim(), Some(c)),
        None => (rule.trim(), None),
    };
    let alg = kind.algorithm(name).ok_or_else(|| {
        let names: Vec<&str> = kind.algorithms().iter().map(|(n, _)| *n).collect();
        RuleError::UnknownAlgorithm {
            kind: kind.name(),
            name: name.into(),
            names: names.join(", "),
        }
    })?;
    let mut o = Override::always(alg);
    let Some(conds) = conds else { return Ok(o) };
    for cond in conds.split(',').map(str::trim) {
        let (var, rest) = if let Some(r) = cond.strip_prefix("bytes") {
            ("bytes", r)
        } else if let Some(r) = cond.strip_prefix("procs") {
            ("procs", r)
        } else {
            return Err(RuleError::NoVariable {
                rule: rule.into(),
                cond: cond.into(),
            });
        };
        let rest = rest.trim_start();
        let (opr, value) = ["<=", ">=", "<", ">", "="]
            .into_iter()
            .find_map(|op| rest.strip_prefix(op).map(|v| (op, v.trim())))
            .ok_or_else(|| RuleError::NoComparison {
                rule: rule.into(),
                cond: cond.into(),
            })?;
        let v: u64 = if var == "bytes" {
            if !kind.has_size() {
                return Err(RuleError::NoSize {
                    rule: rule.into(),
                    kind: kind.name(),
                });
            }
            units::parse_bytes(value).map_err(|message| RuleError::Bytes {
                rule: rule.into(),
                message,
            })?
        } else {
            value
                .parse::<u32>()
                .map(u64::from)
                .map_err(|_| RuleError::NotRanks {
                    rule: rule.into(),
                    value: value.into(),
                })?
        };
        let (lo, hi) = match opr {
            "<" if v == 0 => {
                return Err(RuleError::Never {
                    rule: rule.into(),
                    cond: cond.into(),
                });
            }
            "<" => (0, v - 1),
            "<=" => (0, v),
            ">" => (v.saturating_add(1), u64::MAX),
            ">=" => (v, u64::MAX),
            _ => (v, v),
        };
        if var == "bytes" {
            o.bytes = (o.bytes.0.max(lo), o.bytes.1.min(hi));
        } else {
            let cap = |x: u64| x.min(u64::from(u32::MAX)) as u32;
            o.procs = (o.procs.0.max(cap(lo)), o.procs.1.min(cap(hi)));
        }
    }
    if o.bytes.0 > o.bytes.1 || o.procs.0 > o.procs.1 {
        return Err(RuleError::NeverTogether(rule.into()));
    }
    Ok(o)
}

impl CollectivesSpec {
    /// The algorithm named for each kind, in [`CollKind::ALL`] order.
    fn by_kind(&self) -> [&Option<AlgRules>; CollKind::COUNT] {
        [
            &self.barrier,
            &self.bcast,
            &self.reduce,
            &self.allreduce,
            &self.scan,
            &self.exscan,
            &self.gather,
            &self.gatherv,
            &self.scatter,
            &self.scatterv,
            &self.allgather,
            &self.allgatherv,
            &self.alltoall,
            &self.alltoallv,
            &self.reduce_scatter,
        ]
    }
}

/// `[mpi] collectives = "name"` as the table `{ selector = "name" }`, so
/// that `--set mpi.collectives.selector=...` and `--collectives` reach
/// it.
pub fn collectives_as_table(t: &mut toml::Table) {
    if let Some(toml::Value::Table(m)) = t.get_mut("mpi") {
        if let Some(toml::Value::String(name)) = m.get("collectives") {
            let mut c = toml::Table::new();
            c.insert("selector".into(), toml::Value::String(name.clone()));
            m.insert("collectives".into(), toml::Value::Table(c));
        }
    }
}

impl CollectivesSpec {
    /// Applies the table to the preset's collective parameters `cp`.
    pub(super) fn apply(
        &self,
        cp: &mut CollectiveParams,
        src: &ScenarioFile,
    ) -> Result<(), ScenarioError> {
        if let Some(name) = &self.selector {
            let names: Vec<&str> = Selector::ALL.iter().map(|s| s.name()).collect();
            cp.selection.selector = Selector::parse(name).ok_or_else(|| {
                src.err(
                    "mpi.collectives",
                    "selector",
                    format!("unknown selector `{name}`: one of {}", names.join(", ")),
                )
            })?;
        }
        for (kind, rules) in CollKind::ALL.into_iter().zip(self.by_kind()) {
            let Some(AlgRules(rules)) = rules else {
                continue;
            };
            let bad = |m: String| src.err("mpi.collectives", kind.name(), m);
            if rules.is_empty() || rules.len() > MAX_OVERRIDES {
                return Err(bad(format!(
                    "give 1 to {MAX_OVERRIDES} rules, not {}",
                    rules.len()
                )));
            }
            let slot = &mut cp.selection.overrides[kind as usize];
            *slot = [None; MAX_OVERRIDES];
            for (i, rule) in rules.iter().enumerate() {
                slot[i] = Some(parse_rule(kind, rule).map_err(|e| bad(e.to_string()))?);
            }
        }
        if let Some(v) = self.bcast_long_min {
            cp.bcast_long_min = v.0;
        }
        if let Some(v) = self.bcast_min_procs {
            cp.bcast_min_procs = v;
        }
        if let Some(v) = self.allreduce_short_max {
            cp.allreduce_short_max = v.0;
        }
        if let Some(v) = self.allreduce_large {
            cp.allreduce_large = v;
        }
        if let Some(v) = self.allgather_long_min {
            cp.allgather_long_min = v.0;
        }
        if let Some(v) = self.alltoall_bruck_max {
            cp.alltoall_bruck_max = v.0;
        }
        if let Some(v) = self.alltoall_bruck_min_procs {
            cp.alltoall_bruck_min_procs = v;
        }
        if let Some(v) = self.reduce_rate {
            cp.reduce_rate = v.0;
        }
        if let Some(v) = self.charge_reductions {
            cp.charge_reductions = v;
        }
        Ok(())
    }
}

impl Scenario {
    /// The collective selector `[mpi] collectives` names (netsim's own
    /// when none; a name [`Scenario::mpi_params`] rejects reads as
    /// netsim's).
    pub fn collective_selector(&self) -> Selector {
        self.mpi
            .collectives
            .as_ref()
            .and_then(|c| c.0.selector.as_deref())
            .and_then(Selector::parse)
            .unwrap_or_else(|| self.default_selector())
    }

    /// The collective selector when the file names none: SimGrid's SMPI
    /// on a SimGrid platform, netsim's own elsewhere.
    pub(super) fn default_selector(&self) -> Selector {
        if matches!(self.machine, super::MachineSpec::Platform(_)) {
            Selector::Smpi
        } else {
            Selector::Netsim
        }
    }
}
