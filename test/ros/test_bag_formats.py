"""The bag-to-file conversions of ``sonar_record`` without ROS: pixels, soundings, refusals.

``image_pixels`` reads mono8 and mono16 rows of either byte order and row padding
(``step`` wider than the pixels), checked against arrays the test packs itself (the
control: the big-endian row read as little-endian differs); ``cloud_points`` reads x, y, z
and beam from a cloud whose fields the test lays out at other offsets than the node's; a bag
without the topic an export needs is refused in one line naming the topic.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin, Writer

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.ros.bag_formats import FormatExports, cloud_points, image_pixels, write_formats


def image(values: np.ndarray, encoding: str, big: bool, pad: int) -> SimpleNamespace:
    """A stand-in sensor_msgs/Image of ``values``, rows padded by ``pad`` bytes."""
    kind = values.dtype.newbyteorder('>' if big else '<')
    rows = [values[r].astype(kind).tobytes() + bytes(pad) for r in range(values.shape[0])]
    return SimpleNamespace(
        encoding=encoding,
        is_bigendian=int(big),
        height=values.shape[0],
        width=values.shape[1],
        step=values.shape[1] * values.itemsize + pad,
        data=np.frombuffer(b''.join(rows), dtype=np.uint8),
    )


@pytest.mark.parametrize('big', [False, True])
def test_pixels_of_either_byte_order_and_padding(big: bool) -> None:
    values = np.arange(12, dtype=np.uint16).reshape(3, 4) * 1000 + 7
    np.testing.assert_array_equal(image_pixels(image(values, 'mono16', big, 3)), values)
    eight = values.astype(np.uint8)
    np.testing.assert_array_equal(image_pixels(image(eight, 'mono8', big, 1)), eight)
    if big:  # negative control: the same bytes read little-endian are other numbers
        wrong = image(values, 'mono16', big, 3)
        wrong.is_bigendian = 0
        assert not np.array_equal(image_pixels(wrong), values)


def test_an_image_of_another_encoding_is_refused() -> None:
    values = np.zeros((1, 2), dtype=np.uint8)
    with pytest.raises(ConfigurationError, match="encoding 'rgb8': expected mono8 or mono16"):
        image_pixels(image(values, 'rgb8', False, 0))


def test_cloud_points_by_the_fields_offsets() -> None:
    layout = np.dtype(
        {
            'names': ['beam', 'z', 'y', 'x'],
            'formats': ['<u2', '<f4', '<f4', '<f4'],
            'offsets': [0, 4, 8, 12],
            'itemsize': 24,
        }
    )
    cloud = np.zeros(2, dtype=layout)
    cloud['x'], cloud['y'], cloud['z'], cloud['beam'] = [1, 2], [3, 4], [5, 6], [9, 4]
    fields = [
        SimpleNamespace(name=n, offset=o) for n, o in (('beam', 0), ('z', 4), ('y', 8), ('x', 12))
    ]
    message = SimpleNamespace(
        fields=fields, is_bigendian=0, point_step=24, width=2, height=1, data=cloud.tobytes()
    )
    points, beams = cloud_points(message)
    np.testing.assert_array_equal(points, [[1, 3, 5], [2, 4, 6]])
    np.testing.assert_array_equal(beams, [9, 4])


def test_a_bag_without_the_topic_is_refused_in_one_line(tmp_path: Path) -> None:
    bag = tmp_path / 'bag'
    with Writer(bag, version=9, storage_plugin=StoragePlugin.MCAP):
        pass
    with pytest.raises(ConfigurationError) as caught:
        write_formats(bag, FormatExports(sidescan='sidescan'))
    assert (
        str(caught.value)
        == f'{bag}: no message on /sidescan/display_line to write the record from'
    )
