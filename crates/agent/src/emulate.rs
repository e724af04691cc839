//! Asymmetry emulation by cycle stealing, for machines whose cores are all alike.
//!
//! The Sáez thesis (§3.2) emulates slow cores with DVFS, which a virtual machine cannot reach.
//! Here a real-time (SCHED_FIFO) thread pinned to each slow CPU busy-waits for the stolen
//! fraction `1 - speed` of every period and sleeps for the rest, so everything else on that CPU
//! gets `speed` of its cycles. Any real-time priority preempts every normal (CFS) thread.
//!
//! Limits, unlike DVFS or real big/little cores: the slowdown is the same for memory-bound and
//! compute-bound code (it steals time, not frequency), so an emulated slow core has SF = 1/speed
//! for every program; a thread's CPU time on a slow CPU is the time it actually ran, so the
//! slowdown shows in wall time, not in its CPU time; and Linux's real-time throttling
//! (kernel.sched_rt_runtime_us, 95% by default) caps the stolen share, hence `MIN_SPEED`.
//!
//! The threads live in the agent's process, so they cannot outlive it even if it is killed;
//! `Emulation::drop` stops and joins them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::procfs::{monotonic_ns, set_affinity, CpuMask};

/// Default stealing period. Short, so that a slow CPU looks uniformly slow at the granularity of
/// a CFS time slice (3 ms and up) rather than stopping for whole slices; long enough that timer
/// wake-up latency (tens of µs on a VM) stays a few percent of it.
pub const DEFAULT_PERIOD_MS: f64 = ampsched_model::defaults::EMULATE_PERIOD_MS;
/// Slowest emulated speed: real-time throttling leaves normal threads at least 5% of a CPU, and
/// below 10% the wake-up jitter dominates.
pub const MIN_SPEED: f64 = 0.1;

pub struct Emulation {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Emulation {
    /// Start one stealer per (cpu, speed). Fails with the reason when real-time scheduling or
    /// pinning is not allowed.
    pub fn start(slow: &[(usize, f64)], period_ns: u64) -> Result<Emulation, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut em = Emulation { stop: stop.clone(), threads: Vec::new() };
        for &(cpu, speed) in slow {
            let steal_ns = ((1.0 - speed) * period_ns as f64).round() as u64;
            let (tx, rx) = std::sync::mpsc::channel::<Result<(), String>>();
            let stop = stop.clone();
            let handle = std::thread::Builder::new()
                .name(format!("ampsched-steal{cpu}"))
                .spawn(move || {
                    let ready = become_stealer(cpu);
                    let ok = ready.is_ok();
                    let _ = tx.send(ready);
                    if ok {
                        steal(cpu, steal_ns, period_ns, &stop);
                    }
                })
                .map_err(|e| format!("cannot start the emulation thread for CPU {cpu}: {e}"))?;
            em.threads.push(handle);
            match rx.recv() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(e), // `em` drops here: the stealers started so far stop
                Err(_) => return Err(format!("the emulation thread for CPU {cpu} died")),
            }
        }
        Ok(em)
    }

    pub fn threads(&self) -> usize {
        self.threads.len()
    }
}

impl Drop for Emulation {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Pin the calling thread to `cpu` and make it SCHED_FIFO.
fn become_stealer(cpu: usize) -> Result<(), String> {
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) } as u32;
    set_affinity(tid, &CpuMask::from_cpus([cpu])).map_err(|e| format!("--emulate: cannot pin a thread to CPU {cpu}: {e}"))?;
    let param = libc::sched_param { sched_priority: 1 };
    // SAFETY: sets the calling thread's policy from a valid sched_param.
    let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!(
            "--emulate needs real-time scheduling (SCHED_FIFO) for its cycle-stealing threads, which requires CAP_SYS_NICE or an RLIMIT_RTPRIO > 0 (run as root): {e}"
        ));
    }
    Ok(())
}

fn steal(_cpu: usize, steal_ns: u64, period_ns: u64, stop: &AtomicBool) {
    let mut start = monotonic_ns();
    while !stop.load(Ordering::Relaxed) {
        while monotonic_ns() < start + steal_ns {
            std::hint::spin_loop();
        }
        start += period_ns;
        let now = monotonic_ns();
        if now >= start {
            // Late (throttled or delayed): start the next period now rather than catch up.
            start = now;
            continue;
        }
        let ts = libc::timespec { tv_sec: (start / 1_000_000_000) as libc::time_t, tv_nsec: (start % 1_000_000_000) as libc::c_long };
        // SAFETY: sleeps until an absolute CLOCK_MONOTONIC time; EINTR only shortens the sleep.
        unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
    }
}
