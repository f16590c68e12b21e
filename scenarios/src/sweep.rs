//! What-if sweeps: one scenario, lists of parameter values, every
//! combination run as an independent point.
//!
//! A sweep is a base scenario (a TOML table) and axes, each a dotted path
//! into the table (`mpi.eager_max`, `machine.routing`) with a list of
//! values. Points are the cartesian product, numbered with the first axis
//! varying slowest. Points run in parallel on all cores ([`run_parallel`]);
//! results come back in point order whatever the thread timing, so a sweep
//! is as deterministic as a single run.
//!
//! A batch scheduler's array job spreads a sweep over machines with shards:
//! shard `i/N` runs the points whose number is `i` modulo `N` (round-robin
//! keeps shards balanced when cost varies along an axis). Each shard's
//! rows carry their point number and the sweep's fingerprint; [`merge`]
//! checks that all shards come from the same sweep and that every point is
//! present exactly once.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use toml::{Table, Value};

/// One axis of a sweep: a dotted parameter path and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// Dotted path into the scenario table, e.g. `mpi.eager_max`.
    pub path: String,
    /// Values, in the order they are swept.
    pub values: Vec<Value>,
}

/// One parameter of a point: a dotted path and its value, as typed in
/// TOML (`{"path": "mpi.eager_max", "value": 8192}` in sweep rows).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Param {
    /// Dotted path into the scenario table.
    pub path: String,
    /// The value.
    pub value: Value,
}

impl Param {
    /// The value as text: a string without its quotes, anything else as
    /// TOML writes it (`8192`, `[2, 2, 2]`).
    pub fn value_text(&self) -> String {
        match &self.value {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        }
    }

    /// The value as a number: numbers as they are, strings with units as
    /// their quantity in bytes, seconds or bytes per second; `None` for
    /// words and other values.
    pub fn number(&self) -> Option<f64> {
        use sim_core::units;
        match &self.value {
            Value::Integer(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::String(s) => s
                .trim()
                .parse::<f64>()
                .ok()
                .or_else(|| units::parse_bytes(s).ok().map(|b| b as f64))
                .or_else(|| units::parse_time(s).ok().map(|t| t.as_secs_f64()))
                .or_else(|| {
                    units::parse_rate(s)
                        .ok()
                        .map(|r| r.as_bytes_per_sec() as f64)
                }),
            _ => None,
        }
    }
}

/// `path = value`, the value as TOML.
impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}", self.path, self.value)
    }
}

/// A point: its number and the value of each axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// 0-based number in the full sweep.
    pub index: usize,
    /// One parameter per axis, in axis order.
    pub assignment: Vec<Param>,
}

/// Memory a sweep holds per point until it writes its rows: the point,
/// its result (the run's report as a JSON value) and its row's text.
/// Measured: a 2,000-point sweep of `examples/ping-pong-ideal.toml`
/// (`--vary seed=1,...,2000 --threads 1`) peaks 33.8 MB above a
/// 1-point one, 17 kB per point.
pub const BYTES_PER_POINT: u64 = 17_000;

/// What is wrong with a sweep: its axes, a shard, a parameter path, or
/// the rows of shards to merge (naming their file and line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SweepError {
    /// An axis path given in two `--vary`.
    #[error("--vary `{0}` is given twice: give all its values in one --vary")]
    AxisTwice(String),
    /// An axis without values.
    #[error("--vary `{0}` has no values")]
    AxisEmpty(String),
    /// The product of the axes' lengths overflows.
    #[error("the sweep has more points than a 64-bit count holds")]
    TooManyPoints,
    /// The points do not fit in memory (`sim_core::limits::check_memory`'s
    /// message).
    #[error("{0}")]
    Memory(sim_core::limits::LimitError),
    /// `--shard` is not `i/N` with `0 <= i < N`.
    #[error("{0}")]
    Shard(String),
    /// A parameter assignment that is not `path=value`, or a path that
    /// is empty or crosses a value that is not a table.
    #[error("{0}")]
    Path(String),
    /// A shard output that does not merge.
    #[error("{0}")]
    Merge(String),
}

