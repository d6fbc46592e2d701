"""Find claim specs by convention: ``<package>/<paper>/<module>.py`` defining ``CLAIMS``.

No hand-kept list. Every failure to load becomes a :class:`LoadError` naming the file and the
reason (import error, no ``CLAIMS``, a repeated id, a claim of another paper), and the other
specs still load. Modules whose name starts with ``_`` are shared helpers, not specs.
"""

from __future__ import annotations

import importlib
import pkgutil
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path

from checks.model import Claim, Paper, SummaryTable

DEFAULT_PACKAGE = "claims"


@dataclass(frozen=True)
class LoadError:
    id: str
    file: str
    reason: str
    paper: str = ""


@dataclass
class Catalogue:
    claims: list[Claim] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)
    papers: dict[str, Paper] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # claim id -> spec file
    tables: dict[str, tuple[SummaryTable, ...]] = field(default_factory=dict)  # paper key -> TABLES

    def select(self, patterns: list[str]) -> tuple[list[Claim], list[LoadError]]:
        """Claims and load errors whose id equals or starts with one of ``patterns``."""
        if not patterns:
            return list(self.claims), list(self.errors)

        def hit(cid: str) -> bool:
            return any(hit_one(cid, p) for p in patterns)

        ids = [c.id for c in self.claims] + [e.id for e in self.errors]
        unknown = [p for p in patterns if not any(hit_one(i, p) for i in ids)]
        if unknown:
            raise KeyError(f"no claim matches {', '.join(unknown)} (see 'attnaudit list')")
        return [c for c in self.claims if hit(c.id)], [e for e in self.errors if hit(e.id)]


def hit_one(cid: str, pattern: str) -> bool:
    return cid == pattern or cid.startswith(pattern.rstrip("/") + "/")


def _relative(path: str | None) -> str:
    if not path:
        return "?"
    p = Path(path).resolve()
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)


def _reason(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (line {frames[-1].lineno} of {Path(frames[-1].filename).name})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def discover(package: str = DEFAULT_PACKAGE) -> Catalogue:
    cat = Catalogue()
    root = importlib.import_module(package)
    for paper_info in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
        if not paper_info.ispkg or paper_info.name.startswith("_"):
            continue
        paper_mod_name = f"{package}.{paper_info.name}"
        paper_file = str(Path(paper_info.module_finder.path) / paper_info.name / "__init__.py")
        key = paper_info.name.replace("_", "-")
        try:
            paper_mod = importlib.import_module(paper_mod_name)
            paper = getattr(paper_mod, "PAPER", None)
            if not isinstance(paper, Paper):
                raise TypeError("defines no PAPER = checks.Paper(...)")
            if paper.key != key:
                raise ValueError(f"PAPER.key {paper.key!r} differs from the package name {key!r}")
            tables = tuple(getattr(paper_mod, "TABLES", ()))
            if not all(isinstance(t, SummaryTable) for t in tables):
                raise TypeError("TABLES must be a tuple of checks.SummaryTable")
        except Exception as exc:  # noqa: BLE001 - every failure becomes a record
            cat.errors.append(LoadError(f"{key}/<package>", _relative(paper_file), _reason(exc), key))
            continue
        cat.papers[paper.key] = paper
        if tables:
            cat.tables[paper.key] = tables
        for info in sorted(pkgutil.iter_modules(paper_mod.__path__), key=lambda m: m.name):
            if info.name.startswith("_"):
                continue
            _load_module(cat, paper, f"{paper_mod_name}.{info.name}",
                         str(Path(info.module_finder.path) / f"{info.name}.py"))
    _drop_repeated_ids(cat)
    return cat


def _load_module(cat: Catalogue, paper: Paper, name: str, file: str) -> None:
    pseudo_id = f"{paper.key}/{name.rsplit('.', 1)[1].replace('_', '-')}"
    rel = _relative(file)
    try:
        module = importlib.import_module(name)
        claims = getattr(module, "CLAIMS", None)
        if claims is None:
            raise TypeError("defines no CLAIMS (a tuple of checks.Claim)")
        claims = tuple(claims) if isinstance(claims, (list, tuple)) else (claims,)
        if not claims or not all(isinstance(c, Claim) for c in claims):
            raise TypeError("CLAIMS must be a non-empty tuple of checks.Claim")
        rel = _relative(getattr(module, "__file__", file))
    except Exception as exc:  # noqa: BLE001 - every failure becomes a record
        cat.errors.append(LoadError(pseudo_id, rel, _reason(exc), paper.key))
        return
    for claim in claims:
        if claim.paper != paper.key:
            cat.errors.append(LoadError(claim.id, rel, f"claim of paper {claim.paper!r} "
                                        f"defined under {paper.key!r}", paper.key))
            continue
        cat.claims.append(replace(claim, source_module=name))
        cat.files.setdefault(claim.id, rel)


def _drop_repeated_ids(cat: Catalogue) -> None:
    seen: dict[str, list[str]] = {}
    for claim in cat.claims:
        seen.setdefault(claim.id, []).append(claim.source_module)
    repeated = {cid for cid, mods in seen.items() if len(mods) > 1}
    for cid in sorted(repeated):
        where = ", ".join(seen[cid])
        cat.errors.append(LoadError(cid, cat.files.get(cid, "?"), f"id repeated in {where}",
                                    cid.split("/", 1)[0]))
    cat.claims = [c for c in cat.claims if c.id not in repeated]
