"""The benchmark suite's own parts."""
