"""`ampsched reproduce` and the reproductions: the quick version of every one, the rule that a
claim the committed document marks reproduced stays reproduced, determinism of the document
and its figures, the thesis-uf formulas against hand-derived numbers, and the CLI's errors."""

import math
import os
import re
from collections.abc import Mapping

import pytest

import ampsched
from test_cli import assert_one_line_error, run_module

if ampsched._core is None:
    pytest.skip("the engine is not built", allow_module_level=True)
pytest.importorskip("matplotlib")

from ampsched import reproductions  # noqa: E402
from ampsched.reproductions import thesis_uf  # noqa: E402
from ampsched.reproductions._policies import SlowOnly  # noqa: E402

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)
DOCS = os.path.join(REPO, "docs", "reproduction")


# Reproductions of live runs (root, the emulation; their numbers change from run to run): their
# own module runs the quick version among the tests that run alone (`serial`), and checks it.
LIVE = {"record-replay": "test_record.py"}


def runnable():
    """Every reproduction of simulated runs: each one's policies are registered
    (test_every_reproduction_can_run)."""
    return [name for name in reproductions.registry() if name not in LIVE]


def test_every_reproduction_can_run():
    assert {name: reproductions.unavailable(name) for name in reproductions.registry()} == {
        name: [] for name in reproductions.registry()
    }


# The reproduction whose quick version `make test` also runs with one job, to check that the
# document does not depend on the job count: the cheapest (fairness-study's quick version, about
# 4 s on 2 CPUs, against thesis-uf's 9 s; its batch path splits the mixes among the jobs);
# `make test-all` checks every one.
JOBS_CHECKED = "fairness-study"


# (name, jobs) -> what quick_run returned: a reproduction's own test module (test_reproduce_biglittle.py) reads the
# quick version this module ran, in the same session, instead of running it again.
_QUICK_DONE = {}


def quick_run(name, jobs, tmp_path_factory):
    """(folder, claims, text) of `name`'s quick version with `jobs` jobs, run once per session."""
    if (name, jobs) not in _QUICK_DONE:
        folder = tmp_path_factory.mktemp(f"{name}-jobs{jobs}")
        claims, text = reproductions.run(name, quick=True, jobs=jobs, output=str(folder))
        _QUICK_DONE[(name, jobs)] = folder, claims, text
    return _QUICK_DONE[(name, jobs)]


class QuickRuns(Mapping):
    """Every reproduction's quick version, with two jobs, each run when a test first reads it: a
    `-k` that selects one test runs only the reproductions it reads; `make test` runs them all
    once (the fixture is the module's)."""

    def __init__(self, tmp_path_factory):
        self._names, self._factory, self._done = list(runnable()), tmp_path_factory, {}

    def __getitem__(self, name):
        if name not in self._names:
            raise KeyError(name)
        if name not in self._done:
            self._done[name] = quick_run(name, 2, self._factory)
        return self._done[name]

    def __contains__(self, name):  # without running it
        return name in self._names

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory):
    return QuickRuns(tmp_path_factory)


# ---- every reproduction


def test_every_reproduction_has_a_committed_document():
    for name in runnable():
        assert os.path.isfile(os.path.join(DOCS, f"{name}.md")), f"run `ampsched reproduce {name}` and commit it"


# The reproductions whose own test module checks their quick version (with `check_quick`): `make
# test` runs each test module on one pytest-xdist worker (`--dist loadfile`), and a quick version
# that two modules read would run on both.
OWN_MODULE = {
    "biglittle": "test_reproduce_biglittle.py",
    "noc-locks": "test_reproduce_noc_locks.py",
    "thesis-ch5": "test_reproduce_thesis_ch5.py",  # the longest quick version: beside the others, on the other worker
}


def test_a_reproduction_with_its_own_module_has_it():
    here = os.path.dirname(os.path.abspath(__file__))
    for name, module in OWN_MODULE.items():
        assert name in runnable()
        with open(os.path.join(here, module)) as f:
            assert f'check_quick("{name}"' in f.read(), f"{module} does not check {name}'s quick version"
    for name, module in LIVE.items():
        assert name in reproductions.registry()
        with open(os.path.join(here, module)) as f:
            assert f'reproductions.run("{name}", quick=True' in f.read(), (
                f"{module} does not run {name}'s quick version"
            )


def check_quick(name, quick):
    """The checks every reproduction's quick version passes (`quick`: what `quick_run` returned)."""
    claims_stay_reproduced(name, quick[1])
    claims_say_their_evidence(name, quick[1])
    document_has_its_parts(name, *quick)


@pytest.mark.parametrize("name", [n for n in runnable() if n not in OWN_MODULE])
def test_the_quick_version(quick_runs, name):
    check_quick(name, quick_runs[name])


