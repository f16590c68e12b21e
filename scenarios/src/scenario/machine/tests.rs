//! `[machine]` specs: names, fields refused per family, builds.

use super::*;

#[test]
fn preset_names_are_serdes_and_claps() {
    for p in MachinePreset::ALL {
        let name = p.to_string();
        let back: MachinePreset = toml::Value::from(name.as_str()).try_into().unwrap();
        assert_eq!(back, p);
        #[cfg(feature = "clap")]
        {
            use clap::ValueEnum;
            let v = p.to_possible_value().expect("no skipped presets");
            assert_eq!(v.get_name(), name);
        }
    }
    #[cfg(feature = "clap")]
    assert_eq!(
        <MachinePreset as clap::ValueEnum>::value_variants(),
        &MachinePreset::ALL
    );
    assert_eq!(MachinePreset::BlueWaters.to_string(), "blue-waters");
}

#[test]
fn family_fields_come_from_the_types() {
    assert_eq!(
        MachinePreset::Ideal.fields(),
        &[
            "nodes",
            "latency",
            "bandwidth",
            "sockets",
            "cores_per_socket"
        ]
    );
    assert_eq!(MachinePreset::BlueWaters.fields().len(), 15);
    assert_eq!(serde_fields::<FileSpec>(), FILE_FIELDS);
}

#[test]
fn link_bandwidth_takes_one_rate_or_a_list() {
    let read = |t: &str| -> Result<MachineSpec, String> {
        toml::from_str::<toml::Table>(t)
            .unwrap()
            .get("machine")
            .cloned()
            .unwrap()
            .try_into()
            .map_err(|e: toml::de::Error| e.message().to_string())
    };
    let rates = |t: &str| match read(t).unwrap() {
        MachineSpec::BlueWaters(s) => s.link_bandwidth.unwrap(),
        _ => panic!("not a torus"),
    };
    let gb = |x: u64| Rate(Bandwidth::bytes_per_sec(x * 1_000_000_000));
    assert_eq!(
        rates("[machine]\nlink_bandwidth = \"2 GB/s\"\n"),
        vec![gb(2)]
    );
    assert_eq!(
        rates("[machine]\nlink_bandwidth = [\"2 GB/s\"]\n"),
        vec![gb(2)]
    );
    assert_eq!(
        rates("[machine]\nlink_bandwidth = [\"1 GB/s\", \"2 GB/s\", \"3 GB/s\"]\n"),
        vec![gb(1), gb(2), gb(3)]
    );
    // A bad rate still names what is wrong.
    let e = read("[machine]\nlink_bandwidth = 5\n").unwrap_err();
    assert!(e.contains("unit"), "{e}");
    // The single value builds a torus whose three dimensions have it.
    let MachineSpec::BlueWaters(t) =
        read("[machine]\ndims = [2, 2, 2]\nlink_bandwidth = \"2 GB/s\"\n").unwrap()
    else {
        panic!()
    };
    let f = ScenarioFile::default();
    let m = t.build(&|k, e| f.err("machine", k, e)).unwrap();
    let g = m.torus().unwrap();
    for port in [0, 2, 4] {
        let l = g.port_link(0, port).unwrap();
        assert_eq!(m.link(l).bandwidth, gb(2).0);
    }
}

#[test]
fn torus_tie_is_a_field() {
    let t: toml::Table = toml::from_str("dims = [4, 1, 1]\ntie = \"simgrid\"\n").unwrap();
    let MachineSpec::BlueWaters(spec) = toml::Value::Table(t).try_into().unwrap() else {
        panic!()
    };
    let f = ScenarioFile::default();
    let m = spec.build(&|k, e| f.err("machine", k, e)).unwrap();
    assert_eq!(m.torus().unwrap().tie(), TieRule::Simgrid);
    // Default: plus.
    let MachineSpec::BlueWaters(spec) = toml::Value::Table(toml::Table::new()).try_into().unwrap()
    else {
        panic!()
    };
    assert_eq!(spec.tie, None);
    let bad: Result<MachineSpec, _> =
        toml::Value::Table(toml::from_str("tie = \"sideways\"\n").unwrap()).try_into();
    assert!(bad.unwrap_err().to_string().contains("sideways"));
}

#[test]
fn fat_tree_preset_builds_and_routes_in_both_modes() {
    let t: toml::Table = toml::from_str(
        "preset = \"fat-tree\"\narity = 4\nlevels = 2\nlink_bandwidth = \"1 GB/s\"\n",
    )
    .unwrap();
    let MachineSpec::FatTree(spec) = toml::Value::Table(t).try_into().unwrap() else {
        panic!("not a fat tree")
    };
    let f = ScenarioFile::default();
    let m = spec.build(&|k, e| f.err("machine", k, e)).unwrap();
    assert_eq!(m.nodes(), 16);
    for mode in [topology::Mode::Packet, topology::Mode::Flow] {
        for routing in [
            topology::RouteMode::Dmodk,
            topology::RouteMode::Ecmp,
            topology::RouteMode::Random,
        ] {
            let cfg = topology::NetConfig {
                mode,
                routing,
                ..Default::default()
            };
            assert!(
                topology::Network::new(m.clone(), cfg).is_ok(),
                "{mode} {routing}"
            );
        }
    }
    // `nca` draws per packet: the packet model only.
    for (mode, ok) in [
        (topology::Mode::Packet, true),
        (topology::Mode::Flow, false),
    ] {
        let cfg = topology::NetConfig {
            mode,
            routing: topology::RouteMode::Nca,
            ..Default::default()
        };
        assert_eq!(topology::Network::new(m.clone(), cfg).is_ok(), ok, "{mode}");
    }
    // A torus field is named as another family's.
    let bad: Result<MachineSpec, _> =
        toml::Value::Table(toml::from_str("preset = \"fat-tree\"\ndims = [2, 2, 2]\n").unwrap())
            .try_into();
    assert!(bad.unwrap_err().to_string().contains("does not apply"));
    // Bad sizes name the field.
    let t: toml::Table = toml::from_str("preset = \"fat-tree\"\narity = 1\n").unwrap();
    let MachineSpec::FatTree(spec) = toml::Value::Table(t).try_into().unwrap() else {
        panic!()
    };
    let e = spec
        .build(&|k, e| f.err("machine", k, e))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("machine.arity"), "{e}");
}
