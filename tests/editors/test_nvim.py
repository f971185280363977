"""Neovim itself shows the hints of an unsaved buffer through the LSP mode.

Headless ``nvim`` (0.7 or newer) loads ``editors/nvim`` and calls its ``setup`` with
the plugin's defaults, opens a file committed in a git work tree the test makes,
waits for the diagnostics, types an edit inside one function in normal mode (never
saved), waits for the diagnostics of the edited buffer, and writes what Neovim holds
to a JSON file. The test compares that with what ``analyze`` returns for the same two
texts: each hint on its definition's name; every move shown, the census (a budget,
no move) only on the edited function. A second run asks for the code actions on a
function whose move has a fix, applies the preferred one, and reads back the buffer
and the diagnostics. Without ``nvim`` the tests skip, saying why; under CI (``CI``
set, where ``.ci/run`` installs Neovim) a missing ``nvim`` fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.budget import BUDGET, HEADERS, IN_RETRY_DELAY
from support.gitrepo import committed
from support.lsp_pipes import name_range, proposes_nothing
from support.lsp_session import lines_of, reference_hints, severity
from support.paths import REPO

SCRIPT = r"""
local out_path, example = OUT_PATH, EXAMPLE
local function held()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    table.insert(out, {
      lnum = d.lnum, end_lnum = d.end_lnum, col = d.col, end_col = d.end_col,
      severity = d.severity, message = d.message, source = d.source,
    })
  end
  table.sort(out, function(a, b)
    if a.lnum ~= b.lnum then return a.lnum < b.lnum end
    return a.message < b.message
  end)
  return out
end
local function has(text)
  for _, d in ipairs(vim.diagnostic.get(0)) do
    if d.message:find(text, 1, true) then return true end
  end
  return false
end
vim.cmd("edit " .. vim.fn.fnameescape(example))
local opened = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 20)
local before = held()
vim.fn.search(SEARCHED)
vim.cmd("normal! $rTYPED")  -- typed over the line's last character; the buffer is not saved
local edited = vim.wait(30000, function() return has("more decision point") end, 20)
local result = {
  opened = opened, edited = edited, before = before, after = held(),
  modified = vim.bo.modified, clients = #vim.lsp.get_active_clients(),
}
vim.fn.writefile({ vim.fn.json_encode(result) }, out_path)
vim.cmd("qa!")
"""


def neovim() -> str:
    found = shutil.which("nvim")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("nvim is missing under CI: .ci/run installs Debian's neovim package")
        pytest.skip("nvim is not installed (Debian: apt-get install neovim)")
    return found


def run_neovim(tmp_path: Path, script: str) -> dict[str, Any]:
    """Headless Neovim with the plugin set up (debounce 0) runs ``script``, a Lua file's
    text that writes what it reads to ``OUT_PATH``; that JSON, read back."""
    nvim = neovim()
    out = tmp_path / "held.json"
    init = tmp_path / "init.lua"
    command = [sys.executable, "-m", "gzguide", "complexity", "guide", "--lsp"]
    init.write_text(
        f"vim.opt.runtimepath:append({json.dumps(str(REPO / 'editors' / 'nvim'))})\n"
        f"require('gzguide').setup({{ cmd = {{ {', '.join(map(json.dumps, command))} }},"
        " debounce_ms = 0 })\n",
        "utf-8",
    )
    lua = tmp_path / "run.lua"
    lua.write_text(script.replace("OUT_PATH", json.dumps(str(out))), "utf-8")
    options = ["--headless", "--noplugin", "-n", "-i", "NONE", "-u", str(init)]
    run = subprocess.run(
        [nvim, *options, "-c", f"luafile {lua}"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)},
    )
    assert out.exists(), f"nvim wrote nothing: {run.returncode} {run.stdout!r} {run.stderr!r}"
    held: dict[str, Any] = json.loads(out.read_text("utf-8"))
    return held


def expected(path: Path, text: str, census_on: set[int]) -> list[dict[str, Any]]:
    """What Neovim must hold for ``text``: each hint on its definition's name (columns
    in bytes, as Neovim counts them), the census only on the definitions whose header
    is on a line of ``census_on``; sorted as the script sorts."""
    lines = lines_of(text)
    held = []
    for h in reference_hints(path.parent, str(path), text):
        if proposes_nothing(h) and h["start_line"] not in census_on:
            continue
        at = name_range(h, lines, "utf-8")
        held.append(
            {
                "lnum": at["start"]["line"],
                "end_lnum": at["end"]["line"],
                "col": at["start"]["character"],
                "end_col": at["end"]["character"],
                "severity": severity(h),
                "message": f"{h['recommended_move']} {h['doctrinal_frame_headline']}.",
                "source": "gzguide",
            }
        )
    return sorted(held, key=lambda d: (d["lnum"], d["message"]))


def test_neovim_shows_the_census_on_the_edited_function_only(tmp_path: Path) -> None:
    example = committed(tmp_path / "repo", "budget.py", BUDGET)
    old, new = IN_RETRY_DELAY
    before_bytes = example.read_bytes()
    held = run_neovim(
        tmp_path,
        SCRIPT.replace("EXAMPLE", json.dumps(str(example)))
        .replace("SEARCHED", json.dumps(old))
        .replace("TYPED", new[-1]),
    )
    assert held["opened"] and held["edited"], held
    assert held["modified"] is True and held["clients"] == 1
    assert example.read_bytes() == before_bytes  # the edit stayed in the buffer
    text = before_bytes.decode("utf-8")
    assert held["before"] == expected(example, text, set())
    after = expected(example, text.replace(old, new, 1), {HEADERS["retry_delay"]})
    assert held["after"] == after
    assert [d["lnum"] + 1 for d in after] == [HEADERS["retry_delay"], HEADERS["has_negative"]]


FIX_SCRIPT = r"""
local out_path, example, line = OUT_PATH, EXAMPLE, LINE
local function moves()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(out, d.message) end
  table.sort(out)
  return out