def claims_stay_reproduced(name, claims):
    """The claims the committed document marks reproduced stay reproduced."""
    committed = reproductions.read_claims(os.path.join(DOCS, f"{name}.md"))
    now = dict(zip(claims["id"], claims["verdict"]))
    assert set(now) == set(committed), f"{name}: the claims changed; regenerate the document"
    # A reproduction's QUICK_ESTIMATES: claims of spread its quick version measures on fewer
    # seeds (it says so in the claim), whose verdict may differ from the full version's.
    estimates = set(getattr(reproductions.load(name), "QUICK_ESTIMATES", ()))
    broken = [
        cid
        for cid, verdict in committed.items()
        if verdict == "reproduced" and now[cid] != "reproduced" and cid not in estimates
    ]
    assert not broken, f"{name}: no longer reproduced in the quick version: {broken}"
    assert estimates <= set(now), f"{name}: QUICK_ESTIMATES names claims it does not have"


def claims_say_their_evidence(name, claims):
    """independent, calibrated or by construction, in every reproduction: never left unclassified."""
    kinds = claims["evidence"].str.split(",").str[0]
    unclassified = list(claims["id"][~kinds.isin(reproductions.EVIDENCE)])
    assert not unclassified, f"{name}: claims without an evidence kind: {unclassified}"


def assert_same_with_one_job(quick_runs, names, tmp_path_factory):
    for name in names:
        two, _, text2 = quick_runs[name]
        one, _, text1 = quick_run(name, 1, tmp_path_factory)
        assert text1 == text2
        files = sorted(os.listdir(one))
        assert files == sorted(os.listdir(two))
        assert f"{name}.md" in files and any(f.endswith(".png") for f in files)
        for f in files:
            with open(one / f, "rb") as a, open(two / f, "rb") as b:
                assert a.read() == b.read(), f"{name}: {f} differs between one job and two"


def test_the_quick_document_and_figures_are_byte_identical_whatever_the_job_count(quick_runs, tmp_path_factory):
    assert JOBS_CHECKED in quick_runs
    assert_same_with_one_job(quick_runs, [JOBS_CHECKED], tmp_path_factory)


@pytest.mark.slow
def test_every_quick_document_and_figures_are_byte_identical_whatever_the_job_count(quick_runs, tmp_path_factory):
    assert_same_with_one_job(quick_runs, [n for n in quick_runs if n != JOBS_CHECKED], tmp_path_factory)


def document_has_its_parts(name, folder, claims, text):
    assert f"ampsched reproduce {name}" in text
    assert "## Claims" in text and "## Machines and workloads" in text
    for verdict, reason in zip(claims["verdict"], claims["reason"]):
        assert verdict in reproductions.VERDICTS
        assert (verdict == "reproduced") == (reason == "")
    # Every figure the text shows is written, with a caption naming a figure.
    for f in os.listdir(folder):
        if f.endswith(".png"):
            assert f"]({f})" in text
            with open(folder / f, "rb") as png:
                assert png.read(8) == b"\x89PNG\r\n\x1a\n"
    # Catalog links point at files that exist, from docs/reproduction/, and every machine
    # the reproduction names is linked.
    links = re.findall(r"\]\((\.\./\.\./catalog/[^)]+\.toml)\)", text)
    assert links, name
    for link in links:
        assert os.path.isfile(os.path.join(DOCS, link)), link
    for m in reproductions.load(name).MACHINES if hasattr(reproductions.load(name), "MACHINES") else ():
        if os.path.isfile(os.path.join(DOCS, f"../../catalog/machines/{m}.toml")):
            assert f"../../catalog/machines/{m}.toml" in links, m


# ---- thesis-uf: the formulas, by hand


@pytest.mark.parametrize(
    "sf, n, nfc, speedup, uf",
    [
        # N <= NFC: one iteration of Algorithm 6.1, (1 - 1/SF)^0 = 1, so eq. 6.13 = SF / (1 - SF + SF) = SF,
        # and eq. 6.14 = (SF - 1) / 1 + 1 = SF.
        (2.0, 1, 2, 2.0, 2.0),
        (1.6, 2, 2, 1.6, 1.6),
        # 2FC-8SC, SF 2, N 3: floor(2/2) = 1; 2 / (0.5 * (1 - 2) + 2) = 2 / 1.5; UF = 1/2^2 + 1.
        (2.0, 3, 2, 4 / 3, 1.25),
        (2.0, 4, 2, 4 / 3, 1.25),
        # N 5: floor(4/2) = 2; 2 / (0.25 * -1 + 2) = 2 / 1.75 = 8/7 (1.143); UF = 1/9 + 1 (1.111).
        (2.0, 5, 2, 8 / 7, 10 / 9),
        # SF 1.2, N 3: 1.2 / ((1/6) * -0.2 + 1.2) = 1.2 / (7/6) = 36/35 (1.029); UF = 0.2/4 + 1 = 1.05.
        (1.2, 3, 2, 36 / 35, 1.05),
        # 1FC-12SC, SF 2, N 12: floor(11/1) = 11; 2 / (2^-11 * -1 + 2); UF = 1/144 + 1 (1.007).
        (2.0, 12, 1, 2 / (2 - 2**-11), 1 + 1 / 144),
        # 4FC-12SC, SF 2, N 12: floor(11/4) = 2, as 2FC-8SC's N 5: 8/7 and 10/9.
        (2.0, 12, 4, 8 / 7, 10 / 9),
    ],
)
def test_eq_6_13_and_6_14_against_hand_derived_values(sf, n, nfc, speedup, uf):
    assert math.isclose(thesis_uf.busyfcs_speedup(sf, n, nfc), speedup, rel_tol=1e-12)
    assert math.isclose(thesis_uf.utility_factor(sf, n, nfc), uf, rel_tol=1e-12)


