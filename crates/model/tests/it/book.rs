//! The view book's live list, kept from the exits as they come, against the thread table.

use ampsched_model::rng::Rng;
use ampsched_model::{AppView, Machine, Signals, ThreadKind, ThreadState, ThreadView, Trigger, ViewBook};

const MACHINE: &str = r#"
memory_latency_ns = 100
[[core_type]]
name = "c"
count = 2
freq_ghz = 1.0
"#;

#[test]
fn the_live_list_is_every_thread_not_exited_in_ascending_id() {
    let m = Machine::from_toml("m", MACHINE).unwrap();
    let mut b = ViewBook::new(m.num_cores(), Signals::NONE, false);
    b.apps.push(AppView::new(0, "a".into(), 0));
    let mut rng = Rng::new(9);
    let states = [ThreadState::Running, ThreadState::Ready, ThreadState::Blocked, ThreadState::Sleeping, ThreadState::Exited];
    // The threads live at the last call and those started since: exits among them may come in
    // any id order, several per call, and a source may revise one back before the call.
    let mut live: Vec<u32> = Vec::new();
    for call in 1..=400u64 {
        for _ in 0..rng.below(3) {
            let id = b.threads.len() as u32;
            b.add_thread(ThreadView::started(id, 0, 0, id, ThreadKind::App, m.all_cores(), 0));
            live.push(id);
        }
        for _ in 0..rng.below(5) {
            if !live.is_empty() {
                let t = live[rng.below(live.len())];
                b.set_state(t, states[rng.below(states.len())]);
            }
        }
        let want: Vec<u32> = b.threads.iter().filter(|v| v.state != ThreadState::Exited).map(|v| v.id).collect();
        assert_eq!(b.live_count(), want.len(), "call {call}");
        b.begin_call(Trigger::Quantum, call);
        assert_eq!(b.view(&m, Trigger::Quantum, call).live, &want[..], "call {call}");
        b.end_call();
        live = want;
    }
}
