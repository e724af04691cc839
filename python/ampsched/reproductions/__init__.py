"""Reproductions: a paper's claims, ours beside theirs, as a generated document.

    ampsched reproduce --list
    ampsched reproduce NAME [--quick] [--jobs N] [--backend local|ray [--address A]] [--output DIR]
    ampsched.reproduce("thesis-uf", quick=True)                       # the claims as a DataFrame

One module per reproduction in this package (`thesis_uf.py` is `thesis-uf`): it declares
where the paper states each claim, their value, how ours is computed from runs made through
`ampsched.sweep`, the tolerance and the verdict. This file holds what every reproduction shares:
the `Claim` record and its verdicts, the registry, the `Context` a module runs its sweeps and
draws its figures through, and the markdown writer.

A reproduction module defines:

    TITLE       the paper and the part of it reproduced, one line
    PAPER       the paper's authors and title (sources are cited by title, section, table and figure)
    SUMMARY     a paragraph for the top of the document
    build(ctx)  runs what it needs (ctx.sweep), draws its figures (ctx.figure) and returns a
                `Report`: claims, machines and workloads used, extra markdown sections.

Determinism: nothing in the document depends on time, paths, the job count or the order in
which runs finish (sweep's table is sorted by its grid keys), so the same build gives the
same bytes; the PNGs carry no software version or date (see `Context.figure`).
"""

import importlib
import os
import pkgutil
from dataclasses import dataclass, field
from .._sweep_store import PATHS

VERDICTS = ("reproduced", "differs", "not comparable")
# What kind of evidence a claim is. Only independent claims count as evidence of the model's
# fidelity; the others are reported apart, as checks:
# - independent: a result the model was not built from;
# - calibrated: the catalog was fitted to it (a model value chosen or changed to match the paper
#   makes the claim calibrated, and the claim says so);
# - by construction: it follows from the code's definitions (an identity of two formulas, a policy
#   equal to another on a workload by design); such a claim belongs in the tests.
EVIDENCE = ("independent", "calibrated", "by construction")
# Until a reproduction module classifies a claim: counted apart, and refused by the tests.
UNCLASSIFIED = "unclassified"
# The evidence cell of a claim whose paper states a number (judged by the one tolerance rule,
# `_format.judge_number`): "independent, numeric".
NUMERIC = "numeric"
COLUMNS = ["id", "source", "claim", "evidence", "theirs", "ours", "tolerance", "verdict", "reason"]
# Claim tables are read back by the tests (committed verdicts must hold): one row per line,
# cells separated by " | ", so a cell must not hold a "|" or a line break.
_FORBIDDEN = ("|", "\n")


class ReproductionError(ValueError):
    """A bad name or option given to `reproduce` (the CLI prints it on one line, exit 2)."""


@dataclass
class Claim:
    """One claim of a paper. `source`: where the paper states it (section, table or
    figure); `theirs`: their value (a number, a range or a direction); `ours`: what our runs
    give, as shown; `verdict`: one of VERDICTS, with `reason` (one sentence) unless reproduced;
    `kind`: one of EVIDENCE (UNCLASSIFIED until the module says); `numeric`: the paper states a
    number and the claim is judged by the one tolerance rule (`_format.judge_number`)."""

    id: str
    source: str
    claim: str
    theirs: str
    ours: str
    tolerance: str
    verdict: str
    reason: str = ""
    kind: str = UNCLASSIFIED
    numeric: bool = False

    @property
    def evidence(self) -> str:
        """The claims table's evidence cell: the kind, and ", numeric" when the paper states a number."""
        return f"{self.kind}, {NUMERIC}" if self.numeric else self.kind

    def __post_init__(self):
        if self.kind not in EVIDENCE + (UNCLASSIFIED,):
            raise ValueError(f"claim {self.id}: evidence {self.kind!r} is not one of {EVIDENCE}")
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.id}: verdict {self.verdict!r} is not one of {VERDICTS}")
        if self.verdict != "reproduced" and not self.reason.strip():
            raise ValueError(f"claim {self.id}: a verdict other than reproduced needs its reason")
        for name in COLUMNS:
            value = getattr(self, name)
            if any(c in value for c in _FORBIDDEN):
                raise ValueError(f"claim {self.id}: {name} holds '|' or a line break: {value!r}")


