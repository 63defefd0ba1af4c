#!/usr/bin/env python3
"""SciPy reference for bench/ode.bench.ts: scipy.integrate.solve_ivp on the same problems, with
the same methods and tolerances, and the analytic Jacobian for the implicit methods (the ode
solver has the exact symbolic one). Pleiades' right-hand side is vectorised with NumPy.

Usage: python3 bench/ode_ref.py '<json: {"reps": k, "cases": [{"problem", "method", "rtol", "atol"}]}>'
Prints one JSON list: per case the best-of-reps CPU time (time.process_time), nfev, njev, nlu,
accepted steps and the end state.
"""
import json
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

MU = 1000.0


def vdp(t, y):
    return [y[1], MU * (1 - y[0] ** 2) * y[1] - y[0]]


def vdp_jac(t, y):
    return [[0.0, 1.0], [-2 * MU * y[0] * y[1] - 1, MU * (1 - y[0] ** 2)]]


def rober(t, y):
    return [-0.04 * y[0] + 1e4 * y[1] * y[2], 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2, 3e7 * y[1] ** 2]


def rober_jac(t, y):
    return [[-0.04, 1e4 * y[2], 1e4 * y[1]], [0.04, -1e4 * y[2] - 6e7 * y[1], -1e4 * y[1]], [0.0, 6e7 * y[1], 0.0]]


MASS = np.arange(1.0, 8.0)


def plei(t, y):
    x, yy = y[0:7], y[7:14]
    dx = x[None, :] - x[:, None]  # dx[i, j] = x_j - x_i
    dy = yy[None, :] - yy[:, None]
    r2 = dx * dx + dy * dy
    np.fill_diagonal(r2, 1.0)
    w = MASS[None, :] / (r2 * np.sqrt(r2))
    np.fill_diagonal(w, 0.0)
    return np.concatenate((y[14:28], (w * dx).sum(axis=1), (w * dy).sum(axis=1)))


PROBLEMS = {
    "vdp": (vdp, vdp_jac, (0.0, 3000.0), [2.0, 0.0]),
    "rober": (rober, rober_jac, (0.0, 1e5), [1.0, 0.0, 0.0]),
    "plei": (plei, None, (0.0, 3.0), [3, 3, -1, -3, 2, -2, 2, 3, -3, 2, 0, 0, -4, 4, 0, 0, 0, 0, 0, 1.75, -1.5, 0, 0, 0, -1.25, 1, 0, 0]),
}


def main():
    spec = json.loads(sys.argv[1])
    out = []
    for case in spec["cases"]:
        f, jac, span, y0 = PROBLEMS[case["problem"]]
        kw = {"method": case["method"], "rtol": case["rtol"], "atol": case["atol"]}
        if case["method"] in ("Radau", "BDF") and jac is not None:
            kw["jac"] = jac
        best = float("inf")
        sol = None
        for _ in range(spec.get("reps", 3)):
            c0 = time.process_time()
            sol = solve_ivp(f, span, np.array(y0, dtype=float), **kw)
            best = min(best, time.process_time() - c0)
        out.append({"seconds": best, "nfev": int(sol.nfev), "njev": int(sol.njev), "nlu": int(sol.nlu),
                    "steps": len(sol.t) - 1, "y": sol.y[:, -1].tolist(), "ok": bool(sol.success)})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
