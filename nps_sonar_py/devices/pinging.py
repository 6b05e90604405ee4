"""What the devices that ping all their beams at once share: the ping rate, the window, the pose.

A multibeam fan (``FanRanger``), a side-scan (``SidescanRanger``) and an echosounder
(``EchosounderRanger``) each wrap one sonar of ``sensing``: a reading is one ping, no faster
than the two-way travel time to ``max_range`` allows, and a Ranger request may change the
range window and bin width (``echo_with_ranges``) as well as what the device itself owns.

:meth:`PingingRanger.reconfigure` is the one sequence of checks and the rebuild; a device
says only which angles it takes (``_angles_problem``) and what its new sonar is made of
(``_rebuilt``): a typed call of its sonar's constructor with the new echo (and beam axes,
:class:`BeamAxes`) and every other argument of the old sonar (``test/devices/test_pinging.py``
reads each back by name, so an argument a sonar gains later is checked too).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.devices.display import DisplayStage
from nps_sonar_py.devices.interface import (
    IndependentReadings,
    RangerConfig,
    RangerGeometry,
    config_problem,
    frequency_problem,
    steps_problem,
    window_problem,
)
from nps_sonar_py.devices.memory import Size, budget_problem, cell_size
from nps_sonar_py.devices.sonar import travel_time_problem
from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.display import DisplayImage
from nps_sonar_py.errors import ConfigurationError

__all__ = [
    'MAX_BINS',
    'BeamAxes',
    'PingedSonar',
    'PingingRanger',
    'beam_axes',
    'echo_with_ranges',
    'ping_rate_problem',
]

#: Most range bins a configuration may ask for (a guard against a stalled node).
MAX_BINS = 1_000_000


class PingedSonar(Protocol):
    """A sonar of ``sensing`` that a pinging device wraps: its echo and its pose."""

    @property
    def echo(self) -> EchoConfig: ...  # noqa: D102

    @property
    def coherent(self) -> CoherentConfig | None: ...  # noqa: D102

    def set_pose(self, world_from_body: NDArray[np.float64]) -> None: ...  # noqa: D102


SonarT = TypeVar('SonarT', bound=PingedSonar)


class PingingRanger(IndependentReadings, Generic[SonarT]):
    """A device of one element whose reading is one ping of ``sonar`` at ``frequency`` Hz.

    ``display``: the display chain after its echo (``devices/display.py``), set by the
    builder of a kind that has one; ``None``: none (:meth:`displayed` gives no image).

    Raises:
        ConfigurationError: ``frequency`` outside the devices' bounds, or faster than the
            two-way travel time to ``max_range`` (``ping_rate_problem``).
    """

    def __init__(
        self,
        sonar: SonarT,
        geometry: RangerGeometry,
        *,
        frequency: float,
        limits: tuple[float, float] | None = None,
    ) -> None:
        problem = ping_rate_problem(sonar.echo, frequency)
        if problem:
            raise ConfigurationError(problem)
        self.sonar = sonar
        self.geometry = geometry
        self.frequency = frequency
        self.limits = limits or (sonar.echo.min_range, sonar.echo.max_range)
        self.display: DisplayStage | None = None

    @property
    def echo(self) -> EchoConfig:
        """The beams' echo configuration."""
        return self.sonar.echo

    @property
    def period(self) -> float:
        """Seconds between pings."""
        return 1.0 / self.frequency

    def displayed(self, reading: Any) -> DisplayImage | None:
        """The device's stored image of ``reading`` (its display chain's), or ``None``.

        ``None`` without a display chain, or for a reading without an echo record.
        """
        if self.display is None or getattr(reading, 'echo', None) is None:
            return None
        return self.display.image(reading, self.echo)

    def set_pose(self, world_from_device: NDArray[np.float64]) -> None:
        """Place the sonar: the pose of its x-forward body frame."""
        self.sonar.set_pose(world_from_device)

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Range window, bin width, ping rate and the angles the device takes; else why not.

        In order: the bounds of every device and the range window (``limits``), the device's
        angles (``_angles_problem``), the bin count (``echo_with_ranges``), the ping rate
        (``ping_rate_problem``), the memory its cells need (``devices/memory.py``), then the
        sonar itself (``_rebuilt``). A refusal changes nothing.
        """
        problem = config_problem(config) or window_problem(config, None, self.limits)
        problem = problem or self._angles_problem(config)
        if problem:
            return problem
        try:
            echo = echo_with_ranges(self.sonar.echo, config)
            problem = ping_rate_problem(echo, config.frequency)
            problem = problem or budget_problem(self._request_sizes(echo, config))
            if problem:
                return problem
            sonar = self._rebuilt(echo, config)
        except (ConfigurationError, ValueError) as error:
            return str(error)
        self.sonar = sonar
        self.frequency = config.frequency
        return None

    def _angles_problem(self, config: RangerConfig) -> str | None:
        """Why the device cannot take the angles of ``config`` (within the bounds), or ``None``."""
        raise NotImplementedError

    def _beams_of(self, config: RangerConfig) -> int:
        """The beams of a ping of ``config``: one per axis (a fan's, a swath's)."""
        return beam_axes(config).beams

    def _request_sizes(self, echo: EchoConfig, config: RangerConfig) -> tuple[Size, ...]:
        """What a ping of ``config`` allocates by the request's size: its (beam, bin) cells."""
        beams = self._beams_of(config)
        names = (
            f'range_resolution {config.range_resolution:g} m ({echo.n_bins} bins) x {beams} beams'
        )
        return (cell_size(names, beams * echo.n_bins, self.sonar.coherent is not None),)

    def _rebuilt(self, echo: EchoConfig, config: RangerConfig) -> SonarT:
        """The sonar of ``echo`` and the angles of ``config``, the rest as ``self.sonar``'s.

        Raises:
            ConfigurationError, ValueError: a sonar its constructor refuses.
        """
        raise NotImplementedError


def ping_rate_problem(echo: EchoConfig, frequency: float) -> str | None:
    """Why ``frequency`` pings per second are impossible for ``echo``, or ``None``."""
    return frequency_problem(frequency) or travel_time_problem(echo, frequency)


def echo_with_ranges(echo: EchoConfig, config: RangerConfig) -> EchoConfig:
    """``echo`` with the window and bin width of ``config`` (0 keeps the bin count).

    Raises:
        ConfigurationError: the bin width makes more than ``MAX_BINS`` bins.
    """
    min_range = config.min_range
    span = config.max_range - min_range
    n_bins = (
        echo.n_bins
        if config.range_resolution == 0.0
        else max(1, round(span / config.range_resolution))
    )
    if n_bins > MAX_BINS:
        raise ConfigurationError(
            f'range_resolution {config.range_resolution:g} m makes {n_bins} bins, '
            f'more than {MAX_BINS}'
        )
    return dataclasses.replace(
        echo, min_range=min_range, max_range=config.max_range, n_bins=n_bins
    )


@dataclass(frozen=True)
class BeamAxes:
    """The beam axes a Ranger request asks of a fan or a swath: count, first and last (rad)."""

    beams: int
    min_angle: float
    max_angle: float


def beam_axes(config: RangerConfig) -> BeamAxes:
    """The beam count and the first and last axis of ``config``, one per ``angular_resolution``.

    Raises:
        ValueError: a span that is not a whole number of steps (``steps_problem``).
    """
    intervals, problem = steps_problem(config)
    if problem:
        raise ValueError(problem)
    return BeamAxes(intervals + 1, config.min_angle, config.max_angle)
