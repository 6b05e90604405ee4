"""The coherent echo model chosen by a setting (``echo_model: coherent``), built by the kinds."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from nps_sonar_py.devices import (
    Family,
    Rig,
    Setup,
    SingleBeamSonar,
    load_robot_from,
    reference_world_file,
    robot_root_pose,
)
from nps_sonar_py.devices.kinds import ModeSettings
from nps_sonar_py.devices.kinds.multibeam import FanSettings
from nps_sonar_py.devices.settings import (
    BeamSettings,
    CoherentSettings,
    EchoModelChoice,
    OutputSettings,
    RobotSettings,
    ScanningSettings,
    SensorSettings,
)
from nps_sonar_py.errors import DescriptionError
from nps_sonar_py.scene import Raycaster, load_world

ORIGIN = robot_root_pose([0.0] * 6)


def single_beam_rig(coherent: CoherentSettings) -> Rig:
    """The reference sonar in the reference tank with these echo-model settings."""
    setup = Setup(
        Family.SONAR, SensorSettings(), OutputSettings(), BeamSettings(rays=2000), coherent
    )
    caster = Raycaster(load_world(reference_world_file()))
    return Rig(load_robot_from(RobotSettings()), setup, caster, ORIGIN)


def test_single_beam_coherent_profile_keeps_the_energy_and_stays_still() -> None:
    """Over scatterer seeds the coherent total is the incoherent one; a still ping repeats."""
    plain = single_beam_rig(CoherentSettings()).read()
    totals = []
    for seed in range(40):
        settings = CoherentSettings(echo_model=EchoModelChoice.COHERENT, scatterer_seed=seed)
        rig = single_beam_rig(settings)
        assert isinstance(rig.device, SingleBeamSonar)
        assert rig.device.engine.grid is not None
        totals.append(float(rig.read().intensities[0]))
    mean, error = float(np.mean(totals)), float(np.std(totals)) / math.sqrt(len(totals))
    assert mean == pytest.approx(float(plain.intensities[0]), abs=4.0 * error)
    assert mean != pytest.approx(1.5 * float(plain.intensities[0]), abs=4.0 * error)  # control
    rig = single_beam_rig(CoherentSettings(echo_model=EchoModelChoice.COHERENT))
    first, again = rig.read(), rig.read()
    assert np.array_equal(first.pings[0].intensity, again.pings[0].intensity)
    assert first.ranges[0] == plain.ranges[0]  # the incoherent model's range


def test_incoherent_is_the_default_and_builds_no_coherent_model() -> None:
    rig = single_beam_rig(CoherentSettings())
    assert isinstance(rig.device, SingleBeamSonar)
    assert rig.device.engine.grid is None


def test_a_setting_the_kind_ignores_is_refused_in_one_line() -> None:
    """A single beam has no line array across beams: array_elements is refused, located."""
    with pytest.raises(DescriptionError, match='array_elements') as error:
        single_beam_rig(CoherentSettings(echo_model=EchoModelChoice.COHERENT, array_elements=64))
    assert '\n' not in str(error.value)


def test_mode_sweep_and_multibeam_take_the_setting() -> None:
    """The scanning node's kinds hear echo_model through the same record."""
    for mode in ('sweep', 'multibeam', 'echosounder'):
        setup = Setup(
            Family.SCANNING,
            SensorSettings(),
            ModeSettings(mode=mode),
            ScanningSettings(min_angle=-0.5, max_angle=0.5),
            OutputSettings(),
            BeamSettings(rays=50) if mode == 'sweep' else BeamSettings(),
            CoherentSettings(echo_model=EchoModelChoice.COHERENT),
        )
        caster = Raycaster(load_world(reference_world_file()))
        robot = load_robot_from(RobotSettings())
        rig = Rig(robot, setup, caster, ORIGIN)
        sonar = rig.device.sonar  # type: ignore[attr-defined]
        assert sonar.engine.grid is not None, mode


