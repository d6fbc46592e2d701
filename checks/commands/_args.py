"""Argument types and helpers shared by the command modules: --claims discovery, the engine's
--jobs/--scheduler, the device, the default baseline, and output locations checked before any work."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from attnaudit.checks.commands import UsageError
from attnaudit.checks.gate import DEFAULT_BASELINE

CLAIMS_HELP = ("a pack folder (a path holding a '/', or a folder here that is no importable "
               "package), laid out like claims/<paper>/ or a folder of such folders: its claims "
               "alone, unless --with-builtin; or the name of a package laid out like claims/ "
               "that replaces the built-in claims and installed packs; repeatable")
BUILTIN_HELP = "with --claims folders: load the built-in claims and installed packs beside them"


def add_claims(p: argparse.ArgumentParser, with_builtin: bool = True) -> None:
    p.add_argument("--claims", action="append", default=[], help=CLAIMS_HELP)
    if with_builtin:
        p.add_argument("--with-builtin", action="store_true", help=BUILTIN_HELP)


def engine_args(p: argparse.ArgumentParser) -> None:
    engine = p.add_mutually_exclusive_group()
    engine.add_argument("--jobs", "-j", type=jobs, default=1, metavar="N",
                        help="claim processes at a time on this machine (default 1; 0: one per "
                             "CPU core)")
    engine.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the claims on the Dask cluster whose scheduler is at ADDRESS "
                             "(e.g. tcp://10.0.0.5:8786); its workers need the project installed")


def jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"jobs must be a non-negative integer, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"jobs must be a non-negative integer, not {text!r}")
    return value or os.cpu_count() or 1


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text!r}")
    return value


def seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, not {text!r}")
    return value


def discover(values: list[str], with_builtin: bool = True):
    """``--claims`` values: folders (a path, holding a '/') are packs, loaded alone unless
    ``with_builtin``; at most one package name replaces the built-in ``claims``."""
    return discover_where(values, with_builtin)[0]


def discover_where(values: list[str], with_builtin: bool = True):
    """(catalogue, package, folders): what a worker process needs to discover the same claims."""
    from attnaudit.checks.discovery import discover_claims

    try:
        return discover_claims(values, with_builtin=with_builtin)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def select(cat, ids: list[str], package: str):
    """The claims and load errors ``ids`` select; an unknown id is a usage error naming the
    nearest ids."""
    from attnaudit.checks.discovery import NO_BUILTIN

    try:
        return cat.select(ids)
    except KeyError as exc:
        hint = " (built-in claims load beside --claims folders only with --with-builtin)"
        raise UsageError(exc.args[0] + (hint if package == NO_BUILTIN else "")) from None


def resolve_device(name: str) -> str:
    from attnaudit.checks.executor import version_of

    if name == "auto" and version_of("torch").endswith("+cpu"):
        return "cpu"  # a CPU build of torch, known without importing it
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda requested but torch sees no CUDA device")
    return name




def default_baseline() -> Path:
    """The built-in claims' baseline, found from the installed package (not the working
    directory: ``gate`` from results/ must find it too); DEFAULT_BASELINE if that is absent."""
    import attnaudit.claims

    found = Path(next(iter(attnaudit.claims.__path__))) / "baseline.json"
    return found if found.exists() else DEFAULT_BASELINE


def writable_folder(folder: Path, option: str) -> None:
    """Create ``folder`` (and its parents) and prove a file can be written in it, or raise a
    one-line UsageError naming ``option``: called before any claim runs, so that no work is lost."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"{option} {folder}: exists and is not a folder") from None
    except OSError as exc:
        raise UsageError(f"{option} {folder}: cannot create the folder ({exc.strerror})") from None
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {folder}: cannot write there ({exc.strerror})") from None


def writable_file(path: Path, option: str) -> None:
    """``path`` can be (re)written: no folder stands there and its folder is writable."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a folder, not a file")
    writable_folder(path.parent, option)
