"""The ``entity_frames`` setting read into ``{entity: frame}`` (``scene/entity_frames.py``)."""

from __future__ import annotations

import pytest

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene.entity_frames import parse_entity_frames

ENTITIES = ('buoy', 'ring_buoy', 'pier')


def test_each_entity_follows_its_own_name_unless_a_frame_is_given() -> None:
    frames = parse_entity_frames(' buoy , ring_buoy = /ring ', ENTITIES, 'underwater')
    assert frames == {'buoy': 'buoy', 'ring_buoy': 'ring'}
    assert parse_entity_frames('  ', ENTITIES, 'underwater') == {}


@pytest.mark.parametrize(
    ('text', 'reason'),
    [
        ('buoy,', "item '': no entity named"),
        ('=buoy', "item '=buoy': no entity named"),
        ('buoy=/', "item 'buoy=/': an empty frame"),
        ('boy', "item 'boy': the world has no entity 'boy' (its entities: buoy, pier, ring_buoy)"),
        ('buoy, buoy=b', "item 'buoy=b': entity 'buoy' is named twice"),
        ('pier=underwater', "item 'pier=underwater': frame 'underwater' is the world frame"),
    ],
)
def test_a_bad_item_is_one_line_naming_it(text: str, reason: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        parse_entity_frames(text, ENTITIES, 'underwater')
    message = str(raised.value)
    assert message.startswith('entity_frames: ')
    assert reason in message
    assert '\n' not in message
