#Ignore from __future__ imports when considering unused imports
from __future__ import division, print_function

__all__ = []
