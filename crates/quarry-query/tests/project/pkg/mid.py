from . import base


class Mid(base.Base):
    def __init__(self):
        base.Base.__init__(self)
