"""The physics of formed beams, measured as a sonar shows it, beside the closed forms (issue 33).

Each figure comes from pings of ``echo.formed_beams`` (fixed scatterers, a line array, pulse
compression), never from the closed form it is printed beside (docs/beamforming.md):

* the -3 dB width of a beam steered to 50 degrees over the broadside one, swept by point
  targets, against ``1 / cos 50``;
* an unshaded array's first side lobe for a point target, against -13.26 dB;
* the intensity correlation of a flat seabed's image at 400 kHz after a move of one
  wavelength forward and sideways (an array of 128 wavelengths), against ``(1 - 2 s / D)**2``;
* the correlation of neighbouring beams of an Oculus-like fan (0.254 degrees apart, 0.96
  wide) over a diffuse scene, against ``|AF(du)|**2``;
* the output SNR of a 4 ms chirp over a 1 ms one of the same band, noise before the
  matched filter, against ``10 log10(4)``.

Last line: ``steering_width_ratio=<measured / (1 / cos) at 50 deg> first_sidelobe_db=<dB>
corr_1wl=<correlation> adjacent_beam_corr=<measured - predicted> compression_gain_db=<dB>``.
Run: ``scripts/run python benchmarks/coherent_physics.py``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nps_sonar_py.echo.array_response import SteeredArray
from nps_sonar_py.echo.fixed_scatterers import default_density, surface_scatterers
from nps_sonar_py.echo.formed_beams import BeamFormer, BeamSetup
from nps_sonar_py.echo.pulse import Pulse, PulseKind

C = 1500.0
CW = Pulse(PulseKind.CW, 1e-4)  # compresses to +-7.5 cm, no side lobes: targets stay apart


def beam_width(array: SteeredArray, steer: float) -> float:
    """-3 dB width (deg) of the beam at ``steer`` deg: targets swept across, each at a range."""
    half = (
        1.2
        * math.degrees(0.886 / (array.elements * array.spacing))
        / math.cos(math.radians(steer))
    )
    angles = steer + np.linspace(-half, half, 121)
    interval = C / (4.0 / CW.length)
    ranges = interval * np.rint((2.0 + 0.5 * np.arange(angles.size)) / interval)
    setup = BeamSetup(
        array,
        np.sin(np.radians([steer])),
        CW,
        C,
        0.0,
        interval,
        int((ranges[-1] + 1) / interval),
        blank=False,
    )
    beam = (
        np.abs(
            BeamFormer(setup)
            .form(ranges, np.sin(np.radians(angles)), np.ones(angles.size))
            .baseband[0]
        )
        ** 2
    )
    power = beam[np.rint(ranges / interval).astype(int)]
    power /= power.max()
    above = np.flatnonzero(power >= 0.5)
    lo, hi = above[0], above[-1]
    left = np.interp(0.5, [power[lo - 1], power[lo]], [angles[lo - 1], angles[lo]])
    right = np.interp(0.5, [power[hi + 1], power[hi]], [angles[hi + 1], angles[hi]])
    return float(right - left)


def first_side_lobe() -> float:
    """Highest side lobe (dB) of a point target across 961 beams of a 48-element array."""
    beams = np.sin(np.radians(np.linspace(-12.0, 12.0, 961)))
    pulse = Pulse(PulseKind.CHIRP, 1e-3, 20e3)
    setup = BeamSetup(SteeredArray(48, 0.5), beams, pulse, C, 4.0, C / 80e3, 128, blank=False)
    image = np.abs(BeamFormer(setup).form(np.array([5.0]), np.array([0.05]), np.ones(1)).baseband)
    across = image.max(axis=1) ** 2
    peak = int(np.argmax(across))
    outside = np.abs(beams - beams[peak]) > 1.0 / (48 * 0.5)
    return 10.0 * math.log10(across[outside].max() / across[peak])


def seabed_correlation(moves: list[float], elements: int = 256) -> list[float]:
    """Intensity correlation of a flat seabed's image (400 kHz) after each move (m)."""
    wavelength, bandwidth = C / 400e3, 10e3
    beams = np.sin(np.radians(np.linspace(-3.5, 3.5, 29)))
    pulse = Pulse(PulseKind.CHIRP, 1e-3, bandwidth)
    setup = BeamSetup(
        SteeredArray(elements, 0.5), beams, pulse, C, 5.5, C / (4 * bandwidth), 54, per_bin=2
    )
    former = BeamFormer(setup)
    cell = 0.25
    xs, ys = np.arange(4.9, 7.6, cell), np.arange(-0.6, 0.6, cell)
    gx, gy = (g.ravel() for g in np.meshgrid(xs, ys, indexing='ij'))
    corner = np.stack([gx, gy, np.full_like(gx, 2.0)], axis=1)  # the seabed 2 m below
    ex, ey = np.array([cell, 0.0, 0.0]), np.array([0.0, cell, 0.0])
    triangles = np.concatenate(
        [
            np.stack([corner, corner + ex, corner + ex + ey], 1),
            np.stack([corner, corner + ex + ey, corner + ey], 1),
        ]
    )
    density = default_density(C / (2 * bandwidth), math.radians(0.4), 5.5)
    bed = surface_scatterers(triangles, density, seed=3)

    def image(move: float) -> np.ndarray:
        p = bed.positions - move * np.array([math.sqrt(0.5), math.sqrt(0.5), 0.0])
        r = np.linalg.norm(p, axis=1)
        a = bed.amplitudes * (2.0 / r) / r**2 * np.exp(-4j * math.pi * r / wavelength)
        return former.form(r, p[:, 1] / r, a).intensity

    still = image(0.0)
    rows = 5.5 + C / (2 * bandwidth) * (np.arange(still.shape[1]) + 0.5)
    lit = (rows > 5.6) & (rows < 7.4)
    trend = still[:, lit].mean(axis=0)
    out = []
    for move in moves:
        moved = image(move)
        out.append(
            float(
                np.corrcoef((still[:, lit] / trend).ravel(), (moved[:, lit] / trend).ravel())[0, 1]
            )
        )
    return out


