"""gzguide.analysis: metrics, facts, moves, policy, the engine and its hints."""
