"""What is true of the code, before any metric or move: the parse, its lines and
definitions, the one walk of each function (its decision points, scopes and the
liveness of its names), the shape of a statement, and the copies a file holds.
"""
