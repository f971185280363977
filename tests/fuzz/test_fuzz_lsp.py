"""Fuzz the LSP mode over real pipes, against an independent model of its lifecycle.

The same two properties as ``test_fuzz_server.py`` for the other mode (the model,
strategies and driver are ``support/fuzz_lsp.py``, on the framing model and garbage of
``support/fuzz_model.py`` and ``support/fuzz_strategies.py``):

* ``test_fuzzed_lsp_streams_on_a_long_lived_server``: one server across examples
  (replaced after a failure, after a stream that shut it down, and for one example
  in twenty, which starts a new session); every response up to a sync request's
  must be the model's, in order, nothing missing and nothing extra, and every
  notification a ``publishDiagnostics`` of a document the streams opened;
* ``test_fresh_lsp_sessions_end``: EOF at any byte, ``exit`` (after ``shutdown``:
  status 0; without: 1) followed by bytes that must be ignored, or a closed stdout;
  everything complete answered, the right status, no worker left behind.

``GZGUIDE_FUZZ_EXAMPLES`` sets the examples of the first property (the second gets
a twentieth, at least its CI count), as for the other mode's run::

    GZGUIDE_HYPOTHESIS=explore GZGUIDE_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest -q tests/fuzz/test_fuzz_lsp.py
"""  # noqa: E501

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import event, given, reject, settings
from hypothesis import strategies as st

from support.fuzz_budget import timeout_for
from support.fuzz_lsp import (
    NEW,
    RUNNING,
    SHUT_DOWN,
    EndingPlan,
    Finale,
    LspFuzzDriver,
    check_ending,
    classify_lsp,
    ending_plans,
    lsp_streams,
    prepare,
    run_lsp_model,
)
from support.fuzz_model import Ending
from support.fuzz_workspace import make_workspace
from support.lsp_pipes import LspProcess

#: Tuned with the other mode's run so that the whole suite stays well inside its budget.
CI_STREAM_EXAMPLES = 300
CI_ENDING_EXAMPLES = 30

_requested = int(os.environ.get("GZGUIDE_FUZZ_EXAMPLES", "0") or 0)
STREAM_EXAMPLES = _requested or CI_STREAM_EXAMPLES
ENDING_EXAMPLES = max(_requested // 20, CI_ENDING_EXAMPLES) if _requested else CI_ENDING_EXAMPLES


@pytest.fixture(scope="module")
def lsp_workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("lsp-fuzz-workspace")
    return root, make_workspace(root)


@pytest.fixture(scope="module")
def lsp_driver(lsp_workspace: tuple[Path, list[str]]) -> Iterator[LspFuzzDriver]:
    driver = LspFuzzDriver(lsp_workspace[0])
    yield driver
    driver.close()


@pytest.mark.timeout(timeout_for(STREAM_EXAMPLES, 1.0))
@settings(max_examples=STREAM_EXAMPLES)
@given(data=st.data())
def test_fuzzed_lsp_streams_on_a_long_lived_server(
    lsp_driver: LspFuzzDriver, lsp_workspace: tuple[Path, list[str]], data: st.DataObject
) -> None:
    _, paths = lsp_workspace
    fresh = data.draw(st.integers(0, 19), label="new session") == 0
    phase = lsp_driver.begin(fresh)
    fuzz = data.draw(lsp_streams(paths, phase), label="stream")
    prepared = prepare(fuzz)
    if prepared is None:
        reject()
    for kind in set(fuzz.units):
        event(f"unit: {kind}")
    event(f"session before: {phase}, after: {prepared[1].session}")
    lsp_driver.check(*prepared)


def test_long_lived_lsp_server_after_fuzzing(lsp_driver: LspFuzzDriver) -> None:
    """Fuzzing ran, and no server logged a traceback or an error-level line."""
    assert lsp_driver.examples >= STREAM_EXAMPLES // 2
    lsp_driver.close()
    assert lsp_driver.log_problems == []


@pytest.mark.timeout(timeout_for(ENDING_EXAMPLES, 5.0))
@settings(max_examples=ENDING_EXAMPLES)
@given(data=st.data())
def test_fresh_lsp_sessions_end(lsp_workspace: tuple[Path, list[str]], data: st.DataObject) -> None:
    root, paths = lsp_workspace
    plan: EndingPlan | None = data.draw(ending_plans(paths), label="plan")
    if plan is None:
        reject()
    event(f"finale: {plan.finale.value}, status {plan.status}")
    with LspProcess(args=("--workers", "1"), cwd=root) as lsp:
        check_ending(lsp, plan)


# == the model's fixed points ==================================================================


def _framed(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


INIT = _framed(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}')
SHUTDOWN = _framed(b'{"jsonrpc":"2.0","id":2,"method":"shutdown"}')
EXIT = _framed(b'{"jsonrpc":"2.0","method":"exit"}')
HOVER = _framed(
    b'{"jsonrpc":"2.0","id":3,"method":"textDocument/hover",'
    b'"params":{"textDocument":{"uri":"file:///x.py"},"position":{"line":0,"character":0}}}'
)


def test_model_lifecycle() -> None:
    run = run_lsp_model(HOVER + INIT + HOVER + INIT + SHUTDOWN + HOVER, NEW)
    assert [(e.id, e.code) for e in run.expected] == [
        (3, -32002),
        (1, None),
        (3, None),
        (1, -32600),
        (2, None),
        (3, -32600),
    ]
    assert run.session == SHUT_DOWN and run.ending is Ending.ALIGNED
    assert run_lsp_model(INIT + EXIT, NEW).exit_status == 1
    assert run_lsp_model(INIT + SHUTDOWN + EXIT + HOVER, NEW).exit_status == 0
    assert run_lsp_model(EXIT, NEW).exit_status == 1


@pytest.mark.parametrize(
    ("body", "answer"),
    [
        (b'{"id":1,"method":"initialize","params":{"capabilities":null}}', (1, -32602)),
        (b'{"id":1,"method":"initialize","params":{"processId":1.0}}', (1, -32602)),
        (
            b'{"id":1,"method":"initialize","params":{"initializationOptions":{"debounceMs":60001}}}',
            (1, -32602),
        ),
        (b'{"id":1,"method":"initialize"}', (1, -32602)),
        (b'{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}', (1, None)),
        (b'{"id":null,"method":"x"}', (None, -32600)),
        (b'{"id":"r","result":null}', None),
        (b'{"method":"textDocument/didOpen","params":5}', None),
        (b'{"id":7}', (7, -32600)),
    ],
)
def test_model_bodies(body: bytes, answer: tuple[object, int | None] | None) -> None:
    verdict = classify_lsp(body, NEW)
    got = None if verdict.answer is None else (verdict.answer.id, verdict.answer.code)
    assert got == answer


def test_model_requests_when_running() -> None:
    hover = b'{"id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"u"}}}'
    assert classify_lsp(hover, RUNNING).answer.code == -32602  # type: ignore[union-attr]
    pull = b'{"id":5,"method":"textDocument/diagnostic","params":{"textDocument":{"uri":"u"}}}'
    assert classify_lsp(pull, RUNNING).answer.result == ("report",)  # type: ignore[union-attr]
    assert Finale.EXIT.value == "exit"