/// Checks the axes (no path twice, none empty) and returns the number of
/// points, refusing a product that overflows.
pub fn point_count(axes: &[Axis]) -> Result<usize, SweepError> {
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.path == a.path) {
            return Err(SweepError::AxisTwice(a.path.clone()));
        }
        if a.values.is_empty() {
            return Err(SweepError::AxisEmpty(a.path.clone()));
        }
    }
    axes.iter()
        .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
        .ok_or(SweepError::TooManyPoints)
}

/// Point `index` of the cartesian product of `axes`, first axis slowest.
pub fn point(axes: &[Axis], index: usize) -> Point {
    let mut rest = index;
    let mut assignment = vec![
        Param {
            path: String::new(),
            value: Value::Boolean(false),
        };
        axes.len()
    ];
    for (k, a) in axes.iter().enumerate().rev() {
        let n = a.values.len();
        assignment[k] = Param {
            path: a.path.clone(),
            value: a.values[rest % n].clone(),
        };
        rest /= n;
    }
    Point { index, assignment }
}

/// Every point of the cartesian product of `axes`, first axis slowest.
pub fn points(axes: &[Axis]) -> Vec<Point> {
    let total: usize = axes.iter().map(|a| a.values.len()).product();
    (0..total).map(|index| point(axes, index)).collect()
}

/// The points of `shard` (all without one) of a sweep of `total` points
/// over `axes`, after checking that they fit in memory
/// ([`BYTES_PER_POINT`] each).
pub fn shard_points(
    axes: &[Axis],
    total: usize,
    shard: Option<Shard>,
) -> Result<Vec<Point>, SweepError> {
    let (first, step) = shard.map_or((0, 1), |s| (s.index, s.count));
    let n = total.saturating_sub(first).div_ceil(step);
    let what = match shard {
        Some(s) => format!(
            "shard {}/{} of a sweep of {total} points ({n} points)",
            s.index, s.count
        ),
        None => format!("a sweep of {total} points"),
    };
    sim_core::limits::check_memory(
        &what,
        (n as u64).saturating_mul(BYTES_PER_POINT),
        "give fewer --vary values, or split the sweep with --shard i/N",
    )
    .map_err(SweepError::Memory)?;
    Ok((first..total)
        .step_by(step)
        .map(|i| point(axes, i))
        .collect())
}

/// A shard `i/N` of a sweep (`0 <= i < N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard's number.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = SweepError;
    /// Parses `i/N`.
    fn from_str(s: &str) -> Result<Self, SweepError> {
        let bad = SweepError::Shard;
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| bad(format!("shard `{s}` is not of the form i/N")))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| bad(format!("shard index `{i}` is not a number")))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| bad(format!("shard count `{n}` is not a number")))?;
        if count == 0 || index >= count {
            return Err(bad(format!("shard {index}/{count}: need 0 <= i < N")));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether this shard runs point `p`.
    pub fn owns(&self, p: &Point) -> bool {
        p.index % self.count == self.index
    }
}

/// Sets `value` at dotted `path` in `table`, creating intermediate tables.
/// Errors if the path crosses a non-table value.
pub fn set_path(table: &mut Table, path: &str, value: Value) -> Result<(), SweepError> {
    let bad = SweepError::Path;
    let mut parts = path.split('.').peekable();
    let mut cur = table;
    while let Some(key) = parts.next() {
        if key.is_empty() {
            return Err(bad(format!(
                "parameter path `{path}` has an empty component"
            )));
        }
        if parts.peek().is_none() {
            cur.insert(key.to_string(), value);
            return Ok(());
        }
        let entry = cur
            .entry(key.to_string())
            .or_insert_with(|| Value::Table(Table::new()));
        cur = match entry {
            Value::Table(t) => t,
            _ => {
                return Err(bad(format!(
                    "parameter path `{path}`: `{key}` is not a table"
                )));
            }
        };
    }
    Err(bad(format!("parameter path `{path}` is empty")))
}

/// The scenario table of a point: the base with the point's assignment
/// applied.
pub fn apply(base: &Table, p: &Point) -> Result<Table, SweepError> {
    let mut t = base.clone();
    for p in &p.assignment {
        set_path(&mut t, &p.path, p.value.clone())?;
    }
    Ok(t)
}