@dataclass
class Figure:
    file: str  # PNG file name, written next to the document
    caption: str  # names the paper's figure it redraws


@dataclass
class Report:
    claims: list
    machines: list  # catalog machine names used
    workloads: str  # markdown: the workloads used (catalog links or how they are generated)
    sections: list = field(default_factory=list)  # (heading, markdown) after the claims and figures


def registry() -> dict:
    """{NAME: module name} of every reproduction in this package, NAME with dashes."""
    names = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            names[info.name.replace("_", "-")] = info.name
    return dict(sorted(names.items()))


def load(name: str):
    modules = registry()
    if name not in modules:
        raise ReproductionError(
            f"reproduce: unknown reproduction {name!r} "
            f"(known: {', '.join(modules) or 'none'}; see `ampsched reproduce --list`)"
        )
    return importlib.import_module(f"{__name__}.{modules[name]}")


def unavailable(name: str) -> list:
    """What reproduction NAME needs and this build lacks (a module may define
    `missing_policies()`: the policies it runs that are not registered); [] when it can run."""
    module = load(name)
    return list(getattr(module, "missing_policies", lambda: [])())


def unregistered(policies: dict) -> list:
    """The policies of `policies` (role -> policy name) that are not registered, in role order."""
    import ampsched

    registered = set(ampsched.list_policies()["name"])
    return [name for name in policies.values() if name not in registered]


def require_policies(name: str, policies: dict, what: str) -> None:
    """Refuse to run reproduction NAME, naming them, when some of `policies` are not
    registered: a reproduction reports no scheduler in place of another. WHAT: what it needs
    ("every scheduler of the thesis's ch. 4")."""
    missing = unregistered(policies)
    if missing:
        raise ReproductionError(
            f"reproduce {name}: the polic{'ies' if len(missing) > 1 else 'y'} {', '.join(missing)} "
            f"{'are' if len(missing) > 1 else 'is'} not registered in this build (see `ampsched list policies`); "
            f"this reproduction needs {what} and reports none in place of another"
        )


def policy_roles(name: str, defaults: dict, what: str):
    """`missing_policies(policies=None)` and `check_policies(policies=None)` for reproduction
    NAME, whose roles are the keys of `defaults` (role -> policy name); `policies` replaces the
    defaults (a test names an unregistered policy), WHAT is what `require_policies` says it needs."""

    def chosen(policies):
        policies = defaults if policies is None else policies
        return {r: policies[r] for r in defaults}

    def missing_policies(policies=None) -> list:
        """The policies of `policies` (default: the reproduction's) that are not registered, in role order."""
        return unregistered(chosen(policies))

    def check_policies(policies=None) -> None:
        require_policies(name, chosen(policies), what)

    return missing_policies, check_policies


def listing() -> list:
    """(NAME, TITLE) of every reproduction."""
    return [(name, load(name).TITLE) for name in registry()]


