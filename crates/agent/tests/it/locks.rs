//! The lock table as the agent reads it, written by the real preload library: the library the
//! agent embeds is loaded into this test process (dlopen, with the table named in the
//! environment as the agent names it for a command), and its `pthread_spin_lock` is called on a
//! spinlock this test holds.

use std::collections::HashMap;
use std::ffi::CString;
use std::time::{Duration, Instant};

use ampsched_agent::locks::{LockRecord, LockTable};
use ampsched_agent::procfs::monotonic_ns;

/// glibc's `pthread_spinlock_t` is an `int`.
type SpinLock = libc::c_int;
type SpinLockFn = unsafe extern "C" fn(*mut SpinLock) -> libc::c_int;

extern "C" {
    fn pthread_spin_init(lock: *mut SpinLock, pshared: libc::c_int) -> libc::c_int;
    fn pthread_spin_trylock(lock: *mut SpinLock) -> libc::c_int;
    fn pthread_spin_unlock(lock: *mut SpinLock) -> libc::c_int;
}

/// How long the test keeps the other thread spinning before it looks.
const SPIN: Duration = Duration::from_millis(150);
/// Generous, for a loaded machine: the spinning thread only has to start.
const PATIENCE: Duration = Duration::from_secs(20);

struct Shared(*mut SpinLock);
// SAFETY: the spinlock is only touched through pthread_spin_* calls, which are thread-safe.
unsafe impl Send for Shared {}

fn read(table: &LockTable) -> HashMap<u32, LockRecord> {
    let mut out = HashMap::new();
    table.read(monotonic_ns(), &mut out);
    out
}

#[test]
fn a_thread_spinning_on_a_busy_spinlock_is_seen_spinning_and_its_spin_time_counted() {
    let dir = std::env::temp_dir();
    let table = LockTable::create(&dir).expect("create the lock table");
    // The library reads the variable in its constructor, at dlopen; this test sets nothing else.
    std::env::set_var("AMPSCHED_LOCKS_SHM", table.table_path());
    let path = CString::new(table.library_path().into_os_string().into_encoded_bytes()).unwrap();
    // SAFETY: loading the agent's own preload library; its constructor only maps the table.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    assert!(!handle.is_null(), "dlopen of the preload library failed");
    let name = CString::new("pthread_spin_lock").unwrap();
    // SAFETY: the symbol the library defines, with pthread_spin_lock's signature.
    let spin_lock: SpinLockFn = unsafe {
        let sym = libc::dlsym(handle, name.as_ptr());
        assert!(!sym.is_null(), "the preload library defines no pthread_spin_lock");
        std::mem::transmute::<*mut libc::c_void, SpinLockFn>(sym)
    };

    let lock: *mut SpinLock = Box::into_raw(Box::new(0));
    // SAFETY: a fresh, private spinlock.
    assert_eq!(unsafe { pthread_spin_init(lock, 0) }, 0);

    // Uncontended: acquired by the trylock, nothing written (not even an entry).
    assert_eq!(unsafe { spin_lock(lock) }, 0);
    assert_eq!(unsafe { pthread_spin_unlock(lock) }, 0);
    assert!(read(&table).is_empty(), "an uncontended spinlock must leave the table untouched");

    // Contended: this thread holds it (through glibc, unrecorded); another spins for it.
    assert_eq!(unsafe { pthread_spin_trylock(lock) }, 0);
    let started = Instant::now();
    let shared = Shared(lock);
    let spinner = std::thread::spawn(move || {
        let shared = shared;
        // SAFETY: gettid has no preconditions; the lock outlives this thread (joined below).
        let tid = unsafe { libc::syscall(libc::SYS_gettid) } as u32;
        assert_eq!(unsafe { spin_lock(shared.0) }, 0);
        assert_eq!(unsafe { pthread_spin_unlock(shared.0) }, 0);
        tid
    });
    let deadline = Instant::now() + PATIENCE;
    let spinning_tid = loop {
        if let Some((&tid, _)) = read(&table).iter().find(|(_, r)| r.spinning) {
            break tid;
        }
        assert!(Instant::now() < deadline, "the spinning thread never showed in the table");
        std::thread::sleep(Duration::from_millis(5));
    };
    let seen_at = Instant::now();
    std::thread::sleep(SPIN);
    let during = read(&table)[&spinning_tid];
    assert!(during.spinning);
    // It has spun at least since it was first seen plus the sleep, at most since it was started.
    let (low, high) = ((seen_at.elapsed()).as_nanos() as u64, started.elapsed().as_nanos() as u64);
    assert!(during.spin_ns >= low && during.spin_ns <= high, "spin {} ns outside [{low}, {high}]", during.spin_ns);
    assert_eq!((during.wait_ns, during.contended, during.waiting_for), (0, 0, None), "a spin is not a mutex wait");

    assert_eq!(unsafe { pthread_spin_unlock(lock) }, 0);
    let tid = spinner.join().expect("the spinning thread");
    assert_eq!(tid, spinning_tid);
    let after = read(&table)[&tid];
    assert!(!after.spinning, "a thread that got the spinlock no longer spins");
    let total = started.elapsed().as_nanos() as u64;
    assert!(after.spin_ns >= during.spin_ns && after.spin_ns <= total, "finished spin {} ns outside [{}, {total}]", after.spin_ns, during.spin_ns);

    // SAFETY: no thread uses the lock any more.
    drop(unsafe { Box::from_raw(lock) });
}

