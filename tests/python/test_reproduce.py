"""`ampsched reproduce` and the reproductions: the quick version of every one, the rule that a
claim the committed document marks reproduced stays reproduced, determinism of the document
and its figures, the thesis-uf formulas against hand-derived numbers, and the CLI's errors."""

import math
import os

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


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory):
    """Every reproduction's quick version, twice: with one job and with two (the document must
    not depend on the job count)."""
    out = {}
    for name in reproductions.registry():
        runs = []
        for jobs in (1, 2):
            folder = tmp_path_factory.mktemp(f"{name}-jobs{jobs}")
            claims, text = reproductions.run(name, quick=True, jobs=jobs, output=str(folder))
            runs.append((folder, claims, text))
        out[name] = runs
    return out


# ---- every reproduction

def test_every_reproduction_has_a_committed_document():
    for name in reproductions.registry():
        assert os.path.isfile(os.path.join(DOCS, f"{name}.md")), f"run `ampsched reproduce {name}` and commit it"


def test_claims_the_committed_document_marks_reproduced_stay_reproduced(quick_runs):
    for name, runs in quick_runs.items():
        committed = reproductions.read_claims(os.path.join(DOCS, f"{name}.md"))
        claims = runs[0][1]
        now = dict(zip(claims["id"], claims["verdict"]))
        assert set(now) == set(committed), f"{name}: the claims changed; regenerate the document"
        broken = [cid for cid, verdict in committed.items() if verdict == "reproduced" and now[cid] != "reproduced"]
        assert not broken, f"{name}: no longer reproduced in the quick version: {broken}"


def test_the_quick_document_and_figures_are_byte_identical_whatever_the_job_count(quick_runs):
    for name, ((one, _, text1), (two, _, text2)) in quick_runs.items():
        assert text1 == text2
        files = sorted(os.listdir(one))
        assert files == sorted(os.listdir(two))
        assert f"{name}.md" in files and any(f.endswith(".png") for f in files)
        for f in files:
            with open(one / f, "rb") as a, open(two / f, "rb") as b:
                assert a.read() == b.read(), f"{name}: {f} differs between two runs"


def test_the_document_has_its_parts(quick_runs):
    for name, runs in quick_runs.items():
        folder, claims, text = runs[0]
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
        # Catalog links point at files that exist, from docs/reproduction/.
        for m in ("2fc-8sc", "1fc-12sc", "4fc-12sc-mf"):
            link = f"../../catalog/machines/{m}.toml"
            assert link in text and os.path.isfile(os.path.join(DOCS, link))


# ---- thesis-uf: the formulas, by hand

@pytest.mark.parametrize("sf, n, nfc, speedup, uf", [
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
    (2.0, 12, 1, 2 / (2 - 2 ** -11), 1 + 1 / 144),
    # 4FC-12SC, SF 2, N 12: floor(11/4) = 2, as 2FC-8SC's N 5: 8/7 and 10/9.
    (2.0, 12, 4, 8 / 7, 10 / 9),
])
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


@pytest.mark.parametrize("args, message", [
    (["reproduce", "nope"], "unknown reproduction 'nope'"),
    (["reproduce"], "name a reproduction"),
    (["reproduce", "--list", "thesis-uf"], "either --list or NAME"),
    (["reproduce", "thesis-uf", "--jobs", "0"], "--jobs: must be a whole number"),
    (["reproduce", "thesis-uf", "--quick", "--output", "FILE"], "not a directory"),
    (["reproduce", "thesis-uf", "--quick", "--output", "/proc/no/such"], "--output: /proc/no/such: No such file"),
])
def test_cli_bad_input_is_one_line_and_status_2(args, message):
    if "FILE" in args:
        args = [str(__file__) if a == "FILE" else a for a in args]
    done = run_module(*args)
    assert done.returncode == 2
    assert message in assert_one_line_error(done.stderr)


def test_python_api_returns_the_claims(quick_runs):
    claims = quick_runs["thesis-uf"][0][1]
    assert list(claims.columns) == reproductions.COLUMNS
    with pytest.raises(ValueError, match="unknown reproduction"):
        ampsched.reproduce("nope")
