//! A recorded program's synchronisation, as a workload file gives it (docs/workloads.md,
//! "Recorded programs' synchronisation"): groups whose threads another thread creates
//! (`start = "spawned"`, started by a `spawn` phase: pthread_create), `join` phases
//! (pthread_join), counting semaphores (`sem_post`, `sem_wait`, `[[app.semaphore]]`: POSIX
//! sem_post/sem_wait, and what a condition variable's hand-off replays as) and named barriers
//! shared by any threads of the app (`kind = "barrier"` with `barrier` and `parties`:
//! pthread_barrier_t). They let a program recorded live replay causally: a thread waits for
//! what it waited for live, whatever the policy and machine make of the timing.
//!
//! Phases name groups, semaphores and barriers by name; names are gathered while the phases are
//! read (`SyncRefs`) and checked once the app's groups are all known (`SyncRefs::resolve`), so
//! that a file that can never run (a spawned group nobody spawns, a semaphore waited for but
//! never posted) is refused at reading with the key that is wrong.

use crate::error::{InputError, Result};
use crate::limits;
use crate::toml_read::Node;
use crate::workload::{Group, Phase, Scope, Wait, Workers};

/// How a group's threads begin (`start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Start {
    /// When the app's run starts (the default).
    #[default]
    AtStart,
    /// When the one `spawn` phase that names the group runs.
    Spawned,
}

impl Start {
    pub const NAMES: [(&'static str, Start); 2] = [("at_start", Start::AtStart), ("spawned", Start::Spawned)];
}

/// A counting semaphore of an app (`[[app.semaphore]]`, or a name only phases give: initial 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Semaphore {
    pub name: String,
    pub initial: u32,
}

/// A named barrier of an app: releases when `parties` threads have arrived, then is reusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedBarrier {
    pub name: String,
    pub parties: u32,
}

/// What an app's synchronisation phases refer to (`App::sync`; None for an app that uses none,
/// which the engine then pays nothing for). Phases index these vectors.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AppSync {
    /// Per group of the app: how its threads begin.
    pub start: Vec<Start>,
    /// Per group: the (group, phase index) of the spawn phase that starts it; None for a group
    /// started with the run.
    pub spawned_by: Vec<Option<(usize, usize)>>,
    pub semaphores: Vec<Semaphore>,
    pub barriers: Vec<NamedBarrier>,
}

impl AppSync {
    pub fn is_spawned(&self, g: usize) -> bool {
        self.start[g] == Start::Spawned
    }
}

/// A reference a phase makes by name, and where the file makes it (for errors).
#[derive(Debug, Clone)]
struct Ref {
    name: String,
    key: String,
}

/// The names an app's phases give, gathered while they are read. A phase's `group` holds an
/// index in `groups` until `resolve` maps it to the group's index in the app.
#[derive(Debug, Default)]
pub(crate) struct SyncRefs {
    groups: Vec<Ref>,
    semaphores: Vec<Semaphore>,
    /// How many of `semaphores` are declared by `[[app.semaphore]]` tables (the first ones),
    /// and the key of each declaration's name.
    declared: Vec<String>,
    /// Per semaphore: whether some phase posts it; where it is first waited for.
    posted: Vec<bool>,
    waited: Vec<Option<String>>,
    barriers: Vec<NamedBarrier>,
    /// Per barrier: the key of its first `parties`.
    barrier_keys: Vec<String>,
    /// Per group read: its `start`, and the key it was given at (or the group's name key).
    starts: Vec<(Start, String)>,
    /// The first synchronisation phase or `start = "spawned"` read: where a catalog program or
    /// an app without groups is told it cannot have them.
    first: Option<String>,
}

/// The phase kinds this module reads, for `read_phases`' list of known kinds.
pub(crate) const KINDS: [&str; 4] = ["spawn", "join", "sem_post", "sem_wait"];

