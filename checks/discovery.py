"""Find claim specs by convention: ``<package>/<paper>/<module>.py`` defining ``CLAIMS``.

Beside the built-in package, **claim packs** are found: installed packages that declare an entry
point in the group ``attnaudit.claims`` naming a module laid out like ``claims/<paper>/`` (its
``__init__`` holds ``PAPER``, each other module ``CLAIMS``), and folders given on the command line
(``--claims PATH``): a folder holding such an ``__init__.py``, or a folder of such folders. A pack
carries its own verdict lock, ``baseline.json`` beside its ``__init__.py``. Paper keys stay unique
across sources: a second paper with a key already loaded is a load error naming both sources.

No hand-kept list. Every failure to load becomes a :class:`LoadError` naming the file and the
reason (import error, no ``CLAIMS``, a repeated id, a claim of another paper), and the other
specs still load. Modules whose name starts with ``_`` are shared helpers, not specs.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import pkgutil
import re
import sys
import traceback
import types
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from attnaudit.checks.model import Claim, Paper, SummaryTable

DEFAULT_PACKAGE = "attnaudit.claims"
# A package of no papers: discovering it with folders loads those packs alone (no built-in claim,
# no installed pack), in this process and in the executor's workers alike.
NO_BUILTIN = "attnaudit_no_builtin_claims"
ENTRY_POINT_GROUP = "attnaudit.claims"
PACK_BASELINE = "baseline.json"


@dataclass(frozen=True)
class LoadError:
    id: str
    file: str
    reason: str  # the exception in full, with the spec's line that raised it
    paper: str = ""
    line: int | None = None  # that line of ``file``, when the spec's own code raised


@dataclass
class Catalogue:
    claims: list[Claim] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)
    papers: dict[str, Paper] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # claim id -> spec file
    tables: dict[str, tuple[SummaryTable, ...]] = field(default_factory=dict)  # paper key -> TABLES
    sources: dict[str, str] = field(default_factory=dict)  # paper key -> where it was loaded from
    baselines: dict[str, str] = field(default_factory=dict)  # paper key -> a pack's baseline.json
    folders: dict[str, str] = field(default_factory=dict)  # paper key -> the --claims folder (absolute)

    def select(self, patterns: list[str]) -> tuple[list[Claim], list[LoadError]]:
        """Claims and load errors whose id equals or starts with one of ``patterns`` (whole
        segments: ``geo`` selects nothing of ``georesolver/…``)."""
        if not patterns:
            return list(self.claims), list(self.errors)

        def hit(cid: str) -> bool:
            return any(hit_one(cid, p) for p in patterns)

        ids = [c.id for c in self.claims] + [e.id for e in self.errors]
        unknown = [p for p in patterns if not any(hit_one(i, p) for i in ids)]
        if unknown:
            raise KeyError("; ".join(unmatched(p, ids) for p in unknown))
        return [c for c in self.claims if hit(c.id)], [e for e in self.errors if hit(e.id)]


def hit_one(cid: str, pattern: str) -> bool:
    return cid == pattern or cid.startswith(pattern.rstrip("/") + "/")


def unmatched(pattern: str, ids: list[str]) -> str:
    """Why ``pattern`` selects no claim, with the nearest ids (difflib), in one line."""
    import difflib

    prefixes = sorted({"/".join(i.split("/")[:k]) for i in ids for k in range(1, i.count("/") + 1)})
    near = difflib.get_close_matches(pattern, sorted(set(ids)) + prefixes, n=3, cutoff=0.5)
    partial = sorted(i for i in set(ids) if i.startswith(pattern))
    text = f"no claim matches {pattern}: an id or a prefix of whole '/'-separated segments"
    if partial:
        text += f" ({partial[0]} starts with those letters but not with whole segments)"
    if near:
        text += f"; did you mean {', '.join(near)}?"
    elif not ids:
        text += "; no claim is loaded"
    return text + " (see 'attnaudit list')"


def _relative(path: str | None) -> str:
    if not path:
        return "?"
    p = Path(path).resolve()
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)


def _reason(exc: BaseException, file: str | None = None) -> tuple[str, int | None]:
    """(the exception in full, with where it was raised; the line of ``file`` that raised it).

    The line is the spec's own (the last frame in ``file``), not the library's deepest frame; a
    frame deeper than the spec is named too. A SyntaxError names its own file and line."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        return f"{text} (line {exc.lineno} of {Path(exc.filename or '?').name})", (
            exc.lineno if file and exc.filename and Path(exc.filename).resolve() == Path(file).resolve()
            else None)
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return text, None
    target = Path(file).resolve() if file else None
    own = [f for f in frames if target is not None and Path(f.filename).resolve() == target]
    last = frames[-1]
    if not own:
        return f"{text} (line {last.lineno} of {Path(last.filename).name})", None
    where = f" (line {own[-1].lineno} of {Path(own[-1].filename).name}"
    if own[-1] is not last:
        where += f", raised in {Path(last.filename).name} line {last.lineno}"
    return text + where + ")", own[-1].lineno


