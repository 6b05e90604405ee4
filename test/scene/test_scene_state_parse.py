"""<scene_state>: parsing, defaults, exact twist integration, and its errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene.scene_state import (
    EntityState,
    integrate_twist,
    load_scene_state,
    parse_scene_state,
    split_frame,
)
from nps_sonar_py.transforms import axis_angle_matrix, rpy_to_matrix, transform_from_xyz_rpy

SEED_EXAMPLE = """\
<scene_state scene="pr2_with_table" time_stamp="0.0">
  <entity_state model="prj">
    <parent frame="world"/>
    <origin xyz="0 0 0" rpy="0 0 0"/>
    <twist linear="0 0 0" angular="0 0 0"/> <!-- see documentation -->
  </entity_state>

  <entity_state model="table">
    <parent frame="world"/>
    <origin xyz="1 0 0" rpy="0 0 0"/>
    <twist linear="0 0 0" angular="0 0 0"/> <!-- see documentaiton -->
  </entity_state>
</scene_state>
"""


def test_the_proposal_example_parses():
    state = parse_scene_state(SEED_EXAMPLE, source='seed.xml')
    assert state.scene == 'pr2_with_table'
    assert state.time_stamp == 0.0
    assert [e.model for e in state.entities] == ['prj', 'table']
    table = state.entity('table')
    assert table is not None
    assert table.frame == 'world'
    assert table.line == 8
    np.testing.assert_array_equal(table.origin, transform_from_xyz_rpy([1, 0, 0], [0, 0, 0]))
    assert not table.moves
    assert state.entity('nobody') is None


def test_origin_and_twist_default_to_identity_and_zero():
    state = parse_scene_state(
        '<scene_state scene="s" time_stamp="2.5"><entity_state model="a"><parent frame="b::link"/>'
        '</entity_state></scene_state>',
    )
    (a,) = state.entities
    assert state.time_stamp == 2.5
    assert a.frame == 'b::link'
    np.testing.assert_array_equal(a.origin, np.eye(4))
    np.testing.assert_array_equal(a.linear, np.zeros(3))
    np.testing.assert_array_equal(a.angular, np.zeros(3))


def test_split_frame():
    assert split_frame('world') == (None, None)
    assert split_frame('tank') == ('tank', None)
    assert split_frame('tank::walls') == ('tank', 'walls')


def test_twist_integrates_exactly_as_translation_plus_rotation_about_the_origin():
    origin = transform_from_xyz_rpy([1.0, 2.0, 3.0], [0.1, -0.2, 0.3])
    v = np.array([0.5, -0.25, 0.1])
    w = np.array([0.0, 0.3, 0.4])  # |w| = 0.5 rad/s
    dt = 2.0
    pose = integrate_twist(origin, v, w, dt)
    np.testing.assert_allclose(pose[:3, 3], [2.0, 1.5, 3.2], atol=1e-15)
    expected = axis_angle_matrix([0.0, 0.6, 0.8], 1.0) @ rpy_to_matrix([0.1, -0.2, 0.3])
    np.testing.assert_allclose(pose[:3, :3], expected, atol=1e-15)
    np.testing.assert_array_equal(pose[3], [0, 0, 0, 1])


def test_twist_yaw_rate_for_a_quarter_turn_and_backwards_in_time():
    state = EntityState(
        'a', origin=np.eye(4), linear=np.array([1.0, 0, 0]), angular=np.array([0, 0, math.pi / 2])
    )
    assert state.moves
    quarter = state.pose(1.0)
    np.testing.assert_allclose(quarter[:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    np.testing.assert_allclose(quarter[:3, 3], [1.0, 0, 0])
    np.testing.assert_allclose(state.pose(-1.0)[:3, 3], [-1.0, 0, 0])
    np.testing.assert_allclose(state.pose(-1.0)[:3, :3] @ quarter[:3, :3], np.eye(3), atol=1e-15)
    np.testing.assert_array_equal(state.pose(0.0), np.eye(4))


def test_load_scene_state_from_a_file(tmp_path):
    path = tmp_path / 'state.xml'
    path.write_text(SEED_EXAMPLE)
    assert load_scene_state(path).source == str(path)


def _state(body: str, attributes: str = 'scene="s" time_stamp="0"') -> str:
    return f'<scene_state {attributes}>\n{body}\n</scene_state>'


@pytest.mark.parametrize(
    ('text', 'message'),
    [
        ('<scene_state scene="s" time_stamp="0"', r'f\.xml:1: malformed XML'),
        (
            _state('', 'time_stamp="0"'),
            r"f\.xml:1: <scene_state>: missing required attribute 'scene'",
        ),
        (
            _state('', 'scene="s"'),
            r"f\.xml:1: <scene_state scene=\"s\">: missing required attribute 'time_stamp'",
        ),
        (_state('', 'scene="s" time_stamp="soon"'), r"time_stamp='soon' is not a finite number"),
        (_state('', 'scene="s" time_stamp="nan"'), r"time_stamp='nan' is not a finite number"),
        (
            _state('<entity_state><parent frame="world"/></entity_state>'),
            r"f\.xml:2: .*missing required attribute 'model'",
        ),
        (
            _state('<entity_state model="a"/>'),
            r'f\.xml:2: <entity_state model="a">: missing required element <parent',
        ),
        (
            _state('<entity_state model="a"><parent/></entity_state>'),
            r"missing required attribute 'frame'",
        ),
        (
            _state(
                '<entity_state model="a"><parent frame="world"/>\n<origin xyz="1 2"/>'
                '</entity_state>'
            ),
            r'f\.xml:3: <origin>: xyz=\'1 2\' must be 3 numbers, got 2',
        ),
        (
            _state(
                '<entity_state model="a"><parent frame="world"/><origin xyz="1 two 3"/>'
                '</entity_state>'
            ),
            r"xyz='1 two 3' is not 3 numbers",
        ),
        (
            _state(
                '<entity_state model="a"><parent frame="world"/><twist linear="nan 0 0"/>'
                '</entity_state>'
            ),
            r'<twist>: linear=.* must be finite',
        ),
        (
            _state(
                '<entity_state model="a"><parent frame="world"/><twist lineer="1 0 0"/>'
                '</entity_state>'
            ),
            r"<twist>: unknown attribute 'lineer'",
        ),
        (
            _state('<entity_state model="a"><parent frame="world"/><pose/></entity_state>'),
            r'unknown element <pose> in <entity_state>',
        ),
        (
            _state(
                '<entity_state model="a"><parent frame="world"/><origin/><origin/></entity_state>'
            ),
            r'more than one <origin>',
        ),
        (
            _state(
                '<entity_state model="a"><parent frame="world"/></entity_state>\n'
                '<entity_state model="a"><parent frame="world"/></entity_state>'
            ),
            r"f\.xml:3: .*a second state for model 'a'",
        ),
        ('<scene_stat scene="s" time_stamp="0"/>', r'expected <scene_state>'),
    ],
)
def test_errors_name_file_line_element_and_problem(text, message):
    with pytest.raises(SceneError, match=message) as info:
        parse_scene_state(text, source='f.xml')
    assert '\n' not in str(info.value)
