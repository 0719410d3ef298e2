"""The package's exceptions."""


class LoadError(ValueError):
    """A file that is not a well-formed opscope trace, profile CSV or
    compiled model.

    The message starts with the file's path and says what is wrong, as
    opscope-analyze's and the runtime's errors do. A file that cannot be
    opened raises the usual OSError (FileNotFoundError, ...), which names
    the file too.
    """

    def __init__(self, path, message):
        path = str(path)
        # The runtime's messages already start with the path.
        if not message.startswith(path + ":"):
            message = "%s: %s" % (path, message)
        super().__init__(message)
        self.path = path


class CompileError(RuntimeError):
    """opscope-compile failed: the message is what it printed (naming the
    model, node or option); ``returncode`` is its exit status (1: the model,
    2: the options) and ``command`` the command line that ran."""

    def __init__(self, message, returncode=1, command=None):
        super().__init__(message)
        self.returncode = returncode
        self.command = list(command or [])


class RunError(RuntimeError):
    """A model run failed at run time (an out-of-range gather index, ...):
    the runtime's message, naming the op. The session stays usable."""
