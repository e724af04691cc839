//! What a Python policy's `decide` receives: `View`, a handle on the engine's `SystemView`
//! that reads it lazily, so that a call costs what the policy reads, not the number of threads.
//!
//! The engine's view lives only during the call. The handle is closed when `decide` returns:
//! any use after that raises instead of reading freed memory. What the accessors return
//! (lists, dicts, `Thread`) are copies, valid after the call.

use std::sync::atomic::{AtomicPtr, Ordering};

use ampsched_model::{Counters, Machine, SystemView, ThreadState, ThreadView, Trigger};
use pyo3::exceptions::{PyIndexError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

#[pyclass(frozen, module = "ampsched", name = "View")]
pub struct View {
    /// The engine's view while the call runs; null once it has returned.
    view: AtomicPtr<SystemView<'static>>,
    call: u64,
    /// The machine as `machine_dict` describes it, built once per run.
    machine: Py<PyDict>,
}

impl View {
    /// A handle on `view` for one call.
    ///
    /// # Safety
    /// `close` must be called before `view` goes away (before the `decide` that received it
    /// returns). Python reaches the handle only with the GIL held, and `close` runs with it.
    pub unsafe fn open(view: &SystemView<'_>, machine: Py<PyDict>) -> View {
        let ptr = view as *const SystemView<'_> as *mut SystemView<'static>;
        View { view: AtomicPtr::new(ptr), call: view.call, machine }
    }

    pub fn close(&self) {
        self.view.store(std::ptr::null_mut(), Ordering::Release);
    }

    fn get(&self) -> PyResult<&SystemView<'_>> {
        let ptr = self.view.load(Ordering::Acquire);
        if ptr.is_null() {
            return Err(PyRuntimeError::new_err(format!(
                "this view (call {}) was used after its decide call returned: a view is valid only during the call \
                 that received it; keep what you need from it (its lists, dicts and view.thread(id) are copies)",
                self.call
            )));
        }
        // SAFETY: not closed, so the call that opened it has not returned (see `open`).
        Ok(unsafe { &*ptr })
    }

    fn thread_view<'v>(v: &'v SystemView<'_>, id: u32) -> PyResult<&'v ThreadView> {
        v.threads
            .get(id as usize)
            .ok_or_else(|| PyIndexError::new_err(format!("no thread {id}: {} threads have started (ids 0 to {})", v.threads.len(), v.threads.len() as i64 - 1)))
    }
}

pub fn trigger_name(t: Trigger) -> (&'static str, Option<u32>) {
    match t {
        Trigger::Quantum => ("quantum", None),
        Trigger::Start(id) => ("start", Some(id)),
        Trigger::Exit(id) => ("exit", Some(id)),
        Trigger::Block(id) => ("block", Some(id)),
        Trigger::Wake(id) => ("wake", Some(id)),
    }
}

fn state_name(s: ThreadState) -> &'static str {
    match s {
        ThreadState::Running => "running",
        ThreadState::Ready => "ready",
        ThreadState::Blocked => "blocked",
        ThreadState::Sleeping => "sleeping",
        ThreadState::Exited => "exited",
    }
}

/// One dict per core type: time_ns, runnable_ns, corun_ns, instructions, cycles, llc_misses.
fn counters_list<'py>(py: Python<'py>, per_type: &[Counters]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty_bound(py);
    for c in per_type {
        let d = PyDict::new_bound(py);
        d.set_item("time_ns", c.time_ns)?;
        d.set_item("runnable_ns", c.runnable_ns)?;
        d.set_item("corun_ns", c.corun_ns)?;
        d.set_item("instructions", c.instructions)?;
        d.set_item("cycles", c.cycles)?;
        d.set_item("llc_misses", c.llc_misses)?;
        list.append(d)?;
    }
    Ok(list)
}

