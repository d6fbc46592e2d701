"""One import package (issue 23): the wheel holds ``attnaudit`` alone, every package folder of the
repository is listed under it, the old top-level names import only through attnaudit's alias (with
one DeprecationWarning), and a checkout's parts are never importable twice."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("checks", "claims", "operators", "reports")


def test_every_package_folder_is_listed_under_attnaudit():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {"attnaudit." + str(p.parent.relative_to(ROOT)).replace("/", ".")
               for part in PARTS for p in (ROOT / part).rglob("__init__.py")
               if "__pycache__" not in p.parts}
    # attnaudit/ itself and its own sub-packages (attnaudit.testing)
    own = {str(p.parent.relative_to(ROOT)).replace("/", ".")
           for p in (ROOT / "attnaudit").rglob("__init__.py") if "__pycache__" not in p.parts}
    assert folders | own == listed


def test_the_wheel_holds_one_top_level_package(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("attnaudit-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert tops == {"attnaudit"}
    assert "attnaudit/claims/baseline.json" in names
    assert any(n.startswith("attnaudit/reports/templates/") for n in names)


_LEGACY = """
import sys, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import attnaudit
    from checks import Claim
    from checks.model import Relation
    import operators
assert Claim is attnaudit.Claim and Relation is attnaudit.Relation
assert operators is attnaudit.operators and sys.modules["checks"] is sys.modules["attnaudit.checks"]
assert sys.modules["attnaudit.checks"].__spec__.name == "attnaudit.checks"
print(sum(issubclass(w.category, DeprecationWarning) and "deprecated" in str(w.message) for w in caught))
"""


def test_old_top_level_names_alias_attnaudit_with_one_warning(tmp_path):
    out = subprocess.run([sys.executable, "-c", _LEGACY], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "1"


def test_without_attnaudit_imported_the_old_names_do_not_exist(tmp_path):
    out = subprocess.run([sys.executable, "-c", "import checks"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert out.returncode != 0 and "ModuleNotFoundError" in out.stderr


_OWN = """
import attnaudit, operators
print(operators.__file__)
"""


def test_a_users_own_module_of_an_old_name_comes_first(tmp_path):
    (tmp_path / "operators.py").write_text("MINE = True\n")
    out = subprocess.run([sys.executable, "-c", _OWN], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert Path(out.stdout.strip()) == tmp_path / "operators.py"
