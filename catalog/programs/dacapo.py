#!/usr/bin/env python3
"""Writes catalog/programs/dacapo.toml: the fourteen Java programs of WASH ("Portable Performance
on Asymmetric Multicore Processors", Jibaja et al., CGO 2016, §3, §7, §8) as program models.

Run it from the repository root after changing a value: `python3 catalog/programs/dacapo.py`;
then retrain WASH's speedup model, which is trained on these programs (`make speedup-model`).
tests/python/test_dacapo.py checks that the committed file is what this writes.
The values and why each is chosen are in HEADER below (copied into the TOML file).

Every program is one run of the benchmark's first iteration (WASH, §7: "We measure first
iteration, since we explore scheduling JIT threads") as a Java VM runs it:
- application groups (kind "app");
- a garbage collector group (kind "runtime", count = "cores", work = "shared");
- one JIT compiler thread (kind "runtime").
Each GC cycle, every persistent thread of the app meets at an app-wide barrier when the
application threads have done the work between two collections (the work that allocates the
trigger's megabytes); then the GC threads trace (their share of the cycle's collection work).
How the others spend that time is the program's gc (GC below, the default, or its entry in
GC_OF; WASH §7: "We use concurrent Mark-Sweep collection"):
- "concurrent": they go on with the next cycle's work while the collector traces beside them
  (application [work_k, barrier], GC [barrier, trace_k]); the application waits at the next
  barrier only if the collector has not finished tracing by then;
- "stop-the-world": they wait at a second barrier until the trace is done (application
  [work_k, barrier, barrier], GC [barrier, trace_k, barrier]).
"""

import pathlib

G = 1e9  # instructions

# (cpi, llc_mpki) profiles. On wash-* (75 ns memory) ns per instruction is
# cpi / GHz + mpki × 0.075, so the big/small (2.8/0.8 GHz) speedup of a profile is
# (cpi/0.8 + 0.075 mpki) / (cpi/2.8 + 0.075 mpki): 3.33 at (1.0, 0.3), 2.6 at (1.0, 2),
# 2.0 at (1.0, 6), 1.7 at (1.2, 12).
GC_PROFILE = (1.2, 12.0)   # tracing the heap: pointer chasing, memory-bound
JIT_PROFILE = (0.8, 0.3)   # the optimizing compiler: compute-bound (WASH §8.5: the JIT thread
                           # "benefits from big cores more than most application threads")
WORK_THREADS = 24                  # 4 per core of the 6-core Phenom (see scalable())
GC_SHARE = {8: 0.15, 128: 0.06}   # collection work / application work, by trigger (MB)
JIT_SHARE = 0.08                   # compilation work / application work
JIT_DECAY = 0.5                    # each GC cycle compiles half what the one before did
# How every program collects unless it says otherwise: WASH §7, "We use concurrent Mark-Sweep
# collection". "stop-the-world" is the other choice (see the module's docstring). The
# collector's short pauses of a real concurrent mark-sweep (initial mark, remark) are not
# modelled: the application stops only when it has allocated a cycle's worth before the trace
# that frees it is done.
GC = "concurrent"
GC_KINDS = ("concurrent", "stop-the-world")
GC_OF = {}  # program name -> its gc, where it differs from GC


def speedup(p):
    cpi, mpki = p
    return (cpi / 0.8 + 0.075 * mpki) / (cpi / 2.8 + 0.075 * mpki)


def compute(instr, p):
    return {"kind": "compute", "instructions": instr, "cpi": p[0], "llc_mpki": p[1]}


def critical(lock, cs, between, count, p):
    return {"kind": "critical", "lock": lock, "cs_instructions": cs, "between_instructions": between,
            "count": max(1, int(round(count))), "cpi": p[0], "llc_mpki": p[1]}


def serial(instr, p):
    return {"kind": "serial", "instructions": instr, "cpi": p[0], "llc_mpki": p[1]}


