"""Link geometry and surface properties: shapes, origins, laser_retro and reflectivity."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.description import Box, Cylinder, Mesh, Robot, Sphere, parse_robot


def link_robot(link_body: str, extra: str = '') -> Robot:
    return parse_robot(f'<robot name="r"><link name="base">{link_body}</link>{extra}</robot>')


def test_every_geometry_and_origin():
    robot = link_robot(
        '<visual name="v1"><origin xyz="1 2 3" rpy="0 0 1.5707963267948966"/><geometry>'
        '<box size="1 2 3"/>'
        '</geometry>'
        '<material name="red"><color rgba="1 0 0 1"/></material></visual>'
        '<visual><geometry><cylinder radius="0.25" length="1"/></geometry></visual>'
        '<collision><geometry><sphere radius="0.5"/></geometry></collision>'
        '<collision><geometry>'
        '<mesh filename="package://pkg/meshes/hull.stl" scale="0.001 0.001 -0.001"/>'
        '</geometry></collision>'
        '<collision><geometry><mesh filename="meshes/fin.dae"/></geometry></collision>'
        '<inertial><mass value="1"/></inertial>',
    )
    link = robot.links['base']
    assert [s.geometry for s in link.visuals] == [Box((1.0, 2.0, 3.0)), Cylinder(0.25, 1.0)]
    assert [s.geometry for s in link.collisions] == [
        Sphere(0.5),
        Mesh('package://pkg/meshes/hull.stl', (0.001, 0.001, -0.001)),
        Mesh('meshes/fin.dae', (1.0, 1.0, 1.0)),
    ]
    first = link.visuals[0]
    assert first.name == 'v1'
    assert first.line == 1
    np.testing.assert_allclose(first.origin[:3, 3], [1.0, 2.0, 3.0])
    np.testing.assert_allclose(first.origin[:3, 0], [0.0, 1.0, 0.0], atol=1e-12)
    np.testing.assert_array_equal(link.visuals[1].origin, np.eye(4))


def test_link_without_shapes():
    link = link_robot('').links['base']
    assert (link.visuals, link.collisions, link.retro, link.reflectivity) == ((), (), None, None)


def test_surface_properties_own_then_link_then_none():
    robot = link_robot(
        '<collision><geometry><sphere radius="1"/></geometry><laser_retro>255</laser_retro>'
        '</collision>'
        '<collision><geometry><sphere radius="2"/></geometry><nps_sonar>'
        '<reflectivity>0.9</reflectivity>'
        '</nps_sonar></collision>'
        '<visual><geometry><sphere radius="3"/></geometry></visual>',
        '<gazebo reference="base"><laser_retro>50</laser_retro><nps_sonar reflectivity="0.3"/>'
        '</gazebo>',
    )
    link = robot.links['base']
    assert (link.retro, link.reflectivity) == (50.0, 0.3)
    own_retro, own_reflectivity = link.collisions
    assert (own_retro.retro, own_retro.reflectivity) == (255.0, 0.3)
    assert (own_reflectivity.retro, own_reflectivity.reflectivity) == (50.0, 0.9)
    visual = link.visuals[0]
    assert (visual.retro, visual.reflectivity) == (50.0, 0.3)


def test_no_surface_properties_anywhere():
    shape = (
        link_robot('<collision><geometry><box size="1 1 1"/></geometry></collision>')
        .links['base']
        .collisions[0]
    )
    assert (shape.retro, shape.reflectivity) == (None, None)


def test_link_surface_given_twice_is_an_error():
    with pytest.raises(Exception, match='link surface given twice'):
        link_robot(
            '',
            '<gazebo reference="base"><laser_retro>1</laser_retro></gazebo>'
            '<gazebo reference="base"><laser_retro>2</laser_retro></gazebo>',
        )


def test_other_gazebo_blocks_are_ignored():
    robot = link_robot(
        '',
        '<gazebo><plugin name="p" filename="x.so"/></gazebo><gazebo reference="base">'
        '<material>Gazebo/Red</material></gazebo>',
    )
    assert robot.links['base'].retro is None


def test_cylinder_axis_and_box_are_as_urdf():
    # a cylinder lying along x: URDF cylinders are along their own z, so pitch +90 deg puts z on x
    robot = link_robot(
        f'<visual><origin rpy="0 {math.pi / 2} 0"/><geometry><cylinder radius="0.1" length="2"/>'
        '</geometry></visual>'
    )
    shape = robot.links['base'].visuals[0]
    np.testing.assert_allclose(shape.origin[:3, 2], [1.0, 0.0, 0.0], atol=1e-12)