end
vim.cmd("edit " .. vim.fn.fnameescape(example))
local opened = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 20)
local before = moves()
local client = vim.lsp.get_active_clients()[1]
vim.api.nvim_win_set_cursor(0, { line, 6 })
local params = vim.lsp.util.make_range_params()
params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(0) }
local answers = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 30000)
local titles, applied = {}, false
for _, answer in pairs(answers or {}) do
  for _, action in ipairs(answer.result or {}) do
    table.insert(titles, action.title)
    if action.kind == "quickfix" and action.isPreferred and not applied then
      vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
      applied = true
    end
  end
end
local changed = vim.wait(30000, function()
  local now = moves()
  return #now ~= #before or now[1] ~= before[1]
end, 20)
local result = {
  opened = opened, changed = changed, titles = titles, before = before, after = moves(),
  lines = vim.api.nvim_buf_get_lines(0, 0, -1, false), modified = vim.bo.modified,
}
vim.fn.writefile({ vim.fn.json_encode(result) }, out_path)
vim.cmd("qa!")
"""


def test_neovim_applies_a_fix_and_the_diagnostics_change(tmp_path: Path) -> None:
    example = committed(tmp_path / "repo", "budget.py", BUDGET)
    held = run_neovim(
        tmp_path,
        FIX_SCRIPT.replace("EXAMPLE", json.dumps(str(example))).replace(
            "LINE", str(HEADERS["has_negative"])
        ),
    )
    assert held["opened"] and held["changed"], held
    assert held["titles"] == ["Use any(): lizard_nesting_depth 2 -> 1"]
    fixed = BUDGET.replace(
        "    for value in values:\n        if value < 0:\n            return True\n"
        "    return False\n",
        "    return any(value < 0 for value in values)\n",
    )
    assert held["lines"] == fixed.splitlines() and held["modified"] is True
    assert [m for m in held["before"] if "any(" in m] and not [
        m for m in held["after"] if "any(" in m
    ]