def test_the_research_check_table_rounds_the_same():
    # The derived check table of the thesis summary (NFC = 2, SF = 2.0, N = 3): 1.333 / 1.250.
    assert f"{thesis_uf.busyfcs_speedup(2.0, 3, 2):.3f} / {thesis_uf.utility_factor(2.0, 3, 2):.3f}" == "1.333 / 1.250"


@pytest.mark.parametrize("machine", thesis_uf.MACHINES)
def test_one_thread_has_the_target_sf_on_every_machine(machine, tmp_path):
    """The workloads' miss rates give exactly the SF asked for (the model is linear in the
    miss rate): one thread, alone on a slow core and alone on a fast one."""
    cal = thesis_uf.calibrate(machine, str(tmp_path))
    assert math.isclose(cal["a_slow"] / cal["a_fast"], 2.0, rel_tol=1e-6)  # DVFS 2x: compute ratio 2
    for sf in (1.2, 1.5, 2.0):
        path = tmp_path / f"one-{sf}.toml"
        path.write_text(thesis_uf.workload_toml("one", 1, 2, 1e9, thesis_uf.mpki_for(sf, cal)))
        fast = ampsched.run(machine, str(path), "busyfcs").raw["makespan_s"]
        slow = ampsched.run(machine, str(path), SlowOnly()).raw["makespan_s"]
        assert math.isclose(slow / fast, sf, rel_tol=1e-6), (machine, sf, slow / fast)


# thesis-uf's claims that hold by construction, held here without a reproduction run.


@pytest.mark.parametrize("machine", thesis_uf.MACHINES)
def test_uf_approximates_eq_6_13_by_construction(machine):
    """Claims uf-vs-eq613-*: two closed formulas, no run. UF = eq. 6.13 = SF up to NFC threads;
    the worst gap is one iteration past them at SF 2.0: UF 1.25 against 4/3, 6.25% (derived above)."""
    nfc, nsc = thesis_uf._nfc_nsc(machine)
    claim = thesis_uf._figure_6_1([{"machine": machine, "nfc": nfc, "nsc": nsc}])
    assert (claim.verdict, claim.kind) == ("reproduced", "by construction")
    errors = [
        thesis_uf.utility_factor(sf, n, nfc) / thesis_uf.busyfcs_speedup(sf, n, nfc) - 1
        for sf in thesis_uf.SF_VALUES
        for n in range(1, nsc + 1)
    ]
    assert math.isclose(min(errors), 1.25 / (4 / 3) - 1, rel_tol=1e-12)
    assert max(errors) <= thesis_uf.POINT_TOLERANCE


def _speedup(machine, path, n, sf, cal, tmp_path, phases=3):
    """BusyFCs's simulated speedup over the all-slow base of a balanced app of n threads."""
    w = tmp_path / f"{os.path.basename(machine)}-n{n}-sf{sf}.toml"
    w.write_text(thesis_uf.workload_toml("w", n, phases, thesis_uf.PHASE_INSTRUCTIONS, thesis_uf.mpki_for(sf, cal)))
    base = ampsched.run(path, str(w), SlowOnly()).raw["makespan_s"]
    return base / ampsched.run(path, str(w), "busyfcs").raw["makespan_s"]


def test_eq_6_13_is_busyfcs_on_one_memory_node(tmp_path):
    """Claim eq613-is-busyfcs-without-numa: on the control machine (no remote memory) the
    simulated speedup is eq. 6.13 within the claim's 1%, past the fast cores and at both ends of
    the SF range (an iteration of Algorithm 6.1 per NFC threads)."""
    control = tmp_path / f"{thesis_uf.CONTROL}.toml"
    control.write_text(thesis_uf.CONTROL_TOML)
    cal = thesis_uf.calibrate(str(control), str(tmp_path))
    for n, sf in ((3, 2.0), (5, 1.2), (8, 1.6)):
        sim = _speedup(str(control), str(control), n, sf, cal, tmp_path)
        model = thesis_uf.busyfcs_speedup(sf, n, 2)
        assert abs(sim / model - 1) <= thesis_uf.BOUND_TOLERANCE, (n, sf, sim, model)


