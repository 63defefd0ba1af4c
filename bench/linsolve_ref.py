# Reference timings for bench/linsolve.bench.ts: scipy.sparse.linalg.spsolve (SuperLU, its default
# COLAMD column order) on the same Matrix Market files, b = ones. Prints one JSON line per file:
# read time, solve time (process CPU time, best of reps), and the backward error of its x.
import sys, json, time
import numpy as np, scipy.io, scipy.sparse.linalg as sla
reps = int(sys.argv[1])
for path in sys.argv[2:]:
    t0 = time.perf_counter(); A = scipy.io.mmread(path).tocsc().astype(float); tread = time.perf_counter() - t0
    b = np.ones(A.shape[0])
    best = float('inf')
    for _ in range(reps):
        t0 = time.process_time(); x = sla.spsolve(A, b); best = min(best, time.process_time() - t0)
    r = b - A @ x
    eta = float(np.abs(r).max() / (abs(A).sum(axis=1).max() * np.abs(x).max() + 1))
    print(json.dumps({"path": path, "readS": tread, "solveS": best, "eta": eta}), flush=True)
