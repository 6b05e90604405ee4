"""The shipped parameter files name only declared parameters, with values of the declared types."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.ros

CONFIG = Path(__file__).resolve().parents[2] / 'config'


def test_sonar_yaml_matches_the_parameter_table() -> None:
    from nps_sonar_py.ros.params import parameter_specs
    from nps_sonar_py.ros.sonar_node import SonarNode

    document = yaml.safe_load((CONFIG / 'sonar.yaml').read_text())
    values = document['/**']['ros__parameters']
    table = {p.name: p for p in parameter_specs(SonarNode.records())}
    assert set(values) == set(table)
    for name, value in values.items():
        assert type(value) is type(table[name].plain_default), (
            name
        )  # a 50 where 50.0 is declared fails at start
        assert value == table[name].plain_default, name