@pytest.mark.parametrize("machine", thesis_uf.MACHINES)
def test_speedup_is_sf_with_no_more_threads_than_fast_cores(machine, tmp_path):
    """Claim speedup-is-sf-up-to-nfc: the miss rate is solved so that one thread's SF is the
    target; NFC threads each have a fast core to themselves."""
    nfc, _ = thesis_uf._nfc_nsc(machine)
    cal = thesis_uf.calibrate(machine, str(tmp_path))
    sim = _speedup(machine, machine, nfc, 1.4, cal, tmp_path, phases=2)
    assert abs(sim / 1.4 - 1) <= thesis_uf.SF_TOLERANCE, (machine, sim)


def test_an_sf_beyond_the_clock_ratio_is_refused(tmp_path):
    cal = thesis_uf.calibrate("2fc-8sc", str(tmp_path))
    with pytest.raises(ValueError, match="outside"):
        thesis_uf.mpki_for(2.5, cal)


def test_the_control_machine_is_the_catalog_machine_without_numa():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(REPO, "catalog", "machines", f"{thesis_uf.CONTROL_OF}.toml"), "rb") as f:
        catalog = tomllib.load(f)
    control = tomllib.loads(thesis_uf.CONTROL_TOML)
    for key in ("numa", "remote_memory_latency_ns"):
        assert key not in control
        catalog.pop(key)
    for key in ("name", "description", "source"):
        catalog.pop(key), control.pop(key)
    assert control == catalog


def test_slow_only_keeps_every_thread_on_slow_cores(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text(thesis_uf.workload_toml("w", 4, 2, 1e8, 0.0))
    r = ampsched.run("2fc-8sc", str(path), SlowOnly())
    assert (r.threads["fast_s"] == 0).all() and (r.threads["cpu_s"] > 0).all()


# ---- the framework


def test_a_claim_needs_a_reason_unless_reproduced_and_no_table_breaking_text():
    args = dict(id="x", source="§1", claim="c", theirs="1", ours="1", tolerance="t")
    reproductions.Claim(**args, verdict="reproduced")
    with pytest.raises(ValueError, match="reason"):
        reproductions.Claim(**args, verdict="differs")
    with pytest.raises(ValueError, match="verdict"):
        reproductions.Claim(**args, verdict="close enough", reason="r")
    with pytest.raises(ValueError, match="'\\|'"):
        reproductions.Claim(**dict(args, ours="a | b"), verdict="reproduced")


# ---- the command line


def test_cli_list():
    done = run_module("reproduce", "--list")
    assert done.returncode == 0, done.stderr
    assert "thesis-uf" in done.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["reproduce", "nope"], "unknown reproduction 'nope'"),
        (["reproduce"], "name a reproduction"),
        (["reproduce", "--list", "thesis-uf"], "either --list or NAME"),
        (["reproduce", "thesis-uf", "--jobs", "0"], "--jobs: must be a whole number"),
        (["reproduce", "thesis-uf", "--quick", "--output", "FILE"], "not a directory"),
        (["reproduce", "thesis-uf", "--quick", "--output", "/proc/no/such"], "--output: /proc/no/such: No such file"),
    ],
)
def test_cli_bad_input_is_one_line_and_status_2(args, message):
    if "FILE" in args:
        args = [str(__file__) if a == "FILE" else a for a in args]
    done = run_module(*args)
    assert done.returncode == 2
    assert message in assert_one_line_error(done.stderr)


def test_python_api_returns_the_claims(quick_runs):
    claims = quick_runs["thesis-uf"][1]
    assert list(claims.columns) == reproductions.COLUMNS
    with pytest.raises(ValueError, match="unknown reproduction"):
        ampsched.reproduce("nope")


# ---- thesis-ch4

from ampsched.reproductions import thesis_ch4  # noqa: E402


def test_thesis_ch4_refuses_to_run_without_its_policies():
    policies = dict(thesis_ch4.POLICIES, ipc="no-such-policy")
    with pytest.raises(reproductions.ReproductionError, match="no-such-policy.* not registered"):
        thesis_ch4.check_policies(policies)
    assert thesis_ch4.missing_policies() == []


@pytest.fixture(scope="module")
def ch4_quick(request):
    """thesis-ch4's quick version (from quick_runs) and the policies playing its roles."""
    folder, claims, text = request.getfixturevalue("quick_runs")["thesis-ch4"]
    return folder, claims, text, thesis_ch4.POLICIES


