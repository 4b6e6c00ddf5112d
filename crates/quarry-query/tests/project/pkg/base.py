class Base(object):
    def __init__(self):
        self.ready = True

    def accept(self, conn):
        return conn


class Mixin(object):
    def accept(self, conn):
        conn.close()


class Keyed(object):
    def __eq__(self, other):
        return self.key == other.key


def scale(value, factor):
    return value * factor
