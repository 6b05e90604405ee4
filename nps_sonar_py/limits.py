"""The bounds every number from outside must keep: files, parameters, requests and messages.

One table, so that a pose is refused at the same size whether it comes from a URDF, a scene
file, a parameter, a service request or a message. The bounds are far beyond any real use and
exist to stop nonsense (uninitialised memory, a diverged filter, a unit mix-up) before it
reaches the raycaster, where a nan, an inf or an overflow stopped a node or made an entity
vanish.
"""

from __future__ import annotations

__all__ = [
    'MAX_ANGLE',
    'MAX_ANGULAR',
    'MAX_DEVICE_BYTES',
    'MAX_JOINT_POSITION',
    'MAX_LINEAR',
    'MAX_POSITION',
    'MAX_QUATERNION_NORM',
    'MAX_RATE',
    'MIN_QUATERNION_NORM',
    'MIN_RATE',
]

#: Largest coordinate of a position, m: a thousand kilometres, beyond any tank, harbour or
#: survey area. Open3D casts in float32, whose spacing there is already 6 cm, so a robot
#: farther out would get meaningless ranges anyway; products of poses stay far from float64
#: overflow.
MAX_POSITION = 1e6

#: Largest angle of a roll-pitch-yaw, rad (159 turns): room for any way of writing an angle,
#: while 1e308 (an arbitrary rotation after the sine's argument reduction) is refused.
MAX_ANGLE = 1e3

#: Largest component of a linear velocity, m/s: about seven times the speed of sound in water.
#: An entity moving at it for a century is still finitely far (3e13 m).
MAX_LINEAR = 1e4

#: Largest component of an angular velocity, rad/s: about 160 turns a second, above any
#: propeller or sonar head; the turn ``|w| dt`` stays finite and resolved.
MAX_ANGULAR = 1e3

#: Largest joint position, rad or m: a message does not say whether a joint turns or slides,
#: and a continuous joint (a wheel) counts turns without end: 1e9 rad is five years of a wheel
#: at 1 turn/s, where angles still resolve 1e-7 rad.
MAX_JOINT_POSITION = 1e9

#: Accepted band of a quaternion's norm (it is normalised when used): shorter is a zero
#: quaternion (an unset orientation) plus rounding; the upper bound is its mirror.
MIN_QUATERNION_NORM = 1e-6
MAX_QUATERNION_NORM = 1e6

#: Accepted band of a sensor's rate, Hz (readings, pings or scans per second, as a URDF
#: ``update_rate`` writes it): from one reading in 11.6 days to a million a second, beyond
#: any sensor described. Its period in nanoseconds, what a ROS timer takes, stays a whole and
#: finite int64 (1e-12 Hz overflowed it, 1e12 Hz made it 0). A device may accept less.
MIN_RATE = 1e-6
MAX_RATE = 1e6

#: The memory a device's settings may imply, bytes: 2 GiB, the arrays sized by its settings
#: (rays, profiles, baseband, images, the waterfall) summed with the measured bytes each
#: element costs (``devices/memory.py``). A setting that would need more is refused in one
#: line naming it and the memory, before anything is allocated; the presets of real sonars
#: need 84 to 489 MiB (docs/ros-conventions.md, Memory).
MAX_DEVICE_BYTES = 2 << 30
