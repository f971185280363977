"""The gate, ``gz complexity check``, run as a command on files made for each case."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.paths import REPO
from support.tables import table

ROOT = REPO
FINDING_FIELDS = (
    "file_path",
    "line",
    "column",
    "end_line",
    "metric",
    "value",
    "level",
    "boundary",
    "kind",
    "name",
)


def gz(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gzguide", "complexity", "check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def branchy(name: str, complexity: int, indent: str = "", header: str = "def") -> str:
    """A function whose radon_cc is ``complexity`` (one ``if`` per point past 1)."""
    body = "".join(
        f"{indent}    if x == {i}:\n{indent}        return {i}\n" for i in range(complexity - 1)
    )
    return f"{indent}{header} {name}(x):\n{body}{indent}    return -1\n"


#: Line 5: ``parse`` (radon_cc 12, decorated); line 32: ``Reader.read`` (8, async, spaced:
#: its name is in column 17).
MIXED = (
    "import functools\n\n\n@functools.cache\n"
    + branchy("parse", 12)
    + "\n\nclass Reader:\n"
    + branchy("read", 8, indent="    ", header="async def  ")
    + "\n\ndef calm(x):\n    return x\n"
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def workspace_table(root: Path, document: bytes) -> None:
    target = root / ".gzkit" / "rules" / "complexity-thresholds.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(document)


def test_fixture_values_are_what_the_tests_say(tmp_path: Path) -> None:
    write(tmp_path / "m.py", MIXED)
    done = subprocess.run(
        [sys.executable, "-m", "gzguide", "complexity", "measure", "m.py", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=True,
    )
    cc = {
        r["name"]: (r["value"], r["start_line"])
        for r in json.loads(done.stdout)
        if r["metric"] == "radon_cc"
    }
    assert cc == {"parse": (12.0, 5), "Reader.read": (8.0, 32), "calm": (1.0, 50)}


def test_text_lists_each_value_at_or_past_warn_where_its_name_is(tmp_path: Path) -> None:
    write(tmp_path / "m.py", MIXED)
    done = gz("m.py", "--select", "radon_cc", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""
    assert done.stdout == (
        "m.py:5:5: radon_cc 12 (block at 11) in function parse\n"
        "m.py:32:17: radon_cc 8 (warn at 7) in method Reader.read\n"
        "2 values at or past warn in 1 file.\n"
    )


def test_nothing_at_or_past_warn_exits_0(tmp_path: Path) -> None:
    write(tmp_path / "calm.py", "def calm(x):\n    return x\n")
    done = gz("calm.py", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "No value at or past warn.\n", "")


def test_fail_at_block_lists_only_values_at_or_past_block(tmp_path: Path) -> None:
    write(tmp_path / "m.py", MIXED)
    done = gz("m.py", "--select", "radon_cc", "--fail-at", "block", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == (
        "m.py:5:5: radon_cc 12 (block at 11) in function parse\n"
        "1 value at or past block in 1 file.\n"
    )
    write(tmp_path / "warn_only.py", branchy("f", 8))
    done = gz("warn_only.py", "--fail-at", "block", "--select", "radon_cc", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "No value at or past block.\n")


def test_json_is_one_array_of_findings(tmp_path: Path) -> None:
    write(tmp_path / "m.py", MIXED)
    done = gz("m.py", "--select", "radon_cc", "--format", "json", cwd=tmp_path)
    assert done.returncode == 1
    found = json.loads(done.stdout)
    assert all(tuple(f) == FINDING_FIELDS for f in found)
    assert found == [
        {
            "file_path": "m.py",
            "line": 5,
            "column": 5,
            "end_line": 28,
            "metric": "radon_cc",
            "value": 12.0,
            "level": "block",
            "boundary": 11.0,
            "kind": "function",
            "name": "parse",
        },
        {
            "file_path": "m.py",
            "line": 32,
            "column": 17,
            "end_line": 47,
            "metric": "radon_cc",
            "value": 8.0,
            "level": "warn",
            "boundary": 7.0,
            "kind": "method",
            "name": "Reader.read",
        },
    ]
    calm = write(tmp_path / "calm.py", "x = 1\n")
    done = gz(str(calm), "--format", "json", cwd=tmp_path)
    assert (done.returncode, json.loads(done.stdout)) == (0, [])


def test_github_format_is_workflow_commands(tmp_path: Path) -> None:
    write(tmp_path / "odd, name: x.py", branchy("parse", 12))
    done = gz("odd, name: x.py", "--select", "radon_cc", "--format", "github", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "::error file=odd%2C name%3A x.py,line=1,col=5,endLine=24,"
        "title=radon_cc at or past block::radon_cc 12 (block at 11) in function parse",
        "1 value at or past warn in 1 file.",
    ]


def test_every_metric_of_the_table_by_default_and_select_keeps_some(tmp_path: Path) -> None:
    write(tmp_path / "m.py", MIXED)
    everything = json.loads(gz("m.py", "--format", "json", cwd=tmp_path).stdout)
    metrics = {f["metric"] for f in everything}
    assert {"radon_cc", "lizard_ccn", "radon_mi"} <= metrics
    module = [f for f in everything if f["kind"] == "module"]
    assert module and all((f["line"], f["column"], f["name"]) == (1, 1, "") for f in module)
    done = gz("m.py", "--format", "json", "--select", "lizard_ccn, radon_cc", cwd=tmp_path)
    picked = json.loads(done.stdout)
    assert {f["metric"] for f in picked} == {"radon_cc", "lizard_ccn"}
    assert picked == [f for f in everything if f["metric"] in {"radon_cc", "lizard_ccn"}]
    text = gz("m.py", cwd=tmp_path).stdout.splitlines()
    assert text[-1] == f"{len(everything)} values at or past warn in 1 file."
    assert "m.py:1:1: radon_mi " in "\n".join(text) and " in module" in "\n".join(text)


def test_an_unknown_metric_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "m.py", MIXED)
    done = gz("m.py", "--select", "radon_cc,radon_ccc", cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown metric 'radon_ccc'" in done.stderr
    assert done.stdout == ""


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    write(tmp_path / "m.py", MIXED)
    for args in (
        (),
        ("m.py", "--no-such-option"),
        ("m.py", "--fail-at", "advise"),
        ("m.py", "--format", "xml"),
    ):
        done = gz(*args, cwd=tmp_path)
        assert done.returncode == 2, args
        assert done.stdout == "", args


def test_the_workspace_table_applies_like_the_servers(tmp_path: Path) -> None:
    work = tmp_path / "work"
    write(
        work / "m.py",
        branchy("four", 4) + "\n\n" + branchy("six", 6) + "\n\ndef p(a, b, c):\n    return a\n",
    )
    workspace_table(
        work,
        table(
            ("radon_cc", 2, "advise"),
            ("radon_cc", 4, "warn"),
            ("radon_cc", 6, "block"),
            # Lower is worse: every value at or under 101 is past it.
            ("radon_mi", 101, "block"),
            # A block row alone gates at warn too.
            ("lizard_param_count", 3, "block"),
        ),
    )
    expected = [
        "m.py:1:1: radon_mi",
        "m.py:1:5: radon_cc 4 (warn at 4) in function four",
        "m.py:11:5: radon_cc 6 (block at 6) in function six",
        "m.py:25:5: lizard_param_count 3 (block at 3) in function p",
    ]
    for cwd, root in ((work, ()), (tmp_path, ("--root", str(work)))):
        done = gz("m.py" if cwd == work else "work/m.py", *root, cwd=cwd)
        assert done.returncode == 1, done.stderr
        lines = [line.removeprefix("work/") for line in done.stdout.splitlines()]
        assert [line[: len(e)] for line, e in zip(lines, expected, strict=False)] == expected
        assert lines[0].endswith("(block at 101) in module")
        assert lines[-1] == "4 values at or past warn in 1 file."
    # Without the workspace table, the default applies.
    done = gz("work/m.py", cwd=tmp_path)
    assert "radon_cc" not in done.stdout


def test_an_invalid_workspace_table_is_named_and_the_default_applies(tmp_path: Path) -> None:
    write(tmp_path / "m.py", MIXED)
    workspace_table(tmp_path, b'{"bands": 3}')
    done = gz("m.py", "--select", "radon_cc", cwd=tmp_path)
    assert "complexity-thresholds.json" in done.stderr
    assert "the embedded default table applies" in done.stderr
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == "m.py:5:5: radon_cc 12 (block at 11) in function parse"


def test_a_file_that_is_not_python_is_named_and_fails(tmp_path: Path) -> None:
    write(tmp_path / "notes.txt", "not python (\n")
    write(tmp_path / "calm.py", "x = 1\n")
    done = gz("notes.txt", "calm.py", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == "gz: notes.txt: not analyzable Python\n"
    assert done.stdout == "No value at or past warn.\n"
    write(tmp_path / "m.py", MIXED)
    done = gz("m.py", "missing.py", "--select", "radon_cc", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == "gz: missing.py: not analyzable Python\n"
    assert done.stdout.endswith("2 values at or past warn in 1 file.\n")


def test_folders_are_walked_as_measure_walks_them(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "b.py", branchy("b", 7))
    write(tmp_path / "pkg" / "sub" / "a.py", branchy("a", 11))
    write(tmp_path / "pkg" / "broken.py", "def (:\n")
    write(tmp_path / "pkg" / ".hidden" / "c.py", branchy("c", 20))
    write(tmp_path / "pkg" / "README.md", "# not python")
    done = gz("pkg", "--select", "radon_cc", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == "gz: pkg/broken.py: not analyzable Python\n"
    assert done.stdout == (
        "pkg/b.py:1:5: radon_cc 7 (warn at 7) in function b\n"
        "pkg/sub/a.py:1:5: radon_cc 11 (block at 11) in function a\n"
        "2 values at or past warn in 2 files.\n"
    )


def test_the_column_is_the_names_even_across_a_line_continuation(tmp_path: Path) -> None:
    text = (
        "class \\\n  Outer:\n"
        + branchy("inner", 7, indent="\t", header="def")
        + "\n\n"
        + branchy("spelled", 7, header="async \\\n def \\\n   ")
    )
    write(tmp_path / "m.py", text)
    done = gz("m.py", "--select", "radon_cc", cwd=tmp_path)
    assert done.stdout.splitlines()[:2] == [
        "m.py:3:6: radon_cc 7 (warn at 7) in method Outer.inner",
        "m.py:21:5: radon_cc 7 (warn at 7) in function spelled",
    ]


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        capture_output=True,
        check=True,
    )


def test_since_lists_only_values_on_changed_code(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    old = branchy("kept", 9) + "\n\n" + branchy("edited", 9)
    write(repo / "src" / "m.py", old)
    write(repo / "src" / "same.py", branchy("untouched", 12))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    # ``added`` is new and pushes ``kept`` down; ``edited`` has a new last line.
    edited = branchy("edited", 9).replace("return -1", "return -2")
    new = branchy("added", 8) + "\n\n" + branchy("kept", 9) + "\n\n" + edited
    write(repo / "src" / "m.py", new)
    write(repo / "src" / "fresh.py", branchy("fresh", 7))
    done = gz("src", "--since", "HEAD", "--select", "radon_cc", cwd=repo)
    assert done.returncode == 1, done.stderr
    assert done.stdout == (
        "src/fresh.py:1:5: radon_cc 7 (warn at 7) in function fresh\n"
        "src/m.py:1:5: radon_cc 8 (warn at 7) in function added\n"
        "src/m.py:39:5: radon_cc 9 (warn at 7) in function edited\n"
        "3 values at or past warn in 2 files.\n"
    )
    # Without --since, the unchanged ones are there too.
    everything = gz("src", "--select", "radon_cc", cwd=repo).stdout
    assert "function kept" in everything and "function untouched" in everything
    # Module values count when the file changed at all.
    module_values = gz("src", "--since", "HEAD", "--format", "json", cwd=repo).stdout
    modules = {f["file_path"] for f in json.loads(module_values) if f["kind"] == "module"}
    assert "src/same.py" not in modules
    # From a folder of the work tree: paths as given there.
    inside = gz("m.py", "--since", "HEAD", "--select", "radon_cc", cwd=repo / "src")
    assert inside.stdout.splitlines()[0] == "m.py:1:5: radon_cc 8 (warn at 7) in function added"
    # Nothing changed since the work tree's own state is committed.
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "second")
    done = gz("src", "--since", "HEAD", cwd=repo)
    assert (done.returncode, done.stdout) == (0, "No value at or past warn.\n")
    done = gz("src", "--since", "HEAD~1", "--select", "radon_cc", cwd=repo)
    assert done.stdout.splitlines()[-1] == "3 values at or past warn in 2 files."


def test_since_usage_errors_exit_2(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / "m.py", MIXED)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    outside = write(tmp_path / "outside.py", MIXED)
    plain = tmp_path / "plain"
    write(plain / "m.py", MIXED)
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    for args, cwd, says in (
        (("m.py", "--since", "no-such-revision"), repo, "no such commit"),
        (("m.py", "--since", "HEAD~3"), repo, "no such commit"),
        ((str(outside), "--since", "HEAD"), repo, "outside the git work tree"),
        (("m.py", "--since", "HEAD"), plain, "not in a git work tree"),
    ):
        done = gz(*args, cwd=cwd, env=env)
        assert done.returncode == 2, (args, done.stderr)
        assert says in done.stderr
        assert done.stdout == ""


def test_the_pre_commit_hook_runs_the_gate_on_the_files_it_is_given(tmp_path: Path) -> None:
    hook = dict(
        line.lstrip("- ").split(": ", 1)
        for line in (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines()
        if line.startswith(("- id:", "  entry:", "  language:", "  types:"))
    )
    assert hook == {
        "id": "gzguide-check",
        "entry": "gz complexity check",
        "language": "python",
        "types": "[python]",
    }
    write(tmp_path / "bad.py", branchy("bad", 12))
    write(tmp_path / "good.py", "x = 1\n")
    bin_dir = Path(sys.executable).parent
    entry = [str(bin_dir / hook["entry"].split()[0]), *hook["entry"].split()[1:]]
    run = [*entry, "--select", "radon_cc"]
    done = subprocess.run([*run, "good.py"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([*run, "good.py", "bad.py"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith("bad.py:1:5: radon_cc 12 (block at 11) in function bad\n")


def run_ci_gate(source: Path, record: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            str(ROOT / ".ci" / "gate.py"),
            "--source",
            str(source),
            "--record",
            str(record),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("recorded", "status", "says"),
    [
        ((2, 1), 0, ""),
        ((1, 1), 1, "2 at or past warn, above the record 1"),
        ((2, 0), 1, "1 at or past block, above the record 0"),
        ((5, 1), 0, 'lower "at_or_past_warn" to 2'),
    ],
)
def test_the_ci_ratchet_fails_only_when_a_count_rises(
    tmp_path: Path, recorded: tuple[int, int], status: int, says: str
) -> None:
    source = tmp_path / "src"
    write(
        source / "m.py",
        branchy("big", 12) + "\n\n" + branchy("mid", 8) + "\n\ndef f():\n    return 1\n",
    )
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"at_or_past_warn": recorded[0], "at_or_past_block": recorded[1]}))
    done = run_ci_gate(source, record)
    assert done.returncode == status, done.stderr
    assert "2 of 3 functions at or past warn" in done.stdout
    assert "1 at or past block" in done.stdout
    assert says in done.stdout + done.stderr
    assert ("FAIL" in done.stderr) == (status == 1)