class Context:
    """What a reproduction module gets: the mode (quick or full), sweeps on the chosen backend
    and job count, a scratch directory for generated input files, and the figures it draws."""

    def __init__(self, name, quick, workdir, output, jobs=None, backend="local", address=None):
        self.name, self.quick = name, quick
        self.sweep_options = dict(jobs=jobs, backend=backend, address=address)
        self.workdir, self.output = workdir, output
        self.figures = []

    def sweep(self, machines, workloads, policies, seeds):
        """ampsched.sweep on this context's backend and job count, without a progress bar. A
        failed run is an error here: a claim must not be judged on missing points."""
        import ampsched

        df = ampsched.sweep(machines, workloads, policies, seeds=seeds, progress=False, **self.sweep_options)
        # The reproductions look their runs up by the machine and workload they gave (a
        # generated file's path, whose name another file may share).
        for table in (df, df.attrs["apps"]):
            for key, path in PATHS.items():
                table[key] = table[path].fillna(table[key])
        failed = df[df["error"].notna()]
        if len(failed):
            row = failed.iloc[0]
            raise RuntimeError(
                f"{len(failed)} runs failed, e.g. {row['machine']} {row['workload']} "
                f"{row['policy']} seed {row['seed']}: {row['error']}"
            )
        return df

    def figure(self, fig, stem: str, caption: str) -> None:
        """Save a matplotlib Figure (made with matplotlib.figure.Figure, which renders with Agg
        and touches no pyplot state) as NAME-STEM.png next to the document (when there is an
        output directory) and list it with its caption. Byte-identical across runs: no
        "Software" entry (the matplotlib version) and no date; a fixed DPI."""
        from .._files import write_atomically

        file = f"{self.name}-{stem}.png"
        if self.output is not None:
            write_atomically(
                os.path.join(self.output, file),
                option="--output",
                write=lambda tmp: fig.savefig(tmp, format="png", dpi=100, metadata={"Software": None}),
            )
        self.figures.append(Figure(file, caption))


def run(name: str, quick: bool = False, jobs=None, output=None, backend="local", address=None):
    """Run reproduction NAME; returns (claims DataFrame, markdown text). With `output` (a
    directory, made if missing), writes NAME.md and its figures there. backend, address: where
    its sweeps run (as for ampsched.sweep)."""
    import glob
    import tempfile
    from contextlib import ExitStack

    from .._files import check_output, write_atomically
    from .._sweep import check_backend, make_backend

    module = load(name)
    if output is not None:
        output = os.fspath(output)
        if os.path.exists(output) and not os.path.isdir(output):
            raise ReproductionError(f"--output: {output}: not a directory")
        try:  # before any run: a bad path should not cost the runs
            os.makedirs(output, exist_ok=True)
        except OSError as error:
            raise ReproductionError(f"--output: {output}: {error.strerror or error}") from None
        # What it will replace, checked before any run: a symlink or a FIFO there is refused
        # (written through, it would overwrite another file or block forever).
        for path in [os.path.join(output, f"{name}.md")] + sorted(
            glob.glob(os.path.join(glob.escape(output), f"{glob.escape(name)}-*.png"))
        ):
            try:
                check_output("--output", path)
            except ValueError as error:
                raise ReproductionError(str(error)) from None
    check_backend(backend, address)
    with ExitStack() as stack:
        if backend == "ray":
            # One Ray connection (a local instance started once) for all the reproduction's
            # sweeps: each sweep finds Ray initialised and uses it as it is.
            stack.callback(make_backend(backend, address, jobs).close)
        workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"ampsched-{name}-"))
        ctx = Context(name, quick, workdir, output, jobs=jobs, backend=backend, address=address)
        report = module.build(ctx)
    text = markdown(name, module, report, ctx)
    if output is not None:
        write_atomically(os.path.join(output, f"{name}.md"), text, option="--output")
    return claims_frame(report.claims), text


def claims_frame(claims):
    import pandas as pd

    return pd.DataFrame([{c: getattr(claim, c) for c in COLUMNS} for claim in claims], columns=COLUMNS)


# ---- the document


