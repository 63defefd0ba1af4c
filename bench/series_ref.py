#!/usr/bin/env python3
"""Reference implementations for bench/series.bench.ts (NumPy and SciPy), timed here.

Usage: python3 bench/series_ref.py <spec.json>
Prints one JSON object with, per section, the CPU time (time.process_time) and the results.
  kalman: the textbook Kalman filter (Joseph form) and Rauch-Tung-Striebel smoother as a NumPy loop
          over the measurements (the natural transcription: the recursion is sequential).
  epi:    SIR Poisson maximum likelihood with scipy.integrate.solve_ivp (DOP853, rtol 1e-11) on
          S, I and the cumulative incidence, minimised over log-parameters by Nelder-Mead then
          Powell (scipy.optimize.minimize), from a fixed start; no derivatives.
"""
import json
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import minimize
from scipy.special import gammaln


def kalman(spec):
    F = np.array(spec["F"], float); H = np.array(spec["H"], float)
    Q = np.array(spec["Q"], float); R = np.array(spec["R"], float)
    x = np.array(spec["x0"], float); P = np.array(spec["P0"], float)
    z = np.array(spec["measurements"], float).reshape(len(spec["measurements"]), -1)
    N, n = z.shape[0], F.shape[0]
    I = np.eye(n)
    xs_f = np.empty((N, n)); Ps_f = np.empty((N, n, n)); xs_p = np.empty((N, n)); Ps_p = np.empty((N, n, n))
    nis = np.empty(N)
    t0 = time.process_time()
    for k in range(N):
        if k > 0:
            x = F @ x
            P = F @ P @ F.T + Q
        xs_p[k] = x; Ps_p[k] = P
        nu = z[k] - H @ x
        S = H @ P @ H.T + R
        K = np.linalg.solve(S, H @ P).T
        x = x + K @ nu
        A = I - K @ H
        P = A @ P @ A.T + K @ R @ K.T
        xs_f[k] = x; Ps_f[k] = P
        nis[k] = nu @ np.linalg.solve(S, nu)
    t_filter = time.process_time() - t0
    xs = xs_f.copy(); Ps = Ps_f.copy()
    for k in range(N - 2, -1, -1):
        C = np.linalg.solve(Ps_p[k + 1], F @ Ps_f[k]).T
        xs[k] = xs_f[k] + C @ (xs[k + 1] - xs_p[k + 1])
        Ps[k] = Ps_f[k] + C @ (Ps[k + 1] - Ps_p[k + 1]) @ C.T
    t_all = time.process_time() - t0
    idx = [0, N // 2, N - 1]
    return {"filterSeconds": t_filter, "filterSmoothSeconds": t_all, "meanNis": float(nis.mean()),
            "filtered": [xs_f[i].tolist() for i in idx], "smoothed": [xs[i].tolist() for i in idx]}


def epi(spec):
    out = []
    for case in spec["cases"]:
        c = np.array(case["cases"], float); N = case["population"]; D = len(c)
        lgc = gammaln(c + 1).sum()

        def nll(th):
            beta, gamma, I0 = np.exp(th)
            if I0 >= N / 2 or beta > 50 or gamma > 50:
                return 1e300
            def rhs(t, y):
                S, I, C = y
                inf = beta * S * I / N
                return [-inf, inf - gamma * I, inf]
            sol = solve_ivp(rhs, (0, D), [N - I0, I0, 0.0], method="DOP853", rtol=1e-11, atol=1e-9,
                            t_eval=np.arange(D + 1))
            if not sol.success:
                return 1e300
            mu = np.diff(sol.y[2])
            if np.any(mu <= 0):
                return 1e300
            return float(np.sum(mu - c * np.log(mu)) + lgc)

        early = max(c[:7].mean(), 0.5)
        th0 = np.log([0.3, 0.1, early / 0.3])
        t0 = time.process_time()
        r1 = minimize(nll, th0, method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-10, "maxiter": 4000, "maxfev": 8000})
        r = minimize(nll, r1.x, method="Powell", options={"xtol": 1e-10, "ftol": 1e-13, "maxfev": 8000})
        r.nfev += r1.nfev
        sec = time.process_time() - t0
        beta, gamma, I0 = np.exp(r.x)
        out.append({"seconds": sec, "beta": beta, "gamma": gamma, "I0": I0, "logLik": -r.fun, "nfev": int(r.nfev)})
    return out


def main():
    with open(sys.argv[1]) as fh:
        spec = json.load(fh)
    res = {}
    if "kalman" in spec:
        res["kalman"] = kalman(spec["kalman"])
    if "epi" in spec:
        res["epi"] = epi(spec["epi"])
    print(json.dumps(res))


if __name__ == "__main__":
    main()
