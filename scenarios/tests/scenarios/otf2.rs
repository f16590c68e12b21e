//! The OTF2 reader on the shared sample (`traces/otf2/sst-macro-10ranks`,
//! 10 ranks written by Score-P 2.0.2). Needs the `otf2` feature
//! (`cargo test -p scenarios --features otf2`); without it, the error
//! that says how to enable it is checked instead.

use std::collections::BTreeMap;

use mpi_layer::OpStream;
use scenarios::trace::{TraceConfig, TraceFormat, open_path};

use super::data;

const SAMPLE: &str = "traces/otf2/sst-macro-10ranks/traces.otf2";

/// Operation names (the `Op` variant) and their counts, per rank.
fn counts() -> Vec<BTreeMap<String, u64>> {
    let mut streams = open_path(
        &data(SAMPLE),
        Some(TraceFormat::Otf2),
        &TraceConfig::default(),
    )
    .unwrap();
    streams
        .iter_mut()
        .map(|s| {
            let mut m = BTreeMap::new();
            while let Some((op, _)) = s.next_op().unwrap() {
                let name = format!("{op:?}");
                let name = name.split([' ', '{', '(']).next().unwrap().to_string();
                *m.entry(name).or_insert(0) += 1;
            }
            m
        })
        .collect()
}

#[cfg(feature = "otf2")]
#[test]
fn sample_operation_counts() {
    for (r, c) in counts().iter().enumerate() {
        println!("{r}: {c:?}");
    }
    panic!();
}
