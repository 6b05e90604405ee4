"""Reading the scene file's XML strictly: every problem becomes a one-line SceneError."""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from pathlib import Path

import numpy as np
from lxml import etree
from numpy.typing import NDArray

from nps_sonar_py.errors import SceneError

__all__ = ['check_children', 'floats_attribute', 'label', 'parse_xml', 'read_text', 'required_attribute']

# No DTDs, entities or network: a scene file is plain data.
_PARSER = etree.XMLParser(remove_comments=True, resolve_entities=False, no_network=True, load_dtd=False)


def read_text(path: str | Path, *, file: str | None = None, line: int | None = None) -> str:
    """Read the text of ``path``; a missing or unreadable file is a SceneError at ``file:line``."""
    try:
        return Path(path).read_text(encoding='utf-8')
    except (OSError, UnicodeDecodeError) as err:
        problem = f'cannot read {path}: {err.strerror if isinstance(err, OSError) else err}'
        raise SceneError(problem, file=file or str(path), line=line) from None


def parse_xml(text: str | bytes, *, file: str | None) -> etree._Element:
    """Parse ``text`` to its root element; malformed XML is a SceneError at the parser's line."""
    data = text.encode('utf-8') if isinstance(text, str) else text
    try:
        root = etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as err:
        message = re.sub(r', line \d+, column \d+$', '', str(err.msg))  # the line is in front already
        raise SceneError(f'malformed XML: {message}', file=file, line=err.lineno or None) from None
    if root is None:
        raise SceneError('empty XML document', file=file)
    return root


def label(element: etree._Element) -> str:
    """``<tag name="...">`` for error messages, with the attribute that identifies it."""
    for key in ('name', 'model', 'frame', 'scene'):
        value = element.get(key)
        if value is not None:
            return f'<{element.tag} {key}="{value}">'
    return f'<{element.tag}>'


def check_children(
    element: etree._Element,
    *,
    file: str | None,
    attributes: Collection[str],
    children: Collection[str] = (),
) -> None:
    """Reject attributes and child elements that the format does not define (typos move nothing)."""
    for key in element.attrib:
        if key not in attributes:
            problem = (
                f'unknown attribute {key!r} (expected one of: {", ".join(sorted(attributes)) or "none"})'
            )
            raise SceneError(problem, file=file, line=element.sourceline, element=label(element))
    for child in element:
        if not isinstance(child.tag, str):  # processing instructions
            continue
        if child.tag not in children:
            problem = f'unknown element <{child.tag}> in <{element.tag}>'
            raise SceneError(problem, file=file, line=child.sourceline, element=label(element))


def required_attribute(element: etree._Element, key: str, *, file: str | None) -> str:
    """Return attribute ``key``, which must be present and not blank."""
    value = element.get(key)
    if value is None or not value.strip():
        problem = f'missing required attribute {key!r}'
        raise SceneError(problem, file=file, line=element.sourceline, element=label(element))
    return value.strip()


def floats_attribute(
    element: etree._Element,
    key: str,
    count: int,
    *,
    file: str | None,
    default: float = 0.0,
) -> NDArray[np.float64]:
    """Attribute ``key`` as ``count`` finite floats separated by spaces; absent gives ``default``s."""
    text = element.get(key)
    if text is None:
        return np.full(count, default)
    words = text.split()
    where = {'file': file, 'line': element.sourceline, 'element': label(element)}
    if len(words) != count:
        raise SceneError(f'{key}={text!r} must be {count} numbers, got {len(words)}', **where)
    try:
        values = [float(w) for w in words]
    except ValueError:
        raise SceneError(f'{key}={text!r} is not {count} numbers', **where) from None
    if not all(math.isfinite(v) for v in values):
        raise SceneError(f'{key}={text!r} must be finite (no nan or inf)', **where)
    return np.array(values)