GC_BARRIER = {"kind": "barrier", "scope": "app"}


class Program:
    def __init__(self, name, suite, cls, trigger_mb, cycles, source):
        gc = GC_OF.get(name, GC)
        if gc not in GC_KINDS:
            raise SystemExit(f"dacapo.py: program {name}: gc = {gc!r} is not one of {', '.join(GC_KINDS)}")
        self.name, self.suite, self.cls, self.trigger, self.cycles, self.source = name, suite, cls, trigger_mb, cycles, source
        self.gc = gc
        self.groups = []       # (name, count, kind, extra keys, phases)
        self.app_work = 0.0    # application instructions of one run (on a 6-core machine)

    def mutator_barriers(self):
        """What a thread that is not the collector's does at a GC cycle's end, after its work:
        meet the collector, and under stop-the-world wait again until the trace is done."""
        return [GC_BARRIER] if self.gc == "concurrent" else [GC_BARRIER, GC_BARRIER]

    def app_group(self, name, count, per_cycle, work=None, instr=0.0):
        """per_cycle(k) -> the phases of cycle k (before the GC barriers)."""
        phases = []
        for k in range(self.cycles):
            phases += per_cycle(k) + self.mutator_barriers()
        extra = {"work": work} if work else {}
        self.groups.append((name, count, "app", extra, phases))
        self.app_work += instr

    def other_group(self, name, count, extra, phases, instr=0.0):
        self.groups.append((name, count, "app", extra, phases))
        self.app_work += instr

    def runtime(self):
        gc_total = GC_SHARE[self.trigger] * self.app_work
        gc = []
        for _ in range(self.cycles):
            # Concurrent: cycle k's trace runs beside cycle k + 1's work, until the next barrier.
            gc += [GC_BARRIER, compute(gc_total / self.cycles, GC_PROFILE)] + ([GC_BARRIER] if self.gc == "stop-the-world" else [])
        weights = [JIT_DECAY ** k for k in range(self.cycles)]
        jit = []
        for w in weights:
            jit += [compute(JIT_SHARE * self.app_work * w / sum(weights), JIT_PROFILE)] + self.mutator_barriers()
        self.groups.append(("gc", "cores", "runtime", {"work": "shared"}, gc))
        self.groups.append(("jit", 1, "runtime", {}, jit))
        self.gc_total = gc_total


def split(total, cycles, a, b):
    """A cycle's work in two halves of different memory intensity (phases differ, §5)."""
    return lambda k: [compute(total / cycles / 2, a), compute(total / cycles / 2, b)]


def single(name, suite, trigger, cycles, total, a, b):
    p = Program(name, suite, "single-threaded", trigger, cycles, "")
    p.app_group("main", 1, split(total, cycles, a, b), instr=total)
    return p


def scalable(name, suite, total, a, b):
    """Homogeneous threads sharing the work, with no contended lock. The work units (queries,
    documents, image tiles) far outnumber the cores and are taken from shared queues, so fast
    cores do more of them: modelled as WORK_THREADS threads each with an equal share, which the
    OS balances over the cores as a queue would."""
    p = Program(name, suite, "scalable", 128, 3, "")
    p.app_group("worker", WORK_THREADS, split(total, 3, a, b), work="shared", instr=total)
    return p


def pjbb(name, cls, per_warehouse, cycles):
    """pjbb2005: the main thread builds the warehouses' data under a lock the 8 warehouse threads
    wait on, then they run their transactions; spjbb runs 10× the transactions (§3)."""
    p = Program(name, "SPECjbb (pjbb2005)", cls, 128, cycles, "")
    setup = 0.6 * G
    main = lambda k: [critical("setup", setup, 0.0, 1, (1.0, 2.0))] if k == 0 else []
    p.app_group("main", 1, main, instr=setup)

    def warehouse(k):
        out = [critical("setup", 1e5, 0.0, 1, (1.0, 2.0))] if k == 0 else []
        return out + [compute(per_warehouse / cycles / 2, (1.0, 4.0)), compute(per_warehouse / cycles / 2, (1.1, 7.0))]
    p.app_group("warehouse", 8, warehouse, instr=8 * per_warehouse)
    return p


