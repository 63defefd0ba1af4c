"""NumPy/SciPy reference implementations for bench/fields-b.bench.ts.

Same methods and sizes as the TypeScript solvers:
  fea     Q4 plane-stress cantilever with Wilson incompatible modes (condensed 8x8 element), clamped
          at x = 0, parabolic tip shear, CG (scipy.sparse.linalg.cg) with a Jacobi preconditioner and
          with a point-SSOR one (omega 1.7, natural dof order, two sparse triangular solves), rtol 1e-8.
  device  five-point parallel-plate Poisson problem (Dirichlet plates, mirrored Neumann side walls
          with half weights), CG with a Jacobi preconditioner and with an SSOR preconditioner
          (two sparse triangular solves per application), rtol 1e-10.

Prints one JSON object: best-of-N wall times (seconds), iteration counts and the answers, so the
TypeScript bench can check that both sides solved the same problem.
Usage: python3 bench/fields_b_ref.py '{"fea": {...}, "device": {...}, "repeats": 3}'
"""
import json
import math
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def element_stiffness(hx, hy, E, nu, t):
    c = E / (1 - nu * nu)
    D = np.array([[c, c * nu, 0], [c * nu, c, 0], [0, 0, c * (1 - nu) / 2]])
    xi = [-1, 1, 1, -1]
    eta = [-1, -1, 1, 1]
    g = 1 / math.sqrt(3)
    K = np.zeros((12, 12))
    for gx in (-g, g):
        for gy in (-g, g):
            B = np.zeros((3, 12))
            for a in range(4):
                dnx = 0.25 * xi[a] * (1 + gy * eta[a]) * 2 / hx
                dny = 0.25 * eta[a] * (1 + gx * xi[a]) * 2 / hy
                B[0, 2 * a] = dnx
                B[1, 2 * a + 1] = dny
                B[2, 2 * a] = dny
                B[2, 2 * a + 1] = dnx
            dp1x = -2 * gx * 2 / hx
            dp2y = -2 * gy * 2 / hy
            B[0, 8] = dp1x
            B[2, 9] = dp2y
            B[1, 11] = dp2y
            B[2, 10] = dp1x
            K += (hx * hy / 4) * t * B.T @ D @ B
    Kuu, Kua, Kaa = K[:8, :8], K[:8, 8:], K[8:, 8:]
    Kc = Kuu - Kua @ np.linalg.solve(Kaa, Kua.T)
    return 0.5 * (Kc + Kc.T)


def ssor_operator(A, omega):
    """M^-1 of SSOR, M = (D + wL) D^-1 (D + wU) / (w(2 - w)), by two sparse triangular solves."""
    d = A.diagonal()
    lower = (sp.diags(d) + omega * sp.tril(A, -1)).tocsr()
    upper = (sp.diags(d) + omega * sp.triu(A, 1)).tocsr()
    scale = omega * (2 - omega)

    def apply(r):
        y = spla.spsolve_triangular(lower, scale * r, lower=True)
        return spla.spsolve_triangular(upper, d * y, lower=False)

    return spla.LinearOperator(A.shape, matvec=apply)


def fea(nx, ny, Lx, Ly, E, P, precond="jacobi", nu=0.3, t=1.0, rtol=1e-8):
    t_start = time.perf_counter()
    hx, hy = Lx / nx, Ly / ny
    ke = element_stiffness(hx, hy, E, nu, t)
    nyp = ny + 1
    ndof = 2 * (nx + 1) * nyp
    ex, ey = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    ex, ey = ex.ravel(), ey.ravel()
    corners = [(0, 0), (1, 0), (1, 1), (0, 1)]
    nodes = np.stack([(ex + cx) * nyp + (ey + cy) for cx, cy in corners], axis=1)
    dofs = np.empty((nodes.shape[0], 8), dtype=np.int64)
    dofs[:, 0::2] = 2 * nodes
    dofs[:, 1::2] = 2 * nodes + 1
    rows = np.repeat(dofs, 8, axis=1).ravel()
    cols = np.tile(dofs, (1, 8)).ravel()
    vals = np.tile(ke.ravel(), nodes.shape[0])
    K = sp.coo_matrix((vals, (rows, cols)), shape=(ndof, ndof)).tocsr()
    f = np.zeros(ndof)
    gp = [-math.sqrt(0.6), 0.0, math.sqrt(0.6)]
    gw = [5 / 9, 8 / 9, 5 / 9]
    for j in range(ny):
        for s, w in zip(gp, gw):
            y = (j + 0.5 + 0.5 * s) * hy
            yc = 2 * (y - Ly / 2) / Ly
            tau = 3 * P / (2 * Ly) * (1 - yc * yc)
            f[2 * (nx * nyp + j) + 1] -= w * 0.5 * hy * tau * 0.5 * (1 - s)
            f[2 * (nx * nyp + j + 1) + 1] -= w * 0.5 * hy * tau * 0.5 * (1 + s)
    free = np.arange(2 * nyp, ndof)  # column i = 0 clamped
    Kf = K[free][:, free].tocsr()
    ff = f[free]
    M = sp.diags(1.0 / Kf.diagonal()) if precond == "jacobi" else ssor_operator(Kf, 1.7)
    assembly = time.perf_counter() - t_start
    its = [0]

    def cb(_):
        its[0] += 1

    u, info = spla.cg(Kf, ff, rtol=rtol, atol=0.0, maxiter=20 * ndof, M=M, callback=cb)
    full = np.zeros(ndof)
    full[free] = u
    tip = nx * nyp
    jm = ny // 2
    frac = ny / 2 - jm
    v0 = full[2 * (tip + jm) + 1]
    v1 = full[2 * (tip + jm + 1) + 1] if frac > 0 else v0
    return {"tip": -((1 - frac) * v0 + frac * v1), "iterations": its[0], "info": int(info), "assemblySeconds": assembly}


