"""The output folder of a run: checked, made if new, locked for the run, left as found on failure.

Every problem with ``OUT`` is one line (:class:`FolderError`) before anything is written: a
path that is a file, a FIFO, a device, a symbolic link loop or under a file; a folder that
cannot be made or written in; a folder in use by another run (an exclusive ``flock`` on the
folder, held for the run, released by the kernel when the process ends however it ends); a
folder that is not empty without ``--resume``; with ``--resume``, a dataset file's path taken
by a folder or another spec's copy, ``obb/images`` that is not a folder or a link to one. A
folder the run made is removed again when the run fails before its first file (Ray would not
start, say), so the same command can be given again.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from nps_sonar_py.errors import InputError

__all__ = [
    'DATASET_FILES',
    'IMAGES_LINK',
    'SPEC_COPY',
    'FolderError',
    'link_images',
    'output_folder',
]

#: The spec as the run read it, kept in the output folder (``--resume`` compares it).
SPEC_COPY = 'spec.yaml'
#: The files of the whole dataset, written by the driver (``assemble.py``, ``run.py``).
DATASET_FILES = (
    SPEC_COPY,
    'manifest.parquet',
    'coco.json',
    'yolo.yaml',
    'train.txt',
    'val.txt',
    'test.txt',
    'yolo_obb.yaml',
    'obb/train.txt',
    'obb/val.txt',
    'obb/test.txt',
    'README.md',
    'run.json',
)

#: The link that shows the images to Ultralytics' OBB task beside ``obb/labels``, and its target.
IMAGES_LINK, IMAGES_TARGET = 'obb/images', '../images'


class FolderError(InputError):
    """An output folder that cannot be used: ``<folder>: <problem>``, one line."""


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _kind(mode: int) -> str:
    """What a path that is not a folder is, in words."""
    if stat.S_ISREG(mode):
        return 'a file'
    if stat.S_ISFIFO(mode):
        return 'a FIFO'
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return 'a device'
    if stat.S_ISSOCK(mode):
        return 'a socket'
    return 'not a folder'


def _make(out: Path) -> bool:
    """Make ``out`` if it is not there; whether it was made. ``FolderError`` if unusable."""
    try:
        mode = os.stat(out).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:  # a symbolic link loop, a path under a file, a name too long
        raise FolderError(
            f'cannot be used as the output folder: {_reason(error)}', file=str(out)
        ) from None
    if mode is not None:
        if not stat.S_ISDIR(mode):
            raise FolderError(f'is {_kind(mode)}, not a folder', file=str(out))
        return False
    try:
        out.mkdir(parents=True)
    except FileExistsError:  # made meanwhile (another run), or a dangling symbolic link
        if not out.is_dir():
            raise FolderError(
                'cannot be made: a dangling link or a file is in the way', file=str(out)
            ) from None
        return False
    except OSError as error:
        raise FolderError(f'cannot be made: {_reason(error)}', file=str(out)) from None
    return True


def _lock(out: Path) -> int:
    """An open descriptor of ``out`` holding its exclusive lock."""
    try:
        descriptor = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:
        raise FolderError(f'cannot be opened: {_reason(error)}', file=str(out)) from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        os.close(descriptor)
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise FolderError(
                'another sonar_dataset run is writing in it (it holds its lock)', file=str(out)
            ) from None
        raise FolderError(f'cannot be locked: {_reason(error)}', file=str(out)) from None
    return descriptor


def _check(out: Path, resume: bool, spec_text: str) -> None:
    """The folder's contents allow this run (module docstring)."""
    try:
        with tempfile.TemporaryFile(dir=out):
            pass
        entries = [entry.name for entry in os.scandir(out)]
    except OSError as error:
        raise FolderError(f'cannot write in it: {_reason(error)}', file=str(out)) from None
    if not resume:
        if entries:
            raise FolderError(
                'is not empty: give --resume to go on with it, or a new folder', file=str(out)
            )
        return
    for name in DATASET_FILES:
        path = out / name
        if (path.exists() or path.is_symlink()) and not path.is_file():
            raise FolderError(f'--resume: {name} in it is not a file', file=str(out))
    link = out / IMAGES_LINK
    if os.path.lexists(link) and not link.is_dir():  # the link, or a copy of images/
        raise FolderError(
            f'--resume: {IMAGES_LINK} in it is not a link to {IMAGES_TARGET}', file=str(out)
        )
    copy = out / SPEC_COPY
    if copy.is_file():
        try:
            same = copy.read_bytes() == spec_text.encode()
        except OSError as error:
            raise FolderError(
                f'--resume: cannot read {SPEC_COPY}: {_reason(error)}', file=str(out)
            ) from None
        if not same:
            raise FolderError(
                f'--resume: it was made from another spec ({SPEC_COPY} differs)', file=str(out)
            )


def link_images(out: Path) -> None:
    """Make ``images/`` and the link :data:`IMAGES_LINK` to it, unless they are there."""
    (out / 'images').mkdir(exist_ok=True)
    link = out / IMAGES_LINK
    link.parent.mkdir(exist_ok=True)
    if not os.path.lexists(link):
        os.symlink(IMAGES_TARGET, link, target_is_directory=True)


@contextmanager
def output_folder(out: Path, resume: bool, spec_text: str) -> Iterator[Path]:
    """``out`` checked, made if new and locked for the block (module docstring)."""
    made = _make(out)
    descriptor = -1
    try:
        descriptor = _lock(out)
        _check(out, resume, spec_text)
        yield out
    except BaseException:
        if made and out.is_dir() and not any(out.iterdir()):
            out.rmdir()
        raise
    finally:
        if descriptor >= 0:
            os.close(descriptor)
