"""The bounded LSP soak: the replayed session of ``tests/support/soak_lsp.py``, sized for CI.

One session (a fixed seed) runs once for this module; each test checks one promise
against its report. The full soak is a command, not a test::

    .venv/bin/python tests/support/soak_lsp.py --events 20000
"""

from __future__ import annotations

import pytest

from support.soak_lsp import LspSoakConfig, LspSoakReport, format_report, run_soak

#: Sized so that the module takes well under a minute on the project's 2-core machine.
CI_EVENTS = 3_000
CONFIG = LspSoakConfig(events=CI_EVENTS, seed=4_242, files=10)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> LspSoakReport:
    return run_soak(CONFIG, tmp_path_factory.mktemp("lsp-soak"))


def test_the_lsp_soak_passes(report: LspSoakReport) -> None:
    assert report.passed, "\n" + format_report(report)


def test_the_session_covers_every_kind_of_event(report: LspSoakReport) -> None:
    for kind in ("type", "delete", "paste", "crlf", "restore", "hover", "pull", "save"):
        assert report.events[kind], report.events
    assert report.events["close"] and report.events["reopen"], report.events
    assert report.events["garbage"], report.events


def test_every_publication_and_answer_was_checked(report: LspSoakReport) -> None:
    assert report.publications_checked >= report.publications_owed, format_report(report)
    assert report.publications_owed >= report.settles, format_report(report)
    assert report.answers >= report.requests, format_report(report)
    assert report.results_checked > (report.events["hover"] + report.events["pull"]) // 4
    assert report.settles >= CI_EVENTS // 150
