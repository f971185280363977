"""A worker that speaks the pool's IPC protocol and misbehaves on request.

The pool tests start it in place of the real worker. What it does with a job
depends on the job's file name:

* ``exit``: ``os._exit(3)``, as a C extension calling exit would;
* ``memory``: lets a MemoryError escape, which ends the interpreter;
* ``recursion``: lets a RecursionError escape;
* ``segv``: kills itself with SIGSEGV;
* ``hang``: never answers;
* ``print``: writes to fd 1 and to ``sys.stdout``, then answers;
* ``garbage``: answers, then, idle, writes bytes that are not a message;
* anything else: answers with an empty report, as a ``miss``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time


def main() -> int:
    os.dup2(2, 1)
    parser = argparse.ArgumentParser()
    for name in ("--jobs-fd", "--results-fd", "--parent-pid", "--index"):
        parser.add_argument(name, type=int)
    parser.add_argument("--log-level")
    parser.add_argument("--log-file")
    parser.add_argument("--cache-bytes", type=int)
    args = parser.parse_args()

    from gzguide.analysis.model import FileReport
    from gzguide.freshness import CacheState
    from gzguide.workers.ipc import Ready, Result, job_reader, pack

    def send(data: bytes) -> None:
        os.write(args.results_fd, data)

    send(pack(Ready(pid=os.getpid())))
    reader = job_reader()
    while chunk := os.read(args.jobs_fd, 65536):
        reader.feed(chunk)
        for job, _text in reader.jobs():
            name = os.path.basename(job.path)
            if name == "exit":
                os._exit(3)
            elif name == "memory":
                raise MemoryError
            elif name == "recursion":
                raise RecursionError("maximum recursion depth exceeded")
            elif name == "segv":
                os.kill(os.getpid(), signal.SIGSEGV)
            elif name == "hang":
                time.sleep(3600)
            elif name == "print":
                os.write(1, b"stray bytes on fd 1\n")
                print("stray print")
            send(pack(Result(job.seq, FileReport([]), CacheState.MISS, None, 0)))
            if name == "garbage":
                time.sleep(0.2)
                send(b"\xff\xff\xff\xff not a message")
    return 0


if __name__ == "__main__":
    sys.exit(main())
