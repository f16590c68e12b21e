//! `[mpi] collectives` and `[mpi.collectives]`: the selector and the
//! per-collective algorithms reach the run, the report names what ran
//! and why, and bad names are errors naming the key.

use super::{scratch, write};
use scenarios::scenario::{self, CollectiveRow, Outcome};
use std::path::Path;

/// An alltoall of 8 B on 16 ranks of the ideal machine, with `mpi` as
/// the `[mpi]` section's extra lines.
fn scenario(dir: &Path, name: &str, mpi: &str) -> std::path::PathBuf {
    let text = format!(
        "[machine]\npreset = \"ideal\"\n[mpi]\npreset = \"blue-waters\"\n{mpi}\n\
         [workload]\nkind = \"collective\"\nop = \"alltoall\"\nprocs = 16\nsize = 8\nreps = 2\n"
    );
    write(dir, name, &text)
}

fn run(path: &Path, sets: &[(&str, &str)]) -> Result<Outcome, String> {
    let sets: Vec<(String, toml::Value)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), toml::Value::String(v.to_string())))
        .collect();
    let (src, sc) = scenario::load_with(path, &sets).map_err(|e| e.to_string())?;
    sc.run(&src, u64::MAX, |_, _| {}).map_err(|e| e.to_string())
}

fn row(o: &Outcome) -> &CollectiveRow {
    assert_eq!(o.report.collectives.len(), 1, "{:?}", o.report.collectives);
    &o.report.collectives[0]
}

#[test]
fn selector_and_overrides_choose_the_algorithm_and_the_report_says_so() {
    let d = scratch("selectors");
    // netsim: 8 B <= 256 B on 16 >= 8 ranks: Bruck, counted once per call.
    let o = run(&scenario(&d, "netsim.toml", ""), &[]).unwrap();
    assert_eq!(o.report.mpi.collectives, "netsim");
    let r = row(&o);
    assert_eq!((r.kind, r.algorithm, r.calls), ("alltoall", "bruck", 2));
    // SMPI: alltoall__ompi, 16 <= P < 32 and 4 <= 8 B < 512: Bruck too;
    // the rule names SimGrid's source.
    let smpi = scenario(&d, "smpi.toml", "collectives = \"smpi\"");
    let o = run(&smpi, &[]).unwrap();
    assert_eq!(o.report.mpi.collectives, "smpi");
    assert_eq!(row(&o).algorithm, "bruck");
    assert!(row(&o).rule.contains("alltoall__ompi"), "{}", row(&o).rule);
    // An override replaces it, and costs what the algorithm costs: all
    // 15 messages of a rank at once rather than 4 rounds.
    let table = "[mpi.collectives]\nselector = \"smpi\"\nalltoall = \"scattered\"";
    let o2 = run(&scenario(&d, "scattered.toml", table), &[]).unwrap();
    assert_eq!(
        (row(&o2).algorithm, row(&o2).rule),
        ("scattered", "[mpi.collectives] override")
    );
    assert_eq!(o2.report.messages, 2 * 16 * 15);
    assert_ne!(o2.report.makespan_ps, o.report.makespan_ps);
    // The string form takes `--set mpi.collectives.selector` (what
    // `--collectives` sets) and `--set mpi.collectives.alltoall`.
    let o3 = run(
        &smpi,
        &[
            ("mpi.collectives.selector", "netsim"),
            ("mpi.collectives.alltoall", "pairwise"),
        ],
    )
    .unwrap();
    assert_eq!(o3.report.mpi.collectives, "netsim");
    assert_eq!(row(&o3).algorithm, "pairwise");
}

#[test]
fn unknown_names_are_errors_naming_the_key() {
    let d = scratch("selector-errors");
    let e = run(&scenario(&d, "a.toml", "collectives = \"mpi\""), &[]).unwrap_err();
    assert!(
        e.contains("mpi.collectives.selector") && e.contains("one of netsim, smpi, mpich, openmpi"),
        "{e}"
    );
    let e = run(
        &scenario(&d, "b.toml", "[mpi.collectives]\nalltoall = \"ring\""),
        &[],
    )
    .unwrap_err();
    assert!(
        e.contains("mpi.collectives.alltoall") && e.contains("pairwise, pairwise_xor, bruck"),
        "{e}"
    );
    let e = run(
        &scenario(&d, "c.toml", "[mpi.collectives]\nalltoal = \"bruck\""),
        &[],
    )
    .unwrap_err();
    assert!(e.contains("alltoal"), "{e}");
    let e = run(&scenario(&d, "d.toml", "collectives = 3"), &[]).unwrap_err();
    assert!(e.contains("selector's name"), "{e}");
}

