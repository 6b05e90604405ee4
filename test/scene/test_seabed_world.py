"""A surface's seabed in the world files: scene files and SDF, as naturally as reflectivity."""

from __future__ import annotations

import pytest

from nps_sonar_py.echo.seabed import BackscatterModel, named_seabed
from nps_sonar_py.echo.sediment import SEDIMENTS
from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene import parse_world
from nps_sonar_py.scene.sdf import parse_sdf_world

BOX = (
    '<robot name="b"><link name="l"><collision><geometry><box size="4 4 1"/></geometry>'
    '</collision></link></robot>'
)


def _world(model: str) -> str:
    return f'<world name="w">{model}</world>'


def test_a_sediment_attribute_and_a_seabed_element() -> None:
    world = parse_world(
        _world(
            f'<model name="a" sediment="silt">{BOX}</model>'
            f'<model name="b"><seabed sediment="silt" loss_parameter="0.005" '
            f'ripple_wavelength="0.6" ripple_height="0.05" ripple_direction="0.5" '
            f'texture_shape="10 2 60 8" texture_seed="4"/>{BOX}</model>'
            f'<model name="c"><seabed model="lambert" lambert_db="-20" texture_shape=""/>'
            f'{BOX}</model>'
            f'<model name="d" reflectivity="0.2">{BOX}</model>'
        )
    )
    a, b, c, d = world.entities
    assert a.seabed == named_seabed('silt')
    assert b.seabed is not None
    assert b.seabed.sediment.loss_parameter == 0.005
    assert b.seabed.sediment.density_ratio == SEDIMENTS['silt'].density_ratio
    assert (b.seabed.ripple_wavelength, b.seabed.ripple_height) == (0.6, 0.05)
    assert b.seabed.ripple_direction == 0.5
    assert b.seabed.texture_shape == (10.0, 2.0, 60.0, 8.0)
    assert b.seabed.texture_seed == 4
    assert c.seabed is not None
    assert c.seabed.model is BackscatterModel.LAMBERT
    assert c.seabed.lambert_db == -20.0
    assert c.seabed.texture_shape == ()
    assert d.seabed is None  # reflectivity alone: the Lambert law as before
    assert float(d.reflectivity[0]) == 0.2


@pytest.mark.parametrize(
    ('model', 'problem'),
    [
        ('<model name="a" sediment="lava">', 'sediment must be one of'),
        ('<model name="a"><seabed colour="red"/>', "unknown attribute 'colour'"),
        ('<model name="a"><seabed density_ratio="-2"/>', 'sediment.density_ratio must be'),
        ('<model name="a"><seabed ripple_height="x"/>', "ripple_height='x' must be a finite"),
        ('<model name="a"><seabed model="jackson"/>', "model='jackson' must be one of"),
        ('<model name="a" sediment="silt"><seabed/>', 'gives its seabed twice'),
    ],
)
def test_a_bad_seabed_is_one_located_line(model: str, problem: str) -> None:
    with pytest.raises(SceneError) as caught:
        parse_world(_world(f'{model}{BOX}</model>'), source='w.world')
    message = str(caught.value)
    assert problem in message
    assert message.startswith('w.world:')
    assert '\n' not in message


def test_an_sdf_model_with_a_seabed() -> None:
    text = (
        '<sdf version="1.9" xmlns:nps="urn:nps_sonar"><world name="w">'
        '<model name="floor"><nps:seabed sediment="gravel" ripple_wavelength="1"'
        ' ripple_height="0.1"/><link name="l"><collision name="c"><geometry>'
        '<box><size>4 4 1</size></box></geometry></collision></link></model>'
        '<model name="block"><link name="l"><collision name="c"><geometry>'
        '<box><size>1 1 1</size></box></geometry></collision></link></model>'
        '</world></sdf>'
    )
    floor, block = parse_sdf_world(text).entities
    assert floor.seabed is not None
    assert floor.seabed.sediment == SEDIMENTS['gravel']
    assert floor.seabed.ripple_wavelength == 1.0
    assert block.seabed is None
    wrong = text.replace('<nps:seabed', '<seabed')
    with pytest.raises(SceneError, match="must be in the namespace 'urn:nps_sonar'"):
        parse_sdf_world(wrong)