def adjacent_beams() -> tuple[float, float]:
    """Measured and predicted intensity correlation of neighbouring beams, Oculus-like fan."""
    array = SteeredArray(106, 0.5)
    angles = np.radians(0.2544 * (np.arange(41) - 20))
    setup = BeamSetup(
        array,
        np.sin(angles),
        Pulse(PulseKind.CHIRP, 1e-3, 20e3),
        C,
        5.0,
        C / 40e3,
        400,
        blank=False,
    )
    former = BeamFormer(setup)
    rng = np.random.default_rng(5)
    images = []
    for _ in range(3):
        m = 60_000
        a = rng.standard_normal(m) + 1j * rng.standard_normal(m)
        images.append(
            former.form(rng.uniform(4.0, 21.0, m), rng.uniform(-0.2, 0.2, m), a).intensity[
                :, 20:-20
            ]
        )
    stack = np.concatenate(images, axis=1)
    measured = float(np.mean([np.corrcoef(stack[b], stack[b + 1])[0, 1] for b in range(10, 30)]))
    predicted = float(np.abs(array.response(np.sin(angles[21]) - np.sin(angles[20]))) ** 2)
    return measured, predicted


def output_snr(length: float, rng: np.random.Generator) -> float:
    """A point target's peak power over the noise's mean power (dB), through the formed beams.

    The same echo amplitude for any pulse length (a fixed source level); white noise of the
    same density on every element, before the matched filter.
    """
    pulse = Pulse(PulseKind.CHIRP, length, 10e3)
    beams = np.sin(np.radians(np.linspace(-20, 20, 41)))
    quiet = BeamSetup(SteeredArray(16), beams, pulse, C, 1.0, C / 40e3, 2000)
    echo = BeamFormer(quiet).form(np.array([20.0]), np.zeros(1), np.ones(1)).baseband
    peak = float(np.max(np.abs(echo) ** 2))
    noisy = BeamSetup(SteeredArray(16), beams, pulse, C, 1.0, C / 40e3, 2000, noise_density=1e-4)
    nothing = np.zeros(0)
    noise = BeamFormer(noisy).form(nothing, nothing, nothing.astype(complex), rng=rng).baseband
    heard = noisy.ranges() > 5.0  # past the blanking of the 4 ms pulse
    return 10.0 * math.log10(peak / float(np.mean(np.abs(noise[:, heard]) ** 2)))


def main() -> None:
    """Measure each figure, print it beside its closed form, then the summary line."""
    array = SteeredArray(64, 0.5)
    ratio = beam_width(array, 50.0) / beam_width(array, 0.0)
    closed = 1.0 / math.cos(math.radians(50.0))
    print(
        f'-3 dB width at 50 deg over broadside: {ratio:.4f}   closed form 1/cos 50 = {closed:.4f}'
    )
    lobe = first_side_lobe()
    print(f'first side lobe, unshaded, point target: {lobe:.2f} dB   closed form -13.26 dB')
    wavelength = C / 400e3
    quarter, one, ten = seabed_correlation([wavelength / 4, wavelength, 10 * wavelength])
    across = math.sqrt(0.5) / 128
    print(
        f'seabed correlation after 1/4, 1, 10 wavelengths: {quarter:.3f} {one:.3f} {ten:.3f}   '
        f'closed form (1 - 2 s / D)**2 at 1: {(1 - 2 * across) ** 2:.3f} '
        '(issue: >= 0.99, >= 0.95)'
    )
    measured, predicted = adjacent_beams()
    print(
        f'neighbouring beams, Oculus-like fan: {measured:.3f}   '
        f'closed form |AF(du)|**2 = {predicted:.3f}'
    )
    rng = np.random.default_rng(11)
    gain = output_snr(4e-3, rng) - output_snr(1e-3, rng)
    print(f'output SNR, 4 ms over 1 ms chirp: {gain:.2f} dB   closed form 10 log10(4) = 6.02 dB')
    print(
        f'steering_width_ratio={ratio / closed:.4f} first_sidelobe_db={lobe:.2f} '
        f'corr_1wl={one:.4f} adjacent_beam_corr={measured - predicted:.4f} '
        f'compression_gain_db={gain:.2f}'
    )


if __name__ == '__main__':
    main()
