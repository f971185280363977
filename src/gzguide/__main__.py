"""``python -m gzguide`` is the same as the ``gz`` command."""

from gzguide.cli import main

raise SystemExit(main())
