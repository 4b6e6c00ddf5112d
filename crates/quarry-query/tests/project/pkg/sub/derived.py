from .. import Base, Mixin, scale
from elsewhere import far
from ..base import Keyed
from ..shapes import Point
from pkg import Ordered
from pkg.cycle_b import Loop
from pkg.helpers import *
from pkg.shapes import *
from pkg.mid import Mid


class Derived(Base):
    def __init__(self):
        self.extra = 1


class Careful(Base):
    def __init__(self):
        Base.__init__(self)
        self.extra = 1


class Server(Mixin, Base):
    pass


class Version(Ordered):
    def __gt__(self, other):
        return self.key > other.key


class Unsure(Loop):
    def __init__(self):
        self.extra = 1

    def __lt__(self, other):
        return True


class Leaf(Mid):
    def __init__(self):
        Mid.__init__(self)


class Tagged(Keyed):
    def __init__(self, key, tag):
        self.key = key
        self.tag = tag


p = Point(1)
q = Point(1, 2)
s = scale(1)
t = scale(1, 2)
u = far(1, 2, 3)
