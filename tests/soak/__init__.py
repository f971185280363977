"""Bounded soaks of both modes: long replayed editing sessions (slow)."""
