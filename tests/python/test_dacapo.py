"""The Java program models of WASH (catalog/programs/dacapo.toml) against what the paper reports.

WASH, "Portable Performance on Asymmetric Multicore Processors" (Jibaja et al., CGO 2016), §3
(Figure 3): each benchmark under Oblivious on 1, 3 and 6 cores at 2.8 GHz and at 0.8 GHz,
normalised to 1 big core, falls in one of three classes — scalable (improves from 1 to 3 and
from 3 to 6 cores), non-scalable multithreaded (multithreaded, but does not improve
consistently), single-threaded (one application thread). The thread shares and lock waits the
paper states (§3, Figure 4) are checked on the models' threads.
"""

import importlib.util
import os

import ampsched
import pytest

from ampsched.reproductions import wash

PAPER_CLASS = wash.PAPER_CLASS
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GENERATOR = os.path.join(ROOT, "catalog", "programs", "dacapo.py")


def _generator():
    """catalog/programs/dacapo.py as a module (a fresh copy: a test may change its GC_OF)."""
    spec = importlib.util.spec_from_file_location("dacapo_generator", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_programs_are_what_the_generator_writes():
    # catalog/programs/dacapo.toml is generated: after changing dacapo.py, rerun it (and retrain
    # WASH's speedup model, `make speedup-model`, which is trained on these programs).
    d = _generator()
    with open(os.path.join(ROOT, "catalog", "programs", "dacapo.toml"), encoding="utf-8") as f:
        assert f.read() == d.render(d.programs()), "rerun python3 catalog/programs/dacapo.py"
    assert d.GC == "concurrent"  # WASH §7: "We use concurrent Mark-Sweep collection"


def test_a_concurrent_collection_traces_beside_the_next_cycles_work(tmp_path):
    # A program of the generator's making on 4 identical cores at 1 GHz (80 ns to memory): one
    # application thread, 4 GC cycles of 1e8 instructions at CPI 1 without misses (100 ms each);
    # GC every 8 MB: collection work 15% of 4e8, 1.5e7 a cycle shared by the 4 GC threads,
    # 3.75e6 each at 1.2 ns + 12 misses per 1000 instructions x 80 ns = 2.16 ns: 8.1 ms; the JIT
    # thread compiles 8% of 4e8 (0.824 ns each), 14 ms in the first cycle and less after, beside
    # the application thread.
    # Stop-the-world: each cycle 100 ms of work, then 8.1 ms of tracing on the 4 cores while the
    # application waits: 4 x 108.1 = 432.4 ms.
    # Concurrent: cycle k's trace runs beside cycle k+1's work (the GC and JIT threads' 39 ms of
    # CPU fit the three other cores well within its 100 ms), so the application never waits: its
    # 4 x 100 ms, then the last trace alone, 8.1 ms: 408.1 ms.
    d = _generator()
    machine = tmp_path / "m.toml"
    machine.write_text(
        'memory_latency_ns = 80.0\n[[core_type]]\nname = "c"\ncount = 4\nfreq_ghz = 1.0\ncpi_scale = 1.0\n'
        "power_active_w = 2.0\npower_idle_w = 0.5\n"
    )
    makespan = {}
    for gc in d.GC_KINDS:
        d.GC_OF["t"] = gc
        p = d.Program("t", "test", "single-threaded", 8, 4, "")
        p.app_group("main", 1, lambda k: [d.compute(1e8, (1.0, 0.0))], instr=4e8)
        p.runtime()
        workload = tmp_path / f"{gc}.toml"
        workload.write_text('[[app]]\nname = "t"\n' + "\n".join(d.groups_toml(p, "app")))
        makespan[gc] = ampsched.run(str(machine), str(workload), "oblivious").raw["makespan_s"]
    assert makespan["stop-the-world"] == pytest.approx(0.4324, rel=0.005)
    assert makespan["concurrent"] == pytest.approx(0.4081, rel=0.005)


def test_the_generator_refuses_an_unknown_collector():
    d = _generator()
    d.GC_OF["t"] = "generational"
    with pytest.raises(SystemExit, match="gc = 'generational' is not one of concurrent, stop-the-world"):
        d.Program("t", "test", "single-threaded", 8, 4, "")


@pytest.fixture(scope="module")
def table():
    return wash.characterize(ampsched.sweep, jobs=2)


def test_every_program_lands_in_its_paper_class(table):
    got = {p: row["class"] for p, row in table.items()}
    assert got == PAPER_CLASS


def test_single_threaded_programs_still_gain_a_little_from_more_cores(table):
    # §3: "single threaded applications in Figure 3 improve slightly as a function of core
    # count" (the VM's threads): faster on 6 cores than on 1, but far from 6x.
    for p, row in table.items():
        if row["class"] == "single-threaded":
            assert 0.6 < row["big"][6] < 0.98, (p, row["big"])


def test_small_cores_are_slower_at_every_core_count(table):
    # Normalised to 1 big core: the same core count at 0.8 GHz takes longer (1.6-3.5x).
    for p, row in table.items():
        for n in (1, 3, 6):
            assert 1.5 < row["small"][n] / row["big"][n] < 3.6, (p, n, row)


def _threads(workload, machine="phenom-6c-2.8"):
    return ampsched.run(machine, workload, "oblivious").threads


def _lock_share(threads, group):
    t = threads[threads["group"] == group]
    return float(t["lock_wait_s"].sum() / (t["lock_wait_s"].sum() + t["cpu_s"].sum()))


def test_eclipse_thread_shares_follow_the_paper():
    # §3: JavaIndexing uses 56% of all threads' cycles, Main + JavaIndexing over 80% of the
    # application's, the three Worker threads 1%. All cores run at one clock here, so CPU time
    # is proportional to cycles.
    t = _threads("dacapo-eclipse")
    cpu = t.groupby("group")["cpu_s"].sum()
    app = t[t["kind"] == "app"]["cpu_s"].sum()
    assert 0.50 < cpu["javaindexing"] / cpu.sum() < 0.62
    assert (cpu["javaindexing"] + cpu["main"]) / app > 0.80
    assert cpu["worker"] / cpu.sum() < 0.02
    assert len(t[t["kind"] == "app"]) in range(18, 23)  # "about 20 application threads"
    # The Workers wait on the workspace lock most of their time (Figure 4: high Lock%).
    assert _lock_share(t, "worker") > 0.5


def test_hsqldb_main_and_short_lived_threads():
    # §3: about 80 threads, Main 65% of the cycles, most very short-lived.
    t = _threads("dacapo-hsqldb")
    cpu = t.groupby("group")["cpu_s"].sum()
    assert 0.60 < cpu["main"] / cpu.sum() < 0.70
    assert len(t) in range(75, 100)


@pytest.mark.parametrize("program,low,high", [("avrora", 0.60, 0.70), ("pmd", 0.40, 0.60)])
def test_contended_programs_wait_on_locks_as_reported(program, low, high):
    # §3: avrora's threads wait on contended locks 60-70% of their cycles, pmd's 40-60% (on
    # 1B5S, Figure 4's configuration).
    t = _threads(f"dacapo-{program}", "wash-1b5s")
    group = "node" if program == "avrora" else "worker"
    assert low < _lock_share(t, group) < high


@pytest.mark.parametrize("program", ["lusearch", "sunflow", "xalan", "spjbb"])
def test_scalable_programs_wait_little(program):
    # Figure 4: every thread of a scalable benchmark below the 0.5 contention threshold.
    t = _threads(f"dacapo-{program}", "wash-1b5s")
    app = t[t["kind"] == "app"]
    ratios = app["lock_wait_s"] / (app["lock_wait_s"] + app["cpu_s"])
    assert ratios[app["group"] != "main"].max() < 0.5