def test_an_echosounder_reads_one_pulse_duration_whatever_the_model() -> None:
    """pulse_duration is the coherent pulse's length and the incoherent window's pulse."""
    from nps_sonar_py.echo.engine import IncoherentEngine

    def rig(settings: CoherentSettings) -> Rig:
        setup = Setup(
            Family.SCANNING,
            SensorSettings(),
            ModeSettings(mode='echosounder'),
            OutputSettings(),
            settings,
        )
        caster = Raycaster(load_world(reference_world_file()))
        return Rig(load_robot_from(RobotSettings()), setup, caster, ORIGIN)

    tau = 2e-4
    coherent = rig(CoherentSettings(echo_model=EchoModelChoice.COHERENT, pulse_duration=tau))
    sonar = coherent.device.sonar  # type: ignore[attr-defined]
    # The coherent pulse is tau long and spreads the echo itself: no incoherent window.
    assert sonar.coherent.transmitted.length == tau
    assert not isinstance(sonar.engine, IncoherentEngine)
    plain = rig(CoherentSettings(pulse_duration=tau)).device.sonar  # type: ignore[attr-defined]
    # The incoherent window: 2 m + 1 bins, m = c tau / 4 per bin width (docs/echosounder.md).
    m = round(plain.echo.speed_of_sound * tau / 4.0 / plain.echo.bin_width)
    assert plain.pulse_bins == m
    assert isinstance(plain.engine, IncoherentEngine)
    # Negative control: the default pulse (1 ms) makes another window.
    default = rig(CoherentSettings()).device.sonar  # type: ignore[attr-defined]
    assert default.pulse_bins != m


def test_the_old_name_of_pulse_duration_is_refused_with_its_new_one() -> None:
    from nps_sonar_py.devices.settings import renamed_problem

    problem = renamed_problem('pulse_length')
    assert problem is not None
    assert 'pulse_duration' in problem
    assert '\n' not in problem
    assert renamed_problem('pulse_duration') is None  # control: the new name is a setting


def multibeam_rig(settings: CoherentSettings) -> Rig:
    """The reference robot's scanning sonar as a fan over +-0.5 rad, in the reference tank."""
    setup = Setup(
        Family.SCANNING,
        SensorSettings(),
        ModeSettings(mode='multibeam'),
        ScanningSettings(min_angle=-0.5, max_angle=0.5),
        OutputSettings(),
        BeamSettings(),
        settings,
    )
    caster = Raycaster(load_world(reference_world_file()))
    return Rig(load_robot_from(RobotSettings()), setup, caster, ORIGIN)


def test_a_multibeam_device_forms_its_beams_over_fixed_scatterers() -> None:
    """Through the Rig: the fan's coherent engine forms its beams at the set density; a
    still rig reads the same image twice, another scatterer seed another one."""
    from nps_sonar_py.echo.engine import formed_engine

    coherent = CoherentSettings(echo_model=EchoModelChoice.COHERENT, scatterer_density=500.0)
    rig = multibeam_rig(coherent)
    formed = formed_engine(rig.device.sonar.engine)  # type: ignore[attr-defined]
    assert formed is not None
    assert formed.density == 500.0
    first, again = rig.read(), rig.read()
    assert first.echo is not None
    assert again.echo is not None
    assert first.echo.intensity.any()
    assert np.array_equal(first.echo.intensity, again.echo.intensity)
    other = multibeam_rig(dataclasses.replace(coherent, scatterer_seed=3)).read()
    assert other.echo is not None
    assert not np.array_equal(first.echo.intensity, other.echo.intensity)  # control
    # The default density: 4 in a resolution cell at a quarter of the window.
    default = multibeam_rig(dataclasses.replace(coherent, scatterer_density=0.0))
    assert formed_engine(default.device.sonar.engine).density != 500.0  # type: ignore[attr-defined, union-attr]


