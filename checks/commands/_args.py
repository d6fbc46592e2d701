"""Argument types and helpers shared by the command modules: --claims discovery, the engine's
--jobs/--scheduler, the device, the default baseline, and output locations checked before any work."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from attnaudit.checks.commands import UsageError
from attnaudit.checks.gate import DEFAULT_BASELINE

CLAIMS_HELP = ("a folder of claims to add beside the built-in ones (a path holding a '/', or a "
               "folder here that is no importable package), "
               "laid out like claims/<paper>/ or a folder of such folders; or the name of a "
               "package laid out like claims/ that replaces the built-in claims and installed "
               "packs; repeatable")


def add_claims(p: argparse.ArgumentParser) -> None:
    p.add_argument("--claims", action="append", default=[], help=CLAIMS_HELP)


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


def discover(values: list[str]):
    """``--claims`` values: folders (a path, holding a '/') are added; at most one package name
    replaces the built-in ``claims``."""
    return discover_where(values)[0]


def discover_where(values: list[str]):
    """(catalogue, package, folders): what a worker process needs to discover the same claims."""
    from attnaudit.checks.discovery import DEFAULT_PACKAGE
    from attnaudit.checks.discovery import discover as discover_claims

    folders = [v for v in values if "/" in v or "\\" in v or plain_folder(v)]
    packages = [v for v in values if v not in folders]
    if len(packages) > 1:
        raise UsageError(f"--claims names more than one package: {', '.join(packages)}")
    package = packages[0] if packages else DEFAULT_PACKAGE
    for folder in folders:
        if not Path(folder).is_dir():
            raise UsageError(f"--claims {folder}: no such folder")
    try:
        return discover_claims(package, folders=tuple(folders)), package, tuple(folders)
    except ModuleNotFoundError as exc:
        raise UsageError(f"cannot import the claims package {package!r}: {exc}") from None


def plain_folder(name: str) -> bool:
    """A folder in the working directory that imports as no regular package (``--claims mine``)."""
    import importlib.util

    if not Path(name).is_dir():
        return False
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return True
    return spec is None or spec.origin is None  # None, or a namespace package


def resolve_device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda requested but torch sees no CUDA device")
    return name


def relative(path: str) -> str:
    p = Path(path).resolve()
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)


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
