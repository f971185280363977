import os


def route(kind, size, flag):
    if kind == "a":
        return 1
    if size > 10:
        return 2
    if flag:
        return 3
    if kind == "b" and size:
        return 4
    return 0


class Dispatcher:
    def pick(self, a, b, c, d, e):
        if a:
            return a
        if b:
            return b
        if c:
            return c
        if d:
            return d
        if e:
            return e
        return None

    def plain(self):
        return os.sep