def programs():
    out = []
    # Single-threaded (WASH §3: fop stated; bloat, chart, jython, luindex by elimination).
    out.append(single("bloat", "DaCapo-2006", 128, 3, 3.0 * G, (1.0, 1.0), (1.1, 5.0)))
    out.append(single("chart", "DaCapo-2006", 128, 3, 2.5 * G, (0.9, 0.5), (1.0, 2.5)))
    out.append(single("fop", "DaCapo-2006", 8, 12, 2.0 * G, (1.1, 3.0), (1.2, 8.0)))
    out.append(single("jython", "DaCapo-2006", 128, 3, 3.0 * G, (0.8, 0.3), (0.9, 1.5)))
    out.append(single("luindex", "DaCapo-9.12", 8, 12, 2.5 * G, (1.0, 2.0), (1.2, 6.0)))
    # Scalable (§3: lusearch, sunflow, xalan, spjbb; homogeneous threads, low Lock%).
    out.append(scalable("lusearch", "DaCapo-9.12", 6.0 * G, (1.0, 6.0), (1.1, 10.0)))
    out.append(scalable("sunflow", "DaCapo-9.12", 6.0 * G, (0.9, 0.3), (1.0, 1.0)))
    out.append(scalable("xalan", "DaCapo-9.12", 6.0 * G, (1.0, 3.0), (1.1, 6.0)))
    out.append(pjbb("spjbb", "scalable", 1.0 * G, 8))
    # Non-scalable multithreaded (§3: avrora, eclipse, hsqldb, nspjbb = pjbb2005, pmd).
    out.append(pjbb("pjbb2005", "non-scalable", 0.1 * G, 2))
    out.append(avrora())
    out.append(pmd())
    out.append(eclipse())
    out.append(hsqldb())
    for p in out:
        p.runtime()
    return out


def avrora():
    """6 simulated nodes synchronising at every event on one lock: each thread holds it half of
    its time, so a saturated lock makes each wait about 4/6 = 67% of its cycles (§3: 60-70%);
    fine-grained (8 µs sections on a big core)."""
    p = Program("avrora", "DaCapo-9.12", "non-scalable", 8, 12, "")
    setup = 0.1 * G
    p.app_group("main", 1, lambda k: [compute(setup, (1.0, 2.0))] if k == 0 else [], instr=setup)
    per_node, cs = 0.4 * G, 2e4
    n = per_node / 12 / (2 * cs)
    p.app_group("node", 6, lambda k: [critical("events", cs, cs, n, (1.0, 2.0) if k % 2 else (1.1, 4.0))], instr=6 * per_node)
    return p


def pmd():
    """4 analysis threads adding to a shared report under one lock, held 45% of each thread's
    work: demand 4 × 0.45 = 1.8 locks, so a saturated lock and waits of (1.8 - 1)/1.8 = 44% of
    the cycles (§3: 40-60%)."""
    p = Program("pmd", "DaCapo-9.12", "non-scalable", 128, 3, "")
    setup = 0.1 * G
    p.app_group("main", 1, lambda k: [compute(setup, (1.0, 3.0))] if k == 0 else [], instr=setup)
    per, cs, between = 0.6 * G, 4.5e5, 5.5e5
    n = per / 3 / (cs + between)
    p.app_group("worker", 4, lambda k: [critical("report", cs, between, n, [(1.0, 3.0), (1.1, 6.0), (1.0, 2.0)][k])], instr=4 * per)
    return p