impl SyncRefs {
    /// `[[app.semaphore]]` tables: `name`, `initial` (default 0).
    pub(crate) fn read_semaphores(&mut self, n: &mut Node) -> Result<()> {
        let nodes = n.tables("semaphore")?;
        if nodes.len() > limits::MAX_SEMAPHORES {
            return Err(n.err("semaphore", format!("{} semaphores; at most {} are supported", nodes.len(), limits::MAX_SEMAPHORES)));
        }
        for mut s in nodes {
            let name = s.str("name")?;
            if self.semaphores.iter().any(|other| other.name == name) {
                return Err(s.err("name", format!("duplicate semaphore name '{name}'")));
            }
            let initial = match s.opt_int("initial")? {
                None => 0,
                Some(v) if (0..=limits::SEM_VALUE_MAX as i64).contains(&v) => v as u32,
                Some(v) => return Err(s.err("initial", format!("must be a whole number from 0 to {} (SEM_VALUE_MAX), got {v}", limits::SEM_VALUE_MAX))),
            };
            self.note_first(&s, "name");
            self.declared.push(s.key_path("name"));
            self.semaphores.push(Semaphore { name, initial });
            self.posted.push(false);
            self.waited.push(None);
            s.finish()?;
        }
        Ok(())
    }

    /// A group's `start` key (default `at_start`), recorded for `resolve`.
    pub(crate) fn read_start(&mut self, g: &mut Node) -> Result<Start> {
        let start = match g.opt_str("start")? {
            None => Start::AtStart,
            Some(s) => match Start::NAMES.iter().find(|(n, _)| *n == s) {
                Some((_, v)) => *v,
                None => return Err(g.err("start", format!("unknown start '{s}' (expected at_start or spawned)"))),
            },
        };
        if start == Start::Spawned {
            self.note_first(g, "start");
        }
        let key = if g.has("start") { g.key_path("start") } else { g.key_path("name") };
        self.starts.push((start, key));
        Ok(start)
    }

    fn note_first(&mut self, p: &Node, key: &str) {
        if self.first.is_none() {
            self.first = Some(p.key_path(key));
        }
    }

    /// A phase of one of this module's kinds (`KINDS`), or None for another kind.
    pub(crate) fn read_phase(&mut self, kind: &str, p: &mut Node, read_wait: fn(&mut Node) -> Result<Wait>) -> Result<Option<Phase>> {
        let phase = match kind {
            "spawn" => Phase::Spawn { group: self.group_ref(p)? },
            "join" => Phase::Join { group: self.group_ref(p)?, wait: read_wait(p)? },
            "sem_post" => {
                let semaphore = self.semaphore_ref(p, true)?;
                let count = p.opt_count("count", limits::SEM_VALUE_MAX as u64)?.unwrap_or(1);
                Phase::SemPost { semaphore, count }
            }
            "sem_wait" => Phase::SemWait { semaphore: self.semaphore_ref(p, false)?, wait: read_wait(p)? },
            _ => return Ok(None),
        };
        self.note_first(p, "kind");
        Ok(Some(phase))
    }

    /// The named form of a barrier phase (`barrier = "NAME"`, `parties = N`), or None when the
    /// phase gives no `barrier` (the scope form).
    pub(crate) fn read_named_barrier(&mut self, p: &mut Node, read_wait: fn(&mut Node) -> Result<Wait>) -> Result<Option<Phase>> {
        let Some(name) = p.opt_str("barrier")? else {
            if p.has("parties") {
                return Err(p.err("parties", "only a named barrier (barrier = \"NAME\") takes parties; a scope barrier waits for its scope's threads"));
            }
            return Ok(None);
        };
        if p.has("scope") {
            return Err(p.err("scope", "give either barrier (a named barrier with its parties) or scope, not both"));
        }
        let parties = p.count("parties", limits::MAX_THREADS)?;
        let barrier = match self.barriers.iter().position(|b| b.name == name) {
            Some(i) if self.barriers[i].parties != parties => {
                let (had, at) = (self.barriers[i].parties, &self.barrier_keys[i]);
                return Err(p.err(
                    "parties",
                    format!("barrier '{name}' has parties = {had} at {at}: every phase naming one barrier gives the same parties, got {parties}"),
                ));
            }
            Some(i) => i,
            None => {
                self.barriers.push(NamedBarrier { name, parties });
                self.barrier_keys.push(p.key_path("parties"));
                self.barriers.len() - 1
            }
        };
        self.note_first(p, "barrier");
        Ok(Some(Phase::NamedBarrier { barrier, parties, wait: read_wait(p)? }))
    }

