//! `--plot`: per-rank finish times, link utilization, sweep curves, drawn
//! with `validate::plot` figures.

use scenarios::scenario::Outcome;
use scenarios::sweep::Row;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use topology::LinkClass;
use validate::plot::{Figure, Series, Style};

/// The link-figure path next to `p`: `FILE.svg` -> `FILE-links.svg`.
pub(crate) fn links_path(p: &Path) -> PathBuf {
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("plot");
    p.with_file_name(format!("{stem}-links.svg"))
}

/// Writes the run figures: finish time per rank at `p`; when the machine
/// has links, the utilization of every link direction, sorted from the
/// busiest, one curve per link class, at [`links_path`]; and on a torus
/// the map of [`torus_path`]. Returns the files written.
///
/// A sorted curve per class reads better than a 3-D picture: on a torus
/// the x, y and z curves show at once which dimension is the bottleneck
/// and how evenly the load spreads (a flat curve is balanced traffic; a
/// few links at the top are hot spots, named in the report's link table).
pub(crate) fn run_figures(o: &Outcome, p: &Path) -> Result<Vec<PathBuf>, String> {
    let r = &o.report;
    let fin: Vec<(f64, f64)> = r
        .finish
        .per_rank_ps
        .iter()
        .enumerate()
        .map(|(k, ps)| (k as f64, *ps as f64 * 1e-6))
        .collect();
    Figure {
        title: "Finish time per rank".into(),
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
    .write_svg_whole(p)?;
    let mut written = vec![p.to_path_buf()];
    let Some(li) = &o.links else {
        return Ok(written);
    };
    let mut classes: BTreeMap<LinkClass, Vec<f64>> = BTreeMap::new();
    for (l, &class) in li.stats.iter().zip(&li.classes) {
        classes
            .entry(class)
            .or_default()
            .push(100.0 * l.utilization);
    }
    let series = classes
        .into_iter()
        .map(|(class, mut u)| {
            u.sort_by(|a, b| b.total_cmp(a));
            let name = match class {
                LinkClass::Injection => "injection (node -> network)".to_string(),
                LinkClass::Ejection => "ejection (network -> node)".to_string(),
                LinkClass::Torus(d) => format!("{d} links"),
                LinkClass::Network => "network links".to_string(),
            };
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
    .write_svg_whole(&lp)?;
    written.push(lp);
    if let Some(dims) = o.torus {
        let tp = torus_path(p);
        super::output::write_with(&tp, |tmp| torus_map(o, dims, tmp)).map_err(|e| e.to_string())?;
        written.push(tp);
    }
    Ok(written)
}

/// The torus-map path next to `p`: `FILE.svg` -> `FILE-torus.svg`.
pub(crate) fn torus_path(p: &Path) -> PathBuf {
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("plot");
    p.with_file_name(format!("{stem}-torus.svg"))
}

/// Link utilization over the torus, laid out by coordinates: one panel
/// per z plane, one cell per router at (x, y) with its coordinate ticked
/// at the cell's centre, shaded by the highest utilization of the
/// router's outgoing router-to-router links on [`heat`]'s ramp (light
/// yellow 0, dark red the run's busiest link), with that percentage
/// written in the cell when the grid is small enough to read it, and a
/// colour bar labelled 0 % and the busiest link's percentage.
fn torus_map(o: &Outcome, dims: [u32; 3], path: &Path) -> Result<(), String> {
    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let Some(li) = &o.links else {
        return Ok(());
    };
    let [nx, ny, nz] = dims;
    let idx = |c: [u32; 3]| (c[0] + nx * (c[1] + ny * c[2])) as usize;
    let mut util = vec![0.0f64; (nx * ny * nz) as usize];
    for (l, class) in li.stats.iter().zip(&li.classes) {
        if let (LinkClass::Torus(_), Some(Some(a))) = (class, li.router_coords.get(l.from as usize))
        {
            let u = &mut util[idx(*a)];
            *u = u.max(l.utilization);
        }
    }
    let top = util.iter().copied().fold(0.0, f64::max);
    let err = |e: &dyn std::fmt::Display| format!("{}: cannot draw figure: {e}", path.display());
    let cols = (nz as f64).sqrt().ceil().max(1.0) as usize;
    let rows = (nz as usize).div_ceil(cols);
    let label = nx * ny * nz <= 512;
    // Cells big enough for their label on small tori, small on big ones.
    let cell = if label { 48 } else { 14 };
    // Room for the colour bar and its labels right of the panels.
    let bar_w = 90;
    let (w, h) = (
        (cols as u32 * (nx * cell + 80) + bar_w).clamp(560, 3000),
        (rows as u32 * (ny * cell + 80) + 40).clamp(260, 3000),
    );
    let root = SVGBackend::new(path, (w, h)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root
        .titled(
            &format!(
                "Busiest outgoing torus link per router [%] (darkest {:.1}%)",
                100.0 * top
            ),
            ("sans-serif", 15),
        )
        .map_err(|e| err(&e))?;
    let (panels, bar) = root.split_horizontally(w - bar_w);
    let shade = |u: f64| heat(if top > 0.0 { u / top } else { 0.0 });
    let router = |v: &f64| format!("{}", v.floor());
    for (z, panel) in panels.split_evenly((rows, cols)).into_iter().enumerate() {
        if z >= nz as usize {
            break;
        }
        let mut c = ChartBuilder::on(&panel)
            .caption(format!("z = {z}"), ("sans-serif", 12))
            .margin(6)
            .x_label_area_size(34)
            .y_label_area_size(36)
            .build_cartesian_2d(Routers(nx), Routers(ny))
            .map_err(|e| err(&e))?;
        c.configure_mesh()
            .disable_mesh()
            .x_desc("x")
            .y_desc("y")
            .x_label_formatter(&router)
            .y_label_formatter(&router)
            .draw()
            .map_err(|e| err(&e))?;
        for y in 0..ny {
            for x in 0..nx {
                let u = util[idx([x, y, z as u32])];
                let (x0, y0) = (f64::from(x), f64::from(y));
                c.draw_series(std::iter::once(Rectangle::new(
                    [(x0, y0), (x0 + 1.0, y0 + 1.0)],
                    shade(u).filled(),
                )))
                .map_err(|e| err(&e))?;
                if label {
                    // White on the dark end of the ramp, black elsewhere.
                    let ink = if top > 0.0 && u / top > 0.55 {
                        WHITE
                    } else {
                        BLACK
                    };
                    c.draw_series(std::iter::once(Text::new(
                        format!("{:.0}", 100.0 * u),
                        (x0, y0 + 1.0),
                        ("sans-serif", 12).into_font().color(&ink),
                    )))
                    .map_err(|e| err(&e))?;
                }
            }
        }
    }
    // The colour bar: the ramp bottom (0 %) to top (the busiest link).
    let (_, bh) = bar.dim_in_pixel();
    let (x0, x1, y_top, y_bot) = (10, 28, 40, bh as i32 - 40);
    let steps = 64;
    for i in 0..steps {
        let lo = y_bot - (i * (y_bot - y_top)) / steps;
        let hi = y_bot - ((i + 1) * (y_bot - y_top)) / steps;
        let f = (f64::from(i) + 0.5) / f64::from(steps);
        bar.draw(&Rectangle::new([(x0, hi), (x1, lo)], heat(f).filled()))
            .map_err(|e| err(&e))?;
    }
    bar.draw(&Rectangle::new([(x0, y_top), (x1, y_bot)], BLACK))
        .map_err(|e| err(&e))?;
    let side =
        TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (text, y) in [
        (format!("{:.1} %", 100.0 * top), y_top),
        ("0 %".to_string(), y_bot),
    ] {
        bar.draw(&Text::new(text, (x1 + 5, y), side.clone()))
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// One torus dimension of `n` routers as an axis: router `i` spans
/// [i, i + 1) and is ticked at its centre i + 0.5 (at most 12 ticks).
struct Routers(u32);

impl plotters::coord::ranged1d::Ranged for Routers {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let f = v / f64::from(self.0.max(1));
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, _: H) -> Vec<f64> {
        let step = self.0.div_ceil(12).max(1) as usize;
        (0..self.0)
            .step_by(step)
            .map(|i| f64::from(i) + 0.5)
            .collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        0.0..f64::from(self.0)
    }
}

/// The heat-map colour of `f` in [0, 1]: ColorBrewer's sequential
/// YlOrRd ramp (9 classes, light yellow -> orange -> dark red),
/// interpolated linearly between its stops so that nearby values at the
/// top still differ in colour.
fn heat(f: f64) -> plotters::style::RGBColor {
    const STOPS: [(u8, u8, u8); 9] = [
        (0xff, 0xff, 0xcc),
        (0xff, 0xed, 0xa0),
        (0xfe, 0xd9, 0x76),
        (0xfe, 0xb2, 0x4c),
        (0xfd, 0x8d, 0x3c),
        (0xfc, 0x4e, 0x2a),
        (0xe3, 0x1a, 0x1c),
        (0xbd, 0x00, 0x26),
        (0x80, 0x00, 0x26),
    ];
    let t = f.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let k = (t.floor() as usize).min(STOPS.len() - 2);
    let r = t - k as f64;
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    let mix = |p: u8, q: u8| (f64::from(p) + (f64::from(q) - f64::from(p)) * r).round() as u8;
    plotters::style::RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The value at a dotted path of a report (`makespan_s`,
/// `matching.posted_recvs.mean`, `finish.per_rank_ps.3`), as a number;
/// the paths are those of the CSV forms ([`super::render::leaves`]).
fn metric_of(v: &serde_json::Value, path: &str) -> Option<f64> {
    super::render::leaves(v)
        .into_iter()
        .find(|(p, _)| p == path)?
        .1
        .as_f64()
}

/// The sweep figures: `metric` (a dotted path into the report, e.g.
/// `makespan_s`) against each axis, one curve per combination of the
/// other axes; the first axis's figure at `p`, axis `k > 0` at
/// `FILE-by-<path>.svg`. Words on an axis are placed at 0, 1, 2, ... in
/// sweep order; numbers (and sizes, times, rates with units) at their
/// value, on a log axis when they span two decades. Returns the files.
pub(crate) fn sweep_figures(rows: &[Row], p: &Path, metric: &str) -> Result<Vec<PathBuf>, String> {
    let Some(first) = rows.first() else {
        return Err("no rows to plot".into());
    };
    if metric_of(&first.result, metric).is_none() {
        return Err(format!(
            "--metric `{metric}` is not a number in the report (e.g. makespan_s, messages, matching.posted_recvs.mean)"
        ));
    }
    let axes = first.params.len().max(1);
    let mut written = Vec::new();
    for k in 0..axes {
        let axis = first
            .params
            .get(k)
            .map_or("point".to_string(), |a| a.path.clone());
        // Each row's value on this axis: as text, and as a number when it
        // is one (the point number when the sweep has no axis).
        let values: Vec<(String, Option<f64>)> = rows
            .iter()
            .map(|r| match r.params.get(k) {
                Some(a) => (a.value_text(), a.number()),
                None => (r.index.to_string(), Some(r.index as f64)),
            })
            .collect();
        let all_numeric = values.iter().all(|v| v.1.is_some());
        let mut words: Vec<String> = Vec::new();
        let mut curves: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for (r, (text, number)) in rows.iter().zip(&values) {
            let x = match number {
                Some(x) if all_numeric => *x,
                _ => match words.iter().position(|w| w == text) {
                    Some(i) => i as f64,
                    None => {
                        words.push(text.clone());
                        (words.len() - 1) as f64
                    }
                },
            };
            let y = metric_of(&r.result, metric).unwrap_or(f64::NAN);
            let others: Vec<String> = r
                .params
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != k)
                .map(|(_, a)| format!("{} = {}", a.path, a.value_text()))
                .collect();
            let key = if others.is_empty() {
                metric.to_string()
            } else {
                others.join(", ")
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
            let xs: Vec<f64> = values.iter().filter_map(|v| v.1).collect();
            let (lo, hi) = xs
                .iter()
                .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
            lo > 0.0 && hi / lo >= 100.0
        };
        let path = if k == 0 {
            p.to_path_buf()
        } else {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("sweep");
            let safe: String = axis
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            p.with_file_name(format!("{stem}-by-{safe}.svg"))
        };
        Figure {
            title: format!("Sweep: {metric} against {axis}"),
            x_label,
            y_label: metric.to_string(),
            log_x,
            log_y: false,
            series: curves
                .into_iter()
                .map(|(name, mut pts)| {
                    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Series {
                        name,
                        points: pts,
                        // Words have no order between them: points.
                        style: if all_numeric {
                            Style::Line
                        } else {
                            Style::Points
                        },
                    }
                })
                .collect(),
        }
        .write_svg_whole(&path)?;
        written.push(path);
    }
    Ok(written)
}

/// A figure written whole ([`super::output::write_with`]).
trait WriteWhole {
    fn write_svg_whole(&self, path: &Path) -> Result<(), String>;
}

impl WriteWhole for Figure {
    fn write_svg_whole(&self, path: &Path) -> Result<(), String> {
        super::output::write_with(path, |tmp| self.write_svg(tmp)).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::heat;

    /// The ramp runs from light yellow to dark red and darkens at every
    /// step of 1/16, so neighbouring values near the top differ too.
    #[test]
    fn heat_ramp_darkens_monotonically() {
        let luma = |f: f64| {
            let c = heat(f);
            0.299 * f64::from(c.0) + 0.587 * f64::from(c.1) + 0.114 * f64::from(c.2)
        };
        assert_eq!(heat(0.0), plotters::style::RGBColor(0xff, 0xff, 0xcc));
        assert_eq!(heat(1.0), plotters::style::RGBColor(0x80, 0x00, 0x26));
        for k in 0..16 {
            let (a, b) = (f64::from(k) / 16.0, f64::from(k + 1) / 16.0);
            assert!(luma(b) < luma(a), "{a} -> {b}: {} -> {}", luma(a), luma(b));
        }
    }
}
