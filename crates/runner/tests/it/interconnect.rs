//! The machine format's `[interconnect]` (docs/noc.md): Table 2's defaults, a one-line error for
//! every bad key, and the network run options of a machine configuration
//! (`MACHINE:arbitration=ocor`, `MACHINE:priority_levels=N`).

use ampsched_model::{Arbitration, Machine};
use ampsched_runner::catalog;

use crate::common::ScratchDir;

/// A 64-core machine with `interconnect` as its `[interconnect]` table's body.
fn mesh_machine(interconnect: &str) -> String {
    format!("memory_latency_ns = 80\n[[core_type]]\nname = \"c\"\ncount = 64\nfreq_ghz = 2.0\n[interconnect]\n{interconnect}")
}

fn err(interconnect: &str) -> String {
    Machine::from_toml("m.toml", &mesh_machine(interconnect)).unwrap_err().to_string()
}

#[test]
fn an_eight_by_eight_mesh_has_table_2s_values_by_default() {
    let m = Machine::from_toml("m.toml", &mesh_machine("kind = \"mesh\"\nwidth = 8\n")).unwrap();
    let ic = m.interconnect.expect("a network");
    assert_eq!((ic.width, ic.height, ic.router_stages, ic.link_cycles, ic.vcs, ic.vc_buffer_flits), (8, 8, 2, 1, 6, 4));
    assert_eq!((ic.flit_bytes, ic.line_bytes, ic.line_flits(), ic.clock_ghz), (16, 128, 8, 2.0));
    // The middle four nodes of the top and bottom rows.
    assert_eq!(ic.memory_controllers, [2, 3, 4, 5, 58, 59, 60, 61]);
    assert_eq!((ic.arbitration, ic.priority_levels, ic.progress_levels), (Arbitration::RoundRobin, 8, 4));
    // Every machine without the table has no network.
    assert_eq!(catalog::machine("exynos5422").unwrap().interconnect, None);
}

#[test]
fn every_key_can_be_given() {
    let text = "kind = \"mesh\"\nwidth = 16\nheight = 4\nrouter_stages = 3\nlink_cycles = 2\nvcs = 2\nvc_buffer_flits = 8\n\
                flit_bytes = 8\nline_bytes = 64\nclock_ghz = 1.5\nmemory_controllers = [63, 0]\narbitration = \"ocor\"\n\
                priority_levels = 4\nprogress_levels = 1\n";
    let ic = Machine::from_toml("m.toml", &mesh_machine(text)).unwrap().interconnect.unwrap();
    assert_eq!((ic.width, ic.height, ic.router_stages, ic.link_cycles, ic.vcs, ic.vc_buffer_flits), (16, 4, 3, 2, 2, 8));
    assert_eq!((ic.line_flits(), ic.clock_ghz, ic.memory_controllers.clone()), (8, 1.5, vec![0, 63]));
    assert_eq!((ic.arbitration, ic.priority_levels, ic.progress_levels), (Arbitration::Ocor, 4, 1));
}

