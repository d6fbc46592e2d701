"""attnaudit: a computational audit of the theorems in geometric-attention papers.

One import package. Its parts live in the repository's top-level folders and install under this
name: ``attnaudit.checks`` (the engine), ``attnaudit.claims`` (the built-in specs),
``attnaudit.operators`` (the PyTorch operators) and ``attnaudit.reports`` (HTML and PDF). Pack
authors import the public API from here::

    from attnaudit import Claim, Kind, Relation, ScalingLaw, Limit, control, symbolic, tolerances

Packs written against the old top-level names (``from checks import Claim``) keep working once
attnaudit is imported (discovery imports it before any pack): those names alias the parts here,
with one ``DeprecationWarning``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from pathlib import Path
from typing import Any

# In a source checkout the parts are the sibling folders of this one; in an installed wheel they
# are sub-folders of this package (pyproject.toml's package-dir mapping), found as usual.
_HERE = Path(__file__).resolve().parent
if not (_HERE / "checks").is_dir() and (_HERE.parent / "checks" / "__init__.py").is_file():
    __path__.append(str(_HERE.parent))  # type: ignore[name-defined]  # noqa: F821

PARTS = ("checks", "claims", "operators", "reports")

# The engine's public names, re-exported (imported once __path__ above is complete).
from attnaudit.checks import __all__  # noqa: E402


def __getattr__(name: str) -> Any:
    # Lazily, so that ``attnaudit.reports`` (torch-free) does not pull in the numerical stack.
    if name in PARTS:
        return importlib.import_module(f"{__name__}.{name}")
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}.checks"), name)
    raise AttributeError(f"module 'attnaudit' has no attribute {name!r}")


def _ours(origin: str, part: str) -> bool:
    """Whether ``origin`` is attnaudit's own folder of ``part`` (a checkout's ``checks/`` seen from
    the repository root must alias, not load a second copy)."""
    own = importlib.util.find_spec(f"{__name__}.{part}")
    return own is not None and own.origin is not None and (
        Path(origin).resolve().parent == Path(own.origin).resolve().parent)


class _LegacyAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``checks`` → ``attnaudit.checks`` (and the other parts, with their sub-modules): the module
    object is the same, so a pack's ``Claim`` is the engine's ``Claim``. A user's own module of one
    of these names (found elsewhere on ``sys.path``) is left alone and imports as usual."""

    warned = False
    _specs: dict[str, Any] = {}

    def find_spec(self, fullname: str, path: Any = None, target: Any = None):
        top = fullname.split(".", 1)[0]
        if top not in PARTS:
            return None
        if "." in fullname:  # a sub-module of an aliased part only, never of a user's own package
            parent = sys.modules.get(top)
            return (importlib.machinery.ModuleSpec(fullname, self)
                    if parent is not None and parent is sys.modules.get(f"{__name__}.{top}") else None)
        found = importlib.machinery.PathFinder.find_spec(fullname, path)
        if found is not None and found.origin and not _ours(found.origin, top):
            return None  # the user's own module of that name comes first
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec):
        if not _LegacyAlias.warned:
            _LegacyAlias.warned = True
            warnings.warn(f"'import {spec.name.split('.', 1)[0]}' is deprecated: import from "
                          f"'attnaudit' (e.g. 'from attnaudit import Claim') or "
                          f"'attnaudit.{spec.name}'", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(f"{__name__}.{spec.name}")
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: Any) -> None:
        # Already executed; the import system set the alias's spec on it: give it back its own.
        module.__spec__ = self._specs.pop(module.__spec__.name, module.__spec__)


if not any(isinstance(f, _LegacyAlias) for f in sys.meta_path):
    sys.meta_path.insert(0, _LegacyAlias())
