"""Neovim itself shows the hints of an unsaved buffer through the LSP mode.

Headless ``nvim`` (0.7 or newer) loads ``editors/nvim`` and calls its ``setup``,
opens ``examples/orders.py``, waits for the diagnostics, types an edit in normal
mode (never saved), waits for the diagnostics of the edited buffer, and writes
what Neovim holds to a JSON file; the test compares that with what ``analyze``
returns for the same two texts. Without ``nvim`` the test skips, saying why;
under CI (``CI`` set, where ``.ci/run`` installs Neovim) a missing ``nvim`` fails.
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

from support.lsp_session import lines_of, reference_hints, severity
from support.paths import EXAMPLES, REPO

EXAMPLE = EXAMPLES / "orders.py"

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
vim.fn.search("BO-")
vim.cmd("normal! 2sZZ")  -- typed: "BO-" becomes "ZZ-" in the buffer, which is not saved
local edited = vim.wait(30000, function() return has("ZZ-") end, 20)
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


def expected(text: str) -> list[dict[str, Any]]:
    """What Neovim must hold for ``text``: each hint on its lines, sorted as the script sorts."""
    lines = lines_of(text)
    held = [
        {
            "lnum": h["start_line"] - 1,
            "end_lnum": h["end_line"] - 1,
            "col": 0,
            "end_col": len(lines[h["end_line"] - 1].encode("utf-8")),
            "severity": severity(h),
            "message": f"{h['doctrinal_frame_headline']}. {h['recommended_move']}",
            "source": "gzguide",
        }
        for h in reference_hints(EXAMPLE.parent, str(EXAMPLE), text)
    ]
    return sorted(held, key=lambda d: (d["lnum"], d["message"]))


def test_neovim_shows_the_hints_of_an_unsaved_buffer(tmp_path: Path) -> None:
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
    script = tmp_path / "run.lua"
    script.write_text(
        SCRIPT.replace("OUT_PATH", json.dumps(str(out))).replace(
            "EXAMPLE", json.dumps(str(EXAMPLE))
        ),
        "utf-8",
    )
    before_bytes = EXAMPLE.read_bytes()
    options = ["--headless", "--noplugin", "-n", "-i", "NONE", "-u", str(init)]
    run = subprocess.run(
        [nvim, *options, "-c", f"luafile {script}"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)},
    )
    assert out.exists(), f"nvim wrote nothing: {run.returncode} {run.stdout!r} {run.stderr!r}"
    held = json.loads(out.read_text("utf-8"))
    assert held["opened"] and held["edited"], held
    assert held["modified"] is True and held["clients"] == 1
    assert EXAMPLE.read_bytes() == before_bytes  # the edit stayed in the buffer
    text = before_bytes.decode("utf-8")
    assert held["before"] == expected(text)
    assert held["after"] == expected(text.replace('"BO-"', '"ZZ-"', 1))
