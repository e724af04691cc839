//! Core-type frequencies through cpufreq's sysfs files (Documentation/admin-guide/pm/
//! cpufreq.rst): under the `userspace` governor `scaling_setspeed` sets the frequency itself;
//! under any other governor the agent caps it with `scaling_max_freq` (the governor may still
//! run the CPU slower). The governor is never changed. Every file the agent wrote gets its
//! original text back at the end.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ampsched_model::Machine;

use crate::guardian::Ledger;

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

    /// The file that sets CPU `cpu`'s frequency, or why there is none. `cpuN/cpufreq` is
    /// usually a link to a policy directory several CPUs share (a cluster): the path is the
    /// policy's own, so that CPUs sharing it name one file.
    fn knob(&self, cpu: usize) -> Result<PathBuf, String> {
        let link = self.cpu_dir.join(format!("cpu{cpu}/cpufreq"));
        let dir = fs::canonicalize(&link).map_err(|_| format!("CPU {cpu} has no cpufreq ({} is missing)", link.display()))?;
        let governor = fs::read_to_string(dir.join("scaling_governor")).unwrap_or_default();
        Ok(dir.join(if governor.trim() == "userspace" { "scaling_setspeed" } else { "scaling_max_freq" }))
    }

    /// Run core type `ty`'s CPUs at `ghz`. Ok(n): the files it wrote (0 when they already hold
    /// that frequency); Err(why) when it could not (then nothing is left half-done). Every
    /// file's original text is read before any is written.
    pub fn set(&mut self, m: &Machine, ty: usize, ghz: f64, mut ledger: Option<&mut Ledger>) -> Result<u64, String> {
        let khz = format!("{}\n", (ghz * 1e6).round() as u64);
        let mut knobs = m.cores.iter().filter(|c| c.core_type == ty).map(|c| self.knob(c.cpu)).collect::<Result<Vec<_>, _>>()?;
        knobs.sort();
        knobs.dedup();
        let mut before = Vec::new();
        for file in knobs {
            let text = fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            if text.trim() != khz.trim() {
                before.push((file, text));
            }
        }
        for (i, (file, text)) in before.iter().enumerate() {
            if let (Some(l), false) = (ledger.as_deref_mut(), self.originals.contains_key(file)) {
                l.file(file, text); // before the write: the guardian puts the original back
            }
            if let Err(e) = fs::write(file, &khz) {
                for (f, b) in &before[..i] {
                    let _ = fs::write(f, b);
                }
                return Err(format!("cannot write {}: {e}", file.display()));
            }
        }
        let n = before.len() as u64;
        for (f, b) in before {
            self.originals.entry(f).or_insert(b);
        }
        Ok(n)
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
