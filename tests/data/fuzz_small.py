def tally(a, b, c):
    if a:
        return 1
    if b:
        return 2
    if c:
        return 3
    return 0
