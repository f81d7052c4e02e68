"""`fairlab reproduce STUDY`: a source document's experiments beside its
published numbers, on the simulator and, where asked, the kernel and ns-2,
with a report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import UsageError, check_out_dir, cluster_address, int_in, warn


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Runs a study's experiments (the registry in fairlab.studies), prints
    each beside the published numbers and writes the report into --out;
    `all`: every study, and the gallery over them."""
    from .. import studies

    if args.list:
        for name in studies.names():
            st = studies.get(name)
            print(f"{name}: {st.title}")
            print(f"    source: {st.source}")
            width = max(len(e.name) for e in st.experiments)
            for e in st.experiments:
                print(f"  {e.name:<{width}}  {e.reproduces}")
        return 0
    if args.study is None:
        raise UsageError(
            "reproduce: name a study (one of " + ", ".join(studies.names()) + "), all, or give "
            "--list"
        )
    if args.study == ALL:
        return _reproduce_all(args)
    if args.slim:
        raise UsageError("--slim: only with `fairlab reproduce all` (the gallery's copy)")
    if args.study not in studies.names():
        raise UsageError(
            f"reproduce: {args.study!r} is not a known study; expected one of "
            + ", ".join(studies.names())
            + " or all (see fairlab reproduce --list)"
        )
    study = studies.get(args.study)
    names = args.experiment or study.names
    for name in names:
        if name not in study.names:
            raise UsageError(
                f"--experiment: {name!r} is not an experiment of {study.name}; expected one of "
                + ", ".join(study.names)
            )
    names = list(dict.fromkeys(names))
    if args.format == "csv" and len(names) > 1:
        raise UsageError("--format csv prints one table: give one --experiment")
    out = Path(args.out or f"{study.name}-results")
    check_out_dir(str(out), "--out")
    store = _store_of(args, out)
    _check_backend(args)
    _run_study(study, names, args, out, store)
    return 0


#: The study name that runs every study and writes the gallery.
ALL = "all"


def _store_of(args: argparse.Namespace, out: Path) -> str | None:
    if args.no_store and args.store:
        raise UsageError("--store and --no-store: give one of them")
    if args.store:
        check_out_dir(args.store, "--store")
    return None if args.no_store else (args.store or str(out))


def _check_backend(args: argparse.Namespace) -> None:
    from .. import backends

    if args.backend in ("ns2", "all"):
        why = backends.get("ns2").unavailable()
        if why is not None:
            raise UsageError(
                f"--backend {args.backend}: {why}; without it the report shows the stored ns-2 "
                "results"
            )


def _command(args: argparse.Namespace) -> str:
    return "fairlab " + " ".join(sys.argv[1:]) if args.command_line is None else args.command_line


def _run_study(
    study, names: list[str], args: argparse.Namespace, out: Path, store: str | None
) -> list:
    """Runs the experiments ``names`` of ``study``, prints each, writes its
    report (and the gallery's counts and thumbnails) into ``out``."""
    import time

    from .. import __version__, gallery, report

    outcomes = []
    t0 = time.perf_counter()
    for name in names:
        o = report.run_experiment(
            study.experiment(name),
            quick=args.quick,
            jobs=args.jobs,
            cluster=args.cluster,
            store=store,
        )
        if args.backend in ("ns2", "all") or (args.backend == "sim" and not args.no_ns2):
            _ns2_column(study, o, args)
        if args.backend in ("both", "all"):
            _kernel_column(study.experiment(name), o, args)
        outcomes.append(o)
        if args.format == "csv":
            o.summary.table.to_csv(sys.stdout, index=False, float_format="%.6g")
        else:
            print(("\n" if len(outcomes) > 1 else "") + report.text(study, o), flush=True)
    command = _command(args)
    slim = getattr(args, "slim", False)
    page = report.write(
        study,
        outcomes,
        out,
        command=command,
        version=__version__,
        tables=not slim,
        plot_src=(lambda n: f"{gallery.THUMBS}/{n}.png") if slim else None,
    )
    gallery.save_study(study, outcomes, out, command)
    notes = [f"{len(outcomes)} experiment(s), {time.perf_counter() - t0:.1f} s"]
    if not slim:
        notes.append("tables as CSV and Parquet beside it")
    if store:
        notes.append(f"every run in {store}/runs, see fairlab results {store}")
    print(f"report: {page} ({'; '.join(notes)})", file=sys.stderr)
    return outcomes


def _reproduce_all(args: argparse.Namespace) -> int:
    """`fairlab reproduce all`: every study into OUT/<study>/, then the
    gallery OUT/index.html over them."""
    from .. import __version__, gallery, studies

    if args.experiment:
        raise UsageError("--experiment: not with all (every experiment of every study runs)")
    if args.format == "csv":
        raise UsageError("--format csv prints one table: not with all")
    out = Path(args.out or "fairlab-gallery")
    check_out_dir(str(out), "--out")
    if args.slim and (args.store or not args.no_store):
        raise UsageError("--slim: keeps no run; give --no-store with it")
    _check_backend(args)
    for name in studies.names():
        study = studies.get(name)
        d = out / name
        store = None if args.no_store else (args.store or str(d))
        if args.store:
            check_out_dir(args.store, "--store")
        _run_study(study, study.names, args, d, store)
    page = gallery.write_index(out, version=__version__, command=_command(args))
    print(f"gallery: {page}", file=sys.stderr)
    return 0


