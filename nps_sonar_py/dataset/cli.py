"""``sonar_dataset SPEC.yaml OUT --samples N [--workers W] [--address ADDR] [--batch B] ...``.

Bad input (the spec, the arguments, an output folder that cannot be used or is in use) is one
line, ``nps_sonar: ...``, and status 2, as the nodes'. A run that cannot go on (Ray would not
start, a cluster does not answer, the disk is full) is one line and status 1, as is a run in
which every sample failed. SIGINT and SIGTERM stop the run after the samples being written
(each sample's files are complete or it is made again by ``--resume``): status 128 + the
signal's number.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import NoReturn

from nps_sonar_py.dataset.run import Where, run_dataset
from nps_sonar_py.dataset.spec import load_spec
from nps_sonar_py.dataset.validity import check_meshes
from nps_sonar_py.errors import InputError, NpsSonarError, error_line, one_line

__all__ = ['main']

#: Exit status of bad input, as the nodes'.
EXIT_BAD_INPUT = 2
#: Exit status of a run that could not go on, or made no sample.
EXIT_FAILED = 1


#: The bounds of the numeric options, inclusive.
BOUNDS = {'samples': (1, 10_000_000), 'workers': (1, 100_000), 'batch': (0, 10_000)}


class _Parser(argparse.ArgumentParser):
    """argparse, its complaint as one line and status 2."""

    def error(self, message: str) -> NoReturn:
        print(f'nps_sonar: sonar_dataset: {message}', file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog='sonar_dataset',
        description='Labelled sonar images from randomised '
        'scenes, in one process or on Ray (docs/datasets.md).',
    )
    parser.add_argument('spec', type=Path, help='the dataset spec (YAML)')
    parser.add_argument('out', type=Path, help='the output folder')
    parser.add_argument('--samples', type=int, required=True, help='samples to make')
    parser.add_argument(
        '--workers',
        type=int,
        default=1,
        help='1 (default): in this process, no Ray; more: a local Ray of W CPUs',
    )
    parser.add_argument(
        '--address', default=None, help='join the Ray cluster at ADDR (host:port, or "auto")'
    )
    parser.add_argument(
        '--batch',
        type=int,
        default=0,
        help='samples a Ray task makes; 0 (default): about 1 s of work a task, fewer near the end',
    )
    parser.add_argument(
        '--resume', action='store_true', help='go on with OUT: skip the samples already made'
    )
    parser.add_argument(
        '--mesh-folder',
        type=Path,
        action='append',
        default=[],
        help="a folder besides the spec's from which meshes may be read (repeatable)",
    )
    parser.add_argument('--quiet', action='store_true', help='no progress bar')
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; the exit status."""
    options = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    for name, (low, high) in BOUNDS.items():
        if not low <= getattr(options, name) <= high:
            print(
                f'nps_sonar: sonar_dataset: --{name} must be in [{low}, {high}], '
                f'got {getattr(options, name)}',
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
    received: list[int] = []

    def request(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, request)
    try:
        spec = load_spec(options.spec)
        check_meshes(spec, [options.spec.resolve().parent, *options.mesh_folder])
        summary = run_dataset(
            spec,
            options.out,
            options.samples,
            where=Where(options.workers, options.address, options.batch),
            resume=options.resume,
            progress=None if options.quiet else sys.stderr,
            stop=lambda: bool(received),
        )
    except InputError as error:
        print(f'nps_sonar: {error_line(error)}', file=sys.stderr)
        return EXIT_BAD_INPUT
    except NpsSonarError as error:
        print(f'nps_sonar: sonar_dataset: {error_line(error)}', file=sys.stderr)
        return EXIT_FAILED
    except OSError as error:  # writing the dataset failed midway: a full disk, a lost mount
        where = one_line(str(error.filename2 or error.filename or options.out))
        reason = error.strerror or error_line(error)
        print(f'nps_sonar: sonar_dataset: {where}: {reason}', file=sys.stderr)
        return EXIT_FAILED
    if summary.stopped:
        done = summary.made + summary.failed + summary.skipped
        print(
            f'sonar_dataset: stopped by a signal with {done} of {options.samples} samples made; '
            '--resume goes on',
            file=sys.stderr,
        )
        return 128 + received[0]
    print(
        f'sonar_dataset: {summary.made} samples made, {summary.skipped} made before, '
        f'{summary.failed} failed, in {one_line(str(options.out))}',
        file=sys.stderr,
    )
    return EXIT_FAILED if summary.failed and not summary.made + summary.skipped else 0


if __name__ == '__main__':
    sys.exit(main())