    fn group_ref(&mut self, p: &mut Node) -> Result<usize> {
        let name = p.str("group")?;
        self.groups.push(Ref { name, key: p.key_path("group") });
        Ok(self.groups.len() - 1)
    }

    fn semaphore_ref(&mut self, p: &mut Node, post: bool) -> Result<usize> {
        let name = p.str("semaphore")?;
        let i = match self.semaphores.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                self.semaphores.push(Semaphore { name, initial: 0 });
                self.posted.push(false);
                self.waited.push(None);
                self.semaphores.len() - 1
            }
        };
        if post {
            self.posted[i] = true;
        } else {
            self.waited[i].get_or_insert_with(|| p.key_path("semaphore"));
        }
        Ok(i)
    }

    /// For a catalog program or an app without `[[app.group]]` tables: none of this may be used.
    pub(crate) fn refuse(&self, source: &str, what: &str) -> Result<()> {
        match &self.first {
            None => Ok(()),
            Some(key) => Err(InputError::new(
                source,
                key.clone(),
                format!("spawned groups, spawn, join, semaphore and named-barrier phases belong to a workload's [[app.group]] tables, not {what}"),
            )),
        }
    }

    /// Check the references against the app's `groups` (read in the order `read_start` saw
    /// them) and map each spawn and join phase's group to its index in the app. None when the
    /// app uses none of this.
    pub(crate) fn resolve(self, parent: &Node, groups: &mut [Group]) -> Result<Option<Box<AppSync>>> {
        if self.first.is_none() {
            return Ok(None);
        }
        debug_assert_eq!(self.starts.len(), groups.len());
        let err = |key: &str, msg: String| InputError::new(parent.source, key.to_string(), msg);
        let start: Vec<Start> = self.starts.iter().map(|(s, _)| *s).collect();
        let mut spawned_by: Vec<Option<(usize, usize)>> = vec![None; groups.len()];
        let names: Vec<String> = groups.iter().map(|g| g.name.clone()).collect();
        let find = |r: &Ref| -> Result<usize> {
            names.iter().position(|n| *n == r.name).ok_or_else(|| err(&r.key, format!("unknown group '{}' (the app's groups: {})", r.name, names.join(", "))))
        };
        for g in 0..groups.len() {
            let (count, per_core, repeat) = (groups[g].count, groups[g].count_per_core, groups[g].repeat);
            for i in 0..groups[g].phases.len() {
                match groups[g].phases[i] {
                    Phase::Spawn { group: r } => {
                        let r = &self.groups[r];
                        let target = find(r)?;
                        if target == g {
                            return Err(err(&r.key, format!("group '{}' spawns itself: a group's threads cannot create themselves", names[g])));
                        }
                        if start[target] != Start::Spawned {
                            return Err(err(
                                &r.key,
                                format!(
                                    "group '{}' starts with the run (start = \"at_start\"): only a group with start = \"spawned\" is started by a spawn phase",
                                    r.name
                                ),
                            ));
                        }
                        if let Some((other, _)) = spawned_by[target] {
                            return Err(err(
                                &r.key,
                                format!(
                                    "group '{}' is already spawned by a phase of group '{}': each spawned group is spawned exactly once",
                                    r.name, names[other]
                                ),
                            ));
                        }
                        if repeat > 1 {
                            return Err(err(
                                &r.key,
                                format!("group '{}' repeats its phases (repeat = {repeat}), so it would spawn '{}' again: a spawn phase belongs to a group with repeat = 1", names[g], r.name),
                            ));
                        }
                        if count != 1 || per_core {
                            let n = if per_core { "one thread per core".to_string() } else { format!("{count} threads") };
                            return Err(err(
                                &r.key,
                                format!(
                                    "group '{}' has {n}, each of which would spawn '{}': a spawn phase belongs to a group of one thread (count = 1)",
                                    names[g], r.name
                                ),
                            ));
                        }
                        spawned_by[target] = Some((g, i));
                        groups[g].phases[i] = Phase::Spawn { group: target };
                    }
                    Phase::Join { group: r, wait } => {
                        let r = &self.groups[r];
                        let target = find(r)?;
                        if target == g {
                            return Err(err(&r.key, format!("group '{}' joins itself: its threads would wait for their own exit", names[g])));
                        }
                        groups[g].phases[i] = Phase::Join { group: target, wait };
                    }
                    _ => {}
                }
            }
        }
        for (g, (s, key)) in self.starts.iter().enumerate() {
            if *s != Start::Spawned {
                continue;
            }
            if spawned_by[g].is_none() {
                return Err(err(key, format!("group '{}' has start = \"spawned\" but no spawn phase names it, so its threads would never start", names[g])));
            }
            if groups[g].workers == Workers::PerPhase {
                return Err(err(key, format!("group '{}' is spawned and has per_phase workers: a spawned group's threads live from its spawn to their exit (give persistent workers)", names[g])));
            }
        }
        // Every spawned group's chain of spawners must begin at a group started with the run.
        for g in 0..groups.len() {
            let mut at = g;
            let mut steps = 0;
            while let Some((by, _)) = spawned_by[at] {
                at = by;
                steps += 1;
                if steps > groups.len() {
                    break;
                }
            }
            if start[at] == Start::Spawned {
                return Err(err(
                    &self.starts[g].1,
                    format!("group '{}' is spawned by a chain of groups that spawn each other, none of which starts with the run: a spawn chain must begin at a group with start = \"at_start\"", names[g]),
                ));
            }
        }
        let app_wide = |p: &Phase| matches!(p, Phase::Serial { scope: Scope::App, .. } | Phase::Barrier { scope: Scope::App, .. });
        if start.contains(&Start::Spawned) && groups.iter().any(|g| g.phases.iter().any(app_wide)) {
            return Err(parent.err(
                "group",
                "an app with spawned groups cannot have scope = \"app\" serial phases or barriers (their threads come and go): give named barriers (barrier = \"NAME\", parties = N)",
            ));
        }
        // A barrier needing more parties than the app has threads can never fill (the count of
        // a `count = "cores"` group is not known here: the run reports that case).
        if !groups.iter().any(|g| g.count_per_core) {
            let threads: u64 = groups.iter().map(|g| g.count as u64).sum();
            for (b, key) in self.barriers.iter().zip(&self.barrier_keys) {
                if b.parties as u64 > threads {
                    return Err(err(key, format!("barrier '{}' needs {} parties but the app has {threads} threads: it could never fill", b.name, b.parties)));
                }
            }
        }
        for (i, s) in self.semaphores.iter().enumerate() {
            match (self.posted[i], &self.waited[i]) {
                (false, Some(key)) if s.initial == 0 => {
                    return Err(err(key, format!("semaphore '{}' starts at 0 and no phase posts it (kind = \"sem_post\"): this wait would never end", s.name)));
                }
                (false, None) => {
                    return Err(err(&self.declared[i], format!("semaphore '{}' is declared but no phase posts or waits for it", s.name)));
                }
                _ => {}
            }
        }
        Ok(Some(Box::new(AppSync { start, spawned_by, semaphores: self.semaphores, barriers: self.barriers })))
    }
}
