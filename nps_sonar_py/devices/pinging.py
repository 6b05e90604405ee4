"""What the devices that ping all their beams at once share: the ping rate, the window, the pose.

A multibeam fan (``FanRanger``), a side-scan (``SidescanRanger``) and an echosounder
(``EchosounderRanger``) each wrap one sonar of ``sensing``: a reading is one ping, no faster
than the two-way travel time to ``max_range`` allows, and a Ranger request may change the
range window and bin width (``echo_with_ranges``) as well as what the device itself owns.
"""

from __future__ import annotations

import dataclasses
from typing import Generic, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.devices.interface import (
    IndependentReadings,
    RangerConfig,
    RangerGeometry,
    frequency_problem,
)
from nps_sonar_py.devices.sonar import travel_time_problem
from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.errors import ConfigurationError

__all__ = ['MAX_BINS', 'PingedSonar', 'PingingRanger', 'echo_with_ranges', 'ping_rate_problem']

#: Most range bins a configuration may ask for (a guard against a stalled node).
MAX_BINS = 1_000_000


class PingedSonar(Protocol):
    """A sonar of ``sensing`` that a pinging device wraps: its echo and its pose."""

    @property
    def echo(self) -> EchoConfig: ...  # noqa: D102

    def set_pose(self, world_from_body: NDArray[np.float64]) -> None: ...  # noqa: D102


SonarT = TypeVar('SonarT', bound=PingedSonar)


class PingingRanger(IndependentReadings, Generic[SonarT]):
    """A device of one element whose reading is one ping of ``sonar`` at ``frequency`` Hz.

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

    @property
    def echo(self) -> EchoConfig:
        """The beams' echo configuration."""
        return self.sonar.echo

    @property
    def period(self) -> float:
        """Seconds between pings."""
        return 1.0 / self.frequency

    def set_pose(self, world_from_device: NDArray[np.float64]) -> None:
        """Place the sonar: the pose of its x-forward body frame."""
        self.sonar.set_pose(world_from_device)


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
