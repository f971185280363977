"""The server's memory while one buffer is typed into: successive texts, one worker.

``python -m benchmarks.typing_rss [--texts N] [--every K]`` starts the real server
with one worker, initializes a 1.1 session and sends N texts of one buffer (the
standard library's ``inspect.py``, a comment line at its end changed each time,
so that every text is a new version a worker parses), printing each process's
RSS (MiB, the frontend first) every K texts. What it shows: whether the trees of
the versions a worker let go are freed as typing goes on (``child.Collector``),
or pile up until the next periodic full collection.
"""

from __future__ import annotations

import argparse
import inspect
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from gzguide import procfs
from gzguide.client import GuideClient


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.typing_rss", description=__doc__)
    parser.add_argument("--texts", type=int, default=200, help="texts to send (default 200)")
    parser.add_argument("--every", type=int, default=20, help="print RSS every so many texts")
    args = parser.parse_args(argv)
    if not procfs.supported():
        print("no /proc here: nothing to measure", file=sys.stderr)
        return 1
    source = Path(inspect.__file__).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="gzguide-typing-") as tmp:
        client = GuideClient.start(tmp, ["--workers", "1"], stderr=subprocess.DEVNULL)
        try:
            client.initialize("1.1")
            path = str(Path(tmp) / "buffer.py")
            print("texts  RSS MiB by process (frontend, worker)")
            for sent in range(1, args.texts + 1):
                client.call("analyze", {"file_path": path, "text": f"{source}\n# edit {sent}\n"})
                if sent == 1 or sent % args.every == 0:
                    assert client.pid is not None
                    rss = [procfs.rss_kib(pid) / 1024 for pid in procfs.tree(client.pid)]
                    print(f"{sent:5d}  " + " + ".join(f"{r:.1f}" for r in rss), flush=True)
        finally:
            client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