@pytest.mark.parametrize(
    ('kind', 'mode'),
    [
        ('echosounder', 'echosounder'),
    ],
)
def test_a_kind_of_per_ray_scatterers_refuses_scatterer_density(kind: str, mode: str) -> None:
    """Only the formed fan places fixed scatterers at ``scatterer_density``: the kinds whose
    coherent echoes are their rays' hits refuse it in one line naming it and why, whatever the
    echo model; the fan takes it (the control, above), and refuses it with one beam."""
    from device_kinds import robot_of, setup_of

    from nps_sonar_py.devices import build_device

    for model in (EchoModelChoice.COHERENT, EchoModelChoice.INCOHERENT):
        setup = setup_of(kind, CoherentSettings, echo_model=model, scatterer_density=500.0)
        with pytest.raises(DescriptionError) as refused:
            build_device(robot_of(kind), setup)
        line = str(refused.value)
        assert '\n' not in line
        assert f'mode {mode} does not use scatterer_density' in line, line
        assert "each ray's hit as a scatterer" in line, line
        build_device(robot_of(kind), setup_of(kind, CoherentSettings, echo_model=model))


def test_a_fan_of_one_beam_refuses_scatterer_density() -> None:
    """One beam is a ray cone's echo, not a formed fan: refused; the same fan of several
    beams takes it (``test_a_multibeam_device_forms_its_beams_over_fixed_scatterers``)."""
    coherent = CoherentSettings(echo_model=EchoModelChoice.COHERENT, scatterer_density=500.0)
    setup = Setup(
        Family.SCANNING,
        SensorSettings(),
        ModeSettings(mode='multibeam'),
        ScanningSettings(min_angle=0.0, max_angle=0.0),
        FanSettings(beams=1),
        coherent,
    )
    caster = Raycaster(load_world(reference_world_file()))
    with pytest.raises(DescriptionError, match='mode multibeam does not use scatterer_density'):
        Rig(load_robot_from(RobotSettings()), setup, caster, ORIGIN)


@pytest.mark.parametrize('kind', ['sidescan', 'sweep', 'sonar'])
def test_the_kinds_over_fixed_scatterers_take_scatterer_density(kind: str) -> None:
    """The side-scan, the sweep and the single beam hear the surfaces' fixed scatterers at
    the set density (docs/coherent.md); the default density is another (the control)."""
    from device_kinds import robot_of, setup_of

    from nps_sonar_py.devices import build_device
    from nps_sonar_py.echo.channel_echoes import ChannelEngine

    def density(value: float) -> float:
        setup = setup_of(
            kind, CoherentSettings, echo_model=EchoModelChoice.COHERENT, scatterer_density=value
        )
        _, device = build_device(robot_of(kind), setup)
        sonar = getattr(device, 'sonar', device)
        engine = sonar.engine.coherent
        assert isinstance(engine, ChannelEngine)
        return engine.density

    assert density(500.0) == 500.0
    assert density(0.0) != 500.0


@pytest.mark.parametrize(
    ('kind', 'mode'), [('sidescan', 'sidescan'), ('sweep', 'sweep'), ('sonar', 'single_beam')]
)
def test_the_kinds_over_fixed_scatterers_refuse_speckle_cell(kind: str, mode: str) -> None:
    """Their scatterers are the surfaces', not cells about each hit: a ``speckle_cell`` they
    would ignore is refused in one line; its default is taken (the control)."""
    from device_kinds import robot_of, setup_of

    from nps_sonar_py.devices import build_device

    coherent = EchoModelChoice.COHERENT
    with pytest.raises(DescriptionError) as refused:
        build_device(
            robot_of(kind), setup_of(kind, CoherentSettings, echo_model=coherent, speckle_cell=0.5)
        )
    line = str(refused.value)
    assert '\n' not in line
    assert f'mode {mode} does not use speckle_cell' in line, line
    assert "the surfaces' fixed scatterers" in line, line
    build_device(robot_of(kind), setup_of(kind, CoherentSettings, echo_model=coherent))
