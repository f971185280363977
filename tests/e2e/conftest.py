"""Fixtures that start the real server over real pipes, for the end-to-end tests.

* ``spawn`` starts a fresh server (killed, with its process group, at teardown);
  ``server`` is one fresh server, ``ready`` one already initialized.
* ``shared`` is an initialized server kept for a whole test module, for tests that
  only need *a* healthy session (most analyze and transport-recovery checks).
  After each test it must still answer a ping with the right id; if it does not
  (it died, or it lost alignment), it is replaced, so one failure cannot cascade.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.protocol_client import ServerProcess, Spawn


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace directory: the server's working directory."""
    root = tmp_path / "workspace"
    root.mkdir()
    return root


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    """Where a test's server writes its JSON log (``--log-file``)."""
    return tmp_path / "server.log"


@pytest.fixture
def spawn(workspace: Path) -> Iterator[Spawn]:
    servers: list[ServerProcess] = []

    def start(
        *args: str, cwd: str | Path | None = None, env: dict[str, str] | None = None
    ) -> ServerProcess:
        server = ServerProcess(args=args, cwd=cwd if cwd is not None else workspace, env=env)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.kill()


@pytest.fixture
def server(spawn: Spawn) -> ServerProcess:
    return spawn()


@pytest.fixture
def ready(spawn: Spawn) -> ServerProcess:
    started = spawn()
    started.initialize()
    return started


class SharedServer:
    """One initialized server for a module, replaced whenever it is found unhealthy."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._server: ServerProcess | None = None

    def acquire(self) -> ServerProcess:
        if self._server is None:
            self._server = ServerProcess(cwd=self.cwd)
            self._server.initialize()
        return self._server

    def release(self) -> None:
        """Check the server after a test; replace it, and fail that test, if it is unhealthy."""
        server = self._server
        if server is None:
            return
        try:
            server.assert_silent(0.0)
            server.ping(timeout=5)
        except (AssertionError, OSError) as exc:
            stderr = server.stderr()[-2000:]
            self.close()
            raise AssertionError(
                f"the shared server is unhealthy after this test ({exc}); stderr tail: {stderr}"
            ) from None

    def close(self) -> None:
        if self._server is not None:
            with contextlib.suppress(Exception):
                self._server.kill()
            self._server = None


@pytest.fixture(scope="module")
def shared_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    pool = SharedServer(tmp_path_factory.mktemp("shared-workspace"))
    yield pool
    pool.close()


@pytest.fixture
def shared(shared_pool: SharedServer) -> Iterator[ServerProcess]:
    yield shared_pool.acquire()
    shared_pool.release()