def markdown(name, module, report, ctx) -> str:
    import json

    import ampsched

    from ._format import catalog_link, markdown_table

    machines = {m["name"]: m for m in json.loads(ampsched._require_core().list_catalog("machines"))}
    counts = {v: sum(c.verdict == v for c in report.claims) for v in VERDICTS}
    evidence = evidence_lines(report.claims)
    lines = [
        f"# Reproduction `{name}`: {module.TITLE}",
        "",
        f"*Generated by `ampsched reproduce {name}{' --quick' if ctx.quick else ''}`; do not edit by hand.*"
        + (" **Quick version: fewer points and shorter runs than the committed document.**" if ctx.quick else ""),
        "",
        module.SUMMARY.strip(),
        "",
        f"Paper: {module.PAPER}; the claims' sources below are its sections, tables and figures.",
        "",
        "Regenerate this document and its figures from the repository root:",
        "",
        "```sh",
        *_commented(
            [
                (f"ampsched reproduce {name}", "this document (full version)"),
                (f"ampsched reproduce {name} --quick", "the reduced version the tests run"),
                ("make reproduce", "every reproduction"),
            ]
        ),
        "```",
        "",
        f"Verdicts: {counts['reproduced']} reproduced, {counts['differs']} differ, "
        f"{counts['not comparable']} not comparable.",
        "",
        *evidence,
        "",
        "## Machines and workloads",
        "",
    ]
    for m in report.machines:
        lines.append(f"- {catalog_link('machines', m)}: {machines[m]['description']}")
    lines += [
        "",
        report.workloads.strip(),
        "",
        "## Claims",
        "",
        markdown_table(COLUMNS, [[getattr(claim, c) for c in COLUMNS] for claim in report.claims]),
    ]
    if ctx.figures:
        lines += ["", "## Figures", ""]
        for fig in ctx.figures:
            lines += [f"![{fig.caption}]({fig.file})", "", f"*{fig.caption}*", ""]
    for heading, body in report.sections:
        lines += ["", f"## {heading}", "", body.strip(), ""]
    return "\n".join(lines).rstrip() + "\n"


def evidence_counts(claims) -> dict:
    """{"independent": (reproduced, of), "numeric": (reproduced, of)} over the independent
    claims (numeric: those whose paper states a number), and the ids of the other kinds."""
    independent = [c for c in claims if c.kind == "independent"]
    numeric = [c for c in independent if c.numeric]
    out = {
        "independent": (sum(c.verdict == "reproduced" for c in independent), len(independent)),
        "numeric": (sum(c.verdict == "reproduced" for c in numeric), len(numeric)),
    }
    for kind in EVIDENCE[1:] + (UNCLASSIFIED,):
        out[kind] = [c.id for c in claims if c.kind == kind]
    return out


def evidence_lines(claims) -> list:
    """The document's evidence summary: the independent counts on one line (what
    `mkdocs_hooks.py` gathers for the site), then the claims of each other kind by id."""
    n = evidence_counts(claims)
    lines = [
        f"Independent: {n['independent'][0]} of {n['independent'][1]} reproduced "
        f"(numeric: {n['numeric'][0]} of {n['numeric'][1]})."
    ]
    notes = {
        "calibrated": "the catalog was fitted to them: checks, not evidence",
        "by construction": "they follow from the code's definitions: checks, not evidence",
        UNCLASSIFIED: "not yet classified",
    }
    for kind, note in notes.items():
        if n[kind]:
            lines += ["", f"{kind.capitalize()} ({note}): {', '.join(f'`{i}`' for i in n[kind])}."]
    return lines


def _commented(pairs) -> list:
    width = max(len(command) for command, _ in pairs) + 4
    return [f"{command:<{width}}# {comment}" for command, comment in pairs]


def read_claims(path) -> dict:
    """{id: verdict} from the claim table of a generated document (what the tests hold a new
    run to)."""
    return {row["id"]: row["verdict"] for row in read_claim_rows(path)}


def read_claim_rows(path) -> list:
    """The claims table of a generated document, a dict per row keyed by its header's columns
    (a document generated before a column was added reads without it)."""
    rows, header = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if header is None:
                if line.startswith("| id | source | claim |"):
                    header = [c.strip() for c in line.strip()[2:-2].split(" | ")]
                continue
            if not line.startswith("|"):
                break
            if line.startswith("|---"):
                continue
            rows.append(dict(zip(header, (c.strip() for c in line.strip()[2:-2].split(" | ")))))
    return rows
