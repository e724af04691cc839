//! Reading task programs (docs/task-runtime.md): the steps and options as written, the groups an
//! app gets, and a one-line error naming the file and key for each bad input.

use ampsched_model::task_program::{After, MainPlacement, TaskScheduler, TaskStep, MAIN_GROUP, WORKER_GROUP};
use ampsched_model::workload::{programs_from_toml, Programs};
use ampsched_model::Workload;

const PROGRAM: &str = r#"
[[program]]
name = "p"
repeat = 2
[program.runtime]
scheduler = "cats"
main = "big"
[[program.step]]
kind = "serial"
instructions = 1e6
[[program.step]]
kind = "tasks"
count = 8
instructions = 1e7
cpi = { "cortex-a15" = 1.0, "cortex-a7" = 2.0 }
after = "all"
[[program.step]]
kind = "pipeline"
items = 8
after = "same"
[[program.step.stage]]
instructions = 1e5
ordered = true
[[program.step.stage]]
io_s = 0.001
[[program.step]]
kind = "taskwait"
"#;

fn programs() -> Programs {
    let mut p = Programs::new();
    programs_from_toml("p.toml", PROGRAM, &mut p).unwrap();
    p
}

fn err(workload: &str) -> String {
    Workload::from_toml("w.toml", workload, &programs()).unwrap_err().to_string()
}

#[test]
fn a_program_reads_as_written_and_an_app_overrides_its_options() {
    let w = Workload::from_toml("w.toml", "[[app]]\nname = \"a\"\nprogram = \"p\"\n[app.runtime]\nscheduler = \"steal\"\n", &programs()).unwrap();
    let tp = w.apps[0].tasks.as_deref().unwrap();
    assert_eq!(tp.options.scheduler, TaskScheduler::Steal);
    assert_eq!(tp.options.main, MainPlacement::Big, "the program's, not overridden");
    assert_eq!(tp.repeat, 2);
    assert_eq!(tp.steps.len(), 4);
    assert!(matches!(tp.steps[1], TaskStep::Tasks { count: 8, after: After::All, .. }));
    let TaskStep::Pipeline { items: 8, stages, after: After::Same } = &tp.steps[2] else { panic!("{:?}", tp.steps[2]) };
    assert!(stages[0].ordered && !stages[1].ordered);
    assert_eq!((stages[1].work.instructions, stages[1].work.io_ns), (0.0, 1_000_000));
    // (8 tasks + 8 items × 2 stages) × 2 repetitions.
    assert_eq!(tp.tasks_per_run(), 48);
    // Work kinds: the runtime's, the serial step, the block, two stages.
    assert_eq!(tp.work.len(), 5);
    let names: Vec<&str> = w.apps[0].groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, [MAIN_GROUP, WORKER_GROUP]);
    // One thread per online core, the main thread one of them.
    let on8 = w.for_machine(8).unwrap();
    assert_eq!(on8.apps[0].threads(), 8);
}

#[test]
fn bad_inputs_are_one_line_errors_naming_file_and_key() {
    let app = |body: &str| format!("[[app]]\nname = \"a\"\n{body}");
    let cases = [
        (app("[app.runtime]\nscheduler = \"lifo\"\n[[app.step]]\nkind = \"taskwait\"\n"), "w.toml: app[0].runtime.scheduler: unknown scheduler 'lifo'"),
        (app("program = \"p\"\n[app.runtime]\nmain = \"medium\"\n"), "app[0].runtime.main: unknown main placement 'medium'"),
        (
            app("program = \"p\"\n[app.runtime]\nimmediate_successor = true\n"),
            "app[0].runtime.immediate_successor: is an option of scheduler = \"fifo\", not \"cats\"",
        ),
        (app("[[app.step]]\nkind = \"tasks\"\ncount = 0\ninstructions = 1\n"), "app[0].step[0].count: must be a whole number from 1 to 1000000, got 0"),
        (app("[[app.step]]\nkind = \"tasks\"\ncount = 2\ninstructions = 1\nafter = \"all\"\n"), "app[0].step[0].after: the first block of a program run once"),
        (
            app("[[app.step]]\nkind = \"tasks\"\ncount = 2\ninstructions = 1\n[[app.step]]\nkind = \"tasks\"\ncount = 3\ninstructions = 1\nafter = \"same\"\n"),
            "app[0].step[1].after: after = \"same\" pairs task i with task i of the block before (step 0), which has 2 tasks (items), not 3",
        ),
        (app("[[app.step]]\nkind = \"tasks\"\ncount = 2\n"), "app[0].step[0].instructions: missing: give instructions, io_s or both"),
        (app("[[app.step]]\nkind = \"pipeline\"\nitems = 2\n"), "app[0].step[0].stage: a pipeline needs 1 to 64 [[stage]] tables, got 0"),
        (app("[[app.step]]\nkind = \"loop\"\n"), "app[0].step[0].kind: unknown step kind 'loop'"),
        (app("threads = 2\n[[app.step]]\nkind = \"taskwait\"\n"), "app[0].threads: a task program's app has the runtime's threads"),
        (app("program = \"p\"\n[[app.step]]\nkind = \"taskwait\"\n"), "app[0].step: give either program or [[step]] tables, not both"),
        (
            app("repeat = 5\n[[app.step]]\nkind = \"tasks\"\ncount = 1000000\ninstructions = 1\n"),
            "app[0].step: a run creates 5000000 tasks (every block's count, repeated); at most 4194304 are supported",
        ),
    ];
    for (text, want) in cases {
        let got = err(&text);
        assert!(got.contains(want), "{text}\ngot:  {got}\nwant: {want}");
        assert!(!got.contains('\n'), "one line: {got}");
    }
}
