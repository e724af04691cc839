//! Follows the target processes' threads through /proc and keeps the `SystemView` the simulator
//! would build for them: one `ThreadView` per thread ever seen (indexed by `ThreadId`), one
//! `AppView` per process.
//!
//! Cost is what lets the agent keep its interval with thousands of threads. Each sample reads
//! every target process's CPU clock (one syscall, no /proc text). A thread cannot start, exit,
//! block, move or fork a child without running, so a process whose CPU time did not move since
//! the last sample is skipped whole, and /proc is listed for new child processes only when some
//! target ran. For a process that ran, every thread's `schedstat` is read (its CPU time); `stat`
//! (state, CPU) only for threads that ran, and `status` (context switches) at most once per
//! `SWITCHES_PERIOD_NS` for threads that ran since. What this misses: a thread woken but not yet
//! run is seen as blocked until it runs.
//!
//! Mapping to the simulator's vocabulary: stat's R is `Running` if the thread ran during the
//! last interval, else `Ready`; S is `Blocked` (futex, poll, sleep: /proc cannot tell a lock wait
//! from I/O cheaply); D is `Sleeping` (uninterruptible, usually I/O); T/t are `Sleeping`.
//! Time per core type is the CPU time delta charged to the type of the thread's affinity (the
//! one in force, which a fast-core share narrows to one side) when that covers one type, else to
//! the type of the CPU it last ran on, and so is its runnable time (that CPU time plus the
//! run-queue waits schedstat added since, `Signals::PROGRESS`), of which the other targets' CPU
//! time charged to the same CPU in the sample, up to the wait, is its wait behind them
//! (`corun_ns`). Hardware counters, where the machine has them
//! (`counters.rs`), are read for the threads that ran and charged to the same type. Migrations are changes of
//! that CPU between samples (a lower bound). `spinning` and `spin_ns` come from the preload
//! library (waits on busy pthread spinlocks) when it is active, else stay 0 (and
//! `Signals::SPIN` is not offered). Per core, `nr_running` counts the target threads
//! seen runnable there at the last sample and `busy_ns` the target threads' CPU time charged
//! there: other processes are not counted. Lock edges (who waited on whom) are approximate: a
//! thread's lock wait that grew between two samples is credited to the holder it was seen
//! waiting for at the first of them (or, if none, at the second). A thread's kind (application
//! or runtime helper) comes from its name (`runtime_threads.rs`) and follows it when the thread
//! renames itself (seen at its next sample after the rename). A thread's affinity is read
//! when the thread is first seen and then kept as the agent sets it: an affinity the target
//! program sets itself later is not seen (nor marked as a change).

use std::collections::{HashMap, HashSet};

use ampsched_model::{AppView, CoreSet, CoreView, Machine, Signals, ThreadState, ThreadView, Trigger, ViewBook};

use crate::counters::{CounterDelta, Counting};
use crate::guardian::Ledger;
use crate::locks::LockRecord;
use crate::procfs::{self, get_affinity, CpuMask};
use crate::runtime_threads::RuntimeThreads;

/// How often context-switch counts are refreshed: `status` is the costliest file per thread, and
/// the counts are only reported, never given to a policy.
pub const SWITCHES_PERIOD_NS: u64 = 1_000_000_000;

/// Per-thread facts the view has no field for, reported by `--json`.
#[derive(Debug, Clone, Default)]
pub struct ThreadExtra {
    pub tid: u32,
    pub pid: u32,
    pub comm: String,
    pub starttime: u64,
    /// Run-queue wait (schedstat), ns.
    pub wait_ns: u64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
    /// Affinity before the agent touched it (restored at the end).
    pub original: Option<CpuMask>,
    /// The affinity the agent last set, if any.
    pub applied: Option<CpuMask>,
    /// Affinity changes the agent made.
    pub decisions: u32,
    pub contended_locks: u64,
    /// Why the agent stopped managing this thread (it refused an affinity), if it did.
    pub unmanaged: Option<String>,
    /// Its /proc state letter when last read (R, S, D, Z, ...; read when it ran, as its state).
    pub state: char,
    /// Its record in the guardian's ledger, if it has one.
    pub slot: Option<u32>,
    /// Its nice value when first seen.
    pub nice_seen: i32,
    /// Its nice value before the agent changed it, when the agent did (the agent's restore puts
    /// it back): set at the first change, or when first seen with a value the agent had set on
    /// its creator (`Monitor::inherited_nice`).
    pub nice_original: Option<i32>,
    /// The cores of the affinity the agent set, when a fast-core share narrows it below the
    /// view's `allowed`.
    pub enforced: Option<CoreSet>,
    last_run_ns: u64,
    /// CPU time when the switch counts were last read.
    switches_run_ns: u64,
}

