#!/usr/bin/env python3
"""NumPy reference for bench/lorenz.bench.ts: the same computation as src/solvers/lorenz.ts.

Classical RK4 at a fixed step on the Lorenz trajectory, three tangent vectors (variational
equations, re-orthonormalised by modified Gram-Schmidt every 10 steps: the Lyapunov spectrum and
the phase-volume contraction rate) and a twin trajectory renormalised to distance delta every 10
steps (largest exponent), after a transient of min(steps/10, 1000) steps. Prints one JSON line.
Usage: lorenz_ref.py [steps] [dt] [delta]
"""
import json
import sys
import time

import numpy as np

SIGMA, RHO, BETA = 10.0, 28.0, 8.0 / 3.0
RENORM_EVERY = 10


def deriv(s):
    x, y, z = s[0], s[1], s[2]
    out = np.empty(15)
    out[0] = SIGMA * (y - x)
    out[1] = x * (RHO - z) - y
    out[2] = x * y - BETA * z
    jac = np.array([[-SIGMA, SIGMA, 0.0], [RHO - z, -1.0, -x], [y, x, -BETA]])
    out[3:12] = (s[3:12].reshape(3, 3) @ jac.T).ravel()
    tx, ty, tz = s[12], s[13], s[14]
    out[12] = SIGMA * (ty - tx)
    out[13] = tx * (RHO - tz) - ty
    out[14] = tx * ty - BETA * tz
    return out


def rk4(s, h):
    k1 = deriv(s)
    k2 = deriv(s + 0.5 * h * k1)
    k3 = deriv(s + 0.5 * h * k2)
    k4 = deriv(s + h * k3)
    return s + (h / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    h = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
    delta = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-8
    t0 = time.perf_counter()
    s = np.zeros(15)
    s[0:3] = 1.0
    for _ in range(min(steps // 10, 1000)):
        s = rk4(s, h)
    s[3:12] = np.eye(3).ravel()
    s[12:15] = s[0:3] + delta / np.sqrt(3.0)
    sum_twin = 0.0
    sum_log = np.zeros(3)
    measured = 0.0
    for k in range(1, steps + 1):
        s = rk4(s, h)
        if k % RENORM_EVERY == 0 or k == steps:
            sep = s[12:15] - s[0:3]
            d = np.linalg.norm(sep)
            sum_twin += np.log(d / delta)
            s[12:15] = s[0:3] + sep * (delta / d)
            v = s[3:12].reshape(3, 3).copy()
            for a in range(3):
                for b in range(a):
                    v[a] -= np.dot(v[a], v[b]) * v[b]
                n = np.linalg.norm(v[a])
                sum_log[a] += np.log(n)
                v[a] /= n
            s[3:12] = v.ravel()
            measured = k * h
    seconds = time.perf_counter() - t0
    spectrum = sum_log / measured
    print(json.dumps({
        "lyapunov": sum_twin / measured,
        "spectrum": spectrum.tolist(),
        "contraction": float(spectrum.sum()),
        "seconds": seconds,
        "steps": steps,
    }))


if __name__ == "__main__":
    main()