def test_thesis_ch4_machinery(ch4_quick):
    folder, claims, text, policies = ch4_quick
    ids = list(claims["id"])
    assert len(ids) == len(set(ids)) and len(ids) >= 40
    assert claims["ours"].str.len().min() > 0
    # Every figure of ch. 4 the reproduction redraws is written, shown, and its caption names it.
    for stem, fig in (
        ("fig4-2", "Fig. 4.2"),
        ("fig4-3", "Fig. 4.3"),
        ("fig4-4", "Fig. 4.4"),
        ("fig4-5", "Fig. 4.5"),
        ("fig4-7", "Fig. 4.7"),
        ("fig4-8-4-9", "Figs. 4.8"),
        ("fig4-10", "Fig. 4.10"),
    ):
        file = f"thesis-ch4-{stem}.png"
        assert (folder / file).read_bytes()[:4] == b"\x89PNG" and f"]({file})" in text
        assert f"*Redraws the Sáez thesis's {fig}" in text
    # The document names the policy playing every role.
    for role in ("hass-s", "hass-d", "ipc", "static-ipc", "hafs", "best"):
        assert f"{thesis_ch4.LABEL[role]}: `{policies[role]}`" in text
    for w in ("hh1", "mh4", "mh1-x4", "w5"):
        assert f"../../catalog/workloads/{w}.toml" in text and os.path.isfile(
            os.path.join(REPO, "catalog", "workloads", f"{w}.toml")
        )


def test_thesis_ch4_claims_that_do_not_depend_on_the_new_policies(ch4_quick):
    """The bench script's checks (bench/thesis_ch4.py, replaced by the reproduction) on the
    parts that are the existing policies' own: HAFS's fair shares are exact by construction,
    best static picks twolf's copies for MH1 x4's fast chip because of cache sharing, and
    more programs are CPU-bound on the Intel box."""
    claims = ch4_quick[1].set_index("id")
    for cid in ("hafs-mgrid-shares", "mh1-x4-twolf-over-vortex", "more-cpu-bound-on-b"):
        assert claims.loc[cid, "verdict"] == "reproduced", claims.loc[cid].to_dict()
    assert "3: 66.7%, 4: 50.0%" in claims.loc["hafs-mgrid-shares", "ours"]
    assert "best static twolf" in claims.loc["mapping-mh1-4fc-12sc", "ours"]


def test_ideal_round_robin_and_gain_by_hand():
    # 1 fast + 3 slow cores (alpha 1/4); an app taking 10 s bound fast and 20 s bound slow would,
    # moved round robin for free, progress at 1/4 x 1/10 + 3/4 x 1/20 of its work per second: 16 s.
    assert math.isclose(thesis_ch4.ideal_rr(10.0, 20.0, 0.25), 16.0)
    # Two apps, 10% faster and 10% slower than default: 1 - sqrt(0.9 x 1.1) = 0.501%.
    res = {
        "default": {("m", "w"): {"a": 10.0, "b": 20.0}},
        "apps": {("m", "w", "r"): {"a": (9.0, 1.0), "b": (22.0, 0.0)}},
    }
    assert math.isclose(thesis_ch4.gain(res, "m", "w", "r"), 100 * (1 - math.sqrt(0.9 * 1.1)))
    assert thesis_ch4.on_fast(res, "m", "w", "r") == ["a"]


# Table 4.2 of the Sáez thesis, as printed (set #1 a, set #2 b); W8 lists each program twice.
TABLE_4_2 = {
    "hh1": "sixtrack crafty mcf equake",
    "hh2": "gzip sixtrack mcf swim",
    "hh3": "mesa perlbmk equake swim",
    "lh1": "wupwise wupwise wupwise wupwise",
    "mh1": "vortex twolf fma3d art",
    "mh2": "gap parser applu vpr",
    "mh3": "apsi ammp lucas mgrid",
    "mh4": "bzip2 gcc wupwise art",
    "w1": "sixtrack crafty eon gzip twolf mesa parser bzip2 gap vortex ammp mgrid gcc apsi vpr wupwise",
    "w2": "sixtrack crafty twolf perlbmk mesa parser bzip2 gap vortex ammp mgrid apsi vpr wupwise fma3d art",
    "w3": "gzip bzip2 parser gap vortex ammp mgrid gcc apsi vpr wupwise fma3d art applu swim lucas",
    "w4": "eon gzip perlbmk gap mgrid gcc apsi vpr wupwise fma3d art applu swim lucas mcf equake",
    "w5": "gzip sixtrack crafty perlbmk gap mgrid apsi vpr wupwise fma3d art applu swim lucas mcf equake",
    "w6": "parser gap vortex ammp mgrid gcc apsi vpr wupwise fma3d art applu swim lucas mcf equake",
    "w7": "sixtrack crafty twolf mesa gap mgrid apsi vpr wupwise fma3d art applu swim lucas mcf equake",
    "w8": " ".join(p for p in "sixtrack crafty art applu swim lucas mcf equake".split() for _ in range(2)),
}


