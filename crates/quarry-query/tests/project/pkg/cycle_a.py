# An import cycle: cycle_a and cycle_b take `Loop` from each other, and
# shapes imports this module while this module imports shapes.
from .cycle_b import Loop
from . import shapes


class Again(shapes.Point):
    pass
