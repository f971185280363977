"""What changed since a git revision (``gzguide.history``), on real repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gzguide.analysis.facts.parsed import parse_module
from gzguide.analysis.facts.scopes import collect_scopes
from gzguide.history import Changes, HistoryError, Revision, changes, resolve

ORIGINAL = """\
import os


def first(a):
    return a + 1


class Box:
    def size(self):
        return 1

    def name(self):
        return "box"


def last():
    return os.sep
"""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def make_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    commit(path, files, "first")
    return path


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def changed_names(text: str, old: bytes | None) -> tuple[bool, set[str]]:
    """Whether the module changed, and the qualified names of the changed definitions."""
    parsed = parse_module(text.encode())
    assert parsed is not None
    scopes = collect_scopes(parsed.tree)
    found = changes(parsed.text, scopes, old)
    assert isinstance(found, Changes)
    names = {s.qualname for s in scopes if found.covers(s)}
    assert found.covers(None) is found.module
    return found.module, names


def since_head(repo: Path, name: str) -> tuple[bool, set[str]]:
    """What of the work tree's ``name`` changed since HEAD, read through git."""
    revision = resolve(str(repo), "HEAD")
    path = repo / name
    return changed_names(path.read_text(), revision.text(str(path)))


def test_an_edited_function_is_changed_and_the_others_are_not(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    (repo / "m.py").write_text(ORIGINAL.replace("return a + 1", "return a + 2"))
    assert since_head(repo, "m.py") == (True, {"first"})


def test_an_edited_method_changes_its_class_too(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    (repo / "m.py").write_text(ORIGINAL.replace('return "box"', 'return "crate"'))
    assert since_head(repo, "m.py") == (True, {"Box", "Box.name"})


def test_an_added_function_is_changed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    (repo / "m.py").write_text(ORIGINAL + "\n\ndef added():\n    return 3\n")
    assert since_head(repo, "m.py") == (True, {"added"})


def test_a_function_that_only_moved_down_is_not_changed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    inserted = "import os\n\nSEPARATOR = '-'\n# a comment\n\n\ndef helper():\n    return 0\n"
    (repo / "m.py").write_text(ORIGINAL.replace("import os\n", inserted, 1))
    # Every old definition is lower now; only the inserted one is new.
    assert since_head(repo, "m.py") == (True, {"helper"})


def test_an_untouched_file_has_no_change(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    assert since_head(repo, "m.py") == (False, set())


def test_a_renamed_function_is_new(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    (repo / "m.py").write_text(ORIGINAL.replace("def first(a):", "def second(a):"))
    assert since_head(repo, "m.py") == (True, {"second"})


def test_a_renamed_class_makes_its_methods_new(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    (repo / "m.py").write_text(ORIGINAL.replace("class Box:", "class Crate:"))
    assert since_head(repo, "m.py") == (True, {"Crate", "Crate.size", "Crate.name"})


def test_a_changed_decorator_changes_the_function(tmp_path: Path) -> None:
    before = "import functools\n\n\n@functools.cache\ndef f(x):\n    return x\n"
    repo = make_repo(tmp_path / "r", {"m.py": before})
    (repo / "m.py").write_text(before.replace("functools.cache", "functools.lru_cache(2)"))
    assert since_head(repo, "m.py") == (True, {"f"})


def test_an_untracked_file_is_new_as_a_whole(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    (repo / "new.py").write_text(ORIGINAL)
    revision = resolve(str(repo), "HEAD")
    assert revision.text(str(repo / "new.py")) is None
    assert since_head(repo, "new.py") == (True, {"first", "Box", "Box.size", "Box.name", "last"})


def test_a_file_absent_at_the_revision_is_new_as_a_whole(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    first = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, {"later.py": "def f():\n    return 1\n"}, "second")
    at_first = resolve(str(repo), first)
    assert at_first.commit == first
    assert at_first.text(str(repo / "later.py")) is None
    assert at_first.text(str(repo / "m.py")) == ORIGINAL.encode()
    # At HEAD the file is there, unchanged.
    assert since_head(repo, "later.py") == (False, set())


def test_texts_are_the_committed_bytes_of_each_path(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n", "pkg/b.py": "y = 2\r\n", "c.py": ""})
    commit(repo, {"a.py": "x = 10\n"}, "edit")
    revision = resolve(str(repo / "pkg"), "HEAD~1")
    assert revision.top == os.path.realpath(repo)
    paths = [str(repo / "pkg/b.py"), str(repo / "a.py"), str(repo / "c.py"), str(repo / "nope.py")]
    assert revision.texts(paths) == [b"y = 2\r\n", b"x = 1\n", b"", None]
    # Relative paths are read from the current directory, as the caller gave them.
    here = os.getcwd()
    try:
        os.chdir(repo / "pkg")
        assert revision.texts(["b.py", "../a.py"]) == [b"y = 2\r\n", b"x = 1\n"]
    finally:
        os.chdir(here)


def test_a_symlinked_folder_reaches_the_same_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"pkg/m.py": ORIGINAL})
    link = tmp_path / "link"
    link.symlink_to(repo / "pkg")
    revision = resolve(str(link), "HEAD")
    assert revision.text(str(link / "m.py")) == ORIGINAL.encode()


def test_a_symlink_in_the_tree_has_no_old_text(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    (repo / "alias.py").symlink_to("m.py")
    commit(repo, {}, "alias")
    assert resolve(str(repo), "HEAD").text(str(repo / "alias.py")) is None


def test_a_path_outside_the_work_tree_is_an_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    outside = tmp_path / "elsewhere.py"
    outside.write_text(ORIGINAL)
    with pytest.raises(HistoryError, match="outside the git work tree"):
        resolve(str(repo), "HEAD").text(str(outside))


def test_an_unknown_revision_is_an_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    with pytest.raises(HistoryError, match="no such commit"):
        resolve(str(repo), "no-such-branch")
    with pytest.raises(HistoryError, match="no such commit"):
        resolve(str(repo), "HEAD~5")
    with pytest.raises(HistoryError, match="not a revision"):
        resolve(str(repo), "--all")
    # A tree names no commit.
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    with pytest.raises(HistoryError, match="no such commit"):
        resolve(str(repo), tree)


def test_outside_a_git_work_tree_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    # tmp_path may itself sit inside some repository: stop git's search above it.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(HistoryError, match="not in a git work tree"):
        resolve(str(plain), "HEAD")
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    with pytest.raises(HistoryError, match="not in a git work tree"):
        resolve(str(repo / ".git"), "HEAD")
    with pytest.raises(HistoryError, match="no such folder"):
        resolve(str(tmp_path / "missing"), "HEAD")


def test_a_revision_lists_its_tree_once(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": ORIGINAL})
    revision = resolve(str(repo), "HEAD")
    assert isinstance(revision, Revision)
    assert revision.text(str(repo / "m.py")) == ORIGINAL.encode()
    # A commit's tree never changes: what was listed stays true after the branch moves.
    commit(repo, {"m.py": "x = 1\n"}, "rewrite")
    assert revision.text(str(repo / "m.py")) == ORIGINAL.encode()


def test_line_endings_and_a_uniform_reindent_are_no_change() -> None:
    crlf = ORIGINAL.replace("\n", "\r\n")
    assert changed_names(crlf, ORIGINAL.encode()) == (False, set())
    wrapped = "import os\nif True:\n" + "".join(
        f"    {line}\n" if line else "\n" for line in ORIGINAL.split("\n")[3:-1]
    )
    module, names = changed_names(wrapped, ORIGINAL.encode())
    assert module
    assert names == set()


def test_a_duplicate_next_to_an_unchanged_definition_is_a_change() -> None:
    doubled = ORIGINAL + "\n\ndef first(a):\n    return a + 1\n"
    parsed = parse_module(doubled.encode())
    assert parsed is not None
    scopes = collect_scopes(parsed.tree)
    found = changes(parsed.text, scopes, ORIGINAL.encode())
    firsts = [s for s in scopes if s.qualname == "first"]
    assert [found.covers(s) for s in firsts] == [False, True]


def test_old_text_that_is_not_python_makes_everything_new() -> None:
    module, names = changed_names(ORIGINAL, b"def broken(:\n")
    assert module
    assert names == {"first", "Box", "Box.size", "Box.name", "last"}
    assert changed_names(ORIGINAL, b"\xff\xfe not text") == (
        True,
        {"first", "Box", "Box.size", "Box.name", "last"},
    )
    assert changed_names(ORIGINAL, None) == (True, {"first", "Box", "Box.size", "Box.name", "last"})
