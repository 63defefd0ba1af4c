#!/usr/bin/env python3
"""NumPy/SciPy references for bench/fields-a.bench.ts: the same methods at the same sizes.

heat: 2-D Peaceman-Rachford ADI on the unit square, zero Dirichlet walls, initial sin(pi x) sin(pi y);
      tridiagonal solves by scipy.linalg.solve_banded (LAPACK gbsv) on all rows/columns at once;
      the mode amplitude is projected every step, as the node solver records it.
wave: 2-D membrane leapfrog, same start step, energy E^{n+1/2} and mode projection every step.
Prints one JSON line.
"""
import argparse
import json
import time

import numpy as np
from scipy.linalg import solve_banded


def heat_adi(n, steps, alpha, dt):
    dx = 1.0 / n
    r = alpha * dt / dx**2
    x = np.arange(n + 1) * dx
    phi = np.outer(np.sin(np.pi * x), np.sin(np.pi * x))  # [j, i]
    u = phi.copy()
    norm = np.sum(phi * phi)
    ab = np.zeros((3, n - 1))
    ab[0, 1:] = -r / 2
    ab[1, :] = 1 + r
    ab[2, :-1] = -r / 2
    star = np.zeros_like(u)
    amp = 1.0
    t0 = time.perf_counter()
    for _ in range(steps):
        # (I - r/2 dxx) u* = (I + r/2 dyy) u      (rows j, unknowns along i)
        rhs = u[1:-1, 1:-1] + 0.5 * r * (u[:-2, 1:-1] - 2 * u[1:-1, 1:-1] + u[2:, 1:-1])
        star[1:-1, 1:-1] = solve_banded((1, 1), ab, rhs.T).T
        # (I - r/2 dyy) u = (I + r/2 dxx) u*
        rhs = star[1:-1, 1:-1] + 0.5 * r * (star[1:-1, :-2] - 2 * star[1:-1, 1:-1] + star[1:-1, 2:])
        u[1:-1, 1:-1] = solve_banded((1, 1), ab, rhs)
        amp = np.sum(u * phi) / norm
    return time.perf_counter() - t0, float(amp)


def wave_membrane(n, steps, c, courant):
    dx = 1.0 / n
    dt = courant / (c * np.sqrt(2.0) * n)
    x = np.arange(n + 1) * dx
    phi = np.outer(np.sin(np.pi * x), np.sin(np.pi * x))
    norm = np.sum(phi * phi)
    cx2 = (c * dt / dx) ** 2
    u = phi.copy()
    lap = np.zeros_like(u)
    lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    prev = u + 0.5 * cx2 * lap  # mirrored u^{-1}: the first leapfrog step gives u^1 = u^0 + 1/2 L u^0
    energies = np.empty(steps)
    amps = np.empty(steps)
    t0 = time.perf_counter()
    for s in range(steps):
        lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        nxt = 2 * u - prev + cx2 * lap
        kin = np.sum((nxt - u) ** 2) / dt**2
        pot = -np.sum(nxt * lap) / dx**2
        energies[s] = 0.5 * dx * dx * (kin + c * c * pot)
        amps[s] = np.sum(nxt * phi) / norm
        prev, u = u, nxt
    secs = time.perf_counter() - t0
    drift = float(np.max(np.abs(energies - energies[0])) / energies[0])
    return secs, float(energies[-1]), drift


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--heat-n', type=int, default=128)
    ap.add_argument('--heat-steps', type=int, default=500)
    ap.add_argument('--alpha', type=float, default=1.0)
    ap.add_argument('--dt', type=float, default=5e-5)
    ap.add_argument('--wave-n', type=int, default=128)
    ap.add_argument('--wave-steps', type=int, default=1000)
    ap.add_argument('--courant', type=float, default=0.5)
    a = ap.parse_args()
    heat_adi(16, 5, a.alpha, a.dt)  # warm-up
    hs, hamp = heat_adi(a.heat_n, a.heat_steps, a.alpha, a.dt)
    ws, wenergy, wdrift = wave_membrane(a.wave_n, a.wave_steps, 1.0, a.courant)
    print(json.dumps({'numpy': np.__version__, 'heatSeconds': hs, 'heatAmplitude': hamp,
                      'waveSeconds': ws, 'waveEnergy': wenergy, 'waveMaxDrift': wdrift}))


if __name__ == '__main__':
    main()
