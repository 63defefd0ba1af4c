#!/usr/bin/env python3
"""scipy.optimize.least_squares on the NIST StRD nonlinear regression problems, for
test/solvers/fit-strd.test.ts and bench/fit.bench.ts.

The models arrive as the same expression text svc_fit takes (mathjs syntax: ^ for powers,
atan, pi); here they are turned into NumPy functions by SymPy, which also differentiates them, so
SciPy gets an exact analytic Jacobian as svc_fit does (without SymPy: jac='3-point', and
"jac" in the output says so). Standard deviations as NIST defines them: s^2 (J^T J)^-1 with
s^2 = RSS/(m - n), (J^T J)^-1 from the SVD of J at the solution.

Usage: python3 bench/fit_ref.py < spec.json
  spec = {"reps": 1 (0: no timing), "tol": 1e-15, "max_nfev": 10000,
          "cases": [{"name": "MGH09", "model": "...", "params": ["b1", ...], "x": {"x": [...]},
                     "y": [...], "p0": [...], "method": "lm" | "trf"}, ...]}
Prints one JSON object {"scipy": version, "jac": "sympy" | "3-point", "cases": [{params, sd,
rss, nfev, njev, status, message, success, seconds}, ...]}; seconds is the best-of-`reps` CPU
time (time.process_time) of one least_squares call (the model functions built beforehand),
measured on a batch of calls lasting at least 20 ms when one call is shorter.
"""
import json
import sys
import time
import warnings

import numpy as np
import scipy
from scipy.optimize import least_squares

warnings.simplefilter("ignore")

try:
    import sympy
    HAVE_SYMPY = True
except ImportError:  # pragma: no cover
    HAVE_SYMPY = False

NP_FUNCS = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan,
            "atan": np.arctan, "arctan": np.arctan, "pi": np.pi, "abs": np.abs}


def build(model, params, xnames):
    text = model.replace("^", "**")
    if HAVE_SYMPY:
        syms = {k: sympy.Symbol(k) for k in list(params) + list(xnames)}
        expr = sympy.sympify(text, locals={**syms, "pi": sympy.pi, "atan": sympy.atan, "exp": sympy.exp, "log": sympy.log})
        args = [syms[k] for k in params] + [syms[k] for k in xnames]
        f = sympy.lambdify(args, expr, "numpy")
        grads = [sympy.lambdify(args, sympy.diff(expr, syms[k]), "numpy") for k in params]
        return f, grads
    code = compile(text, "<model>", "eval")

    def f(*a):
        scope = dict(NP_FUNCS)
        scope.update(zip(list(params) + list(xnames), a))
        return eval(code, {"__builtins__": {}}, scope)
    return f, None


def solve(case, tol, max_nfev):
    params, xnames = case["params"], list(case["x"].keys())
    X = [np.asarray(case["x"][k], dtype=float) for k in xnames]
    y = np.asarray(case["y"], dtype=float)
    f, grads = build(case["model"], params, xnames)
    m = y.size

    def resid(p):
        return np.broadcast_to(f(*p, *X), (m,)) - y

    if grads is not None:
        def jac(p):
            return np.column_stack([np.broadcast_to(g(*p, *X), (m,)).astype(float) for g in grads])
    else:
        jac = "3-point"

    def call():
        return least_squares(resid, np.asarray(case["p0"], dtype=float), jac=jac, method=case["method"],
                             ftol=tol, xtol=tol, gtol=tol, max_nfev=max_nfev)
    return call, jac


def stats(res, n):
    J = res.jac
    m = J.shape[0]
    rss = float(np.dot(res.fun, res.fun))
    _, s, vt = np.linalg.svd(J, full_matrices=False)
    if s[-1] <= s[0] * 1e-15 * max(J.shape):
        return rss, [None] * n
    cov = (vt.T / s**2) @ vt * (rss / (m - n))
    return rss, [float(v) for v in np.sqrt(np.diag(cov))]


def main():
    spec = json.load(sys.stdin)
    reps = int(spec.get("reps", 1))
    tol = float(spec.get("tol", 1e-15))
    max_nfev = int(spec.get("max_nfev", 10000))
    out = []
    for case in spec["cases"]:
        call, jac = solve(case, tol, max_nfev)
        try:
            res = call()
        except Exception as e:  # a model leaving its domain
            out.append({"error": str(e)})
            continue
        best = None if reps == 0 else float("inf")
        for _ in range(reps):
            k = 1
            while True:
                t0 = time.process_time()
                for _ in range(k):
                    call()
                dt = time.process_time() - t0
                if dt >= 0.02 or k >= 1 << 12:
                    break
                k *= 4
            best = min(best, dt / k)
        rss, sd = stats(res, len(case["params"]))
        finite = lambda v: v if v is not None and np.isfinite(v) else None
        out.append({"params": [finite(float(v)) for v in res.x], "sd": [finite(v) for v in sd], "rss": finite(rss), "nfev": int(res.nfev),
                    "njev": int(res.njev) if res.njev is not None else None, "status": int(res.status),
                    "message": str(res.message), "success": bool(res.success), "seconds": best})
    print(json.dumps({"scipy": scipy.__version__, "jac": "sympy" if HAVE_SYMPY else "3-point", "cases": out}))


if __name__ == "__main__":
    main()
