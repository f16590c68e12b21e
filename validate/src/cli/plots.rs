//! `--plot`: per-rank finish times, link utilization, sweep curves, drawn
//! with [`crate::plot`]-style figures (`validate::plot`).

use scenarios::scenario::Outcome;
use scenarios::sweep::Row;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use validate::plot::{Figure, Series, Style};

/// The link-figure path next to `p`: `FILE.svg` -> `FILE-links.svg`.
pub fn links_path(p: &Path) -> PathBuf {
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("plot");
    p.with_file_name(format!("{stem}-links.svg"))
}

/// Router coordinates from a torus router name `g<x>.<y>.<z>`.
fn coords(name: &str) -> Option<[u32; 3]> {
    let mut it = name.strip_prefix('g')?.split('.').map(|x| x.parse().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// Writes the run figures: finish time per rank at `p`, and (when the
/// machine has links) the utilization of every link direction, sorted
/// from the busiest, one curve per link class, at [`links_path`]. Returns
/// the files written.
///
/// A sorted curve per class reads better than a 3-D picture: on a torus
/// the x, y and z curves show at once which dimension is the bottleneck
/// and how evenly the load spreads (a flat curve is balanced traffic; a
/// few links at the top are hot spots, named in the report's link table).
pub fn run_figures(o: &Outcome, p: &Path) -> Result<Vec<PathBuf>, String> {
    let r = &o.report;
    let fin: Vec<(f64, f64)> = r
        .finish
        .per_rank_ps
        .iter()
        .enumerate()
        .map(|(k, ps)| (k as f64, *ps as f64 * 1e-6))
        .collect();
    Figure {
        title: format!("Finish time per rank: {}", r.workload),
        x_label: "rank".into(),
        y_label: "finish time [us]".into(),
        log_x: false,
        log_y: false,
        series: vec![Series {
            name: format!("{} ranks on {}", r.ranks, r.machine),
            points: fin,
            style: Style::Points,
        }],
    }
    .write_svg(p)?;
    let mut written = vec![p.to_path_buf()];
    let Some(li) = &o.links else {
        return Ok(written);
    };
    let mut classes: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
    for l in &li.stats {
        let from = li.names.get(l.from as usize).map_or("", |s| s.as_str());
        let to = li.names.get(l.to as usize).map_or("", |s| s.as_str());
        let class = match (coords(from), coords(to), o.torus) {
            (Some(a), Some(b), Some(_)) => match (0..3).find(|&d| a[d] != b[d]) {
                Some(0) => "x links",
                Some(1) => "y links",
                _ => "z links",
            },
            (None, Some(_), Some(_)) => "injection (node -> router)",
            (Some(_), None, Some(_)) => "ejection (router -> node)",
            _ => "link directions",
        };
        classes
            .entry(class)
            .or_default()
            .push(100.0 * l.utilization);
    }
    let series = classes
        .into_iter()
        .map(|(name, mut u)| {
            u.sort_by(|a, b| b.total_cmp(a));
            Series {
                name: format!("{name} ({})", u.len()),
                points: u
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| ((i + 1) as f64, v))
                    .collect(),
                style: Style::Line,
            }
        })
        .collect();
    let lp = links_path(p);
    Figure {
        title: format!("Link utilization, busiest first: {}", r.machine),
        x_label: "links, sorted by utilization (rank)".into(),
        y_label: "utilization over the run [%]".into(),
        log_x: false,
        log_y: false,
        series,
    }
    .write_svg(&lp)?;
    written.push(lp);
    Ok(written)
}

/// A number from an axis value: numbers as they are, sizes/times/rates by
/// their units (bytes, seconds, bytes/s); `None` for words.
fn numeric(v: &str) -> Option<f64> {
    let t = v.trim().trim_matches('"');
    t.parse::<f64>()
        .ok()
        .or_else(|| sim_core::units::parse_bytes(t).ok().map(|b| b as f64))
        .or_else(|| sim_core::units::parse_time(t).ok().map(|x| x.as_secs_f64()))
        .or_else(|| {
            sim_core::units::parse_rate(t)
                .ok()
                .map(|x| x.as_bytes_per_sec() as f64)
        })
}

/// The sweep figure: makespan against the first axis, one curve per
/// combination of the other axes (words on the first axis are placed at
/// 0, 1, 2, ... in sweep order).
pub fn sweep_figure(rows: &[Row], p: &Path) -> Result<(), String> {
    let Some(first) = rows.first() else {
        return Err("no rows to plot".into());
    };
    let axis = first
        .params
        .first()
        .map_or("point", |s| s.split(" = ").next().unwrap_or("point"))
        .to_string();
    let firsts: Vec<String> = rows
        .iter()
        .map(|r| {
            r.params
                .first()
                .and_then(|s| s.split_once(" = "))
                .map_or(String::new(), |x| super::render::unquote(x.1).to_string())
        })
        .collect();
    let all_numeric = firsts.iter().all(|v| numeric(v).is_some());
    let mut words: Vec<String> = Vec::new();
    let mut curves: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for (r, v) in rows.iter().zip(&firsts) {
        let x = if all_numeric {
            numeric(v).unwrap_or(0.0)
        } else {
            match words.iter().position(|w| w == v) {
                Some(i) => i as f64,
                None => {
                    words.push(v.clone());
                    (words.len() - 1) as f64
                }
            }
        };
        let y = r.result["makespan_s"].as_f64().unwrap_or(f64::NAN) * 1e6;
        let key = if r.params.len() > 1 {
            r.params[1..]
                .iter()
                .map(|p| match p.split_once(" = ") {
                    Some((k, v)) => format!("{k} = {}", super::render::unquote(v)),
                    None => p.clone(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            "makespan".into()
        };
        curves.entry(key).or_default().push((x, y));
    }
    let x_label = if all_numeric {
        axis.clone()
    } else {
        format!(
            "{axis}: {}",
            words
                .iter()
                .enumerate()
                .map(|(i, w)| format!("{i} = {w}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let log_x = all_numeric && {
        let xs: Vec<f64> = firsts.iter().filter_map(|v| numeric(v)).collect();
        let (lo, hi) = xs
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        lo > 0.0 && hi / lo >= 100.0
    };
    Figure {
        title: format!("Sweep: makespan against {axis}"),
        x_label,
        y_label: "makespan [us]".into(),
        log_x,
        log_y: false,
        series: curves
            .into_iter()
            .map(|(name, mut pts)| {
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                Series {
                    name,
                    points: pts,
                    style: Style::Line,
                }
            })
            .collect(),
    }
    .write_svg(p)
}
