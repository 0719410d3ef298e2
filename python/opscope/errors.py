"""The loader's exception."""


class LoadError(ValueError):
    """A file that is not a well-formed opscope trace or profile CSV.

    The message starts with the file's path and says what is wrong, as
    opscope-analyze's errors do. A file that cannot be opened raises the
    usual OSError (FileNotFoundError, ...), which names the file too.
    """

    def __init__(self, path, message):
        super().__init__("%s: %s" % (path, message))
        self.path = str(path)