/// The machine as a policy sees it: core types (capacity, count, frequencies, fast or not),
/// cores (type, LLC domain), the fast cores, and the capacity levels fastest first (the
/// thesis's core partitions, `Machine::capacity_levels`).
pub fn machine_dict(py: Python<'_>, m: &Machine) -> PyResult<Py<PyDict>> {
    let d = PyDict::new_bound(py);
    d.set_item("name", &m.name)?;
    let types = PyList::empty_bound(py);
    for (i, t) in m.core_types.iter().enumerate() {
        let td = PyDict::new_bound(py);
        td.set_item("name", &t.name)?;
        td.set_item("count", t.count)?;
        td.set_item("capacity", t.capacity)?;
        td.set_item("freq_ghz", t.freq_ghz)?;
        td.set_item("freq_levels_ghz", t.freq_levels_ghz.clone())?;
        td.set_item("fast", m.is_fast_type(i))?;
        types.append(td)?;
    }
    d.set_item("core_types", types)?;
    let cores = PyList::empty_bound(py);
    for c in &m.cores {
        let cd = PyDict::new_bound(py);
        cd.set_item("id", c.id)?;
        cd.set_item("type", c.core_type)?;
        cd.set_item("llc", c.llc)?;
        cd.set_item("fast", m.is_fast(c.id))?;
        cores.append(cd)?;
    }
    d.set_item("cores", cores)?;
    d.set_item("fast_cores", m.fast_cores().iter().collect::<Vec<usize>>())?;
    let levels = PyList::empty_bound(py);
    for (capacity, set) in m.capacity_levels() {
        let ld = PyDict::new_bound(py);
        ld.set_item("capacity", capacity)?;
        ld.set_item("cores", set.iter().collect::<Vec<usize>>())?;
        levels.append(ld)?;
    }
    d.set_item("capacity_levels", levels)?;
    Ok(d.unbind())
}

#[pymethods]
impl View {
    /// Simulated (or, live, monotonic) time of the call, ns.
    #[getter]
    fn now_ns(&self) -> PyResult<u64> {
        Ok(self.get()?.now_ns)
    }

    /// This call's number for this policy (1, 2, ...): a policy that keeps a cache derived
    /// from `changed` can tell from it whether it missed a call.
    #[getter]
    fn call(&self) -> PyResult<u64> {
        Ok(self.get()?.call)
    }

    /// The run's seed (the simulator's or the agent's `--seed`), for a policy's arbitrary choices.
    #[getter]
    fn seed(&self) -> PyResult<u64> {
        Ok(self.get()?.seed)
    }