/// Runs `f` on every point with `threads` worker threads (at least 1) and
/// returns the results in point order. Each point is independent: `f` must
/// not share mutable state between calls.
pub fn run_parallel<R, F>(pts: &[Point], threads: usize, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(&Point) -> R + Sync,
{
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = pts.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(pts.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= pts.len() {
                        break;
                    }
                    let r = f(&pts[i]);
                    *slots[i].lock().expect("no panics while holding a slot") = Some(r);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .expect("no poisoned slot")
                .expect("every point ran")
        })
        .collect()
}

/// A result row of one point, as written by a shard.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Row {
    /// Fingerprint of the sweep (base scenario and axes).
    pub sweep: String,
    /// Total points in the sweep.
    pub total: usize,
    /// Point number.
    pub index: usize,
    /// The point's parameters, one per axis.
    pub params: Vec<Param>,
    /// The point's results (the run report).
    pub result: serde_json::Value,
}

/// A stable fingerprint of a sweep: FNV-1a of the base scenario's TOML and
/// the axes, hex. Shards of one sweep share it.
pub fn fingerprint(base: &Table, axes: &[Axis]) -> String {
    let mut text = toml::to_string(base).unwrap_or_default();
    for a in axes {
        text.push_str(&a.path);
        for v in &a.values {
            text.push('|');
            text.push_str(&v.to_string());
        }
        text.push('\n');
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Joins shard outputs (JSON lines of [`Row`]s, with the name of each
/// input for errors) into the full sweep in point order. Errors name the
/// file and line of a bad row, rows of another sweep, duplicated points
/// and missing points.
pub fn merge(inputs: &[(String, String)]) -> Result<Vec<Row>, SweepError> {
    // Each row with where it came from (input, line).
    let mut rows: Vec<(Row, usize, usize)> = Vec::new();
    let mut sweep: Option<(String, usize, String)> = None;
    for (input, (name, text)) in inputs.iter().enumerate() {
        for (ln, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let row: Row = serde_json::from_str(line).map_err(|e| {
                SweepError::Merge(format!("{name}:{}: not a sweep row: {e}", ln + 1))
            })?;
            match &sweep {
                None => sweep = Some((row.sweep.clone(), row.total, name.clone())),
                Some((id, total, first)) => {
                    if *id != row.sweep || *total != row.total {
                        return Err(SweepError::Merge(format!(
                            "{name}:{}: row of sweep {} ({} points), but {first} holds sweep {id} ({total} points)",
                            ln + 1,
                            row.sweep,
                            row.total
                        )));
                    }
                }
            }
            rows.push((row, input, ln + 1));
        }
    }
    let Some((_, total, _)) = sweep else {
        return Err(SweepError::Merge("no sweep rows in the inputs".into()));
    };
    rows.sort_by_key(|r| r.0.index);
    for w in rows.windows(2) {
        if w[0].0.index == w[1].0.index {
            let at = |r: &(Row, usize, usize)| format!("{}:{}", inputs[r.1].0, r.2);
            return Err(SweepError::Merge(format!(
                "point {} appears twice: at {} and at {} (is one input an earlier merge of the others?)",
                w[0].0.index,
                at(&w[0]),
                at(&w[1])
            )));
        }
    }
    let rows: Vec<Row> = rows.into_iter().map(|r| r.0).collect();
    let have: Vec<usize> = rows.iter().map(|r| r.index).collect();
    let missing: Vec<usize> = (0..total)
        .filter(|i| have.binary_search(i).is_err())
        .collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(10).map(|i| i.to_string()).collect();
        return Err(SweepError::Merge(format!(
            "{} of {total} points missing (e.g. {}); is a shard's output absent?",
            missing.len(),
            shown.join(", ")
        )));
    }
    if let Some(r) = rows.iter().find(|r| r.index >= total) {
        return Err(SweepError::Merge(format!(
            "point {} is beyond the sweep's {total} points",
            r.index
        )));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_built_alone_and_axes_checked() {
        let ax = axes();
        let total = point_count(&ax).unwrap();
        let all = points(&ax);
        let s = Shard { index: 1, count: 4 };
        let mine = shard_points(&ax, total, Some(s)).unwrap();
        let want: Vec<Point> = all.into_iter().filter(|p| s.owns(p)).collect();
        assert_eq!(mine, want);
        let mut twice = ax.clone();
        twice.push(ax[0].clone());
        assert!(
            point_count(&twice)
                .unwrap_err()
                .to_string()
                .contains("given twice")
        );
        let wide = Axis {
            path: "x".into(),
            values: vec![Value::Integer(0); 1 << 16],
        };
        let huge: Vec<Axis> = (0..4)
            .map(|i| Axis {
                path: format!("a{i}"),
                ..wide.clone()
            })
            .collect();
        assert!(
            point_count(&huge)
                .unwrap_err()
                .to_string()
                .contains("64-bit")
        );
    }

    fn axes() -> Vec<Axis> {
        vec![
            Axis {
                path: "machine.routing".into(),
                values: vec![Value::from("dor"), Value::from("adaptive")],
            },
            Axis {
                path: "mpi.eager_max".into(),
                values: vec![Value::from(1024), Value::from(8192), Value::from(65536)],
            },
        ]
    }

    #[test]
    fn cartesian_order_first_axis_slowest() {
        let p = points(&axes());
        assert_eq!(p.len(), 6);
        assert_eq!(p[0].assignment[0].value, Value::from("dor"));
        assert_eq!(p[2].assignment[1].value, Value::from(65536));
        assert_eq!(p[3].assignment[0].value, Value::from("adaptive"));
        assert_eq!(p[3].assignment[1].value, Value::from(1024));
        assert_eq!(p[3].assignment[1].to_string(), "mpi.eager_max = 1024");
        assert_eq!(p[0].assignment[0].to_string(), "machine.routing = \"dor\"");
        assert_eq!(p[0].assignment[0].value_text(), "dor");
        assert_eq!(p[2].assignment[1].number(), Some(65536.0));
    }

    #[test]
    fn set_path_creates_and_rejects() {
        let mut t = Table::new();
        set_path(&mut t, "mpi.eager_max", Value::from(5)).unwrap();
        assert_eq!(t["mpi"]["eager_max"], Value::from(5));
        set_path(&mut t, "seed", Value::from(1)).unwrap();
        let e = set_path(&mut t, "seed.x", Value::from(1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`seed` is not a table"), "{e}");
        assert!(set_path(&mut t, "a..b", Value::from(1)).is_err());
    }

    #[test]
    fn parallel_results_in_point_order() {
        let p = points(&axes());
        let one = run_parallel(&p, 1, |pt| pt.index * 10);
        let two = run_parallel(&p, 2, |pt| pt.index * 10);
        assert_eq!(one, two);
        assert_eq!(one, vec![0, 10, 20, 30, 40, 50]);
    }

    #[test]
    fn shards_partition_and_merge_back() {
        let base = Table::new();
        let ax = axes();
        let id = fingerprint(&base, &ax);
        let pts = points(&ax);
        let shards: Vec<Shard> = ["0/2", "1/2"].iter().map(|s| s.parse().unwrap()).collect();
        let mut inputs = Vec::new();
        for sh in &shards {
            let text: String = pts
                .iter()
                .filter(|p| sh.owns(p))
                .map(|p| {
                    let r = Row {
                        sweep: id.clone(),
                        total: pts.len(),
                        index: p.index,
                        params: vec![],
                        result: serde_json::json!({ "x": p.index }),
                    };
                    serde_json::to_string(&r).unwrap() + "\n"
                })
                .collect();
            inputs.push((format!("shard{}", sh.index), text));
        }
        let rows = merge(&inputs).unwrap();
        assert_eq!(
            rows.iter().map(|r| r.index).collect::<Vec<_>>(),
            (0..6).collect::<Vec<_>>()
        );
        // A missing shard is named as missing points.
        let e = merge(&inputs[..1]).unwrap_err().to_string();
        assert!(e.contains("3 of 6 points missing"), "{e}");
        // A point twice (an earlier merge among the inputs) names both
        // places.
        let mut again = inputs.clone();
        again.push(("sweep.jsonl".into(), inputs[1].1.clone()));
        let e = merge(&again).unwrap_err().to_string();
        assert!(
            e.starts_with("point 1 appears twice: at shard1:1 and at sweep.jsonl:1"),
            "{e}"
        );
        // A duplicated shard.
        let e = merge(&[inputs[0].clone(), inputs[0].clone(), inputs[1].clone()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("appears twice"), "{e}");
        // A row of another sweep.
        let other = inputs[1].1.replace(&id, "0000000000000000");
        let e = merge(&[inputs[0].clone(), ("other".into(), other)])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("other:1:"), "{e}");
        assert!("2/2".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }
}
