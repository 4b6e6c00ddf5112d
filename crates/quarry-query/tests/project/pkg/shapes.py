from . import cycle_a

__all__ = ["Point", "Ordered"]


class Point(object):
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Ordered(object):
    def __lt__(self, other):
        return self.key < other.key


class _Hidden(object):
    pass
