"""`fairlab examples`: the example scenarios shipped with the package."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import UsageError, check_out_dir


def _examples_dir() -> Path:
    """The example scenarios installed with the package."""
    from importlib.resources import files

    return Path(str(files("fairlab") / "examples"))


def _first_comment(path: Path) -> str:
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("#"):
            return line.lstrip("# ").strip()
    return ""


def cmd_examples(args: argparse.Namespace) -> int:
    """Lists the shipped example scenarios, or copies them into a directory."""
    import shutil

    src = _examples_dir()
    files = sorted(src.glob("*.toml"))
    if args.copy:
        dest = Path(args.copy)
        check_out_dir(args.copy, "--copy")
        dest.mkdir(parents=True, exist_ok=True)
        for f in files:
            target = dest / f.name
            if target.exists() and not args.force:
                raise UsageError(f"--copy: {target} exists; add --force to overwrite it")
        for f in files:
            shutil.copyfile(f, dest / f.name)
            print(dest / f.name)
        return 0
    width = max(len(f.name) for f in files)
    for f in files:
        print(f"{f.name:<{width}}  {_first_comment(f)}")
    print(f"(in {src}; fairlab examples --copy DIR copies them, then: fairlab run DIR/NAME.toml)")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    ex = sub.add_parser(
        "examples",
        help="list the example scenarios installed with fairlab, or copy them",
        description="The example scenario files shipped with the package, each naming the "
        "published result it reproduces.",
    )
    ex.add_argument("--copy", metavar="DIR", help="copy every example scenario into DIR")
    ex.add_argument(
        "--force", action="store_true", help="with --copy: overwrite files of the same name"
    )
    ex.set_defaults(func=cmd_examples)