#[test]
fn bad_interconnect_keys_are_one_line_errors_naming_the_key() {
    let cases = [
        ("width = 8\n", "m.toml: interconnect.kind: missing required key"),
        ("kind = \"torus\"\nwidth = 8\n", "m.toml: interconnect.kind: 'torus' is not a known interconnect (the one kind: \"mesh\")"),
        ("kind = \"mesh\"\n", "m.toml: interconnect.width: missing required key"),
        ("kind = \"mesh\"\nwidth = 4\n", "m.toml: interconnect.width: a 4×4 mesh has 16 nodes, but the machine has 64 cores (one core per node)"),
        ("kind = \"mesh\"\nwidth = 0\n", "m.toml: interconnect.width: must be a whole number from 1 to 90, got 0"),
        ("kind = \"mesh\"\nwidth = 8\nheight = 91\n", "m.toml: interconnect.height: must be a whole number from 1 to 90, got 91"),
        ("kind = \"mesh\"\nwidth = 8\nrouter_stages = 0\n", "m.toml: interconnect.router_stages: must be a whole number from 1 to 16 cycles, got 0"),
        ("kind = \"mesh\"\nwidth = 8\nlink_cycles = 17\n", "m.toml: interconnect.link_cycles: must be a whole number from 1 to 16 cycles, got 17"),
        ("kind = \"mesh\"\nwidth = 8\nvcs = 2.5\n", "m.toml: interconnect.vcs: expected an integer, got float"),
        ("kind = \"mesh\"\nwidth = 8\nvc_buffer_flits = 65\n", "m.toml: interconnect.vc_buffer_flits: must be a whole number from 1 to 64 flits, got 65"),
        (
            "kind = \"mesh\"\nwidth = 8\nflit_bytes = 32\nline_bytes = 16\n",
            "m.toml: interconnect.line_bytes: 16 is below flit_bytes (32): a line is at least one flit",
        ),
        ("kind = \"mesh\"\nwidth = 8\nclock_ghz = 0\n", "m.toml: interconnect.clock_ghz: must be from 0.01 to 100 GHz, got 0"),
        (
            "kind = \"mesh\"\nwidth = 8\nmemory_controllers = [64]\n",
            "m.toml: interconnect.memory_controllers: node 64 does not exist (the mesh has nodes 0 to 63)",
        ),
        ("kind = \"mesh\"\nwidth = 8\nmemory_controllers = [3, 3]\n", "m.toml: interconnect.memory_controllers: node 3 is listed twice"),
        (
            "kind = \"mesh\"\nwidth = 8\nmemory_controllers = []\n",
            "m.toml: interconnect.memory_controllers: an empty list: give at least one node id (or leave the key out for Table 2's placement)",
        ),
        ("kind = \"mesh\"\nwidth = 8\narbitration = \"fifo\"\n", "m.toml: interconnect.arbitration: 'fifo' is not \"round_robin\" or \"ocor\""),
        ("kind = \"mesh\"\nwidth = 8\npriority_levels = 129\n", "m.toml: interconnect.priority_levels: must be a whole number from 1 to 128, got 129"),
        ("kind = \"mesh\"\nwidth = 8\nprogress_levels = 0\n", "m.toml: interconnect.progress_levels: must be a whole number from 1 to 64, got 0"),
    ];
    for (text, expected) in cases {
        assert_eq!(err(text), expected);
    }
    assert!(err("kind = \"mesh\"\nwidth = 8\ncolour = 1\n").starts_with("m.toml: interconnect.colour: unknown key"));
}

#[test]
fn run_options_set_the_network_of_a_machine_configuration() {
    let dir = ScratchDir::new("interconnect");
    let file = dir.write("mesh.toml", &mesh_machine("kind = \"mesh\"\nwidth = 8\n"));
    let m = catalog::machine(&format!("{file}:arbitration=ocor:priority_levels=4")).unwrap();
    let ic = m.interconnect.as_ref().unwrap();
    assert_eq!((ic.arbitration, ic.priority_levels, ic.progress_levels), (Arbitration::Ocor, 4, 4));
    assert!(m.name.ends_with("mesh:arbitration=ocor:priority_levels=4"), "{}", m.name);
    assert_eq!(m.num_cores(), 64);
    // With cores online too: the network stays, the options apply.
    let m = catalog::machine(&format!("{file}:c=16:progress_levels=1:arbitration=round_robin")).unwrap();
    assert_eq!(m.num_cores(), 16);
    let ic = m.interconnect.as_ref().unwrap();
    assert_eq!((ic.arbitration, ic.progress_levels), (Arbitration::RoundRobin, 1));

    let bad = |spec: &str| catalog::machine(&format!("{file}:{spec}")).unwrap_err().to_string();
    assert_eq!(bad("arbitration=fast"), format!("--machine: {file}:arbitration=fast: arbitration=fast: not round_robin or ocor"));
    assert_eq!(bad("priority_levels=0"), format!("--machine: {file}:priority_levels=0: priority_levels=0: must be from 1 to 128"));
    assert_eq!(bad("priority_levels=x"), format!("--machine: {file}:priority_levels=x: priority_levels=x: not a whole number"));
    assert_eq!(
        catalog::machine("exynos5422:arbitration=ocor").unwrap_err().to_string(),
        "--machine: exynos5422:arbitration=ocor: arbitration=ocor: the machine has no [interconnect], so no network to set"
    );
    // The configuration syntax without network options is as it was.
    assert!(catalog::machine("exynos5422:").is_err());
    assert_eq!(catalog::machine("exynos5422:big=2").unwrap().interconnect, None);
}
