//! Mixes of catalog programs (`runner::mix`): the parsed spec, each program's window cut by hand,
//! app names of repeated programs, and errors naming the mix and the part.

use ampsched_model::workload::{programs_from_toml, Phase, Programs};
use ampsched_runner::mix::{parse, workload, MixSpec};

/// Two programs: `two` of phases of 3e9 and 2e9 instructions (CPI 1 and 2), repeated twice;
/// `one` of one phase of 1e9.
fn programs() -> Programs {
    let text = r#"
[[program]]
name = "two"
repeat = 2
[[program.phase]]
kind = "compute"
instructions = 3e9
cpi = 1.0
[[program.phase]]
kind = "compute"
instructions = 2e9
cpi = 2.0

[[program]]
name = "one"
[[program.phase]]
kind = "compute"
instructions = 1e9
"#;
    let mut p = Programs::new();
    programs_from_toml("p.toml", text, &mut p).unwrap();
    p
}

fn cut(phases: &[Phase]) -> Vec<(f64, f64)> {
    phases
        .iter()
        .map(|p| match p {
            Phase::Compute { instructions, profile } => (*instructions, profile.cpi),
            other => panic!("not a compute phase: {other:?}"),
        })
        .collect()
}

#[test]
fn a_mix_parses_into_its_window_and_programs() {
    let spec = parse(" mix:skip=1e9:instructions=1e8:a+b + a ").unwrap();
    assert_eq!(spec, MixSpec { skip: 1e9, instructions: Some(1e8), programs: vec!["a".into(), "b".into(), "a".into()] });
    assert_eq!(parse("mix:a").unwrap(), MixSpec { skip: 0.0, instructions: None, programs: vec!["a".into()] });
}

#[test]
fn a_window_takes_each_phase_s_part_and_wraps_into_the_next_repetition() {
    // `two` retires 3e9 (CPI 1), 2e9 (CPI 2), then again: instructions 4e9 to 7.5e9 are 1e9 of
    // the first repetition's second phase and 2.5e9 of the second repetition's first.
    let w = workload("mix:skip=4e9:instructions=3.5e9:two+two", &programs()).unwrap();
    let names: Vec<&str> = w.apps.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["two", "two#2"]);
    assert!(w.constant_load);
    let g = &w.apps[0].groups[0];
    assert_eq!(g.repeat, 1);
    assert_eq!(cut(&g.phases), [(1e9, 2.0), (2.5e9, 1.0)]);
    // The window's signature is its own phases': CPI (1e9 x 2 + 2.5e9 x 1) / 3.5e9.
    assert!((g.signature.as_ref().unwrap().cpi - 4.5 / 3.5).abs() < 1e-12);
    assert_eq!(w.apps[0].groups, w.apps[1].groups);
}

#[test]
fn a_mix_without_a_window_runs_its_programs_whole() {
    let w = workload("mix:two+one+two", &programs()).unwrap();
    let names: Vec<&str> = w.apps.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["two", "one", "two#2"]);
    let g = &w.apps[0].groups[0];
    assert_eq!((g.repeat, cut(&g.phases)), (2, vec![(3e9, 1.0), (2e9, 2.0)]));
}

#[test]
fn a_bad_mix_names_itself_and_the_part() {
    let error = |arg: &str| workload(arg, &programs()).unwrap_err().to_string();
    assert!(error("mix:instructions=2e9:one")
        .contains("mix:instructions=2e9:one: instructions: program 'one' retires 1e9 instructions, fewer than skip + instructions = 2e9"));
    assert!(error("mix:one+nope").contains("programs: no program 'nope' in the catalog"));
    assert!(error("mix:skip=5:one").contains("skip: a window needs its length too"));
    assert!(error("mix:skip=-1:instructions=1:one").contains("skip: must be from 0 to 1e15"));
    assert!(error("mix:one++one").contains("none empty"));
    assert!(error("mix:x=1:one").contains("x: unknown option"));
}