impl ThreadExtra {
    /// Its CPU time (schedstat) at the last sample, ns.
    pub fn run_ns(&self) -> u64 {
        self.last_run_ns
    }
}

struct Process {
    pid: u32,
    app: u32,
    cpu_ns: Option<u64>,
    threads: HashMap<u32, u32>,
    groups: Vec<String>,
    group_sizes: Vec<u32>,
    /// The affinity its first thread had when the agent found it.
    original: Option<CpuMask>,
    /// Every affinity the agent has set on its threads (a few: one per partition, usually).
    imposed: Vec<CpuMask>,
    /// For each of `imposed`, the view's `allowed` the agent set it under: the same cores, or
    /// more where it was a fast-core share's side for a round. A thread that inherits the mask
    /// from its creator is allowed what its creator was: a share's side is the agent's
    /// enforcement, not the policy's choice, and must not become the new thread's allowed cores
    /// (else a share decided for it has only one side to run on).
    imposed_allowed: Vec<(CpuMask, CoreSet)>,
    /// Every nice value the agent has set on its threads, with the original nice value of the
    /// first thread it set that value on (a few: one per weight a policy gives).
    nice_imposed: Vec<(i32, i32)>,
    alive: bool,
}

pub struct Monitor {
    pub machine: Machine,
    /// The view the policy reads: threads (indexed by `ThreadId`), apps (one per process), cores.
    pub book: ViewBook,
    pub extra: Vec<ThreadExtra>,
    procs: Vec<Process>,
    by_pid: HashMap<u32, usize>,
    by_tid: HashMap<u32, u32>,
    /// Process ids seen in /proc that are not targets.
    strangers: HashSet<u32>,
    /// Children of the agent itself (the launched command, and orphans it reaps as subreaper) are targets.
    own_pid: u32,
    last_switches_ns: Option<u64>,
    /// Followed processes the caller saw exit (a pidfd said so) that the next sample ends,
    /// although /proc lists them until their parent reaps them.
    exited: HashSet<u32>,
    /// Threads (tid, id, the holder it was last seen waiting for) that exited in the last
    /// sample: `apply_locks` gives them the lock data they gathered after the sample before (the
    /// preload library's entry outlives its thread).
    exited_threads: Vec<(u32, u32, Option<u32>)>,
    /// Where /proc is: "/proc", or a tree a test built (then process CPU clocks and affinities,
    /// which are system calls, are not consulted: every sample reads every thread, and a new
    /// thread's affinity is all the machine's CPUs).
    proc: String,
    buf: Vec<u8>,
    pub migrations: u64,
    /// Hardware counters, where the machine has them.
    pub counting: Option<Counting>,
    /// This sample's charges (thread, core type, core, CPU time, wait), for `charge_coruns`.
    charged: Vec<(u32, usize, usize, u64, u64)>,
    /// Per core, the target's CPU time charged to it in this sample.
    core_ran: Vec<u64>,
    /// The guardian's ledger: every original is written there before the agent changes it.
    pub ledger: Option<Ledger>,
    /// Which thread names make a thread a runtime helper (`--runtime-threads`).
    pub runtime_threads: RuntimeThreads,
}

impl Monitor {
    pub fn new(machine: Machine) -> Monitor {
        Monitor::with_proc_root(machine, "/proc")
    }

    pub fn with_proc_root(machine: Machine, proc: &str) -> Monitor {
        Monitor {
            proc: proc.to_string(),
            book: ViewBook::new(machine.num_cores(), Signals::NONE, true),
            machine,
            extra: Vec::new(),
            procs: Vec::new(),
            by_pid: HashMap::new(),
            by_tid: HashMap::new(),
            strangers: HashSet::new(),
            exited: HashSet::new(),
            exited_threads: Vec::new(),
            own_pid: std::process::id(),
            last_switches_ns: None,
            buf: Vec::with_capacity(4096),
            migrations: 0,
            counting: None,
            charged: Vec::new(),
            core_ran: Vec::new(),
            ledger: None,
            runtime_threads: RuntimeThreads::default(),
        }
    }

