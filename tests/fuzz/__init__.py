"""Fuzzing both modes over real pipes against independent models (slow)."""
