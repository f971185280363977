"""Fixes: the text edits that make a move, verified before they are offered.

A move says what to change; a :class:`~gzguide.analysis.fixes.edits.Fix` is that
change as exact edits of the file's text, written as a person would make it (only
the lines that change, in the indentation of the code around). Each family of
moves has a module of fixers keyed by kind; :mod:`~gzguide.analysis.fixes.planner`
finds the fixes of a file's hints and keeps those :mod:`~gzguide.analysis.fixes.verify`
accepts.
"""