    fn is_zombie(&mut self, pid: u32) -> bool {
        procfs::read_into(&format!("{}/{pid}/stat", self.proc), &mut self.buf).is_some()
            && procfs::parse_stat(&self.buf).is_some_and(|st| st.state == 'Z' || st.state == 'X')
    }

    /// True when it reads the real /proc (not a tree a test built): only then are placements
    /// applied with system calls.
    pub fn real_proc(&self) -> bool {
        self.proc == "/proc"
    }

    /// Follow process `pid` (and, from now on, its threads and children).
    pub fn add_process(&mut self, pid: u32) -> bool {
        if self.by_pid.contains_key(&pid) {
            return true;
        }
        if procfs::read_into(&format!("{}/{pid}/stat", self.proc), &mut self.buf).is_none() {
            return false;
        }
        let Some(st) = procfs::parse_stat(&self.buf) else { return false };
        let app = self.book.apps.len() as u32;
        self.book.apps.push(AppView::new(app, st.comm, st.nice));
        self.by_pid.insert(pid, self.procs.len());
        self.procs.push(Process {
            pid,
            app,
            cpu_ns: None,
            threads: HashMap::new(),
            groups: Vec::new(),
            group_sizes: Vec::new(),
            original: None,
            imposed: Vec::new(),
            imposed_allowed: Vec::new(),
            nice_imposed: Vec::new(),
            alive: true,
        });
        true
    }

    /// Followed process `pid` has exited (its pidfd said so): the next sample ends it, zombie
    /// or not, instead of waiting for its clock to stand still over a switches period.
    pub fn saw_exit(&mut self, pid: u32) {
        if self.by_pid.get(&pid).is_some_and(|&p| self.procs[p].alive) {
            self.exited.insert(pid);
        }
    }

    /// Never follow process `pid` (the agent's guardian, a child of the agent like the command).
    pub fn ignore_process(&mut self, pid: u32) {
        self.strangers.insert(pid);
    }

    /// Process `p` has ended (or is a zombie): it is followed no more.
    fn process_ended(&mut self, p: usize) {
        self.procs[p].alive = false;
        if let Some(l) = self.ledger.as_mut() {
            l.process_gone(self.procs[p].pid);
        }
    }

    /// The target processes running (not zombies) now, with their names: (pid, comm).
    pub fn running_processes(&self) -> Vec<(u32, String)> {
        let mut buf = Vec::new();
        self.procs
            .iter()
            .filter(|p| p.alive)
            .filter_map(|p| {
                procfs::read_into(&format!("{}/{}/stat", self.proc, p.pid), &mut buf)?;
                let st = procfs::parse_stat(&buf)?;
                (st.state != 'Z' && st.state != 'X').then_some((p.pid, st.comm))
            })
            .collect()
    }