def _programs(workload):
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(REPO, "catalog", "workloads", f"{workload}.toml"), "rb") as f:
        w = tomllib.load(f)
    assert w["constant_load"] and w["baseline"] == "default"
    assert all(app.get("runs", 1) >= 3 for app in w["app"])  # "each benchmark runs at least three times"
    return [app["program"] for app in w["app"] for _ in range(app.get("copies", 1))]


@pytest.mark.parametrize("workload", sorted(TABLE_4_2))
def test_catalog_workloads_are_table_4_2(workload):
    assert _programs(workload) == TABLE_4_2[workload].split()
    if workload in thesis_ch4.SET1:
        # §4.3.2: four copies of each benchmark of set #1 on 4FC-12SC.
        assert sorted(_programs(f"{workload}-x4")) == sorted(TABLE_4_2[workload].split() * 4)


class PhaseProbe(ampsched.Policy):
    """HASS-D's phase detector (Sáez thesis §4.2.2 / summary §3.4), run on one thread bound to
    one core type: the LLC miss rate sampled every 200 ms (20 ticks), a transition when it
    differs by more than 12% from the previous interval's, a stable phase after 2 intervals
    without one. Records the miss rate of every stable phase it sees begin."""

    quantum_ms = 200.0
    needs = ("counters",)

    # ampsched.run runs a copy of the policy object: what it records goes here, by key.
    seen, samples = {}, {}

    def __init__(self, fast):
        self.fast, self.last, self.quiet = fast, None, 0
        self.key = f"fast={fast}"
        PhaseProbe.seen[self.key], PhaseProbe.samples[self.key] = [], []

    def decide(self, view):
        fast = view.machine["fast_cores"]
        cores = fast if self.fast else [c for c in range(len(view.machine["cores"])) if c not in fast]
        out = ampsched.Placement()
        for t in view.live:
            if view.thread(t).allowed != cores[:1]:
                out.set(t, cores[:1])
        for t in view.live:
            c = view.interval(t)
            if sum(x["time_ns"] for x in c) < 0.9 * self.quantum_ms * 1e6:
                continue  # a partial interval (the thread's start or end): not a sample
            instructions = sum(x["instructions"] for x in c)
            rate = sum(x["llc_misses"] for x in c) / instructions * 1000
            PhaseProbe.samples[self.key].append(rate)
            if self.last is not None and abs(rate / self.last - 1) > 0.12:
                self.quiet = 0
            else:
                self.quiet += 1
                if self.quiet == 2:
                    PhaseProbe.seen[self.key].append(rate)
            self.last = rate
        return out


@pytest.mark.parametrize("fast", [True, False])
def test_mcf_phases_are_seen_by_a_phase_detector(fast, tmp_path):
    """mcf is the program the thesis describes as phased (§4.3.4: high-IPC phases lasting 25% of
    its execution, Fig. 4.6): its catalog phases must be long and distinct enough for HASS-D's
    detector on either core type, so that the phase-aware schedulers have phases to follow."""
    path = tmp_path / "mcf.toml"
    path.write_text('name = "mcf-alone"\n[[app]]\nname = "mcf"\nprogram = "mcf"\nruns = 1\n')
    probe = PhaseProbe(fast)
    ampsched.run("2fc-2sc-amd", str(path), probe)
    levels = PhaseProbe.seen[probe.key]
    # The stable phases alternate between the high-IPC level (about 2 misses per kilo-instruction)
    # and the memory-bound one (about 33): both cycles seen, each change far over 12%.
    low = [x for x in levels if x < 5]
    high = [x for x in levels if x > 20]
    assert len(low) >= 2 and len(high) >= 2, levels
    changes = sum(1 for a, b in zip(levels, levels[1:]) if abs(b / a - 1) > 0.12)
    assert changes >= 3, levels
    if fast:
        # "those phases last only 25% of mcf's execution time" (on a fast core, where it is
        # worth running them): the share of 200 ms samples at the high-IPC level.
        samples = PhaseProbe.samples[probe.key]
        assert abs(sum(x < 5 for x in samples) / len(samples) - 0.25) < 0.03, samples


def test_hafs_gives_copies_of_mgrid_equal_fast_core_time(tmp_path):
    # Fig. 4.8: 2 fast cores among 3 copies is 2/3 each; among 4 or more, 1/2 (the thesis's 66%
    # and 50%); exact by construction of round robin.
    for n, share in ((3, 2 / 3), (4, 0.5), (7, 0.5)):
        path = tmp_path / f"mgrid-{n}.toml"
        path.write_text(thesis_ch4._mgrid_toml(n))
        apps = ampsched.run("2fc-2sc-amd", str(path), "rr").apps
        assert (abs(apps["fast_share"] - share) < 0.01).all(), (n, list(apps["fast_share"]))