    /// Why the policy is called: "quantum", "start", "exit", "block" or "wake".
    #[getter]
    fn trigger(&self) -> PyResult<&'static str> {
        Ok(trigger_name(self.get()?.trigger).0)
    }

    /// The thread a per-thread trigger is about; None for "quantum".
    #[getter]
    fn trigger_thread(&self) -> PyResult<Option<u32>> {
        Ok(trigger_name(self.get()?.trigger).1)
    }

    /// What this source measures: names as a policy's `needs` takes them.
    #[getter]
    fn available(&self) -> PyResult<Vec<&'static str>> {
        Ok(self.get()?.available.names())
    }

    /// Ids of the threads that have not exited, ascending.
    #[getter]
    fn live(&self) -> PyResult<Vec<u32>> {
        Ok(self.get()?.live.to_vec())
    }

    /// Ids of the threads that started, exited, became runnable or not, or whose affinity was
    /// set since this policy's previous call, in no particular order.
    #[getter]
    fn changed(&self) -> PyResult<Vec<u32>> {
        Ok(self.get()?.changed.to_vec())
    }

    /// Number of threads started so far (ids are 0 to thread_count - 1, exited ones included).
    #[getter]
    fn thread_count(&self) -> PyResult<usize> {
        Ok(self.get()?.threads.len())
    }

    /// A copy of thread `id` as it is now.
    fn thread(&self, id: u32) -> PyResult<Thread> {
        let v = self.get()?;
        let t = View::thread_view(v, id)?;
        Ok(Thread { v: t.clone(), types: v.machine.core_types.len(), fast_time_ns: t.fast_time_ns(v.machine) })
    }

    /// Thread `id`'s counters over the policy's last quantum, one dict per core type.
    fn interval<'py>(&self, py: Python<'py>, id: u32) -> PyResult<Bound<'py, PyList>> {
        let v = self.get()?;
        View::thread_view(v, id)?;
        counters_list(py, &v.interval_of(id)[..v.machine.core_types.len()])
    }

    /// Start of the interval `interval` covers, ns.
    #[getter]
    fn interval_start_ns(&self) -> PyResult<u64> {
        Ok(self.get()?.interval_start_ns)
    }

    /// Every app, indexed by app id: id, name, priority (nice), program (the catalog program it
    /// runs, or None), policy_managed (False: left to the OS, placements naming its threads are
    /// ignored), live_threads, runnable_threads, signatures (per group: {"cpi", "miss_curve": {"size_kb": [...], "mpki": [...]}} or None,
    /// a flat curve one point; needs "hints"), solo_ips (per group: instructions per second
    /// alone on each core type, a list by core type, or None; needs "profile").
    #[getter]
    fn apps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty_bound(py);
        let v = self.get()?;
        for a in v.apps {
            let d = PyDict::new_bound(py);
            d.set_item("id", a.id)?;
            d.set_item("name", &a.name)?;
            d.set_item("priority", a.priority)?;
            d.set_item("program", a.program.as_deref())?;
            d.set_item("policy_managed", a.policy_managed)?;
            d.set_item("live_threads", a.live_threads)?;
            d.set_item("runnable_threads", a.runnable_threads)?;
            let sigs = PyList::empty_bound(py);
            for s in &a.signatures {
                match s {
                    Some(s) => {
                        let sd = PyDict::new_bound(py);
                        sd.set_item("cpi", s.cpi)?;
                        let curve = PyDict::new_bound(py);
                        curve.set_item("size_kb", s.misses.points().iter().map(|p| p.0).collect::<Vec<f64>>())?;
                        curve.set_item("mpki", s.misses.points().iter().map(|p| p.1).collect::<Vec<f64>>())?;
                        sd.set_item("miss_curve", curve)?;
                        sigs.append(sd)?;
                    }
                    None => sigs.append(py.None())?,
                }
            }
            d.set_item("signatures", sigs)?;
            let ntypes = v.machine.core_types.len();
            let ips = PyList::empty_bound(py);
            for p in &a.solo_ips {
                match p {
                    Some(p) => ips.append(PyList::new_bound(py, &p[..ntypes]))?,
                    None => ips.append(py.None())?,
                }
            }
            d.set_item("solo_ips", ips)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// Every core, indexed by core id: id, nr_running, running (a thread id or None), busy_ns.
    #[getter]
    fn cores<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty_bound(py);
        for (id, c) in self.get()?.cores.iter().enumerate() {
            let d = PyDict::new_bound(py);
            d.set_item("id", id)?;
            d.set_item("nr_running", c.nr_running)?;
            d.set_item("running", c.running)?;
            d.set_item("busy_ns", c.busy_ns)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// Lock waits per (waiter, holder) pair: (waiter, holder, wait_ns) tuples. Needs "locks".
    #[getter]
    fn lock_edges(&self) -> PyResult<Vec<(u32, u32, u64)>> {
        Ok(self.get()?.lock_edges.iter().map(|e| (e.waiter, e.holder, e.wait_ns)).collect())
    }

    /// The machine (the same dict at every call of a run; do not modify it): name, core_types
    /// (name, count, capacity, freq_ghz, freq_levels_ghz, fast), cores (id, type, llc, fast),
    /// fast_cores, capacity_levels (fastest first: capacity, cores).
    #[getter]
    fn machine(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        self.get()?;
        Ok(self.machine.clone_ref(py))
    }

    fn __repr__(&self) -> String {
        match self.get() {
            Ok(v) => {
                let (name, thread) = trigger_name(v.trigger);
                let on = thread.map(|t| format!(" of thread {t}")).unwrap_or_default();
                format!("<ampsched.View call {}: {name}{on} at {} ns, {} live threads>", v.call, v.now_ns, v.live.len())
            }
            Err(_) => format!("<ampsched.View call {} (closed: its decide call returned)>", self.call),
        }
    }
}

/// A copy of one thread's view (`ThreadView`), taken during a call.
#[pyclass(frozen, module = "ampsched", name = "Thread")]
pub struct Thread {
    v: ThreadView,
    /// Core types of the machine (the length of `per_type`).
    types: usize,
    fast_time_ns: u64,
}

#[pymethods]
impl Thread {
    #[getter]
    fn id(&self) -> u32 {
        self.v.id
    }
    #[getter]
    fn app(&self) -> u32 {
        self.v.app
    }
    /// Index of the thread's group in its app.
    #[getter]
    fn group(&self) -> u16 {
        self.v.group
    }
    /// Index of the thread in its group.
    #[getter]
    fn index_in_group(&self) -> u32 {
        self.v.index_in_group
    }
    /// "app" or "runtime" (a managed runtime's helper thread).
    #[getter]
    fn kind(&self) -> &'static str {
        self.v.kind.as_str()
    }
    /// "running", "ready", "blocked", "sleeping" or "exited".
    #[getter]
    fn state(&self) -> &'static str {
        state_name(self.v.state)
    }
    /// Running or ready: wants a core.
    #[getter]
    fn runnable(&self) -> bool {
        self.v.state.is_runnable()
    }
    /// Runnable but spin-waiting. Needs "spin".
    #[getter]
    fn spinning(&self) -> bool {
        self.v.spinning
    }
    /// The core it runs or is queued on (off the CPU: the last one), or None.
    #[getter]
    fn core(&self) -> Option<usize> {
        self.v.core
    }
    /// The cores it may run on (its affinity), ascending.
    #[getter]
    fn allowed(&self) -> Vec<usize> {
        self.v.allowed.iter().collect()
    }
    #[getter]
    fn started_ns(&self) -> u64 {
        self.v.started_ns
    }
    /// Cumulative counters, one dict per core type (time_ns; instructions, cycles, llc_misses
    /// need "counters").
    #[getter]
    fn per_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        counters_list(py, &self.v.per_type[..self.types])
    }
    /// Time on fast cores (the machine's highest capacity), ns.
    #[getter]
    fn fast_time_ns(&self) -> u64 {
        self.fast_time_ns
    }
    #[getter]
    fn total_time_ns(&self) -> u64 {
        self.v.total_time_ns()
    }
    /// Needs "locks".
    #[getter]
    fn lock_wait_ns(&self) -> u64 {
        self.v.lock_wait_ns
    }
    /// The thread holding the lock this one waits for, or None. Needs "locks".
    #[getter]
    fn waiting_for(&self) -> Option<u32> {
        self.v.waiting_for
    }
    /// Needs "locks".
    #[getter]
    fn lock_wait_caused_ns(&self) -> u64 {
        self.v.lock_wait_caused_ns
    }
    /// Needs "spin".
    #[getter]
    fn spin_ns(&self) -> u64 {
        self.v.spin_ns
    }
    #[getter]
    fn migrations(&self) -> u32 {
        self.v.migrations
    }
    /// The memory node its pages are on (first touch: its first core's node); None until it
    /// has run, and in the live agent.
    #[getter]
    fn home_node(&self) -> Option<usize> {
        self.v.home_node
    }
    /// Its utilisation clamps, 0..=1024 (Linux's uclamp: the workload group's `uclamp_min`,
    /// `uclamp_max`; sched_getattr(2) live, 0 and 1024 on a kernel without uclamp).
    #[getter]
    fn uclamp_min(&self) -> u32 {
        self.v.uclamp_min
    }
    #[getter]
    fn uclamp_max(&self) -> u32 {
        self.v.uclamp_max
    }

    fn __repr__(&self) -> String {
        let core = self.v.core.map_or("no core".to_string(), |c| format!("core {c}"));
        format!("<ampsched.Thread {} of app {}: {} on {core}, allowed {}>", self.v.id, self.v.app, state_name(self.v.state), self.v.allowed)
    }
}