# Imported lazily while specs load: a spec may import torch and the operators at module level,
# and listing the catalogue still executes neither (torch alone takes ~2 s to import). The first
# attribute used (at import time or when a check runs) loads the module for real.
LAZY_MODULES = ("torch", "attnaudit.operators")


class _Deferred(types.ModuleType):
    """Stands in ``sys.modules`` for a module not imported yet; the first attribute asked of it
    (other than the import system's ``__spec__``/``__name__``) imports the real module, which then
    replaces it, and answers from that. (``importlib.util.LazyLoader`` cannot serve: the import
    statement itself reads ``__spec__`` through it and loads the module.)"""

    def __getattr__(self, attr: str):
        return getattr(_real(self.__name__), attr)


class _LoadedMeanwhile(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import torch.distributed`` under a deferred ``torch``: the import system checks that the
    child is not loaded, then reads the parent's ``__path__``, which imports the real torch — and
    torch imports torch.distributed itself. Without this finder the child would then be executed a
    second time (pybind11 aborts: "GradBucket already defined"); with it, the child loaded
    meanwhile is the one returned. (A name already in ``sys.modules`` never reaches the finders
    otherwise, so this changes no other import.)"""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None):
        if fullname not in sys.modules:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec):
        module = sys.modules[spec.name]
        self._own = getattr(self, "_own", {}) | {spec.name: module.__spec__}
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self._own.pop(module.__name__, module.__spec__)


def _real(name: str) -> types.ModuleType:
    if isinstance(sys.modules.get(name), _Deferred):
        del sys.modules[name]
    return importlib.import_module(name)


def lazy_import(name: str) -> None:
    """Put a deferred ``name`` in ``sys.modules`` unless it is imported already."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None:
        return
    if not any(isinstance(f, _LoadedMeanwhile) for f in sys.meta_path):
        sys.meta_path.insert(0, _LoadedMeanwhile())
    module = _Deferred(name)
    module.__spec__, module.__loader__ = spec, spec.loader
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)


def discover(package: str = DEFAULT_PACKAGE, folders: tuple[str | Path, ...] = (),
             entry_points: bool | None = None) -> Catalogue:
    """The built-in ``package``, then installed packs (by default only beside the built-in
    ``claims``: a package named on the command line replaces the whole catalogue), then
    ``folders``."""
    for name in LAZY_MODULES:
        lazy_import(name)
    cat = Catalogue()
    if package == NO_BUILTIN and NO_BUILTIN not in sys.modules:
        empty = types.ModuleType(NO_BUILTIN, "A package of no claims: the packs given load alone.")
        empty.__path__ = []
        sys.modules[NO_BUILTIN] = empty
    root = importlib.import_module(package)
    for paper_info in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
        if not paper_info.ispkg or paper_info.name.startswith("_"):
            continue
        paper_mod_name = f"{package}.{paper_info.name}"
        paper_file = str(Path(paper_info.module_finder.path) / paper_info.name / "__init__.py")
        key = paper_info.name.replace("_", "-")
        _load_paper(cat, paper_mod_name, paper_file, key, f"package {package}", key_must_be=key)
    if entry_points if entry_points is not None else package == DEFAULT_PACKAGE:
        for ep in sorted(installed_packs(), key=lambda e: e.name):
            _load_paper(cat, ep.value, ep.value, ep.name,
                        f"pack {ep.name} (entry point {ep.value})", pack=True)
    for folder in folders:
        for init in pack_folders(Path(folder)):
            name = _folder_module_name(init.parent)
            before = set(cat.papers)
            _load_paper(cat, name, str(init), init.parent.name.replace("_", "-"),
                        f"pack folder {_relative(str(init.parent))}", pack=True, init=init)
            for key in set(cat.papers) - before:
                cat.folders[key] = str(Path(folder).resolve())
    _drop_repeated_ids(cat)
    return cat


