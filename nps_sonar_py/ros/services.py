"""The Ranger services of a device node: geometry, configuration, power and intensities.

``<device>/get_geometry``, ``<device>/get_config``, ``<device>/set_config`` (validated by
the device: an impossible configuration is refused with the reason and the device keeps its
last good one), ``<device>/power`` (off: nothing is read or published, the configuration is
kept) and ``<device>/enable_intensities``. The services run in the node's executor, so a
``SetConfig`` never runs during a reading: an accepted configuration applies from the next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rclpy.node import Node

from nps_sonar import srv as nps_srv
from nps_sonar_py.devices import Rig
from nps_sonar_py.ros.conversions import (
    ranger_config_from_message,
    ranger_config_message,
    ranger_geometry_message,
)

__all__ = ['RangerServices']


class RangerServices:
    """The five services of a rig's device, and the geometry and configuration they answer.

    ``on_change`` is called after a configuration was applied or the power switched;
    ``refusal`` says why the device, once reconfigured, could not be published (an image
    too large, say), and such a configuration is undone and refused.
    """

    def __init__(
        self,
        node: Node,
        rig: Rig,
        *,
        intensities: bool,
        on_change: Callable[[], None],
        refusal: Callable[[], str | None] = lambda: None,
    ) -> None:
        self.node = node
        self.rig = rig
        self.powered = True
        self.intensities = intensities
        self._on_change = on_change
        self._refusal = refusal
        self.refresh()
        prefix = rig.mount.name
        node.create_service(
            nps_srv.GetRangerGeometry, f'{prefix}/get_geometry', self._get_geometry
        )
        node.create_service(nps_srv.GetRangerConfig, f'{prefix}/get_config', self._get_config)
        node.create_service(nps_srv.SetRangerConfig, f'{prefix}/set_config', self._set_config)
        node.create_service(nps_srv.SetRangerPower, f'{prefix}/power', self._power)
        node.create_service(
            nps_srv.EnableRangerIntensities, f'{prefix}/enable_intensities', self._enable
        )

    def refresh(self) -> None:
        """Rebuild the geometry and configuration messages (once per change, not per reading)."""
        device = self.rig.device
        self.geometry_message = ranger_geometry_message(device.geometry)
        self.config_message = ranger_config_message(device.ranger_config())

    def _get_geometry(self, _request: Any, response: Any) -> Any:
        response.geometry = self.geometry_message
        return response

    def _get_config(self, _request: Any, response: Any) -> Any:
        response.config = self.config_message
        return response

    def _set_config(self, request: Any, response: Any) -> Any:
        device = self.rig.device
        previous = device.ranger_config()
        reason = device.reconfigure(ranger_config_from_message(request.config))
        if not reason:
            reason = self._refusal()
            if reason:
                device.reconfigure(previous)  # what was running is valid: it is restored
        if reason:
            self.node.get_logger().warning(f'SetConfig refused: {reason}')
        else:
            self.refresh()
            self._on_change()
            self.node.get_logger().info(f'SetConfig applied: {device.ranger_config()}')
        response.success = reason is None
        response.reason = reason or ''
        response.config = self.config_message
        return response

    def _power(self, request: Any, response: Any) -> Any:
        self.powered = bool(request.power)
        self._on_change()
        self.node.get_logger().info(f'power {"on" if self.powered else "off"}')
        response.success = True
        return response

    def _enable(self, request: Any, response: Any) -> Any:
        self.intensities = bool(request.enable)
        response.success = True
        return response
