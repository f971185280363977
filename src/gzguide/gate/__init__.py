"""The gate, ``gz complexity check``: every value at or past a boundary of the active table.

:mod:`.listing` decides which values a check lists and where each one's name is;
:mod:`.formats` writes them for people, for programs (JSON) and for GitHub Actions;
:mod:`.command` runs a check over files and folders, optionally on code changed
since a git revision only (:mod:`gzguide.history`).
"""