def eclipse():
    """§3, §8.6: about 20 application threads; JavaIndexing 56% of all threads' cycles, Main +
    JavaIndexing over 80% of the application's, the three Worker threads 1% (they wait on the
    workspace lock Main holds), the others live less than 40 ms (15 jobs, each a fresh thread);
    JavaIndexing 55% of the application's instructions, Main 29%."""
    p = Program("eclipse", "DaCapo-2006", "non-scalable", 128, 3, "")
    app = 4.0 * G
    indexing, main, workers = 0.55 * app, 0.29 * app, 0.012 * app
    jobs = app - indexing - main - workers
    hold = 0.05 * G
    p.app_group("main", 1, lambda k: [critical("workspace", hold, 0.0, main / 3 / hold, (1.0, 3.0))], instr=main)
    p.app_group("javaindexing", 1, lambda k: [compute(indexing / 3 / 2, (1.0, 5.0)), compute(indexing / 3 / 2, (1.1, 8.0))], instr=indexing)
    w_each = workers / 3 / 3
    p.app_group("worker", 3, lambda k: [critical("workspace", 1e5, w_each / 4, 4, (1.0, 2.0))], instr=workers)
    # A job manager (the group's master) starts 15 jobs one after another, each a fresh thread
    # (per-phase workers) that runs alongside it; 30 job runs in all.
    job = jobs / 30
    phases = [serial(1e5, (1.0, 2.0)), compute(job, (1.0, 4.0))]
    p.other_group("jobs", 2, {"workers": "per_phase", "repeat": 15}, phases, instr=jobs)
    return p


def hsqldb():
    """§3: about 80 threads, Main 65% of the cycles, most very short-lived: a connection manager
    (the group's master) opens 20 rounds of 4 fresh connection threads, each running a few
    transactions under the database lock that Main holds for long stretches."""
    p = Program("hsqldb", "DaCapo-2006", "non-scalable", 128, 3, "")
    total = 3.0 * G
    # Main's share of the application's instructions such that its cycles are 65% of all
    # threads' (its profile retires faster than the connections' and the VM threads'): 82%.
    main = 0.82 * total / (1 + GC_SHARE[128] + JIT_SHARE)
    conn = total / (1 + GC_SHARE[128] + JIT_SHARE) - main
    hold = 0.05 * G
    p.app_group("main", 1, lambda k: [critical("database", hold, 0.2 * hold, main / 3 / (1.2 * hold), (1.0, 3.0))], instr=main)
    job = conn / 100
    phases = [serial(1e5, (1.0, 2.0)), critical("database", job / 4, job / 4 * 3, 1, (1.1, 6.0))]
    p.other_group("connections", 5, {"workers": "per_phase", "repeat": 20}, phases, instr=conn)
    return p


def fmt(v):
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, float):
        return f"{v:.6g}" if abs(v) < 1e5 or v == 0 else f"{v:.6e}".replace("e+0", "e").replace("e+", "e")
    return str(v)


