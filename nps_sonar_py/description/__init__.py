"""Robot descriptions: links, joints, shapes and sensors read from URDF (no ROS, no Open3D).

>>> robot = parse_robot('''<robot name="r"><link name="base"/>
...   <sensor name="s" type="sonar"><parent link="base"/><sonar max="7"/></sensor></robot>''')
>>> robot.sensor('s').sonar
SonarSpec(min=0.0, max=7.0, radius=0.5)

Rules, in full in ``docs/description.md``:

- Sensors come from ``<robot><sensor>`` (the URDF sensor proposal; ``origin`` is the optical
  frame, z forward, x right, y down) and from ``<gazebo reference="link"><sensor type="ray|
  gpu_ray|lidar|gpu_lidar|sonar">`` (SDF ``<pose>`` is x-forward and is turned into the optical
  frame). ``Sensor.origin`` is always parent_link <- optical frame.
- Surface properties: ``retro`` is Gazebo's ``laser_retro`` as written, from ``<laser_retro>``
  in a ``<visual>``/``<collision>`` or from ``<gazebo reference="link"><laser_retro>`` for
  shapes without their own. ``reflectivity`` is this package's Lambert coefficient in [0, 1],
  from ``<nps_sonar><reflectivity>`` at the same two places. The scene layer prefers
  ``reflectivity``, else maps ``retro``, else uses a default.
- Floating and planar joints load, but a pose through one raises ``DescriptionError``.
- Every problem in a description raises ``DescriptionError`` (file, line, element, problem).
"""

from __future__ import annotations

from nps_sonar_py.description.geometry import Box, Cylinder, Geometry, Mesh, Shape, Sphere, Surface
from nps_sonar_py.description.joints import Joint, JointLimit, JointType, Mimic
from nps_sonar_py.description.kinematics import joint_transform
from nps_sonar_py.description.sensor_specs import (
    BODY_FROM_OPTICAL_TRANSFORM,
    DEFAULT_RAY_MAX_RANGE,
    MAX_NOISE,
    MAX_RANGE,
    MAX_SCAN_RAYS,
    MAX_SCAN_RESOLUTION,
    MAX_SCAN_SAMPLES,
    OPTICAL_FROM_BODY_TRANSFORM,
    CameraSpec,
    ContactSpec,
    ForceTorqueFrame,
    ForceTorqueSpec,
    GpsSpec,
    ImuSpec,
    MagnetometerSpec,
    MeasureDirection,
    Noise,
    NoiseType,
    RangeSpec,
    RaySpec,
    RfidSpec,
    RfidTagSpec,
    ScanAxis,
    Sensor,
    SensorForm,
    SensorFrame,
    SensorSpec,
    SensorType,
    SonarSpec,
    UnreadSensor,
)
from nps_sonar_py.description.sensor_writer import sensor_to_xml
from nps_sonar_py.description.urdf import (
    DEFAULT_SOURCE,
    Link,
    Robot,
    load_robot,
    parse_robot,
)
from nps_sonar_py.description.values import FieldError
from nps_sonar_py.errors import DescriptionError

__all__ = [
    'BODY_FROM_OPTICAL_TRANSFORM',
    'DEFAULT_RAY_MAX_RANGE',
    'DEFAULT_SOURCE',
    'MAX_NOISE',
    'MAX_RANGE',
    'MAX_SCAN_RAYS',
    'MAX_SCAN_RESOLUTION',
    'MAX_SCAN_SAMPLES',
    'OPTICAL_FROM_BODY_TRANSFORM',
    'Box',
    'CameraSpec',
    'ContactSpec',
    'Cylinder',
    'DescriptionError',
    'FieldError',
    'ForceTorqueFrame',
    'ForceTorqueSpec',
    'Geometry',
    'GpsSpec',
    'ImuSpec',
    'Joint',
    'JointLimit',
    'JointType',
    'Link',
    'MagnetometerSpec',
    'MeasureDirection',
    'Mesh',
    'Mimic',
    'Noise',
    'NoiseType',
    'RangeSpec',
    'RaySpec',
    'RfidSpec',
    'RfidTagSpec',
    'Robot',
    'ScanAxis',
    'Sensor',
    'SensorForm',
    'SensorFrame',
    'SensorSpec',
    'SensorType',
    'Shape',
    'SonarSpec',
    'Sphere',
    'Surface',
    'UnreadSensor',
    'joint_transform',
    'load_robot',
    'parse_robot',
    'sensor_to_xml',
]
