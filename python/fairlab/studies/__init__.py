"""The registry of studies: one module per source document.

Each module builds a :class:`~fairlab.studies.base.Study`, a list of
experiments, each reproducing one figure or table of its source with the
published numbers beside fairlab's. ``fairlab reproduce`` and the report are
generated from this registry.
"""

from __future__ import annotations

from .base import Experiment, Published, Study, Summary, Tolerance

__all__ = ["Experiment", "Published", "Study", "Summary", "Tolerance", "STUDIES", "get"]

#: Study name -> the module that defines it (imported when first asked for).
_MODULES = {
    "hcf": "hcf",
    "incast": "incast",
    "outcast": "outcast",
    "hashcast": "hashcast",
    "radon": "radon",
}


def names() -> list[str]:
    return list(_MODULES)


def get(name: str) -> Study:
    """The study called ``name`` (KeyError if there is none)."""
    import importlib

    module = importlib.import_module(f".{_MODULES[name]}", __name__)
    return module.STUDY


def __getattr__(attr: str):
    if attr == "STUDIES":
        return {n: get(n) for n in _MODULES}
    raise AttributeError(attr)
