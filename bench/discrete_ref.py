#!/usr/bin/env python3
"""Reference implementations for bench/discrete.bench.ts (NumPy and mpmath), timed here.

Usage: python3 bench/discrete_ref.py '<json spec>'
Prints one JSON object: for each section the best-of-`reps` CPU time (time.process_time) in
seconds and the value.
  quant: European option by Monte Carlo, antithetic pairs, terminal GBM sampling, price and
         pathwise delta with standard errors (the same estimator and the same one-exp-per-pair
         arithmetic as src/solvers/quant.ts), NumPy default_rng (PCG64 + ziggurat normals).
  gauge: 2-D compact U(1) heat-bath sweeps, checkerboard-vectorised, von Mises draws from
         numpy.random.Generator.vonmises (the same update as src/solvers/gauge.ts).
  zeta:  mpmath.nzeros(T).
"""
import json
import sys
import time

import numpy as np


def quant(spec):
    S0, K, r, sigma, T, paths, seed = (spec[k] for k in ("S0", "K", "r", "sigma", "T", "paths", "seed"))
    rng = np.random.default_rng(seed)
    pairs = (paths + 1) // 2
    z = rng.standard_normal(pairs)
    drift = (r - 0.5 * sigma * sigma) * T
    vol = sigma * np.sqrt(T)
    # the same work as quant.ts: one exp per pair (S0*e^(drift - vol*z) = S0^2*e^(2*drift)/up),
    # price and pathwise delta with their standard errors
    up = S0 * np.exp(drift + vol * z)
    dn = (S0 * S0 * np.exp(2 * drift)) / up
    half = 0.5 * np.exp(-r * T)
    if spec["type"] == "call":
        x = half * (np.maximum(up - K, 0.0) + np.maximum(dn - K, 0.0))
        d = (half / S0) * (np.where(up > K, up, 0.0) + np.where(dn > K, dn, 0.0))
    else:
        x = half * (np.maximum(K - up, 0.0) + np.maximum(K - dn, 0.0))
        d = -(half / S0) * (np.where(up < K, up, 0.0) + np.where(dn < K, dn, 0.0))
    price = x.mean()
    std_err = x.std(ddof=1) / np.sqrt(pairs)
    delta = d.mean()
    delta_err = d.std(ddof=1) / np.sqrt(pairs)
    return float(price), float(std_err), float(delta), float(delta_err)


def gauge(spec):
    L, beta, sweeps, seed = spec["L"], spec["beta"], spec["sweeps"], spec["seed"]
    rng = np.random.default_rng(seed)
    th = np.zeros((2, L, L))  # th[mu, y, x], cold start as in gauge.ts
    hist = np.empty(sweeps)
    roll = np.roll
    for it in range(sweeps):
        for mu in (0, 1):
            for parity in (0, 1):
                t0, t1 = th[0], th[1]
                if mu == 0:
                    a = roll(t1, -1, axis=1) - roll(t0, -1, axis=0) - t1
                    b = roll(t0, 1, axis=0) + roll(roll(t1, -1, axis=1), 1, axis=0) - roll(t1, 1, axis=0)
                    wr = np.cos(a) + np.cos(b)
                    wi = np.sin(a) - np.sin(b)
                    sl = (slice(parity, None, 2), slice(None))
                else:
                    c = t0 + roll(t1, -1, axis=1) - roll(t0, -1, axis=0)
                    d = roll(t0, 1, axis=1) - roll(roll(t0, 1, axis=1), -1, axis=0) - roll(t1, 1, axis=1)
                    wr = np.cos(c) + np.cos(d)
                    wi = -np.sin(c) + np.sin(d)
                    sl = (slice(None), slice(parity, None, 2))
                R = np.hypot(wr[sl], wi[sl])
                psi = np.arctan2(wi[sl], wr[sl])
                phi = rng.vonmises(0.0, beta * R)
                th[mu][sl] = phi - psi
        t0, t1 = th[0], th[1]
        hist[it] = np.cos(t0 + roll(t1, -1, axis=1) - roll(t0, -1, axis=0) - t1).mean()
    return float(hist[spec.get("therm", 0):].mean())


def zeta(spec):
    import mpmath
    return int(mpmath.nzeros(spec["T"]))


def best_of(fn, spec, reps):
    best, value = float("inf"), None
    for _ in range(reps):
        t = time.process_time()
        value = fn(spec)
        best = min(best, time.process_time() - t)
    return {"seconds": best, "value": value}


def main():
    spec = json.loads(sys.argv[1])
    reps = spec.get("reps", 3)
    out = {}
    for q in spec.get("quant", []):
        out.setdefault("quant", []).append(best_of(quant, q, reps))
    for g in spec.get("gauge", []):
        out.setdefault("gauge", []).append(best_of(gauge, g, max(1, reps - 1)))
    for z in spec.get("zeta", []):
        try:
            out.setdefault("zeta", []).append(best_of(zeta, z, reps))
        except ImportError:
            out["zeta"] = None
            break
    print(json.dumps(out))


if __name__ == "__main__":
    main()
