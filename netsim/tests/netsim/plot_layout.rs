//! The layout of `--plot`'s torus map, read from its SVG text: router
//! ticks at cell centres, no text box over another (axis labels clear of
//! the tick labels) and a colour bar labelled 0 % and the busiest link.

use std::path::Path;
use std::process::Command;

/// A `<text>` of the SVG: its content, anchor point and box.
#[derive(Debug)]
struct Label {
    text: String,
    x: f64,
    y: f64,
    anchor: String,
    fill: String,
    /// Left, right, top, bottom in pixels.
    bbox: [f64; 4],
}

/// A `<rect>` of the SVG: x, y, width, height and fill.
#[derive(Debug)]
struct Cell {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    fill: String,
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&tag[at..at + tag[at..].find('"')?])
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number `{name}` in {tag}"))
}

/// The texts with their boxes, estimated as a sans-serif font does at
/// most: 0.6 em per character wide, 1 em high, placed by the anchor, the
/// `dy` shift plotters writes and a `rotate(270)`.
fn labels(svg: &str) -> Vec<Label> {
    let mut out = Vec::new();
    for part in svg.split("<text").skip(1) {
        let (tag, rest) = part.split_once('>').unwrap();
        let text = rest.split("</text>").next().unwrap().trim().to_string();
        let (x, y, size) = (num(tag, "x"), num(tag, "y"), num(tag, "font-size"));
        let anchor = attr(tag, "text-anchor").unwrap_or("start").to_string();
        let w = 0.6 * size * text.chars().count() as f64;
        let (l, r) = match anchor.as_str() {
            "middle" => (-w / 2.0, w / 2.0),
            "end" => (-w, 0.0),
            _ => (0.0, w),
        };
        let (t, b) = match attr(tag, "dy").unwrap_or("0") {
            "0.76em" => (0.0, size),
            "0.5ex" => (-size / 2.0, size / 2.0),
            "-0.5ex" => (-size, 0.0),
            dy => panic!("unexpected dy {dy} in {tag}"),
        };
        let bbox = match attr(tag, "transform") {
            None => [x + l, x + r, y + t, y + b],
            // rotate(270) about (x, y) maps (dx, dy) to (dy, -dx).
            Some(tr) if tr.starts_with("rotate(270") => [x + t, x + b, y - r, y - l],
            Some(tr) => panic!("unexpected transform {tr}"),
        };
        let fill = attr(tag, "fill").unwrap_or("").to_string();
        out.push(Label {
            text,
            x,
            y,
            anchor,
            fill,
            bbox,
        });
    }
    out
}

fn rects(svg: &str) -> Vec<Cell> {
    svg.split("<rect")
        .skip(1)
        .map(|part| {
            let tag = part.split_once('>').unwrap().0;
            Cell {
                x: num(tag, "x"),
                y: num(tag, "y"),
                w: num(tag, "width"),
                h: num(tag, "height"),
                fill: attr(tag, "fill").unwrap_or("").to_string(),
            }
        })
        .collect()
}

fn overlap(a: &[f64; 4], b: &[f64; 4]) -> bool {
    a[0] < b[1] && b[0] < a[1] && a[2] < b[3] && b[2] < a[3]
}