def installed_packs() -> list[importlib.metadata.EntryPoint]:
    """The entry points of installed claim packs (group ``attnaudit.claims``)."""
    return list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))


def pack_folders(folder: Path) -> list[Path]:
    """The ``__init__.py`` of each pack in ``folder``: its own when it names ``PAPER``, otherwise
    those of its sub-folders (a folder laid out like ``claims/``)."""
    init = folder / "__init__.py"
    if init.is_file() and "PAPER" in init.read_text(encoding="utf-8", errors="replace"):
        return [init]
    return sorted(p / "__init__.py" for p in folder.iterdir()
                  if (p / "__init__.py").is_file() and not p.name.startswith(("_", ".")))


def _folder_module_name(folder: Path) -> str:
    """A stable import name for a pack folder (the same in every process, unlike any other pack's)."""
    resolved = str(folder.resolve())
    stem = re.sub(r"\W", "_", folder.resolve().name)
    return f"attnaudit_pack_{stem}_{hashlib.sha256(resolved.encode()).hexdigest()[:8]}"


def _import_folder(name: str, init: Path):
    if name in sys.modules:
        return sys.modules[name]
    init = init.resolve()  # finders are cached by path: a relative one would outlive a chdir
    spec = importlib.util.spec_from_file_location(name, init,
                                                  submodule_search_locations=[str(init.parent)])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {init}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _load_paper(cat: Catalogue, mod_name: str, file: str, key: str, source: str, *,
                key_must_be: str | None = None, pack: bool = False, init: Path | None = None) -> None:
    """Load one paper package (built-in or pack); every failure becomes a LoadError."""
    try:
        paper_mod = _import_folder(mod_name, init) if init else importlib.import_module(mod_name)
        file = getattr(paper_mod, "__file__", None) or file
        paper = getattr(paper_mod, "PAPER", None)
        if not isinstance(paper, Paper):
            raise TypeError("defines no PAPER = checks.Paper(...)")
        if key_must_be is not None and paper.key != key_must_be:
            raise ValueError(f"PAPER.key {paper.key!r} differs from the package name {key_must_be!r}")
        key = paper.key
        if not hasattr(paper_mod, "__path__"):
            raise TypeError(f"{mod_name} is a module, not a package of claim modules")
        tables = tuple(getattr(paper_mod, "TABLES", ()))
        if not all(isinstance(t, SummaryTable) for t in tables):
            raise TypeError("TABLES must be a tuple of checks.SummaryTable")
        if paper.key in cat.papers:
            raise ValueError(f"paper key {paper.key!r} of {source} clashes with "
                             f"{cat.sources[paper.key]}")
    except Exception as exc:  # noqa: BLE001 - every failure becomes a record
        reason, line = _reason(exc, file)
        cat.errors.append(LoadError(f"{key}/<package>", _relative(file), reason, key, line))
        return
    cat.papers[paper.key] = paper
    cat.sources[paper.key] = source
    if pack:
        cat.baselines[paper.key] = str(Path(paper_mod.__file__).parent / PACK_BASELINE)
    if tables:
        cat.tables[paper.key] = tables
    for name, file in _spec_modules(paper_mod.__name__, paper_mod.__path__):
        _load_module(cat, paper, name, file)


def _spec_modules(package: str, path) -> list[tuple[str, str]]:
    """``(module name, file)`` of each spec module under a paper package, in name order; a
    sub-package (a claim module split into one module per part) contributes its own modules."""
    found = []
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        folder = Path(info.module_finder.path)
        if info.ispkg:
            found += _spec_modules(f"{package}.{info.name}", [str(folder / info.name)])
        else:
            found.append((f"{package}.{info.name}", str(folder / f"{info.name}.py")))
    return found


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
        reason, line = _reason(exc, file)
        cat.errors.append(LoadError(pseudo_id, rel, reason, paper.key, line))
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


def discover_claims(values: list[str], *, with_builtin: bool = True
                    ) -> tuple[Catalogue, str, tuple[str, ...]]:
    """(catalogue, package, folders) for a command's ``--claims`` values: folders (a path holding
    a '/', or a folder here that imports as no package) are packs; at most one package name
    replaces the built-in claims. With folders and not ``with_builtin``, the packs load alone
    (no built-in claim, no installed pack). Raises ValueError with a one-line message."""
    folders = [v for v in values if "/" in v or "\\" in v or _plain_folder(v)]
    packages = [v for v in values if v not in folders]
    if len(packages) > 1:
        raise ValueError(f"--claims names more than one package: {', '.join(packages)}")
    package = packages[0] if packages else (DEFAULT_PACKAGE if with_builtin or not folders else NO_BUILTIN)
    for folder in folders:
        if not Path(folder).is_dir():
            raise ValueError(f"--claims {folder}: no such folder")
    try:
        return discover(package, folders=tuple(folders)), package, tuple(folders)
    except ModuleNotFoundError as exc:
        raise ValueError(f"cannot import the claims package {package!r}: {exc}") from None


