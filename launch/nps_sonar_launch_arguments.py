"""What the launch files of nps_sonar share: their common arguments and how a given one wins.

Not a launch file itself (its name does not end in ``launch.py``, so ``ros2 launch`` does not
offer it): each ``*.launch.py`` beside it imports it from its own directory
(``share/nps_sonar/launch`` once installed, ``launch/`` in the source tree), which it puts on
``sys.path`` first (``ros2 launch`` loads a launch file by its path, not as a package).
"""

from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.parameter_descriptions import ParameterValue


def namespace_argument(what='the node and topics'):
    """Return the ``namespace`` argument: empty, the root namespace."""
    return DeclareLaunchArgument('namespace', default_value='', description=f'namespace of {what}')


def use_sim_time_argument():
    """Return the ``use_sim_time`` argument: empty leaves the params_file value (else false)."""
    return DeclareLaunchArgument(
        'use_sim_time',
        default_value='',
        description='stamp with /clock (true/false); empty: the params_file value, else false',
    )


def given(context, overrides):
    """Return the parameters of the launch arguments that were given (not empty).

    ``overrides``: launch argument -> (node parameter, type). A given argument wins over the
    params_file; an empty one leaves the params_file's value.
    """
    return {
        parameter: ParameterValue(LaunchConfiguration(argument), value_type=kind)
        for argument, (parameter, kind) in overrides.items()
        if LaunchConfiguration(argument).perform(context)
    }
