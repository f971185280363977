"""How many samples each scenario takes, and how long it may run.

Every interleaved loop stops at its iteration count or at its time budget,
whichever comes first (after a few iterations at least), so the full suite stays
within about three minutes on a small, noisy machine; the numbers of samples
actually taken are reported with the results.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Plan:
    quick: bool
    #: spawn -> initialize answer, alternating with interpreter + imports.
    startup_pairs: int
    startup_budget_s: float
    #: warm analyze of the stdlib module (info and error logging) + bare round trips.
    warm_iterations: int
    warm_budget_s: float
    #: cold analyze (rewritten before each request), pool vs --workers 0.
    cold_iterations: int
    cold_budget_s: float
    #: warm analyze with a cursor at offsets spread over the module.
    cursor_iterations: int
    cursor_budget_s: float
    #: a directory of synthetic modules.
    directory_files: int
    directory_cold: int
    directory_warm: int
    directory_budget_s: float
    #: an editing session replay.
    edit_files: int
    edit_steps: int
    edit_budget_s: float
    #: distinct files analyzed one request each, and where memory is sampled.
    memory_files: int
    memory_samples: int
    #: LSP mode: didChange -> publishDiagnostics, interleaved with the in-process floor.
    lsp_iterations: int
    lsp_budget_s: float
    #: one baseline sample every this many iterations (they are slow).
    naive_every: int
    radon_every: int
    #: a buffer edited and sent as text (protocol 1.1), against its in-process analysis.
    text_edit_iterations: int
    text_edit_budget_s: float
    #: the unchanged buffer sent again, against the warm file path.
    text_warm_iterations: int
    text_warm_budget_s: float
    #: a 4 MiB buffer sent this many times, a changed version every so many sends.
    text_memory_sends: int
    text_memory_changed_every: int

    @classmethod
    def full(cls) -> Plan:
        return cls(
            quick=False,
            startup_pairs=30,
            startup_budget_s=10.0,
            warm_iterations=400,
            warm_budget_s=9.0,
            cold_iterations=40,
            cold_budget_s=12.0,
            cursor_iterations=300,
            cursor_budget_s=5.0,
            directory_files=200,
            directory_cold=4,
            directory_warm=40,
            directory_budget_s=16.0,
            edit_files=6,
            edit_steps=300,
            edit_budget_s=12.0,
            memory_files=3000,
            memory_samples=12,
            lsp_iterations=60,
            lsp_budget_s=30.0,
            naive_every=10,
            radon_every=50,
            text_edit_iterations=120,
            text_edit_budget_s=45.0,
            text_warm_iterations=400,
            text_warm_budget_s=9.0,
            text_memory_sends=1000,
            text_memory_changed_every=50,
        )

    @classmethod
    def quick_plan(cls) -> Plan:
        return cls(
            quick=True,
            startup_pairs=3,
            startup_budget_s=3.0,
            warm_iterations=30,
            warm_budget_s=1.5,
            cold_iterations=3,
            cold_budget_s=2.0,
            cursor_iterations=20,
            cursor_budget_s=1.0,
            directory_files=30,
            directory_cold=2,
            directory_warm=5,
            directory_budget_s=3.0,
            edit_files=3,
            edit_steps=20,
            edit_budget_s=2.0,
            memory_files=200,
            memory_samples=4,
            lsp_iterations=3,
            lsp_budget_s=2.0,
            naive_every=10,
            radon_every=30,
            text_edit_iterations=4,
            text_edit_budget_s=3.0,
            text_warm_iterations=20,
            text_warm_budget_s=1.0,
            text_memory_sends=20,
            text_memory_changed_every=10,
        )
