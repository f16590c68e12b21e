//! A new user's ordinary actions (issue 35): resources refused before
//! they are allocated, outputs that are whole or absent (also after
//! SIGINT), and the exit codes and messages of docs/BAD-INPUT.md rows
//! 79-85 (those that need more than one file, or none).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh folder for one test.
fn folder(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netsim-everyday-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn netsim(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netsim"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("netsim runs")
}

/// Checks the exit code and that stderr holds `message` and no panic.
fn fails(out: &Output, code: i32, message: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "panicked:\n{err}");
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert!(err.contains(message), "stderr lacks `{message}`:\n{err}");
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
        .display()
        .to_string()
}

/// A sweep of 10^9 points is refused before its points are built (it
/// allocated 32 GB and aborted), with the estimate and the options.
#[test]
fn sweep_of_a_billion_points_is_refused() {
    let d = folder("sweep-1e9");
    let v = "1,2,3,4,5,6,7,8,9,10";
    let mut args = vec!["sweep".to_string(), example("ping-pong-ideal.toml")];
    for p in ["seed", "a", "b", "c", "d", "e", "f", "g", "h"] {
        args.push("--vary".into());
        args.push(format!("{p}={v}"));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = netsim(&d, &args);
    fails(
        &out,
        2,
        "a sweep of 1000000000 points needs about 17000.00 GB, more than the ",
    );
    fails(
        &out,
        2,
        "split the sweep with --shard i/N, or raise the limit with --max-memory",
    );
    // A shard of it is estimated alone.
    let mut sharded = args.clone();
    sharded.extend(["--shard", "0/1000", "--max-memory", "1 GB"]);
    fails(
        &netsim(&d, &sharded),
        2,
        "shard 0/1000 of a sweep of 1000000000 points (1000000 points) needs about 17.00 GB, more than the 1.00 GB set by --max-memory",
    );
}

#[test]
fn sweep_axis_given_twice_is_an_error() {
    let d = folder("sweep-twice");
    let pp = example("ping-pong-ideal.toml");
    let out = netsim(
        &d,
        &["sweep", &pp, "--vary", "seed=1,2", "--vary", "seed=3"],
    );
    fails(
        &out,
        2,
        "--vary `seed` is given twice: give all its values in one --vary",
    );
}

/// `--series-interval "1 ps"` stops at the memory limit instead of
/// growing to 200 GB, says which interval would fit, and leaves no file.
#[test]
fn series_bins_above_the_memory_limit_are_refused() {
    let d = folder("series");
    let halo = example("halo-torus.toml");
    let args = [
        "run",
        &halo,
        "--quiet",
        "--series-interval",
        "1 ps",
        "--link-series",
        "ls.csv",
        "--timeline",
        "t.json",
        "--max-memory",
        "50 MB",
    ];
    fails(
        &netsim(&d, &args),
        2,
        "the link series in bins of 1 ps needs about 179.44 GB, more than the 50 MB set by --max-memory; choose a wider --series-interval (at least 3.589 ns)",
    );
    assert!(names(&d).is_empty(), "{:?}", names(&d));
}

#[test]
fn completions_into_a_full_disk_exit_2() {
    let full = std::fs::File::create("/dev/full").expect("/dev/full (Linux)");
    let out = Command::new(env!("CARGO_BIN_EXE_netsim"))
        .args(["completions", "bash"])
        .stdout(full)
        .output()
        .unwrap();
    fails(&out, 2, "cannot write the output: No space left on device");
}

/// Bad setups are exit 2 (bad input), not 1 (a failed check).
#[test]
fn setup_errors_exit_2() {
    let d = folder("setup");
    // `man` into a folder that cannot be created.
    fails(
        &netsim(&d, &["man", "/proc/netsim-man"]),
        2,
        "/proc/netsim-man",
    );
    // `fit --out` onto a full disk.
    let csv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../calibrate/data/mpich/mpich.csv");
    let csv = csv.display().to_string();
    let out = netsim(&d, &["fit", &csv, "--state", "near", "--out", "/dev/full"]);
    fails(&out, 2, "/dev/full");
    // `calibrate` with a launcher that does not exist.
    let out = netsim(
        &d,
        &[
            "calibrate",
            "--quick",
            "--mpirun",
            "/nonexistent/mpirun",
            "--out",
            "cal",
        ],
    );
    fails(&out, 2, "cannot start `/nonexistent/mpirun --version`");
}

/// A DUMPI rank file that is a folder is said to be one, not missing.
#[test]
fn dumpi_rank_file_that_is_a_folder() {
    let d = folder("dumpi-dir");
    std::fs::write(d.join("x.meta"), "numprocs=1\nfileprefix=r\n").unwrap();
    std::fs::create_dir(d.join("r-0000.bin")).unwrap();
    fails(
        &netsim(&d, &["replay", "x.meta", "--quiet"]),
        2,
        "x.meta: rank 0's trace file ",
    );
    fails(
        &netsim(&d, &["replay", "x.meta", "--quiet"]),
        2,
        "r-0000.bin is not a file (a directory?)",
    );
}

/// SIGINT in the middle of a run that writes a timeline and a message
/// file: exit 130, the files named as not written, nothing left beside
/// the scenario (not even the temporary files).
#[test]
fn sigint_leaves_no_partial_file() {
    let d = folder("sigint");
    // About 20 s of simulation: long enough to be interrupted.
    std::fs::write(
        d.join("long.toml"),
        "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"message-rate\"\niters = 100000\n",
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_netsim"))
        .current_dir(&d)
        .args(["run", "long.toml", "--quiet", "--timeline", "t.json"])
        .args(["--messages", "m.csv"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the partial files exist: the run is under way.
    let start = std::time::Instant::now();
    while names(&d).len() < 3 && start.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(names(&d).len(), 3, "{:?}", names(&d));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    fails(
        &out,
        130,
        "netsim: stopped by SIGINT; not written (partial files removed): t.json, m.csv",
    );
    assert_eq!(names(&d), ["long.toml"]);
}

/// Whether process `pid` is alive (a zombie is not: it only waits for
/// its parent to read its status).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let state = s[s.rfind(')')? + 1..]
                .split_whitespace()
                .next()?
                .to_string();
            Some(state != "Z" && state != "X")
        })
        .unwrap_or(false)
}

/// An executable shell script `name` in `d` running `body`; its path.
fn script(d: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = d.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.display().to_string()
}

/// A compiler that writes an empty program where `-o` says.
fn fake_mpicc(d: &Path) -> String {
    script(
        d,
        "mpicc",
        "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && : > \"$2\"; shift; done\n",
    )
}

/// A row's load is its own: rows whose `t_start`/`t_end` are not on
/// netsim's clock (here long before the chunk) or missing get the
/// chunk's load; the CSV keeps the benchmark's columns, the times
/// included, and adds the chunk and the load. The fake launcher writes
/// two rows and the summary line.
#[test]
fn calibration_rows_off_the_clock_get_the_chunk_load() {
    let d = folder("row-load");
    let mpicc = fake_mpicc(&d);
    let mpirun = script(
        &d,
        "mpirun",
        "[ \"$1\" = --version ] && { echo 'fake launcher 1.0'; exit 0; }\n\
         rows=\n\
         while [ $# -gt 0 ]; do [ \"$1\" = --out ] && rows=$2; shift; done\n\
         { echo 'library,kind,size,n,order,window,seconds,state,t_start,t_end'\n\
           echo 'mpi,pingpong,1,1,-,0,1e-6,near,0.000001,0.000002'\n\
           echo 'mpi,pingpong,2,1,-,0,1e-6,near,,'; } > \"$rows\"\n\
         echo 'netsim_bench: kind=pingpong chunk=0/1 units=2 measured=2 skipped_state=0 skipped_mixed=0 locality=same_socket cpus=0,1'\n",
    );
    let o = netsim(
        &d,
        &[
            "calibrate",
            "--quick",
            "--no-fit",
            "--kinds",
            "pingpong",
            "--out",
            "out",
            "--mpicc",
            &mpicc,
            "--mpirun",
            &mpirun,
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(d.join("out/mpi.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "library,kind,size,n,order,window,seconds,state,t_start,t_end,chunk,others_pct,steal_pct"
    );
    assert_eq!(lines.len(), 3, "{csv}");
    let load = |l: &str| l.split(',').skip(10).collect::<Vec<_>>().join(",");
    assert!(
        lines[1].starts_with("mpi,pingpong,1,1,-,0,1e-6,near,0.000001,0.000002,pingpong:0/1:2,")
    );
    assert_eq!(load(lines[1]), load(lines[2]));
    let pct: f64 = lines[1].split(',').nth(11).unwrap().parse().unwrap();
    assert!((0.0..=100.0).contains(&pct), "{pct}");
}

/// SIGINT to `netsim calibrate` alone while a chunk runs: netsim stops
/// the launcher's process group itself (the launcher and its child,
/// which the signal never reached), removes the chunk's partial rows,
/// says so and exits 130. The launcher is a shell script that writes
/// half a chunk, records its pid and its child's, and sleeps.
#[test]
fn sigint_during_a_calibration_chunk_stops_the_launcher_group() {
    let d = folder("sigint-calibrate");
    let out = d.join("out");
    let pids = d.join("launcher.pids");
    let mpicc = fake_mpicc(&d);
    let mpirun = script(
        &d,
        "mpirun",
        &format!(
            "[ \"$1\" = --version ] && {{ echo 'fake launcher 1.0'; exit 0; }}\n\
             rows=\n\
             while [ $# -gt 0 ]; do [ \"$1\" = --out ] && rows=$2; shift; done\n\
             echo 'kind,size,n,order,window,seconds' > \"$rows\"\n\
             sleep 30 &\n\
             echo \"$$ $!\" > {p}.tmp && mv {p}.tmp {p}\n\
             wait\n",
            p = pids.display()
        ),
    );
    let child = Command::new(env!("CARGO_BIN_EXE_netsim"))
        .current_dir(&d)
        .args(["calibrate", "--quick", "--no-fit", "--out", "out"])
        .args(["--mpicc", &mpicc, "--mpirun", &mpirun])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !pids.exists() && start.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let text = std::fs::read_to_string(&pids).expect("the launcher ran");
    let launched: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(launched.len(), 2, "{text}");
    assert!(launched.iter().all(|p| alive(p)), "{launched:?}");
    assert!(
        names(&out).iter().any(|n| n.ends_with(".part")),
        "{:?}",
        names(&out)
    );
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    fails(
        &o,
        130,
        &format!(
            "netsim: stopped by SIGINT; stopped `{mpirun}` (process group {}, 2 processes) with SIGTERM; not written (partial files removed): out/chunk.csv",
            launched[0]
        ),
    );
    assert!(
        launched.iter().all(|p| !alive(p)),
        "left running: {launched:?}"
    );
    assert_eq!(
        names(&out),
        ["calibrate.log", "netsim_bench", "netsim_bench.c"]
    );
    assert!(start.elapsed().as_secs() < 10, "took {:?}", start.elapsed());
}
