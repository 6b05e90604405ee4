"""Small robot descriptions whose lines the description tests count (``test_urdf_errors``,
``test_input_limits``, ``test_description_bounds``): the body from line 3, a sensor there."""

from __future__ import annotations

HEAD = '<robot name="r">\n<link name="base"/>\n'  # the body starts on line 3


def robot(body: str) -> str:
    """A robot of the link "base" and ``body`` from line 3."""
    return f'{HEAD}{body}\n</robot>'


def sonar(inner: str, *, attrs: str = '') -> str:
    """A proposal-form sonar <sensor{attrs}> (in a robot: on line 3) whose <sonar>, holding
    ``inner``, is two lines below it."""
    return (
        f'<sensor name="s" type="sonar"{attrs}>\n<parent link="base"/>\n'
        f'<sonar>{inner}</sonar>\n</sensor>'
    )


def ray(inner: str) -> str:
    """A proposal-form ray sensor on line 3; ``inner`` starts on line 6, inside <ray>."""
    return robot(
        f'<sensor name="l" type="ray">\n<parent link="base"/>\n<ray>\n{inner}</ray>\n</sensor>'
    )
