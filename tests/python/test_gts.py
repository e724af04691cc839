"""The big.LITTLE family from the front: the OS-scheduler policies (gts, cluster-switch, iks) and
Static threading (cluster-bound) on the catalog's Exynos 5422 (cores 0-3 big, 4-7 little), `os=`,
their listing (no live form) and their one-line errors. The schedulers' own behaviour is tested
in crates/sim (tests/it/gts.rs, src/local/{gts,pelt}.rs)."""

import json

import pytest

import ampsched
from conftest import cli

pytest.importorskip("ampsched._core")

MACHINE = "exynos5422"

# Eight CPU-bound threads of 1.6e8 instructions each (0.1 s on a big core, 0.3 s on a little one).
EIGHT = """name = "eight"
[[app]]
name = "a"
threads = 8
[[app.phase]]
kind = "compute"
instructions = 1.6e8
"""


@pytest.fixture
def eight(tmp_path):
    path = tmp_path / "eight.toml"
    path.write_text(EIGHT)
    return str(path)


def test_listing_says_the_os_schedulers_have_no_live_form():
    policies = ampsched.list_policies().set_index("name")
    for name in ("gts", "cluster-switch", "iks"):
        assert policies.loc[name, "live"].startswith("no (an OS scheduler of the simulator"), name
    assert policies.loc["cluster-bound", "live"] == "yes"
    assert policies.loc["gts", "options"]["up_threshold"] == 700
    assert policies.loc["gts", "options"]["next_up_threshold"] == 4096


def test_the_agent_refuses_the_os_schedulers_in_one_line():
    for spec in ("gts", "iks:up_util=0.5", "oblivious:os=gts"):
        done = cli("agent", "--policy", spec, "--", "true")
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1 and "cannot run live" in lines[0], done.stderr


@pytest.mark.parametrize(
    "machine, spec, words",
    [
        (MACHINE, "gts:up_threshold=x", "option 'up_threshold' must be a whole number from 0 to 1024, got 'x'"),
        (MACHINE, "iks:up_util=0.1:down_util=0.2", "option 'down_util' (0.2) must be below 'up_util' (0.1)"),
        (MACHINE, "oblivious:os=iks", "option 'os' must be one of cfs, gts, got 'iks'"),
        (MACHINE, "max-fair:os=gts", "max-fair enforces fast-core shares in its own local scheduler layer"),
        ("4fc-12sc", "cluster-switch", "cluster-switch needs a big.LITTLE machine with as many big as little cores"),
    ],
)
def test_bad_values_exit_2_with_one_line(machine, spec, words):
    done = cli("run", "--machine", machine, "--workload", "forkjoin", "--policy", spec)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and done.stdout == "" and len(lines) == 1, done.stderr
    assert lines[0].startswith("ampsched: error: ") and words in lines[0], lines[0]


def test_cluster_bound_binds_threads_to_clusters_by_core_count(eight):
    # 4 + 4 cores: threads alternate big, little (fewest threads per core, ties to big), and
    # never leave their cluster: each thread's time is all big or all little.
    threads = ampsched.run(MACHINE, eight, "cluster-bound").threads
    assert sorted(threads["fast_share"]) == [0.0] * 4 + [1.0] * 4
    # The big ones take 0.1 s of CPU, the little ones 0.3 s.
    assert all(abs(row.cpu_s - (0.1 if row.fast_share == 1.0 else 0.3)) < 0.01 for row in threads.itertuples())


def test_gts_moves_the_little_threads_work_to_big_cores_as_they_free(eight):
    # Under GTS the four threads that start on little cores are pulled up when big cores go idle
    # (idle pull), so they end up doing part of their work on big cores: the makespan is shorter
    # than cluster-bound's 0.3 s, and each of them ran on both types.
    bound = ampsched.run(MACHINE, eight, "cluster-bound").raw
    gts = ampsched.run(MACHINE, eight, "gts").raw
    assert gts["makespan_s"] < bound["makespan_s"] - 0.05
    mixed = [t for t in gts["threads"] if 0.0 < t["fast_share"] < 1.0]
    assert len(mixed) >= 2, gts["threads"]
    # Same inputs, same output: byte for byte.
    assert json.dumps(ampsched.run(MACHINE, eight, "gts").raw, sort_keys=True) == json.dumps(gts, sort_keys=True)


def test_os_gts_runs_a_policy_over_gts(eight):
    # oblivious decides nothing: over GTS it is the gts policy, run for run.
    over = ampsched.run(MACHINE, eight, "oblivious:os=gts").raw
    gts = ampsched.run(MACHINE, eight, "gts").raw
    assert over["policy"] == "oblivious:os=gts"
    assert (over["makespan_s"], over["migrations"], over["events"]) == (
        gts["makespan_s"],
        gts["migrations"],
        gts["events"],
    )
    assert (
        ampsched.run(MACHINE, eight, "oblivious:os=cfs").raw["makespan_s"]
        == ampsched.run(MACHINE, eight, "oblivious").raw["makespan_s"]
    )


def test_switchers_run_one_cluster_or_one_core_per_pair(eight):
    for spec in ("cluster-switch", "iks"):
        r = ampsched.run(MACHINE, eight, spec, timeline=True).raw
        segments = r["timeline"]
        for a in segments:
            for b in segments:
                overlap = a[3] < b[4] and b[3] < a[4]
                if not overlap or a[0] == b[0]:
                    continue
                if spec == "iks":
                    assert a[0] % 4 != b[0] % 4, (a, b)  # a pair: cores k and k + 4
                else:
                    assert (a[0] < 4) == (b[0] < 4), (a, b)  # one cluster at a time


def test_a_sweep_takes_os_and_refuses_it_in_one_line(eight, tmp_path):
    # A sweep returns one row per run: oblivious over GTS is gts, run for run.
    runs = ampsched.sweep(
        machines=[MACHINE],
        workloads=[eight],
        policies=["gts", "oblivious:os=gts"],
        seeds=[1],
        output=str(tmp_path / "s"),
    )
    assert sorted(runs["policy"]) == ["gts", "oblivious:os=gts"]
    assert runs["makespan_s"].nunique() == 1
    with pytest.raises(ampsched.InputError) as error:
        ampsched.sweep(machines=[MACHINE], workloads=[eight], policies=["max-fair:os=gts"], seeds=[1])
    assert "max-fair enforces fast-core shares" in str(error.value) and "\n" not in str(error.value)