def plate_matrix(nx, ny, Lx, Ly):
    hx, hy = Lx / (nx - 1), Ly / (ny - 1)
    rows = ny - 2
    w = np.ones(nx)
    w[0] = w[-1] = 0.5
    ix2, iy2 = 1 / hx**2, 1 / hy**2
    dx = np.where(w < 1, 1.0, 2.0) * ix2
    Tx = sp.diags([-ix2 * np.ones(nx - 1), dx, -ix2 * np.ones(nx - 1)], [-1, 0, 1])
    Wy = sp.diags(w * iy2)
    Ty = sp.diags([-np.ones(rows - 1), 2 * np.ones(rows), -np.ones(rows - 1)], [-1, 0, 1])
    A = (sp.kron(sp.eye(rows), Tx) + sp.kron(Ty, Wy)).tocsr()
    return A, w, hx, hy


def device(nx, ny, Lx, Ly, V, kx, precond, rtol=1e-10):
    A, w, hx, hy = plate_matrix(nx, ny, Lx, Ly)
    rows = ny - 2
    x = np.arange(nx) * hx
    y = np.arange(1, ny - 1) * hy
    X, Y = np.meshgrid(x, y)
    amp = V / 4
    lap = amp * math.pi**2 * (kx**2 / Lx**2 + 1 / Ly**2) if kx > 0 else 0.0
    mode = np.cos(kx * math.pi * X / Lx) * np.sin(math.pi * Y / Ly) if kx > 0 else np.zeros_like(X)
    b = (w[None, :] * lap * mode)
    b[-1, :] += w / hy**2 * V
    b = b.ravel()
    if precond == "jacobi":
        M = sp.diags(1.0 / A.diagonal())
    else:
        M = ssor_operator(A, 2 / (1 + 2 * math.pi / max(nx, ny)))
    its = [0]

    def cb(_):
        its[0] += 1

    u, info = spla.cg(A, b, rtol=rtol, atol=0.0, maxiter=20 * A.shape[0], M=M, callback=cb)
    ip = round((nx - 1) / 3)
    jp = round((ny - 1) / 2)
    return {"probe": float(u[(jp - 1) * nx + ip]), "iterations": its[0], "info": int(info)}


def best_of(fn, repeats):
    best = math.inf
    best_cpu = math.inf
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        c0 = time.process_time()
        out = fn()
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best, best_cpu, out


def main():
    cfg = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    repeats = int(cfg.get("repeats", 3))
    fe = cfg.get("fea", {"nx": 120, "ny": 30, "Lx": 4, "Ly": 1, "E": 200e9, "P": 1000})
    dv = cfg.get("device", {"nx": 220, "ny": 220, "Lx": 1e-6, "Ly": 1e-6, "V": 1, "kx": 2})
    res = {"numpy": np.__version__, "scipy": __import__("scipy").__version__}
    for pc in ("jacobi", "ssor"):
        t, c, out = best_of(lambda: fea(precond=pc, **fe), repeats if pc == "jacobi" else 1)
        res["fea_" + pc] = {"seconds": t, "cpu": c, **out}
    for pc in ("jacobi", "ssor"):
        t, c, out = best_of(lambda: device(precond=pc, **dv), repeats if pc == "jacobi" else 1)
        res["device_" + pc] = {"seconds": t, "cpu": c, **out}
    print(json.dumps(res))


if __name__ == "__main__":
    main()
