//! Reading a recorded program's synchronisation (docs/workloads.md, "Recorded programs'
//! synchronisation"): spawned groups, spawn and join phases, semaphores, named barriers; and
//! every way a file can get them wrong refused in one line naming the file, the key and why.

use ampsched_model::app_sync::Start;
use ampsched_model::workload::{Phase, Programs, Wait};
use ampsched_model::Workload;

fn read(text: &str) -> Result<Workload, String> {
    Workload::from_toml("w.toml", text, &Programs::new()).map_err(|e| e.to_string())
}

/// A group table: name, count, extra keys, then phases (each a list of `key = value` lines).
fn group(name: &str, keys: &str, phases: &[&str]) -> String {
    let mut s = format!("[[app.group]]\nname = \"{name}\"\n{keys}\n");
    for p in phases {
        s.push_str(&format!("[[app.group.phase]]\n{p}\n"));
    }
    s
}

const HEAD: &str = "[[app]]\nname = \"rec\"\n";
const WORK: &str = "kind = \"compute\"\ninstructions = 1e9";

/// main spawns w, posts c1 twice, joins w; w waits on c1 twice and meets main at barrier b.
fn good() -> String {
    format!(
        "{HEAD}[[app.semaphore]]\nname = \"c1\"\ninitial = 1\n{}{}",
        group(
            "main",
            "",
            &[
                WORK,
                "kind = \"spawn\"\ngroup = \"w\"",
                "kind = \"sem_post\"\nsemaphore = \"c1\"\ncount = 2",
                "kind = \"barrier\"\nbarrier = \"b\"\nparties = 2",
                "kind = \"join\"\ngroup = \"w\"\nwait = \"spin\"",
            ]
        ),
        group(
            "w",
            "start = \"spawned\"",
            &[
                "kind = \"sem_wait\"\nsemaphore = \"c1\"",
                "kind = \"sem_wait\"\nsemaphore = \"c1\"\nwait = \"spin_then_block\"\nspin_limit_us = 50",
                WORK,
                "kind = \"barrier\"\nbarrier = \"b\"\nparties = 2",
            ]
        )
    )
}

#[test]
fn the_new_phases_are_read_with_their_groups_semaphores_and_barriers() {
    let w = read(&good()).unwrap();
    let app = &w.apps[0];
    let sync = app.sync.as_deref().expect("the app synchronises");
    assert_eq!(sync.start, vec![Start::AtStart, Start::Spawned]);
    assert_eq!(sync.spawned_by, vec![None, Some((0, 1))]);
    assert_eq!(sync.semaphores.len(), 1);
    assert_eq!((sync.semaphores[0].name.as_str(), sync.semaphores[0].initial), ("c1", 1));
    assert_eq!((sync.barriers[0].name.as_str(), sync.barriers[0].parties), ("b", 2));
    let main = &app.groups[0].phases;
    assert_eq!(main[1], Phase::Spawn { group: 1 });
    assert_eq!(main[2], Phase::SemPost { semaphore: 0, count: 2 });
    assert_eq!(main[3], Phase::NamedBarrier { barrier: 0, parties: 2, wait: Wait::Block });
    assert_eq!(main[4], Phase::Join { group: 1, wait: Wait::Spin });
    assert_eq!(app.groups[1].phases[0], Phase::SemWait { semaphore: 0, wait: Wait::Block });
    assert!(matches!(app.groups[1].phases[1], Phase::SemWait { semaphore: 0, wait: Wait::SpinThenBlock { .. } }));
}

#[test]
fn an_app_without_them_has_no_sync_state() {
    let w = read(&format!("{HEAD}{}", group("main", "count = 2", &[WORK, "kind = \"barrier\""]))).unwrap();
    assert!(w.apps[0].sync.is_none());
}

#[test]
fn a_semaphore_only_named_starts_at_zero() {
    let text = format!(
        "{HEAD}{}{}",
        group("a", "", &[WORK, "kind = \"sem_post\"\nsemaphore = \"s\""]),
        group("b", "", &["kind = \"sem_wait\"\nsemaphore = \"s\"", WORK])
    );
    let w = read(&text).unwrap();
    let s = &w.apps[0].sync.as_deref().unwrap().semaphores[0];
    assert_eq!((s.name.as_str(), s.initial), ("s", 0));
}

