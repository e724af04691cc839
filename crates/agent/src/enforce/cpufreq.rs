//! Core-type frequencies through cpufreq's sysfs files (Documentation/admin-guide/pm/
//! cpufreq.rst): under the `userspace` governor `scaling_setspeed` sets the frequency itself;
//! under any other governor the agent caps it with `scaling_max_freq` (the governor may still
//! run the CPU slower). The governor is never changed. Every file the agent wrote gets its
//! original text back at the end.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ampsched_model::Machine;

#[derive(Debug)]
pub struct Frequencies {
    /// The directory holding `cpuN/cpufreq` (normally /sys/devices/system/cpu).
    cpu_dir: PathBuf,
    /// File written → its text before.
    originals: BTreeMap<PathBuf, String>,
}

impl Frequencies {
    pub fn new(sysfs_root: &Path) -> Frequencies {
        Frequencies { cpu_dir: sysfs_root.join("sys/devices/system/cpu"), originals: BTreeMap::new() }
    }

    /// The file that sets CPU `cpu`'s frequency, or why there is none.
    fn knob(&self, cpu: usize) -> Result<PathBuf, String> {
        let dir = self.cpu_dir.join(format!("cpu{cpu}/cpufreq"));
        if !dir.is_dir() {
            return Err(format!("CPU {cpu} has no cpufreq ({} is missing)", dir.display()));
        }
        let governor = fs::read_to_string(dir.join("scaling_governor")).unwrap_or_default();
        Ok(dir.join(if governor.trim() == "userspace" { "scaling_setspeed" } else { "scaling_max_freq" }))
    }

    /// Run core type `ty`'s CPUs at `ghz`. Ok(1) when it wrote something, Err(why) when it
    /// could not (then nothing is left half-done: CPUs already written are put back).
    pub fn set(&mut self, m: &Machine, ty: usize, ghz: f64) -> Result<u64, String> {
        let khz = (ghz * 1e6).round() as u64;
        let cpus: Vec<usize> = m.cores.iter().filter(|c| c.core_type == ty).map(|c| c.cpu).collect();
        let knobs = cpus.iter().map(|&c| self.knob(c)).collect::<Result<Vec<_>, _>>()?;
        let mut written = Vec::new();
        for (cpu, file) in cpus.iter().zip(&knobs) {
            let before = fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()));
            let result = before.and_then(|b| {
                fs::write(file, format!("{khz}\n")).map_err(|e| format!("cannot write CPU {cpu}'s {}: {e}", file.display()))?;
                Ok(b)
            });
            match result {
                Ok(b) => written.push((file.clone(), b)),
                Err(why) => {
                    for (f, b) in written {
                        let _ = fs::write(f, b);
                    }
                    return Err(why);
                }
            }
        }
        for (f, b) in written {
            self.originals.entry(f).or_insert(b);
        }
        Ok(1)
    }

    /// Write every original back: how many files.
    pub fn restore(&mut self) -> usize {
        let mut n = 0;
        for (file, text) in std::mem::take(&mut self.originals) {
            if fs::write(&file, text).is_ok() {
                n += 1;
            }
        }
        n
    }
}
