"""A ray sensor (``type="ray"``) as a device of one element: a scanner returning many ranges."""

from __future__ import annotations

import dataclasses

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.devices.interface import (
    IndependentReadings,
    RangerConfig,
    RangerGeometry,
    config_problem,
    steps_problem,
    window_problem,
)
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.scan import AxisSampling, ScanConfig, Scanner, ScanReading

__all__ = ['ScannerRanger']


class ScannerRanger(IndependentReadings):
    """A ray sensor as a Ranger device of one element.

    ``limits`` (the description's configuration) bound what ``SetConfig`` may ask: the angle
    window and the range window can only be narrowed; the reading spacing may change (the
    rays per reading, ``resolution``, and the vertical rows are kept).
    """

    def __init__(
        self, limits: ScanConfig, world_from_body: NDArray[np.float64], geometry: RangerGeometry
    ) -> None:
        self.limits = limits
        self.geometry = geometry
        self.scanner = Scanner(limits, world_from_body)

    @property
    def config(self) -> ScanConfig:
        """The scanner's configuration in force."""
        return self.scanner.config

    @property
    def period(self) -> float:
        """Seconds between scans."""
        return 1.0 / self.config.update_rate

    def set_pose(self, world_from_device: NDArray[np.float64]) -> None:
        """Place the scanner: the pose of its x-forward body frame."""
        self.scanner.set_pose(world_from_device)

    def read(self, caster: SurfaceCaster) -> ScanReading:
        """One scan from the current pose."""
        return self.scanner.scan(caster)

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms."""
        cfg = self.config
        return RangerConfig(
            min_angle=cfg.horizontal.min_angle,
            max_angle=cfg.horizontal.max_angle,
            angular_resolution=AxisSampling(cfg.horizontal).increment,
            min_range=cfg.min_range,
            max_range=cfg.max_range,
            range_resolution=cfg.range_resolution,
            frequency=cfg.update_rate,
        )

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Apply ``config`` unless impossible (then the reason, and nothing changes)."""
        hw = self.limits.horizontal
        problem = config_problem(config) or window_problem(
            config,
            (hw.min_angle, hw.max_angle),
            (self.limits.min_range, self.limits.max_range),
        )
        if problem:
            return problem
        intervals, problem = steps_problem(config)
        if problem:
            return problem
        old = self.config
        try:
            horizontal = dataclasses.replace(
                old.horizontal,
                samples=intervals + 1,
                min_angle=config.min_angle,
                max_angle=config.max_angle,
            )
            new = dataclasses.replace(
                old,
                horizontal=horizontal,
                min_range=config.min_range,
                max_range=config.max_range,
                range_resolution=config.range_resolution,
                update_rate=config.frequency,
            )
            scanner = Scanner(new, self.scanner.world_from_body)
        except (ConfigurationError, ValueError) as error:
            return str(error)
        self.scanner = scanner
        return None
