"""Tests of one package or module of gzguide, in-process."""
