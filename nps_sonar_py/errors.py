"""The exceptions of nps_sonar_py: one base class and one subclass per kind of input."""

from __future__ import annotations

__all__ = ['ConfigurationError', 'DescriptionError', 'InputError', 'NpsSonarError', 'SceneError']


class NpsSonarError(Exception):
    """Base class of every error this package raises on purpose."""


class InputError(NpsSonarError):
    """A file or string that cannot be used, with where and what is wrong.

    ``str(error)`` is one line, ``"<file>:<line>: <element>: <problem>"``, leaving out
    the parts that are not known, so that a node can print it as its only output.
    """

    def __init__(
        self,
        problem: str,
        *,
        file: str | None = None,
        line: int | None = None,
        element: str | None = None,
    ) -> None:
        self.problem = problem
        self.file = file
        self.line = line
        self.element = element
        super().__init__(self._format())

    def _format(self) -> str:
        where = self.file or '<string>'
        if self.line is not None:
            where = f'{where}:{self.line}'
        parts = [where]
        if self.element:
            parts.append(self.element)
        parts.append(self.problem)
        return ': '.join(parts)


class DescriptionError(InputError):
    """A robot description (URDF, xacro, ``<sensor>``) that cannot be used."""


class SceneError(InputError):
    """A world description (scene file, ``<scene_state>``, model, mesh) that cannot be used."""


class ConfigurationError(NpsSonarError):
    """A sensor configuration (parameters, YAML) that is inconsistent or out of range."""