HEADER = """\
# The fourteen Java programs of WASH (Jibaja et al., "Portable Performance on Asymmetric Multicore
# Processors", CGO 2016): DaCapo-2006 bloat, chart, eclipse, fop, hsqldb, jython; DaCapo-9.12
# avrora, luindex, lusearch, pmd, sunflow, xalan; pjbb2005 in its default configuration (the
# paper's "nspjbb") and with 10x the transactions ("spjbb"). GENERATED by catalog/programs/dacapo.py
# (edit the values there and rerun it). Workloads: dacapo-NAME (alone), dacapo-adv-NAME (beside an
# OS-scheduled eclipse, §8.6). Machines: wash-1b5s/2b4s/3b3s, phenom-{1,3,6}c-{2.8,0.8} (§3).
#
# What the paper gives, and how the models follow it:
# - Classes (§3, Figure 3; by Oblivious on 1, 3, 6 cores at 2.8 and 0.8 GHz, normalised to 1 big
#   core): scalable = lusearch, sunflow, xalan, spjbb (improve from 1 to 3 and from 3 to 6 cores);
#   non-scalable = avrora, eclipse, hsqldb, pjbb2005, pmd; single-threaded = bloat, chart, fop,
#   jython, luindex (one application thread). tests/python/test_dacapo.py checks each lands there.
# - Runtime threads (§7): GC threads as many as the machine's cores (count = "cores"), one JIT
#   compiler thread; first iteration measured, so the JIT works throughout (its work halves each
#   GC cycle: most compiling is early). GC every 8 MB of allocation for avrora, fop, luindex and
#   every 128 MB for the others (§7). How allocation maps to GC activity (chosen): the work between
#   two collections is the work that allocates the trigger's megabytes, so an 8 MB program has
#   many small collections (12 a run here) and a 128 MB one few (3; pjbb2005 2, spjbb 8 since it
#   runs 10x the transactions); at each, all persistent threads meet at an app-wide barrier and
#   the GC threads share its work (work = "shared"), so GC work does not grow with the core count.
#   The collector is concurrent (§7: "We use concurrent Mark-Sweep collection"; dacapo.py's GC):
#   the application goes on with the next cycle's work while the GC threads trace, and waits at
#   the next barrier only if the trace is not done by then (a program given "stop-the-world" in
#   dacapo.py's GC_OF waits at a second barrier while they trace; the pauses of a real concurrent
#   collector's initial mark and remark are not modelled). Collection work (chosen): 15% of the application
#   work for the 8 MB programs (frequent collections), 6% for the others; memory-bound tracing
#   (cpi 1.2, 12 LLC misses per 1000 instructions: speedup 1.7 at 2.8/0.8 GHz). JIT work 8% of the
#   application's, compute-bound (cpi 0.8, mpki 0.3: speedup 3.3; §8.5: the JIT "benefits from big
#   cores more than most application threads").
# - Lock contention (§3, Figure 4: Lock% = time waiting on contended locks / time executing):
#   avrora 60-70% (6 node threads, each holding one event lock half of its work: a saturated lock
#   makes each wait ~4/6); pmd 40-60% (4 workers holding the report lock 45% of their work:
#   demand 1.8 locks, waits ~44%); scalable programs low: none here (with 24 threads on 6 cores
#   even a lock held 1% of the time makes waits of ~50%, the holder preempted with the lock). avrora's sections are fine-grained (20k instructions,
#   ~8 us on a big core). §3's "avrora is slower on 3 big cores than on 1" does not follow: the
#   engine charges a lock hand-off nothing but a migration's L2 refill (no futex wake-up latency,
#   no cache-line transfer), so avrora's saturated lock still gains from 1 to 3 cores.
# - pjbb2005 (nspjbb) does not scale, spjbb (10x the transactions) scales to 6 cores (§3): both
#   are one model, main building the warehouses' data (0.6 G instructions) under a setup lock the
#   8 warehouse threads wait on (pjbb2005's default of 8 warehouses is our choice), then each
#   warehouse runs its transactions: 0.1 G instructions (pjbb2005) or 1 G (spjbb). So pjbb2005 is
#   mostly its serial setup (Amdahl) and its warehouses wait most of their time (Lock% > 0.5);
#   spjbb's setup is small beside its transactions.
# - eclipse (§3, §8.6): ~20 application threads; JavaIndexing uses 56% of all threads' cycles
#   (here 55% of the application's instructions, ~57% of all threads' cycles), Main 29% (Main +
#   JavaIndexing 84% > 80%), three Worker threads 1% together (they wait on the workspace lock Main
#   holds for long stretches), and 15 jobs of ~8 ms each on a big core, each a fresh thread (per-phase
#   workers of a job-manager master: 1 + 15 threads), so most threads live less than 40 ms. The
#   time is JavaIndexing's: the same on 3 and 6 cores.
# - hsqldb (§3): ~80 threads (Main, a connection manager and 80 connection threads: 20 rounds of 4
#   per-phase workers, each a single ~4 ms transaction under the database lock), Main 65% of all
#   cycles, holding the database lock for long stretches.
# - Single-threaded programs: one main thread; the VM's threads still make them respond a little
#   to more cores (§3).
# - Memory intensity (chosen; the paper's Figure 6 gives speedups 1.3-3.5 on the frequency-scaled
#   Phenom but no per-program numbers): each application thread alternates two profiles per GC
#   cycle (phases differ, which the speedup model must track), from compute-bound (jython,
#   sunflow, chart: speedup 2.6-3.3) to memory-bound (lusearch, fop, pjbb: 1.8-2.3); flat miss
#   rates (the paper gives no miss curves). Run length (chosen): 1.4-8.6 G application
#   instructions, 1-8 s on one big core, short enough for sweeps of many runs.
# - Work units: lusearch, sunflow and xalan take many small units of work (queries, image tiles,
#   documents) from shared queues, so a thread on a fast core does more of them. The engine's
#   threads have fixed work, so a queue is modelled as more threads than cores: 24 (4 per core
#   of the 6-core Phenom, chosen) sharing the work equally (work = "shared"), which the OS
#   balances over the cores. With one thread per core a run would wait at each GC barrier for the
#   threads on small cores, and one more big core would gain almost nothing.
#
# Table (app Ginstr: the application's instructions of one run; GC/JIT Ginstr likewise; app
# speedups: the range over the application threads' profiles, big/small time ratio alone):
"""