/// The torus map of `examples/halo-torus.toml` with `sets`.
fn torus_svg(test: &str, sets: &[&str]) -> String {
    let d = std::env::temp_dir().join(format!("netsim-plot-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/halo-torus.toml");
    let mut args = vec!["run".to_string(), ex.display().to_string()];
    for s in sets {
        args.push("--set".into());
        args.push(s.to_string());
    }
    args.push("--plot".into());
    args.push(d.join("p.svg").display().to_string());
    let o = Command::new(env!("CARGO_BIN_EXE_netsim"))
        .args(&args)
        .output()
        .expect("netsim runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(d.join("p-torus.svg")).unwrap();
    let _ = std::fs::remove_dir_all(&d);
    svg
}

/// Checks the map of an `nx x ny x nz` torus.
fn check_layout(svg: &str, [nx, ny, nz]: [usize; 3]) {
    let texts = labels(svg);
    let all = rects(svg);
    // Router cells: the big filled rectangles (not the background).
    let cells: Vec<&Cell> = all
        .iter()
        .filter(|r| r.w >= 20.0 && r.h >= 20.0 && r.fill != "#FFFFFF" && r.fill != "none")
        .collect();
    assert_eq!(cells.len(), nx * ny * nz, "one cell per router");
    let black = |l: &&Label| l.fill == "#000000" && l.text.parse::<u32>().is_ok();
    // x ticks: below a cell, at its centre; y ticks: left of it, at its
    // middle. A tick on a cell edge is at no cell's centre.
    let xt: Vec<&Label> = texts
        .iter()
        .filter(black)
        .filter(|l| l.anchor == "middle")
        .collect();
    let yt: Vec<&Label> = texts
        .iter()
        .filter(black)
        .filter(|l| l.anchor == "end")
        .collect();
    assert_eq!(xt.len(), nx * nz, "one x tick per router column: {xt:?}");
    assert_eq!(yt.len(), ny * nz, "one y tick per router row: {yt:?}");
    for t in &xt {
        let i: f64 = t.text.parse().unwrap();
        assert!(
            cells.iter().any(|c| c.x < t.x
                && t.x < c.x + c.w
                && (c.x + c.w / 2.0 - t.x).abs() <= 1.0
                && t.y >= c.y + c.h),
            "x tick {} at x = {} is not at a cell centre",
            t.text,
            t.x
        );
        assert!(i < nx as f64);
    }
    for t in &yt {
        assert!(
            cells.iter().any(|c| c.y < t.y
                && t.y < c.y + c.h
                && (c.y + c.h / 2.0 - t.y).abs() <= 1.0
                && t.x <= c.x),
            "y tick {} at y = {} is not at a cell middle",
            t.text,
            t.y
        );
    }
    // No text box over another: axis labels against tick labels, and
    // every other pair.
    for (i, a) in texts.iter().enumerate() {
        for b in &texts[i + 1..] {
            assert!(!overlap(&a.bbox, &b.bbox), "{a:?} overlaps {b:?}");
        }
    }
    assert_eq!(texts.iter().filter(|l| l.text == "x").count(), nz);
    assert_eq!(texts.iter().filter(|l| l.text == "y").count(), nz);
    // The colour bar: thin steps of many colours right of every cell,
    // "0 %" at its bottom and the busiest link's percentage at its top,
    // which rounds to the largest percentage written in a cell.
    let right = cells.iter().map(|c| c.x + c.w).fold(0.0, f64::max);
    let steps: Vec<&Cell> = all
        .iter()
        .filter(|r| r.x >= right && r.fill != "none" && r.fill != "#FFFFFF")
        .collect();
    let mut fills: Vec<&str> = steps.iter().map(|r| r.fill.as_str()).collect();
    fills.sort_unstable();
    fills.dedup();
    assert!(fills.len() >= 16, "colour bar has {} colours", fills.len());
    let top = steps.iter().map(|r| r.y).fold(f64::INFINITY, f64::min);
    let bottom = steps.iter().map(|r| r.y + r.h).fold(0.0, f64::max);
    let scale: Vec<(&Label, f64)> = texts
        .iter()
        .filter_map(|l| Some((l, l.text.strip_suffix(" %")?.parse::<f64>().ok()?)))
        .collect();
    assert_eq!(scale.len(), 2, "colour bar labels: {scale:?}");
    let (lo, hi) = (scale[1], scale[0]);
    assert_eq!(lo.0.text, "0 %");
    assert!(
        (lo.0.y - bottom).abs() <= 2.0,
        "0 % at y {} not at bar bottom {bottom}",
        lo.0.y
    );
    assert!(
        (hi.0.y - top).abs() <= 2.0,
        "max at y {} not at bar top {top}",
        hi.0.y
    );
    assert!(lo.0.x >= right && hi.0.x >= right);
    let in_cells = texts
        .iter()
        .filter(|l| l.anchor == "start" && !l.text.ends_with('%'))
        .filter_map(|l| l.text.parse::<u32>().ok())
        .max()
        .expect("percentages in the cells");
    assert!(hi.1 > 0.0);
    assert_eq!(hi.1.round() as u32, in_cells, "bar max {} vs cells", hi.1);
}

#[test]
fn torus_plot_layout() {
    check_layout(&torus_svg("4x2x2", &["workload.iters=1"]), [4, 2, 2]);
    // A dimension of one router is ticked at its centre too.
    let thin = [
        "machine.dims=[4,1,2]",
        "workload.dims=[4,2,2]",
        "workload.iters=1",
    ];
    check_layout(&torus_svg("4x1x2", &thin), [4, 1, 2]);
}
