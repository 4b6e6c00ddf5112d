from elsewhere import Loop, far


class Base(object):
    def __init__(self):
        self.ready = True

    def accept(self, conn):
        return conn


class Mixin(object):
    def accept(self, conn):
        conn.close()


class Point(object):
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Ordered(object):
    def __lt__(self, other):
        return self.key < other.key


class Keyed(object):
    def __eq__(self, other):
        return self.key == other.key


def scale(value, factor):
    return value * factor


class Mid(Base):
    def __init__(self):
        Base.__init__(self)


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
