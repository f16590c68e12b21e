//! SVG figures: simulated against modeled, in the manner of the papers'
//! figures (points for what was simulated, lines for the model).

use crate::Error;
use plotters::prelude::*;
use std::path::Path;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Connected line (models).
    Line,
    /// Unconnected markers (simulated or measured values).
    Points,
}

/// A named series of `(x, y)` points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Data, in x order for lines.
    pub points: Vec<(f64, f64)>,
    /// Drawing style.
    pub style: Style,
}

/// A 2-D chart of several series.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// Title above the plot.
    pub title: String,
    /// X axis label, with unit.
    pub x_label: String,
    /// Y axis label, with unit.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// The series.
    pub series: Vec<Series>,
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
];

/// Width of the chart (axes, ticks and plot) in pixels.
const CHART_WIDTH: u32 = 720;
/// Width of the legend column right of the chart in pixels.
const LEGEND_WIDTH: u32 = 300;

/// Tick label: plain for moderate whole numbers, else one significant
/// digit in scientific notation (log-axis ticks are powers of ten, and
/// their float values print with a tail of nines otherwise).
fn tick(v: &f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if (1e-2..1e5).contains(&a) {
        let r = (v * 100.0).round() / 100.0;
        if r.fract() == 0.0 {
            format!("{r:.0}")
        } else {
            format!("{r}")
        }
    } else {
        format!("{v:.1e}")
    }
}

fn range(vals: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        (lo / 1.5, hi * 1.5)
    } else {
        let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-3).max(1e-300);
        (lo - pad, hi + pad)
    }
}

impl Figure {
    /// Writes the figure as SVG to `path`.
    pub fn write_svg(&self, path: &Path) -> Result<(), Error> {
        let err = |e: &dyn std::fmt::Display| {
            Error::Input(format!("{}: cannot draw figure: {e}", path.display()))
        };
        let all = || self.series.iter().flat_map(|s| s.points.iter());
        let (x0, x1) = range(all().map(|p| p.0), self.log_x);
        let (y0, y1) = range(all().map(|p| p.1), self.log_y);
        let root = SVGBackend::new(path, (CHART_WIDTH + LEGEND_WIDTH, 480)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        // The legend has its own column right of the chart, so it never
        // covers a point or a line.
        let (chart, legend) = root.split_horizontally(CHART_WIDTH);
        self.draw_legend(&legend).map_err(|e| err(&e))?;
        let mut b = ChartBuilder::on(&chart);
        b.caption(&self.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(70);
        // plotters types differ for log and linear axes; draw through one
        // generic function per combination.
        macro_rules! draw {
            ($xr:expr, $yr:expr) => {{
                let mut c = b.build_cartesian_2d($xr, $yr).map_err(|e| err(&e))?;
                c.configure_mesh()
                    .x_label_formatter(&tick)
                    .y_label_formatter(&tick)
                    .x_desc(self.x_label.as_str())
                    .y_desc(self.y_label.as_str())
                    .draw()
                    .map_err(|e| err(&e))?;
                for (i, s) in self.series.iter().enumerate() {
                    let color = PALETTE[i % PALETTE.len()];
                    let pts = s.points.iter().cloned().filter(|(x, y)| {
                        x.is_finite()
                            && y.is_finite()
                            && (!self.log_x || *x > 0.0)
                            && (!self.log_y || *y > 0.0)
                    });
                    match s.style {
                        Style::Line => c
                            .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                            .map_err(|e| err(&e))?,
                        Style::Points => c
                            .draw_series(pts.map(|p| Circle::new(p, 3, color.filled())))
                            .map_err(|e| err(&e))?,
                    };
                }
            }};
        }
        match (self.log_x, self.log_y) {
            (true, true) => draw!((x0..x1).log_scale(), (y0..y1).log_scale()),
            (true, false) => draw!((x0..x1).log_scale(), y0..y1),
            (false, true) => draw!(x0..x1, (y0..y1).log_scale()),
            (false, false) => draw!(x0..x1, y0..y1),
        }
        root.present().map_err(|e| err(&e))?;
        Ok(())
    }

    /// One legend entry per series (its marker, then its name), top down
    /// from the height of the plot's top edge.
    fn draw_legend<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        for (i, s) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let y = 60 + 20 * i as i32;
            match s.style {
                Style::Line => area.draw(&PathElement::new(
                    vec![(8, y), (28, y)],
                    color.stroke_width(2),
                ))?,
                Style::Points => area.draw(&Circle::new((18, y), 3, color.filled()))?,
            }
            area.draw(&Text::new(s.name.as_str(), (36, y - 7), ("sans-serif", 14)))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_an_svg_with_every_series() {
        let dir = std::env::temp_dir().join(format!("netsim-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.svg");
        Figure {
            title: "HighVolumePingPong".into(),
            x_label: "messages n".into(),
            y_label: "time [s]".into(),
            log_x: true,
            log_y: true,
            series: vec![
                Series {
                    name: "simulated".into(),
                    points: vec![(1.0, 1e-6), (10.0, 1e-5), (100.0, 1e-3)],
                    style: Style::Points,
                },
                Series {
                    name: "model".into(),
                    points: vec![(1.0, 1e-6), (100.0, 1e-3)],
                    style: Style::Line,
                },
            ],
        }
        .write_svg(&path)
        .unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(
            svg.contains("simulated")
                && svg.contains("model")
                && svg.contains("HighVolumePingPong")
        );
        assert_eq!(
            svg.matches("<circle").count(),
            3 + 1,
            "three points and a legend marker"
        );
        // The legend stands right of the chart: every legend name starts
        // beyond the chart's width and every data point lies within it.
        let attr = |tag: &str, name: &str| -> Vec<f64> {
            svg.split(tag)
                .skip(1)
                .map(|t| {
                    let v = t.split(&format!(" {name}=\"")).nth(1).unwrap();
                    v[..v.find('"').unwrap()].parse().unwrap()
                })
                .collect()
        };
        let text_x = attr("<text", "x");
        let names: Vec<&str> = svg
            .split("<text")
            .skip(1)
            .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].trim())
            .collect();
        let legend: Vec<(&&str, &f64)> = names
            .iter()
            .zip(&text_x)
            .filter(|(n, _)| **n == "simulated" || **n == "model")
            .collect();
        assert_eq!(legend.len(), 2, "one legend entry per series");
        for (name, x) in legend {
            assert!(*x > CHART_WIDTH as f64, "legend entry {name} at x = {x}");
        }
        let circles = attr("<circle", "cx");
        assert_eq!(circles.len(), 4);
        let data: Vec<f64> = circles
            .into_iter()
            .filter(|x| *x < CHART_WIDTH as f64)
            .collect();
        assert_eq!(data.len(), 3, "the three points inside the chart");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