#[test]
fn library_selectors_and_conditional_overrides() {
    let d = scratch("selectors-libs");
    // MPICH: 8 B per peer on 16 >= 8 ranks, <= 256 B: Bruck; Open MPI:
    // 16 <= P < 32, 4 <= 8 B < 512: modified_bruck.
    for (name, rule) in [
        ("mpich", "MPIR_Alltoall_intra_brucks"),
        ("openmpi", "3 modified_bruck"),
    ] {
        let f = scenario(
            &d,
            &format!("{name}.toml"),
            &format!("collectives = \"{name}\""),
        );
        let o = run(&f, &[]).unwrap();
        assert_eq!(o.report.mpi.collectives, name);
        assert_eq!(row(&o).algorithm, "bruck");
        assert!(row(&o).rule.contains(rule), "{}", row(&o).rule);
    }
    // A rule whose conditions do not hold leaves the selector's choice;
    // the first that holds wins.
    let rules = "[mpi.collectives]\nselector = \"mpich\"\n\
                 alltoall = [\"pairwise@bytes>=1KiB\", \"scattered@bytes<=8B,procs>=16\", \"pairwise\"]";
    let o = run(&scenario(&d, "rules.toml", rules), &[]).unwrap();
    assert_eq!(
        (row(&o).algorithm, row(&o).rule),
        (
            "scattered",
            "[mpi.collectives] override, its conditions met"
        )
    );
    let rules = "[mpi.collectives]\nselector = \"mpich\"\nalltoall = \"pairwise@procs<16\"";
    let o = run(&scenario(&d, "miss.toml", rules), &[]).unwrap();
    assert_eq!(row(&o).algorithm, "bruck");
}

#[test]
fn bad_override_rules_name_the_file_and_line() {
    let d = scratch("selector-rule-errors");
    let cases = [
        (
            "alltoall = \"bruck@size<=8B\"",
            "names neither `bytes` nor `procs`",
        ),
        ("alltoall = \"bruck@bytes~8B\"", "needs <, <=, >, >= or ="),
        (
            "alltoall = \"bruck@bytes<=8 parsecs\"",
            "bruck@bytes<=8 parsecs",
        ),
        ("alltoall = \"bruck@procs<=many\"", "not a number of ranks"),
        ("alltoall = \"bruck@bytes<0B\"", "never holds"),
        (
            "alltoall = \"bruck@bytes<8B,bytes>16B\"",
            "never hold together",
        ),
        ("alltoallv = \"pairwise@bytes<8B\"", "no size to compare"),
        (
            "alltoall = \"ring@bytes<8B\"",
            "unknown alltoall algorithm `ring`",
        ),
        ("alltoall = []", "give 1 to 4 rules, not 0"),
        (
            "alltoall = [\"bruck\", \"bruck\", \"bruck\", \"bruck\", \"bruck\"]",
            "not 5",
        ),
        ("alltoall = 3", "a list of"),
    ];
    for (i, (line, want)) in cases.into_iter().enumerate() {
        let f = scenario(
            &d,
            &format!("e{i}.toml"),
            &format!("[mpi.collectives]\n{line}"),
        );
        let e = run(&f, &[]).unwrap_err();
        // The key sits on line 6 of the file.
        assert!(e.contains(want), "{line}: {e}");
        assert!(
            e.contains(&format!("e{i}.toml")) && e.contains(":6"),
            "{line}: {e}"
        );
    }
}

/// Runs `trace`, written to `file` (its extension names the format), on
/// the ideal machine under `selector`.
fn run_trace(dir: &str, file: &str, trace: &str, selector: &str) -> Outcome {
    let d = scratch(dir);
    write(&d, file, trace);
    let s = write(
        &d,
        "s.toml",
        &format!(
            "[machine]\npreset = \"ideal\"\n[mpi]\ncollectives = \"{selector}\"\n\
             [workload]\nkind = \"trace\"\npath = \"{file}\"\n"
        ),
    );
    run(&s, &[]).unwrap()
}

#[test]
fn ti_datatypes_give_the_element_count_mpich_compares() {
    // Two allreduces of 16 B on 4 ranks (pof2 = 4) under MPICH: 2 doubles
    // (SimGrid datatype 0) are fewer than pof2, so recursive doubling;
    // 16 chars (datatype 2) are not, so Rabenseifner.
    let trace: String = (0..4)
        .map(|r| format!("{r} init\n{r} allreduce 2 0 0\n{r} allreduce 16 0 2\n{r} finalize\n"))
        .collect();
    let o = run_trace("selectors-ti-datatype", "t.txt", &trace, "mpich");
    let rows: Vec<_> = o
        .report
        .collectives
        .iter()
        .map(|r| (r.kind, r.algorithm, r.rule, r.calls))
        .collect();
    assert_eq!(
        rows,
        [
            (
                "allreduce",
                "recursive_doubling",
                "mpich generic.json allreduce: count<pow2: MPIR_Allreduce_intra_recursive_doubling",
                1
            ),
            (
                "allreduce",
                "rabenseifner",
                "mpich generic.json allreduce: MPIR_Allreduce_intra_reduce_scatter_allgather",
                1
            ),
        ]
    );
}

#[test]
fn native_bcast_element_size_gives_the_count_openmpi_compares() {
    // A 1 MiB bcast on 17 ranks under Open MPI: the table says
    // scatter_allgather, which runs basic_linear when count < size.
    // 1 MiB is 17 elements of 61680 B (scatter) and 16 of 61681 B
    // (linear); without `elem=`, 131072 doubles (scatter).
    let trace: String = (0..17)
        .map(|r| {
            format!(
                "{r} bcast root=0 bytes=1048576 elem=61680\n\
                 {r} bcast root=0 bytes=1048576 elem=61681\n\
                 {r} bcast root=0 bytes=1048576\n"
            )
        })
        .collect();
    let o = run_trace("selectors-native-bcast-elem", "t.trace", &trace, "openmpi");
    let rows: Vec<_> = o
        .report
        .collectives
        .iter()
        .map(|r| (r.algorithm, r.calls))
        .collect();
    assert_eq!(rows, [("scatter_rd_allgather", 2), ("linear", 1)]);
}
