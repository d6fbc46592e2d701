"""Messages that say what was wrong: load errors in full (file, line, exception) on the run line
and in the record; 'new' naming the slash as the problem."""

from __future__ import annotations

import json
import textwrap

from attnaudit.checks.cli import main

BROKEN = textwrap.dedent('''
    """A spec whose module-level code names an undefined variable (line 7)."""

    from attnaudit import Claim


    LIMIT = some_undefined_name_of_a_long_description + 1
''')


def _pack(tmp_path):
    folder = tmp_path / "mine" / "broken_paper"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text('from attnaudit import Paper\n\nPAPER = Paper(key="broken-paper", '
                                        'title="T", authors=("A",), arxiv=None, source_file="-")\n')
    (folder / "theorem_4.py").write_text(BROKEN)
    return tmp_path / "mine"


def test_a_load_error_is_given_in_full_on_the_run_line_and_in_the_record(tmp_path, capsys):
    pack = _pack(tmp_path)
    assert main(["run", "--claims", str(pack), "--json"]) == 1
    [record] = json.loads(capsys.readouterr().out)
    assert record["verdict"] == "error" and record["error"]["line"] == 7
    assert record["error"]["file"].endswith("broken_paper/theorem_4.py")
    reason = ("NameError: name 'some_undefined_name_of_a_long_description' is not defined "
              "(line 7 of theorem_4.py)")
    assert record["error"]["reason"] == reason
    assert record["summary"].endswith(f"theorem_4.py:7: {reason}")
    assert main(["run", "--claims", str(pack)]) == 1
    table = " ".join(capsys.readouterr().out.split())
    assert f"theorem_4.py:7: {reason}" in table  # never cut


def test_new_says_the_slash_is_the_problem(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "mypaper", "mypaper/lemma-1", "--kind", "identity", "--claims", "./mine"]) == 2
    err = capsys.readouterr().err
    assert "without the 'mypaper/' prefix" in err and "lower-case" not in err
    assert main(["new", "mypaper", "other/lemma-1", "--kind", "identity", "--claims", "./mine"]) == 2
    assert "'/' separates the paper key from the name" in capsys.readouterr().err
    assert not (tmp_path / "mine").exists()
