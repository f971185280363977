"""``python -m benchmarks``: run the suite."""

from benchmarks.runner import main

raise SystemExit(main())