#[test]
fn bad_synchronisation_is_refused_in_one_line_naming_the_key() {
    let g = good();
    let main_only = |phases: &[&str]| format!("{HEAD}{}", group("main", "", phases));
    let cases: Vec<(String, &str, &str)> = vec![
        (
            g.replace("kind = \"spawn\"\ngroup = \"w\"", "kind = \"spawn\"\ngroup = \"x\""),
            "app[0].group[0].phase[1].group",
            "unknown group 'x' (the app's groups: main, w)",
        ),
        (g.replace("kind = \"join\"\ngroup = \"w\"", "kind = \"join\"\ngroup = \"nobody\""), "phase[4].group", "unknown group 'nobody'"),
        (g.replace("start = \"spawned\"", "start = \"later\""), "app[0].group[1].start", "unknown start 'later' (expected at_start or spawned)"),
        (g.replace("start = \"spawned\"", ""), "phase[1].group", "only a group with start = \"spawned\" is started by a spawn phase"),
        (g.replace("kind = \"spawn\"\ngroup = \"w\"", WORK), "app[0].group[1].start", "no spawn phase names it"),
        (
            g.replace("kind = \"join\"\ngroup = \"w\"\nwait = \"spin\"", "kind = \"spawn\"\ngroup = \"w\""),
            "phase[4].group",
            "already spawned by a phase of group 'main'",
        ),
        (g.replace("[[app.group]]\nname = \"main\"\n", "[[app.group]]\nname = \"main\"\nrepeat = 2\n"), "phase[1].group", "repeat = 2"),
        (
            g.replace("[[app.group]]\nname = \"main\"\n", "[[app.group]]\nname = \"main\"\ncount = 3\n"),
            "phase[1].group",
            "has 3 threads, each of which would spawn 'w'",
        ),
        (g.replace("kind = \"join\"\ngroup = \"w\"", "kind = \"join\"\ngroup = \"main\""), "phase[4].group", "group 'main' joins itself"),
        (g.replacen("parties = 2", "parties = 3", 1), "app[0].group[1].phase[3].parties", "barrier 'b' has parties = 3 at app[0].group[0].phase[3].parties"),
        (g.replacen("parties = 2", "parties = 0", 1), "phase[3].parties", "must be a whole number from 1"),
        (g.replace("parties = 2", "parties = 5"), "phase[3].parties", "barrier 'b' needs 5 parties but the app has 2 threads"),
        (g.replacen("parties = 2", "parties = 2\nscope = \"app\"", 1), "phase[3].scope", "give either barrier"),
        (main_only(&[WORK, "kind = \"barrier\"\nparties = 2"]), "phase[1].parties", "only a named barrier (barrier = \"NAME\") takes parties"),
        (main_only(&[WORK, "kind = \"barrier\"\nbarrier = \"b\""]), "phase[1].parties", "missing required key"),
        (g.replace("name = \"c1\"\ninitial = 1", "name = \"c1\"\ninitial = -1"), "semaphore[0].initial", "from 0 to 2147483647"),
        (
            g.replace("name = \"c1\"\ninitial = 1", "name = \"c9\"\ninitial = 1"),
            "app[0].semaphore[0].name",
            "semaphore 'c9' is declared but no phase posts or waits for it",
        ),
        (
            format!("{HEAD}{}{}", group("a", "", &[WORK]), group("b", "", &["kind = \"sem_wait\"\nsemaphore = \"s\"", WORK])),
            "app[0].group[1].phase[0].semaphore",
            "semaphore 's' starts at 0 and no phase posts it",
        ),
        (g.replace("count = 2", "count = 0"), "phase[2].count", "must be a whole number from 1"),
        (main_only(&[WORK, "kind = \"sem_post\""]), "phase[1].semaphore", "missing required key"),
        (main_only(&[WORK, "kind = \"join\""]), "phase[1].group", "missing required key"),
        (g.replace("wait = \"spin\"", "wait = \"nap\""), "phase[4].wait", "unknown wait 'nap'"),
        (
            format!(
                "{HEAD}{}{}{}",
                group("main", "", &[WORK]),
                group("a", "start = \"spawned\"", &[WORK, "kind = \"spawn\"\ngroup = \"b\""]),
                group("b", "start = \"spawned\"", &[WORK, "kind = \"spawn\"\ngroup = \"a\""])
            ),
            "app[0].group[1].start",
            "spawn chain must begin at a group with start = \"at_start\"",
        ),
        (
            format!("{HEAD}threads = 2\n[[app.phase]]\n{WORK}\n[[app.phase]]\nkind = \"barrier\"\nbarrier = \"b\"\nparties = 2\n"),
            "app[0].phase[1].barrier",
            "belong to a workload's [[app.group]] tables, not an app without [[app.group]] tables",
        ),
        (
            g.replacen("kind = \"barrier\"\nbarrier = \"b\"\nparties = 2", "kind = \"barrier\"\nscope = \"app\"", 2),
            "app[0].group",
            "an app with spawned groups cannot have scope = \"app\"",
        ),
        (
            g.replace("[[app.group]]\nname = \"w\"\nstart = \"spawned\"", "[[app.group]]\nname = \"w\"\nstart = \"spawned\"\nworkers = \"per_phase\"").replace(
                "kind = \"sem_wait\"\nsemaphore = \"c1\"\n",
                "kind = \"serial\"\ninstructions = 1\n[[app.group.phase]]\nkind = \"sem_wait\"\nsemaphore = \"c1\"\n",
            ),
            "app[0].group[1].start",
            "per_phase workers",
        ),
    ];
    for (text, key, what) in cases {
        let err = read(&text).expect_err(&text);
        assert!(err.starts_with("w.toml: ") && err.contains(key) && err.contains(what), "want '{key}' and '{what}', got: {err}\n{text}");
        assert!(!err.contains('\n'), "{err}");
    }
}

#[test]
fn a_catalog_program_may_not_use_them() {
    let mut programs = Programs::new();
    let text = "[[program]]\nname = \"p\"\n[[program.group]]\nname = \"a\"\n[[program.group.phase]]\nkind = \"compute\"\ninstructions = 1\n\
                [[program.group]]\nname = \"b\"\nstart = \"spawned\"\n[[program.group.phase]]\nkind = \"compute\"\ninstructions = 1\n";
    let err = ampsched_model::workload::programs_from_toml("p.toml", text, &mut programs).unwrap_err().to_string();
    assert!(err.starts_with("p.toml: program[0].group[1].start: ") && err.contains("not a catalog program"), "{err}");
}
