"""Which values deserve a hint and what each hint says: the bands of a threshold table,
the comments that silence hints, the choice of one move per definition and concern
(``advice``), and the words around it (``headlines``, ``census``).
"""
