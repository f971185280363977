"""The moves: refactorings that are possible on the code as it stands, each found by
a detector that checks its preconditions and says how much of each concern it lowers.
"""