def _plain_folder(name: str) -> bool:
    """A folder in the working directory that imports as no regular package (``--claims mine``)."""
    if not Path(name).is_dir():
        return False
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return True
    return spec is None or spec.origin is None  # None, or a namespace package


def paper_entries(cat: Catalogue, keys: set[str], selection: list[str]) -> list[dict[str, Any]]:
    """The results file's ``papers``: each paper that ran, with, for a pack, where it was loaded
    from and its baseline's absolute path (so that the gate finds it from any directory), and the
    run's id selection (empty: everything; the gate then compares only the selected ids)."""
    return [{"key": p.key, "title": p.title, "authors": list(p.authors), "arxiv": p.arxiv,
             "source_file": p.source_file, "contributions": p.contributions_json()}
            | ({"pack": cat.sources[key], "baseline": str(Path(cat.baselines[key]).resolve())}
               if key in cat.baselines else {})
            | ({"claims": cat.folders[key]} if key in cat.folders else {})
            | {"selection": list(selection)}
            for key, p in sorted(cat.papers.items()) if key in keys]


# --------------------------------------------------------------------------- staleness
def source_hash(claim: Claim) -> str:
    """Hash of the spec module, its paper's helper modules, the operators and the engine, so that
    a change to any of them marks the verdict stale."""
    digest = hashlib.sha256()
    files: list[Path] = []
    module = importlib.import_module(claim.source_module) if claim.source_module else None
    if module is not None and getattr(module, "__file__", None):
        spec = Path(module.__file__)
        files.append(spec)
        # A spec in a sub-package of its paper (a claim module split into parts) uses the helpers of
        # both folders: every folder from the spec's up to the paper's, whose package holds PAPER.
        depth = next((d for d in range(1, claim.source_module.count(".")) if hasattr(
            sys.modules.get(claim.source_module.rsplit(".", d)[0]), "PAPER")), 1)
        for folder in [spec.parents[i] for i in range(depth)]:
            files.extend(sorted(folder.glob("_*.py")))
        files.extend(_imported_claim_modules(files, claim.source_module.rsplit(".", depth + 1)[0],
                                             spec.parents[depth]))
    # The results layer writes the record's derived fields (figures, control outcomes): it counts.
    for package, patterns in (("attnaudit.operators", ("*.py",)),
                              ("attnaudit.checks", ("*.py", "results/*.py"))):
        spec = importlib.util.find_spec(package)  # its folder, without importing torch through it
        if spec is None or spec.origin is None:
            continue
        root = Path(spec.origin).parent
        for pattern in patterns:
            files.extend(sorted(root.glob(pattern)))
    for f in files:
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    return digest.hexdigest()[:16]


def _imported_claim_modules(files: list[Path], root: str, root_dir: Path) -> list[Path]:
    """The modules of the claims package ``root`` (folder ``root_dir``) that ``files`` import,
    directly or through each other: another paper's helpers (rank-collapse runs
    riemannian-attention's stacks) and claim modules a spec borrows from (proposition 2.3 uses
    property 2.2.4's kernel). Read from the import statements, absolute or relative."""
    def path_of(name: str) -> Path | None:
        if name != root and not name.startswith(root + "."):
            return None
        base = root_dir.joinpath(*name[len(root):].split(".")[1:])
        return next((f for f in (base.with_suffix(".py"), base / "__init__.py") if f.is_file()), None)

    seen, todo = set(files), list(files)
    found: set[Path] = set()
    while todo:
        current = todo.pop()
        package = _package_of(current, root, root_dir)
        for node in ast.walk(ast.parse(current.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                    + ([base] if base else []))
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                path = path_of(name)
                if path is not None and path not in seen:
                    seen.add(path)
                    found.add(path)
                    todo.append(path)
    return sorted(found)


def _package_of(file: Path, root: str, root_dir: Path) -> str:
    """The dotted package a file of the claims package belongs to."""
    relative = file.parent.relative_to(root_dir).parts if root_dir in file.parents else ()
    return ".".join((root, *relative))