#[test]
fn a_thread_that_exited_gets_the_lock_waits_it_finished_after_its_last_sample() {
    use ampsched_agent::monitor::Monitor;
    use ampsched_model::Machine;

    use crate::common::{ProcTree, ONE_FAST_ONE_SLOW};

    // Thread 7001 waits for a mutex 7000 holds: 3 ms of it by the first sample, 8 ms in all by the
    // time it has exited, which the next sample sees. The report must have its 8 ms (and the
    // holder's 8 ms caused), not the 3 ms read while it was alive.
    let proc = ProcTree::new("locks-exit");
    let pid = 7000;
    proc.thread(pid, 7000, 'R', 0, 0);
    proc.thread(pid, 7001, 'S', 1, 0);
    let mut m = Monitor::with_proc_root(Machine::from_toml("machine", ONE_FAST_ONE_SLOW).unwrap(), &proc.path());
    assert!(m.add_process(pid));
    let record = |wait_ms: u64, waiting: bool| -> HashMap<u32, LockRecord> {
        let waiter = LockRecord { wait_ns: wait_ms * 1_000_000, waiting_for: waiting.then_some(7000), contended: 1, ..Default::default() };
        HashMap::from([(7001, waiter), (7000, LockRecord { caused_ns: wait_ms * 1_000_000, ..Default::default() })])
    };
    m.sample(0, &mut Vec::new());
    m.apply_locks(&record(3, true));
    assert_eq!((m.book.threads[1].lock_wait_ns, m.book.threads[1].waiting_for), (3_000_000, Some(0)));
    std::fs::remove_dir_all(proc.0.join(format!("{pid}/task/7001"))).unwrap();
    m.sample(10_000_000, &mut Vec::new());
    m.apply_locks(&record(8, false));
    let (holder, waiter) = (&m.book.threads[0], &m.book.threads[1]);
    assert_eq!((waiter.lock_wait_ns, waiter.waiting_for, holder.lock_wait_caused_ns), (8_000_000, None, 8_000_000));
    assert_eq!(m.extra[1].contended_locks, 1);
    // The wait finished after the sample went to the holder it was seen waiting for.
    let view = m.book.view(&m.machine, ampsched_model::Trigger::Quantum, 10_000_000);
    let edges: Vec<(u32, u32, u64)> = view.lock_edges.iter().map(|e| (e.waiter, e.holder, e.wait_ns)).collect();
    assert_eq!(edges, [(1, 0, 8_000_000)]);
    // Once applied, an exited thread's record is not applied again: a later reading changes nothing.
    m.sample(20_000_000, &mut Vec::new());
    m.apply_locks(&record(20, false));
    assert_eq!(m.book.threads[1].lock_wait_ns, 8_000_000);
}