@pytest.mark.parametrize("workload", ["hh1", "mh2", "lh1"])
def test_no_thread_waits_without_cross_core_sampling(workload):
    """Claim cpu-wait-negligible-without-sampling holds by construction: one thread per core and
    no policy that moves threads to sample them, so no thread ever waits for a core (zero up to
    float rounding). IPC-Driven's sampling does make threads wait: the check can fail."""
    for policy in (thesis_ch4.POLICIES["hass-s"], thesis_ch4.POLICIES["static-ipc"]):
        assert abs(thesis_ch4.wait_pct(ampsched.run(thesis_ch4.A, workload, policy, seed=1))) < 1e-9, policy
    if workload == "hh1":
        assert thesis_ch4.wait_pct(ampsched.run(thesis_ch4.A, workload, thesis_ch4.POLICIES["ipc"], seed=1)) > 0.1


def test_set_2_runs_from_least_to_most_memory_intensive():
    """§4.3.2: W1 is the least memory-intensive workload of set #2 and W8, with "up to twelve
    highly memory-intensive programs", the most; measured by the mean solo speedup factor on
    2FC-2SC-A of the catalog's programs (the catalog's own calculator, bench/catalog_curves.py;
    the workloads between are not in order in the thesis's own listings either: W5 is W4 with
    eon and gcc replaced by sixtrack and crafty)."""
    import sys

    sys.path.insert(0, os.path.join(REPO, "bench"))
    import catalog_curves as cc

    progs, amd = cc.load_programs("spec2000"), cc.load_machine("2fc-2sc-amd")
    mean = {w: sum(cc.sf(progs[p], amd) for p in _programs(w)) / 16 for w in (f"w{i}" for i in range(1, 9))}
    assert max(mean, key=mean.get) == "w1" and min(mean, key=mean.get) == "w8", mean
    heavy = {"art", "applu", "swim", "lucas", "mcf", "equake"}  # the six lowest SFs (catalog header)
    assert sum(p in heavy for p in _programs("w8")) == 12


# ---- thesis-ch6

from ampsched.reproductions import thesis_ch6  # noqa: E402


def test_thesis_ch6_refuses_to_run_without_its_policies():
    policies = dict(thesis_ch6.POLICIES, camp="no-such-policy")
    with pytest.raises(reproductions.ReproductionError, match="no-such-policy is not registered"):
        thesis_ch6.check_policies(policies)
    assert thesis_ch6.missing_policies() == reproductions.unavailable("thesis-ch6")


def test_thesis_ch6_speedups_over_rr_by_hand():
    # Two apps: RR 10 s and 20 s; CAMP 8 s and 25 s; PA 10 s and 16 s.
    res = {
        "apps": {
            ("m", "w", "rr"): {"a": (10.0, 0.5), "b": (20.0, 0.5)},
            ("m", "w", "camp"): {"a": (8.0, 0.9), "b": (25.0, 0.1)},
            ("m", "w", "pa"): {"a": (10.0, 0.5), "b": (16.0, 0.5)},
        }
    }
    # Per app T_RR / T - 1: 10/8 - 1 = +25%, 20/25 - 1 = -20%.
    s = thesis_ch6.app_speedups(res, "m", "w", "camp")
    assert s["a"] == pytest.approx(25.0) and s["b"] == pytest.approx(-20.0)
    # The workload: geometric mean of 1.25 and 0.8 = 1, so 0%; PA: sqrt(1 x 1.25) - 1 = 11.80%.
    assert thesis_ch6.speedup(res, "m", "w", "camp") == pytest.approx(0.0, abs=1e-12)
    assert thesis_ch6.speedup(res, "m", "w", "pa") == pytest.approx(100 * (math.sqrt(1.25) - 1))
    # CAMP over PA: sqrt(10/8 x 16/25) - 1 = sqrt(0.8) - 1 = -10.56%.
    assert thesis_ch6.over(res, "m", "w", "camp", "pa") == pytest.approx(100 * (math.sqrt(0.8) - 1))
    # Fast shares in %, copies of one program folded.
    res["apps"][("m", "w", "x")] = {"p#0": (1.0, 0.2), "p#1": (1.0, 0.6), "q": (1.0, 1.0)}
    assert thesis_ch6.share(res, "m", "w", "x", "p") == pytest.approx(40.0)