def _kernel_column(exp, o, args: argparse.Namespace) -> None:
    """The experiment on the kernel (namespace backend): its own runs, or
    those it scales for the kernel, which then also run on the simulator
    so that the two backends are set side by side on the same scenarios."""
    from .. import backends, report

    kernel = backends.get("emu")
    tasks = exp.kernel_tasks(args.quick) if exp.kernel_tasks else exp.tasks(args.quick)
    why = kernel.refusal([t.scenario for t in tasks])
    if why is not None:
        o.kernel_note = why
        return
    if exp.kernel_tasks:
        o.kernel_sim = report.run_experiment(exp, quick=args.quick, jobs=args.jobs, tasks=tasks)
    o.kernel = report.run_experiment(
        exp, quick=args.quick, backend=kernel.name, warn=warn, tasks=tasks
    )


def _ns2_column(study, o, args: argparse.Namespace) -> None:
    """The experiment's ns-2 column: run now with --backend ns2|all (ns-2
    must be installed), else the stored ns-2 results where the study keeps
    them (their provenance shown)."""
    from .. import __version__
    from ..ns2 import studies as ns2_studies

    exp = o.experiment
    if args.backend in ("ns2", "all"):
        o.ns2, o.ns2_note = ns2_studies.run_experiment(exp, args.quick, args.jobs)
        if o.ns2 is not None and args.save_ns2:
            ns2_studies.save(study.name, o.ns2, __version__)
        return
    stored, prov = ns2_studies.load(study.name, exp, args.quick)
    if stored is not None:
        o.ns2, o.ns2_provenance = stored, prov


class _StudyHelp(argparse.HelpFormatter):
    """Names the studies in `fairlab reproduce --help` only: building the
    parser (every command, `fairlab --help`) does not import the registry."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        if action.dest == "study" and text is not None:
            from .. import studies

            text += ", ".join(studies.names())
        return text


def add_parser(sub: argparse._SubParsersAction) -> None:
    rp = sub.add_parser(
        "reproduce",
        help="a source document's experiments beside its published numbers, with a report",
        description="Runs the experiments of one study (fairlab reproduce --list names them), "
        "prints each beside the published numbers with a verdict per row, and writes an HTML "
        "report with plots, and the tables as CSV and Parquet, into --out.",
        formatter_class=_StudyHelp,
    )
    rp.add_argument(
        "study",
        nargs="?",
        help="the study to run (see --list), or all: every study and a gallery page over "
        "them (OUT/index.html); one of: all, ",
    )
    rp.add_argument(
        "--list", action="store_true", help="list the studies and their experiments, then exit"
    )
    rp.add_argument(
        "--experiment",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="run only these experiments of the study (default: all of them)",
    )
    rp.add_argument(
        "--quick", action="store_true", help="fewer and shorter runs (not the published scale)"
    )
    rp.add_argument(
        "--jobs", type=int_in(1, 4096), default=None, help="worker processes (default: all cores)"
    )
    rp.add_argument(
        "--cluster",
        type=cluster_address,
        metavar="ADDRESS",
        default=None,
        help="run on an existing Dask cluster, e.g. tcp://HOST:8786 (default: local processes)",
    )
    rp.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="directory for the report (index.html), its plots and the tables as CSV and "
        "Parquet (default: STUDY-results)",
    )
    rp.add_argument(
        "--store",
        metavar="DIR",
        default=None,
        help="results store for every run (fairlab.load reads each; a rerun skips the runs "
        "already there, so an interrupted study resumes; default: the --out directory)",
    )
    rp.add_argument(
        "--no-store",
        action="store_true",
        help="keep no run's tables, only the report (a rerun runs everything again)",
    )
    rp.add_argument(
        "--format",
        choices=["table", "csv"],
        default="table",
        help="table: each experiment beside the published numbers (default); csv: one "
        "experiment's table on stdout",
    )
    rp.add_argument(
        "--backend",
        choices=["sim", "both", "ns2", "all"],
        default="sim",
        help="sim: the simulator (default; the report shows the stored ns-2 results where a "
        "study keeps them); both: each experiment the kernel can run also on real Linux TCP "
        "in namespaces (root; one run at a time), the report showing both side by side, and "
        "why not for the others; ns2: the runs ns-2 can run also on real ns-2 (`ns` on the "
        "PATH), published, ns-2 and fairlab side by side; all: ns2 and both",
    )
    rp.add_argument(
        "--no-ns2", action="store_true", help="with --backend sim: no stored ns-2 column"
    )
    rp.add_argument(
        "--save-ns2",
        action="store_true",
        help="with --backend ns2|all: keep the ns-2 results in the package's store "
        "(fairlab/studies/ns2_results), for reports on machines without ns-2",
    )
    rp.add_argument(
        "--slim",
        action="store_true",
        help="with all and --no-store: each report without its tables and with its plots as "
        "the gallery's small thumbnails (the copy docs/gallery keeps)",
    )
    rp.set_defaults(func=cmd_reproduce, command_line=None)
