"""gzguide.workers without processes: caches, the memo and the scheduler's rules."""