@pytest.mark.parametrize("machine", [thesis_ch6.A, thesis_ch6.B])
def test_on_single_threaded_workloads_camp_is_sfd_and_pa_is_rr(machine):
    # The by-construction claims st-camp-like-sfd-* and st-pa-like-rr-*, held here: a single
    # thread's UF is its SF (eq. 6.14 with N = 1), so CAMP ranks as SFD; pa-uf puts every
    # single-threaded app in HIGH and shares the fast cores among them by HAFS's round robin, as
    # rr. Every Table 6.2 workload, two seeds: the same completion times to the bit.
    for sf in (1.2, 1.5, 2.0):
        assert thesis_uf.utility_factor(sf, 1, 2) == sf
    p = thesis_ch6.POLICIES
    for w in thesis_ch6.ST:
        for seed in (1, 2):
            t = {
                r: ampsched.run(machine, thesis_ch6.catalog_name("st", w), p[r], seed=seed)
                .apps["turnaround_s"]
                .tolist()
                for r in ("camp", "sfd", "pa", "rr")
            }
            assert t["camp"] == t["sfd"], (w, seed)
            assert t["pa"] == t["rr"], (w, seed)


def test_thesis_ch6_quick_has_every_figure_and_claim(quick_runs):
    if "thesis-ch6" not in quick_runs:
        pytest.skip("thesis-ch6's policies are not registered in this build")
    folder, claims, text = quick_runs["thesis-ch6"]
    ids = list(claims["id"])
    assert len(ids) == len(set(ids)) and len(ids) >= 35
    for stem, fig in (
        ("fig6-3", "Fig. 6.3"),
        ("fig6-4", "Fig. 6.4"),
        ("fig6-5", "Fig. 6.5"),
        ("fig6-6", "Fig. 6.6"),
        ("fig6-7", "Fig. 6.7"),
        ("fig6-8", "Fig. 6.8"),
    ):
        file = f"thesis-ch6-{stem}.png"
        assert (folder / file).read_bytes()[:4] == b"\x89PNG" and f"]({file})" in text and fig in text
    # The thesis's numbers and comparisons are all there, the diagnostics never as ours.
    for cid in (
        "extra-camp-over-pa-up-to-13",
        "1fc-stci-psmi-camp-rr-pa",
        "st-pa-like-rr-amd",
        "st-camp-like-sfd-amd",
        "only-camp-gains-everywhere",
        "4fc-camp-like-pa-always",
    ):
        assert cid in ids
    assert "(thesis-uf.md)" in text


# ---- todays-schedulers (its quick version runs once, in test_the_quick_version)

from ampsched.reproductions import todays_schedulers  # noqa: E402


def test_todays_schedulers_which_table_names_the_lowest_and_its_ties():
    """The "which to run on which chip" cell: the lowest value and every policy within TIE (1%) of it, in
    the document's policy order; a refused run is never chosen, a case not run says so."""
    T = todays_schedulers
    metric = T.USE[T.GAME][1]
    results = {
        ("chip", T.GAME, T.POLICIES["linux-capacity"]): {metric: 10.0, "energy_j": 5.0},
        ("chip", T.GAME, T.POLICIES["hass-d"]): {metric: 10.09, "energy_j": 4.0},  # 0.9% above: a tie
        ("chip", T.GAME, T.POLICIES["pa"]): {metric: 10.11, "energy_j": 1.0},  # 1.1% above: not
        ("chip", T.GAME, T.POLICIES["compaction"]): {"refused": "needs an energy model"},
    }
    assert T._best(results, "chip", T.GAME, metric) == "hass-d, linux-capacity"
    assert T._best(results, "other", T.GAME, metric) == "-"
    # The pick: of the tied, the lower energy (hass-d's 4 J); among today's, linux-capacity alone.
    assert T._pick(results, "chip", T.GAME, T.ORDER) == "hass-d (10.1 ms a frame)"
    assert T._pick(results, "chip", T.GAME, T.TODAY) == "linux-capacity (10.0 ms a frame)"


def test_todays_schedulers_jank_is_the_time_over_a_60hz_budget():
    # 1000 / 60 = 16.667 ms: a 20 ms frame is 3.333 ms over it, a 10 ms one none.
    assert math.isclose(todays_schedulers._jank(20.0), 20.0 - 1000.0 / 60.0)
    assert todays_schedulers._jank(10.0) == 0.0


def test_todays_schedulers_flat_capacity_variant_only_drops_the_reported_capacities(tmp_path):
    tomllib = pytest.importorskip("tomllib")
    T = todays_schedulers
    with open(T._generated(str(tmp_path))[T.FLAT_RIGHT], "rb") as f:
        variant = tomllib.load(f)
    catalog = tomllib.loads(ampsched._require_core().catalog_text("machines", T.FLAT))
    assert all(t["capacity"] == 1024 for t in catalog["core_type"])
    assert not any("capacity" in t for t in variant["core_type"])
    for t in catalog["core_type"]:
        t.pop("capacity")
    for key in ("name", "description"):
        assert variant.pop(key) != catalog.pop(key)
    assert variant == catalog
