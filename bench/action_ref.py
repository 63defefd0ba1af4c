#!/usr/bin/env python3
"""Reference for bench/action.bench.ts: the same method and size in NumPy.

Kepler orbit (mu = 1, a = 1, eccentricity e, start at periapsis), Yoshida order-4 composition of
the kick-drift-kick leapfrog (fused half kicks, first-same-as-last force reuse, exactly as
src/solvers/lib/symplectic.ts), then classical RK4 at the same step, with the energy evaluated
at every step in both (as the solver does). State vectors are NumPy arrays; the time loop is a
Python loop because both integrators are sequential. Prints one JSON line.
"""
import argparse
import json
import time

import numpy as np


def accel(q, mu):
    r2 = q @ q
    return (-mu / (r2 * np.sqrt(r2))) * q


def energy(q, p, mu):
    return 0.5 * (p @ p) - mu / np.sqrt(q @ q)


def yoshida4(q, p, h, steps, mu):
    x1 = 1.0 / (2.0 - 2.0 ** (1.0 / 3.0))
    w = np.array([x1, 1.0 - 2.0 * x1, x1])
    kick = np.zeros(4)
    for i, wi in enumerate(w):
        kick[i] += 0.5 * wi
        kick[i + 1] += 0.5 * wi
    kick *= h
    drift = w * h
    E0 = energy(q, p, mu)
    max_err = 0.0
    a = accel(q, mu)
    for _ in range(steps):
        for s in range(3):
            p = p + kick[s] * a
            q = q + drift[s] * p
            a = accel(q, mu)
        p = p + kick[3] * a
        err = abs(energy(q, p, mu) - E0)
        if err > max_err:
            max_err = err
    return q, p, abs(energy(q, p, mu) - E0) / abs(E0), max_err / abs(E0)


def rk4(q, p, h, steps, mu):
    y = np.concatenate([q, p])
    E0 = energy(q, p, mu)
    max_err = 0.0

    def f(y):
        return np.concatenate([y[2:], accel(y[:2], mu)])

    for _ in range(steps):
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        err = abs(energy(y[:2], y[2:], mu) - E0)
        if err > max_err:
            max_err = err
    return y, abs(energy(y[:2], y[2:], mu) - E0) / abs(E0), max_err / abs(E0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--steps', type=int, default=100000)
    ap.add_argument('--dt', type=float, default=0.01)
    ap.add_argument('--e', type=float, default=0.6)
    args = ap.parse_args()
    mu, e = 1.0, args.e
    q0 = np.array([1.0 - e, 0.0])
    p0 = np.array([0.0, np.sqrt(mu * (1.0 + e) / (1.0 - e))])
    t0 = time.perf_counter()
    _, _, drift, max_err = yoshida4(q0.copy(), p0.copy(), args.dt, args.steps, mu)
    t1 = time.perf_counter()
    _, rk4_drift, rk4_max = rk4(q0.copy(), p0.copy(), args.dt, args.steps, mu)
    t2 = time.perf_counter()
    print(json.dumps({
        'numpy': np.__version__, 'steps': args.steps, 'dt': args.dt,
        'symplecticSeconds': t1 - t0, 'rk4Seconds': t2 - t1, 'totalSeconds': t2 - t0,
        'energyDrift': drift, 'maxEnergyError': max_err, 'rk4Drift': rk4_drift, 'rk4MaxEnergyError': rk4_max,
    }))


if __name__ == '__main__':
    main()