    pub fn live_processes(&self) -> impl Iterator<Item = u32> + '_ {
        self.procs.iter().filter(|p| p.alive).map(|p| p.pid)
    }

    pub fn thread_of_tid(&self, tid: u32) -> Option<u32> {
        self.by_tid.get(&tid).copied()
    }

    /// Find child processes of the targets that appeared since the last call.
    fn discover_children(&mut self) {
        let Some(pids) = procfs::list_ids(&self.proc) else { return };
        for pid in pids {
            if self.by_pid.contains_key(&pid) || self.strangers.contains(&pid) {
                continue;
            }
            if procfs::read_into(&format!("{}/{pid}/stat", self.proc), &mut self.buf).is_none() {
                continue;
            }
            let Some(st) = procfs::parse_stat(&self.buf) else { continue };
            let parent = self.by_pid.get(&st.ppid).copied().filter(|&i| self.procs[i].alive);
            if st.ppid == self.own_pid || parent.is_some() {
                if self.add_process(pid) {
                    // A forked child inherits its parent's affinity, perhaps one the agent set:
                    // what it must get back is its parent's original.
                    // The same for its nice value.
                    if let Some(i) = parent {
                        let (original, imposed) = (self.procs[i].original.clone(), self.procs[i].imposed.clone());
                        let nice_imposed = self.procs[i].nice_imposed.clone();
                        let imposed_allowed = self.procs[i].imposed_allowed.clone();
                        let child = self.by_pid[&pid];
                        if let Some(l) = self.ledger.as_mut() {
                            l.process(pid, original.as_ref());
                            for mask in &imposed {
                                l.imposed(pid, mask);
                            }
                            for &(value, original) in &nice_imposed {
                                l.nice_imposed(pid, value, original);
                            }
                        }
                        self.procs[child].original = original;
                        self.procs[child].imposed = imposed;
                        self.procs[child].imposed_allowed = imposed_allowed;
                        self.procs[child].nice_imposed = nice_imposed;
                    }
                }
            } else {
                self.strangers.insert(pid);
            }
        }
    }

    /// Read /proc once; append the per-thread events of the interval to `events`.
    pub fn sample(&mut self, now_ns: u64, events: &mut Vec<Trigger>) {
        self.exited_threads.clear();
        let switches = self.last_switches_ns.is_none_or(|t| now_ns >= t + SWITCHES_PERIOD_NS);
        if switches {
            self.last_switches_ns = Some(now_ns);
        }
        let mut any_ran = false;
        for p in 0..self.procs.len() {
            if !self.procs[p].alive {
                continue;
            }
            let pid = self.procs[p].pid;
            let cpu = if self.real_proc() { procfs::process_cpu_ns(pid) } else { None };
            let moved = cpu.is_none() || cpu != self.procs[p].cpu_ns;
            self.procs[p].cpu_ns = cpu;
            let seen_exiting = self.exited.remove(&pid);
            if seen_exiting || (!moved && switches && self.real_proc() && self.is_zombie(pid)) {
                // Exited, perhaps waiting for its parent to reap it: its clock stops, so say so here.
                self.sample_process(p, now_ns, false, events);
                let ids: Vec<(u32, u32)> = self.procs[p].threads.iter().map(|(&a, &b)| (a, b)).collect();
                for (tid, id) in ids {
                    self.exit_thread(p, tid, id, now_ns, events);
                }
                if self.procs[p].alive {
                    self.process_ended(p); // (sample_process ended it already if it was reaped)
                }
                continue;
            }
            if !moved {
                // No thread ran: nobody blocked, exited or moved; runnable threads stay Ready.
                for &id in self.procs[p].threads.values() {
                    if self.book.threads[id as usize].state == ThreadState::Running {
                        self.book.set_state(id, ThreadState::Ready);
                    }
                }
                continue;
            }
            any_ran = true;
            self.sample_process(p, now_ns, switches, events);
        }
        if any_ran || self.procs.iter().all(|p| p.cpu_ns.is_none()) {
            self.discover_children();
        }
        self.charge_coruns();
        self.count_runnable_per_core();
    }

    /// Each thread's wait behind the other targets (`Counters::corun_ns`) in this sample: the
    /// CPU time they were charged on the core it was charged to, at most its wait. At the grain
    /// of a sample: a thread that waited only part of it is credited with all its co-runners'
    /// time there (up to its wait), and one whose core changed in it with those of the last.
    fn charge_coruns(&mut self) {
        self.core_ran.clear();
        self.core_ran.resize(self.machine.num_cores(), 0);
        for &(_, _, core, ran, _) in &self.charged {
            self.core_ran[core] += ran;
        }
        for (id, ty, core, ran, waited) in self.charged.drain(..) {
            let others = self.core_ran[core] - ran;
            self.book.threads[id as usize].per_type[ty].corun_ns += others.min(waited);
        }
    }

    /// Each core's `nr_running`: the target threads seen runnable there.
    fn count_runnable_per_core(&mut self) {
        for c in &mut self.book.cores {
            c.nr_running = 0;
            c.running = None;
        }
        for p in self.procs.iter().filter(|p| p.alive) {
            for &id in p.threads.values() {
                let t = &self.book.threads[id as usize];
                if let (true, Some(c)) = (t.state.is_runnable(), t.core) {
                    let core: &mut CoreView = &mut self.book.cores[c];
                    core.nr_running += 1;
                    // Several threads may look running on one CPU within a sample: name the lowest id.
                    if t.state == ThreadState::Running && core.running.is_none_or(|r| id < r) {
                        core.running = Some(id);
                    }
                }
            }
        }
    }

    fn sample_process(&mut self, p: usize, now_ns: u64, switches: bool, events: &mut Vec<Trigger>) {
        let pid = self.procs[p].pid;
        let mut tids = procfs::list_ids(&format!("{}/{pid}/task", self.proc)).unwrap_or_default();
        // The main thread (tid = pid) first: seen first, it is its process's group 0, index 0,
        // the master PA-RTX's runtime names, even where thread ids wrapped below the pid.
        if let Some(i) = tids.iter().position(|&t| t == pid) {
            tids[..=i].rotate_right(1);
        }
        if tids.is_empty() {
            self.process_ended(p);
        }
        // Exits: threads no longer listed.
        let listed: HashSet<u32> = tids.iter().copied().collect();
        let gone: Vec<(u32, u32)> = self.procs[p].threads.iter().filter(|(tid, _)| !listed.contains(tid)).map(|(&a, &b)| (a, b)).collect();
        for (tid, id) in gone {
            self.exit_thread(p, tid, id, now_ns, events);
        }
        for tid in tids {
            let path = format!("{}/{pid}/task/{tid}/schedstat", self.proc);
            if procfs::read_into(&path, &mut self.buf).is_none() {
                if let Some(&id) = self.procs[p].threads.get(&tid) {
                    self.exit_thread(p, tid, id, now_ns, events);
                }
                continue;
            }
            let Some(ss) = procfs::parse_schedstat(&self.buf) else { continue };
            let known = self.procs[p].threads.get(&tid).copied();
            let id = match known {
                Some(id) => id,
                None => match self.new_thread(p, tid, now_ns) {
                    Some(id) => {
                        events.push(Trigger::Start(id));
                        id
                    }
                    None => continue,
                },
            };
            let ran = ss.run_ns > self.extra[id as usize].last_run_ns || known.is_none();
            let mut counted = None;
            if ran {
                self.read_stat(p, tid, id, events, known.is_some());
                // A group opened at this sample has nothing to read yet.
                if let (Some(c), true) = (self.counting.as_mut(), known.is_some()) {
                    counted = c.read(id);
                }
            }
            if switches
                && ss.run_ns != self.extra[id as usize].switches_run_ns
                && procfs::read_into(&format!("{}/{pid}/task/{tid}/status", self.proc), &mut self.buf).is_some()
            {
                if let Some((v, i)) = procfs::parse_switches(&self.buf) {
                    let e = &mut self.extra[id as usize];
                    e.voluntary_switches = v;
                    e.involuntary_switches = i;
                    e.switches_run_ns = ss.run_ns;
                }
            }
            self.charge(id, ss, ran, counted);
        }
    }

    fn new_thread(&mut self, p: usize, tid: u32, now_ns: u64) -> Option<u32> {
        let pid = self.procs[p].pid;
        procfs::read_into(&format!("{}/{pid}/task/{tid}/stat", self.proc), &mut self.buf)?;
        let st = procfs::parse_stat(&self.buf)?;
        let current = if self.real_proc() { get_affinity(tid).ok()? } else { CpuMask::from_cpus(self.machine.cores.iter().map(|c| c.cpu)) };
        // A thread inherits its creator's affinity. If that is one the agent imposed, the thread's
        // own "original" is its process's original; if the program chose it, it is the thread's.
        let imposed = self.procs[p].imposed.contains(&current);
        let original = Some(match &self.procs[p].original {
            Some(o) if imposed => o.clone(),
            _ => current.clone(),
        });
        if self.procs[p].original.is_none() {
            self.procs[p].original = Some(current.clone());
            if let Some(l) = self.ledger.as_mut() {
                l.process(pid, Some(&current));
            }
        }
        let group = match self.procs[p].groups.iter().position(|g| *g == st.comm) {
            Some(g) => g,
            None => {
                self.procs[p].groups.push(st.comm.clone());
                self.procs[p].group_sizes.push(0);
                self.procs[p].groups.len() - 1
            }
        };
        let index_in_group = self.procs[p].group_sizes[group];
        self.procs[p].group_sizes[group] += 1;
        let kind = self.runtime_threads.kind_of(&st.comm);
        let id = self.book.threads.len() as u32;
        let group = group.min(u16::MAX as usize) as u16;
        // Where the inherited affinity is a share's side, the thread is allowed its creator's
        // wider set and runs, as its creator did, on the side (`enforced`) until decided for.
        let running_on = self.cores_of(&current);
        let allowed = match self.procs[p].imposed_allowed.iter().find(|(mask, _)| imposed && *mask == current) {
            Some((_, allowed)) => allowed.clone(),
            None => running_on.clone(),
        };
        let enforced = (running_on != allowed).then_some(running_on);
        let mut view = ThreadView::started(id, self.procs[p].app, group, index_in_group, kind, allowed, now_ns);
        view.core = self.machine.core_of_cpu(st.processor);
        (view.uclamp_min, view.uclamp_max) = crate::uclamp::read(tid);
        self.book.add_thread(view);
        if let Some(c) = self.counting.as_mut() {
            c.open(id, tid, &st.comm);
            if !c.is_counting() {
                // No policy may read counters that some threads lack: stop offering them.
                self.book.available = self.book.available.without(Signals::COUNTERS);
            }
        }
        // An inherited imposed affinity is one the agent set, in effect: it must be restored at
        // the end, and a decision for the original set is a real change.
        let slot = match (self.ledger.as_mut(), &original) {
            (Some(l), Some(o)) => l.thread(tid, pid, o, imposed),
            _ => None,
        };
        let applied = imposed.then_some(current);
        // Its nice value too: one the agent set on its creator is restored to the creator's original.
        let nice_original = inherited_nice(&self.procs[p].nice_imposed, st.nice);
        if let (Some(l), Some(slot), Some(n)) = (self.ledger.as_mut(), slot, nice_original) {
            l.nice_changing(slot, n);
        }
        self.extra.push(ThreadExtra {
            tid,
            pid,
            comm: st.comm,
            starttime: st.starttime,
            original,
            applied,
            enforced,
            nice_seen: st.nice,
            nice_original,
            state: st.state,
            slot,
            ..Default::default()
        });
        self.procs[p].threads.insert(tid, id);
        self.by_tid.insert(tid, id);
        Some(id)
    }

    fn read_stat(&mut self, p: usize, tid: u32, id: u32, events: &mut Vec<Trigger>, known: bool) {
        let pid = self.procs[p].pid;
        if procfs::read_into(&format!("{}/{pid}/task/{tid}/stat", self.proc), &mut self.buf).is_none() {
            return;
        }
        let Some(st) = procfs::parse_stat(&self.buf) else { return };
        let core = self.machine.core_of_cpu(st.processor);
        if self.extra[id as usize].comm != st.comm {
            // Renamed (pthread_setname_np) since last seen. Its kind follows the name: a runtime
            // names its helpers from inside them just after they start, so the first name seen
            // may be the creator's (`runtime_threads.rs`). Its group stays the first name's.
            let kind = self.runtime_threads.kind_of(&st.comm);
            if self.book.threads[id as usize].kind != kind {
                self.book.threads[id as usize].kind = kind;
                self.book.mark_changed(id);
            }
            self.extra[id as usize].comm = st.comm;
        }
        let before = self.book.threads[id as usize].state;
        self.extra[id as usize].state = st.state;
        let state = match st.state {
            'R' => ThreadState::Running,
            'S' | 'I' => ThreadState::Blocked,
            'Z' | 'X' | 'x' => ThreadState::Exited,
            _ => ThreadState::Sleeping,
        };
        self.book.set_state(id, state);
        let t = &mut self.book.threads[id as usize];
        if known && core.is_some() && t.core.is_some() && core != t.core {
            t.migrations += 1;
            self.migrations += 1;
        }
        if core.is_some() {
            t.core = core;
        }
        if t.state == ThreadState::Exited {
            // A zombie stays listed until reaped; it is reported once, and kept in the process's
            // thread map so that it is not found again as a new thread.
            t.waiting_for = None;
            if before != ThreadState::Exited {
                events.push(Trigger::Exit(id));
            }
        } else if known && before.is_runnable() != t.state.is_runnable() {
            events.push(if t.state.is_runnable() { Trigger::Wake(id) } else { Trigger::Block(id) });
        }
    }

    /// Charge the CPU time (and the counters) since the last sample to a core type.
    fn charge(&mut self, id: u32, ss: procfs::SchedStat, ran: bool, counted: Option<CounterDelta>) {
        let e = &mut self.extra[id as usize];
        let delta = ss.run_ns.saturating_sub(e.last_run_ns);
        // The kernel adds a wait to schedstat when the wait ends, as the thread gets a CPU: so
        // it comes with CPU time, and goes to the same core type (`Signals::PROGRESS`).
        let waited = ss.wait_ns.saturating_sub(e.wait_ns);
        e.last_run_ns = ss.run_ns;
        e.wait_ns = ss.wait_ns;
        if !ran && self.book.threads[id as usize].state == ThreadState::Running {
            self.book.set_state(id, ThreadState::Ready);
        }
        if delta == 0 && counted.is_none() {
            return;
        }
        let running_on = &self.extra[id as usize].enforced;
        let t = &mut self.book.threads[id as usize];
        let m = &self.machine;
        let types: Vec<usize> = running_on.as_ref().unwrap_or(&t.allowed).iter().map(|c| m.cores[c].core_type).collect();
        let ty = match types.first() {
            Some(&first) if types.iter().all(|&x| x == first) => Some(first),
            _ => t.core.map(|c| m.cores[c].core_type),
        };
        if let Some(ty) = ty {
            let c = &mut t.per_type[ty];
            c.time_ns += delta;
            c.runnable_ns += delta + waited;
            if let Some(d) = counted {
                c.instructions += d.instructions;
                c.cycles += d.cycles;
                c.llc_misses += d.llc_misses;
            }
        }
        let core = t.core;
        self.book.mark_ran(id);
        if let Some(c) = core {
            self.book.cores[c].busy_ns += delta;
            if let Some(ty) = ty {
                self.charged.push((id, ty, c, delta, waited));
            }
        }
    }

    fn exit_thread(&mut self, p: usize, tid: u32, id: u32, _now_ns: u64, events: &mut Vec<Trigger>) {
        self.procs[p].threads.remove(&tid);
        self.by_tid.remove(&tid);
        self.exited_threads.push((tid, id, self.book.threads[id as usize].waiting_for));
        if let (Some(l), Some(slot)) = (self.ledger.as_mut(), self.extra[id as usize].slot.take()) {
            l.thread_gone(slot);
        }
        if let Some(c) = self.counting.as_mut() {
            c.close(id);
        }
        if self.book.threads[id as usize].state != ThreadState::Exited {
            self.book.set_state(id, ThreadState::Exited);
            self.book.threads[id as usize].waiting_for = None;
            events.push(Trigger::Exit(id));
        }
    }

    /// The machine cores a Linux CPU mask covers.
    pub fn cores_of(&self, mask: &CpuMask) -> CoreSet {
        CoreSet::from_cores(self.machine.cores.iter().filter(|c| mask.contains(c.cpu)).map(|c| c.id))
    }

    /// The Linux CPUs of a set of machine cores.
    pub fn mask_of(&self, cores: &CoreSet) -> CpuMask {
        CpuMask::from_cpus(cores.iter().map(|c| self.machine.cores[c].cpu))
    }

    /// Copy the preload library's lock data into the view: of the threads alive, and, for the
    /// threads that exited in the last sample, what they gathered after the sample before (their
    /// totals are final once they have exited, but for waits still charged to them).
    pub fn apply_locks(&mut self, locks: &HashMap<u32, LockRecord>) {
        for (tid, r) in locks {
            let Some(&id) = self.by_tid.get(tid) else { continue };
            let holder = r.waiting_for.and_then(|h| self.by_tid.get(&h).copied());
            self.apply_lock_record(id, r, holder);
            let t = &mut self.book.threads[id as usize];
            t.waiting_for = holder;
            t.spinning = r.spinning;
        }
        for (tid, id, holder) in std::mem::take(&mut self.exited_threads) {
            if let Some(r) = locks.get(&tid) {
                self.apply_lock_record(id, r, holder);
            }
        }
    }

    /// Thread `id`'s totals from the table's record `r`; its wait since the last reading is an
    /// edge to the holder it was seen waiting for then, or else to `holder`.
    fn apply_lock_record(&mut self, id: u32, r: &LockRecord, holder: Option<u32>) {
        let t = &self.book.threads[id as usize];
        let (waited, seen_holder) = (r.wait_ns.saturating_sub(t.lock_wait_ns), t.waiting_for.or(holder));
        if let (true, Some(h)) = (waited > 0, seen_holder) {
            self.book.add_lock_wait(id, h, waited);
        }
        let t = &mut self.book.threads[id as usize];
        t.lock_wait_ns = r.wait_ns;
        t.lock_wait_caused_ns = r.caused_ns;
        // Kept monotonic: a spin that ends as the table is read can count twice in that one
        // reading (see `LockTable::read`), and policies take differences of spin_ns.
        t.spin_ns = t.spin_ns.max(r.spin_ns);
        self.extra[id as usize].contended_locks = r.contended;
    }

    /// Before the agent sets thread `id`'s affinity to `mask`: the guardian's ledger learns that
    /// the thread needs its original back and that `mask` is one its process may inherit.
    pub fn guard_affinity(&mut self, id: u32, mask: &CpuMask) {
        let e = &self.extra[id as usize];
        if let Some(l) = self.ledger.as_mut() {
            l.imposed(e.pid, mask);
            if let Some(slot) = e.slot {
                l.affinity_changing(slot);
            }
        }
    }

    /// Before the agent first changes thread `id`'s nice value, `original`.
    pub fn guard_nice(&mut self, id: u32, original: i32) {
        if let (Some(l), Some(slot)) = (self.ledger.as_mut(), self.extra[id as usize].slot) {
            l.nice_changing(slot, original);
        }
    }

    /// The agent has set thread `id`'s nice value to `value` (its original is `nice_original`):
    /// a thread that inherits `value` from it, in its process or in a child process forked from
    /// it, gets that original back at the end. Recorded once per value and process, by the
    /// guardian's ledger too.
    pub fn record_nice(&mut self, id: u32, value: i32) {
        let e = &self.extra[id as usize];
        let (pid, Some(original)) = (e.pid, e.nice_original) else { return };
        let p = self.by_pid[&pid];
        if self.procs[p].nice_imposed.iter().any(|&(v, _)| v == value) {
            return;
        }
        self.procs[p].nice_imposed.push((value, original));
        if let Some(l) = self.ledger.as_mut() {
            l.nice_imposed(pid, value, original);
        }
    }

    /// Before the agent first changes thread `id`'s slice; `back` is the request that restores it.
    pub fn guard_slice(&mut self, id: u32, back: u64) {
        if let (Some(l), Some(slot)) = (self.ledger.as_mut(), self.extra[id as usize].slot) {
            l.slice_changing(slot, back);
        }
    }

    /// Record that the agent set thread `id`'s affinity to `mask`: `allowed` in the view, or
    /// `run_on`, a part of it, where a fast-core share narrows it.
    pub fn record_applied(&mut self, id: u32, mask: CpuMask, allowed: &CoreSet, run_on: &CoreSet) {
        let p = self.by_pid[&self.extra[id as usize].pid];
        if !self.procs[p].imposed.contains(&mask) {
            self.procs[p].imposed.push(mask.clone());
        }
        // The widest set a mask was imposed under: a share's side stays one, whether or not the
        // policy also pinned some thread to just those cores.
        match self.procs[p].imposed_allowed.iter_mut().find(|(m, _)| *m == mask) {
            Some((_, wider)) if wider.len() < allowed.len() => *wider = allowed.clone(),
            Some(_) => {}
            None => self.procs[p].imposed_allowed.push((mask.clone(), allowed.clone())),
        }
        self.extra[id as usize].applied = Some(mask);
        self.note_allowed(id, allowed, run_on);
    }

    /// The affinity in force is already `run_on`: record that the view's is `allowed`.
    pub fn note_allowed(&mut self, id: u32, allowed: &CoreSet, run_on: &CoreSet) {
        self.extra[id as usize].enforced = (run_on != allowed).then(|| run_on.clone());
        self.book.threads[id as usize].allowed = allowed.clone();
    }

    /// Leave thread `id` alone from now on, for `why`.
    pub fn mark_unmanaged(&mut self, id: u32, why: String) {
        self.extra[id as usize].unmanaged = Some(why);
    }

    /// Threads not exited.
    pub fn live_count(&self) -> usize {
        self.book.live_count()
    }
}

/// The original nice value of a thread first seen with nice value `nice` in a process where the
/// agent has set the values `imposed` (value, original): a thread inherits its creator's nice
/// value (clone(2) and fork(2) copy it), so one found with a value the agent set there was, in
/// effect, set by the agent, and its original is its creator's. The agent cannot tell which thread
/// created it: when several had the value set, the original of the first one is taken. A thread
/// with a value the agent never set there keeps it (None). The guardian applies the same rule
/// (`guardian.rs`) to threads it finds that the agent never saw.
pub fn inherited_nice(imposed: &[(i32, i32)], nice: i32) -> Option<i32> {
    imposed.iter().find(|&&(value, _)| value == nice).map(|&(_, original)| original)
}
