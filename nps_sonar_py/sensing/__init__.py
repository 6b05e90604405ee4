"""Ray patterns of the simulated devices, in the sensor's body frame (x forward, REP 103)."""

from nps_sonar_py.sensing.cone import RayPattern, cone_half_angle, cone_pattern

__all__ = ['RayPattern', 'cone_half_angle', 'cone_pattern']
