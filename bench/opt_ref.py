#!/usr/bin/env python3
"""scipy.optimize.minimize on the opt test problems, for test/solvers/opt-objective.test.ts and
bench/opt.bench.ts.

Each problem is written here by hand with its analytic gradient in NumPy (Rosenbrock from
scipy.optimize.rosen/rosen_der), independently of the TypeScript expression and its automatic
gradient. Methods: 'Nelder-Mead' (xatol, fatol; bounds by clipping), 'BFGS' (gtol, max-norm),
'L-BFGS-B' (gtol = pgtol, ftol = machine epsilon so that it stops on the gradient, not on a
relative reduction of 2.2e-9).

Usage: python3 bench/opt_ref.py '<json spec>'
  spec = {"reps": 1, "cases": [{"problem": "beale", "n": 2, "x0": [1, 1],
           "bounds": null | [[lo|null, hi|null], ...], "method": "BFGS",
           "gtol": 1e-8, "xatol": 1e-10, "fatol": 1e-10, "maxiter": 10000}, ...]}
Prints one JSON object {"scipy": version, "cases": [{x, fun, nfev, njev, nit, success, message,
seconds}, ...]}; seconds is the best-of-`reps` CPU time (time.process_time) of one minimize call,
measured on a batch of calls lasting at least 20 ms when one call is shorter.
"""
import json
import sys
import time
import warnings

import numpy as np
import scipy
from scipy.optimize import minimize, rosen, rosen_der, Bounds

warnings.simplefilter("ignore")


def beale(x):
    u, v = x
    return (1.5 - u + u * v) ** 2 + (2.25 - u + u * v * v) ** 2 + (2.625 - u + u * v ** 3) ** 2


def beale_grad(x):
    u, v = x
    a, b, c = 1.5 - u + u * v, 2.25 - u + u * v * v, 2.625 - u + u * v ** 3
    return np.array([2 * a * (v - 1) + 2 * b * (v * v - 1) + 2 * c * (v ** 3 - 1),
                     2 * a * u + 4 * b * u * v + 6 * c * u * v * v])


def booth(x):
    return (x[0] + 2 * x[1] - 7) ** 2 + (2 * x[0] + x[1] - 5) ** 2


def booth_grad(x):
    a, b = x[0] + 2 * x[1] - 7, 2 * x[0] + x[1] - 5
    return np.array([2 * a + 4 * b, 4 * a + 2 * b])


def himmelblau(x):
    return (x[0] ** 2 + x[1] - 11) ** 2 + (x[0] + x[1] ** 2 - 7) ** 2


def himmelblau_grad(x):
    a, b = x[0] ** 2 + x[1] - 11, x[0] + x[1] ** 2 - 7
    return np.array([4 * a * x[0] + 2 * b, 2 * a + 4 * b * x[1]])


def powell(x):
    x1, x2, x3, x4 = x
    return (x1 + 10 * x2) ** 2 + 5 * (x3 - x4) ** 2 + (x2 - 2 * x3) ** 4 + 10 * (x1 - x4) ** 4


def powell_grad(x):
    x1, x2, x3, x4 = x
    a, b, c, d = x1 + 10 * x2, x3 - x4, x2 - 2 * x3, x1 - x4
    return np.array([2 * a + 40 * d ** 3, 20 * a + 4 * c ** 3, 10 * b - 8 * c ** 3, -10 * b - 40 * d ** 3])


def separable(x):
    return (x[0] - 2) ** 2 + (x[1] + 1) ** 4 + (x[2] - 0.5) ** 2


def separable_grad(x):
    return np.array([2 * (x[0] - 2), 4 * (x[1] + 1) ** 3, 2 * (x[2] - 0.5)])


PROBLEMS = {
    "rosenbrock": (rosen, rosen_der),
    "beale": (beale, beale_grad),
    "booth": (booth, booth_grad),
    "himmelblau": (himmelblau, himmelblau_grad),
    "powell": (powell, powell_grad),
    "separable": (separable, separable_grad),
}


def solve(case):
    f, g = PROBLEMS[case["problem"]]
    method = case["method"]
    x0 = np.array(case["x0"], dtype=float)
    maxiter = case.get("maxiter", 10000)
    bounds = None
    if case.get("bounds"):
        lo = [-np.inf if b[0] is None else b[0] for b in case["bounds"]]
        hi = [np.inf if b[1] is None else b[1] for b in case["bounds"]]
        bounds = Bounds(lo, hi)
    if method == "Nelder-Mead":
        opts = {"xatol": case.get("xatol", 1e-10), "fatol": case.get("fatol", 1e-10), "maxiter": maxiter, "maxfev": 10 ** 7}
        return lambda: minimize(f, x0, method=method, bounds=bounds, options=opts)
    if method == "BFGS":
        opts = {"gtol": case.get("gtol", 1e-8), "maxiter": maxiter}
        return lambda: minimize(f, x0, jac=g, method=method, options=opts)
    opts = {"gtol": case.get("gtol", 1e-8), "ftol": np.finfo(float).eps, "maxiter": maxiter, "maxfun": 10 ** 7}
    return lambda: minimize(f, x0, jac=g, method="L-BFGS-B", bounds=bounds, options=opts)


def timed(call, reps):
    t0 = time.process_time()
    r = call()
    once = time.process_time() - t0
    batch = 1 if once >= 0.02 else min(1000, int(0.02 / max(once, 1e-5)) + 1)
    best = once
    for _ in range(max(0, reps - 1) if reps > 1 else 0):
        t0 = time.process_time()
        for _ in range(batch):
            r = call()
        best = min(best, (time.process_time() - t0) / batch)
    return r, best


def main():
    spec = json.loads(sys.argv[1])
    reps = spec.get("reps", 1)
    out = []
    for case in spec["cases"]:
        r, seconds = timed(solve(case), reps)
        out.append({
            "x": [float(v) for v in r.x], "fun": float(r.fun), "nfev": int(r.nfev),
            "njev": int(r.get("njev", 0) or 0), "nit": int(r.nit), "success": bool(r.success),
            "message": str(r.message), "seconds": seconds,
        })
    print(json.dumps({"scipy": scipy.__version__, "cases": out}))


if __name__ == "__main__":
    main()