def table(progs):
    rows = ["# program   class            app threads         app Ginstr  GC MB  GCs  GC Ginstr  JIT Ginstr  app speedups (2.8/0.8 GHz)  gc"]
    for p in progs:
        threads = " + ".join(f"{g[1]} {g[0]}" for g in p.groups if g[2] == "app")
        sp = sorted({round(speedup((ph["cpi"], ph["llc_mpki"])), 2) for g in p.groups if g[2] == "app" for ph in g[4] if "cpi" in ph and ph["kind"] != "serial"})
        rng = f"{sp[0]:.2f}-{sp[-1]:.2f}"
        rows.append(f"# {p.name:<10}  {p.cls:<15}  {threads:<18}  {p.app_work / G:9.2f}  {p.trigger:5d}  {p.cycles:3d}  {p.gc_total / G:9.3f}  {JIT_SHARE * p.app_work / G:10.3f}  {rng:<26}  {p.gc}")
    return "\n".join(rows)


def groups_toml(p, table):
    """A program's groups as TOML lines, under `[[TABLE.group]]` (a catalog program's, or an
    app's in a workload file)."""
    lines = []
    for name, count, kind, extra, phases in p.groups:
        lines += [f"[[{table}.group]]", f'name = "{name}"', f"count = {fmt(count)}", f'kind = "{kind}"']
        lines += [f"{k} = {fmt(v)}" for k, v in extra.items()]
        for ph in phases:
            keys = ", ".join(f"{k} = {fmt(v)}" for k, v in ph.items())
            lines.append(f"[[{table}.group.phase]]\n{keys.replace(', ', chr(10))}")
        lines.append("")
    return lines


def render(progs):
    """The text of catalog/programs/dacapo.toml."""
    lines = [HEADER.rstrip("\n"), "#", table(progs), ""]
    for p in progs:
        lines += ["[[program]]", f'name = "{p.name}"', f'suite = "{p.suite}"',
                  f'source = "WASH (Jibaja et al., Portable Performance on Asymmetric Multicore Processors, CGO 2016), §3, §7; class: {p.cls}; {p.gc} GC every {p.trigger} MB"', ""]
        lines += groups_toml(p, "program")
    return "\n".join(lines)


def main():
    out = pathlib.Path(__file__).with_name("dacapo.toml")
    out.write_text(render(programs()))


if __name__ == "__main__":
    main()
