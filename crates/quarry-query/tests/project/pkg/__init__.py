"""A package re-exporting classes of its modules."""
from .base import Base, Mixin, scale
from .shapes import *

__all__ = ["Base", "Mixin", "Point", "Ordered"]
