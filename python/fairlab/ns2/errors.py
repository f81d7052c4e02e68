"""The ns-2 backend's errors (a module of their own: the command line
catches them without importing the backend)."""


class Ns2Unavailable(RuntimeError):
    """ns-2 is not installed (or does not run) on this machine."""


class Ns2Failed(RuntimeError):
    """ns-2 ran but stopped with an error or without finishing."""
