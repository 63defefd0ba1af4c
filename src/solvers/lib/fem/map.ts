// The isoparametric map of one element (Ciarlet, The Finite Element Method for Elliptic Problems,
// 1978, §4.3): the physical point of reference coordinates, the basis gradients through J⁻ᵀ and |det J|.
// Used by the assembly (assemble.ts) and the patch recovery (recovery.ts).
import type { FeSpace } from './space.ts';

/** Geometry at one point of element k: x, |det J|, and physical gradients (nb × dim). */
export function mapPoint(s: FeSpace, k: number, phi: Float64Array, dphi: Float64Array, grads: Float64Array, x: Float64Array): number {
  const { dim, nodesPerElem: nb, elems, coords } = s;
  const off = k * nb;
  let x0 = 0, x1 = 0, x2 = 0;
  if (dim === 2) {
    let j00 = 0, j01 = 0, j10 = 0, j11 = 0;
    for (let a = 0; a < nb; a++) {
      const g = 3 * elems[off + a], cx = coords[g], cy = coords[g + 1], pa = phi[a], d0 = dphi[2 * a], d1 = dphi[2 * a + 1];
      x0 += cx * pa; x1 += cy * pa; x2 += coords[g + 2] * pa;
      j00 += cx * d0; j01 += cx * d1; j10 += cy * d0; j11 += cy * d1;
    }
    x[0] = x0; x[1] = x1; x[2] = x2;
    const det = j00 * j11 - j01 * j10;
    const i00 = j11 / det, i01 = -j01 / det, i10 = -j10 / det, i11 = j00 / det;
    // ∇φ = J⁻ᵀ ∂φ/∂ξ
    for (let a = 0; a < nb; a++) {
      const d0 = dphi[2 * a], d1 = dphi[2 * a + 1];
      grads[2 * a] = i00 * d0 + i10 * d1;
      grads[2 * a + 1] = i01 * d0 + i11 * d1;
    }
    return Math.abs(det);
  }
  let a0 = 0, b0 = 0, c0 = 0, d0 = 0, e0 = 0, f0 = 0, g0 = 0, h0 = 0, i0 = 0;
  for (let q = 0; q < nb; q++) {
    const g = 3 * elems[off + q], cx = coords[g], cy = coords[g + 1], cz = coords[g + 2], pq = phi[q];
    const p0 = dphi[3 * q], p1 = dphi[3 * q + 1], p2 = dphi[3 * q + 2];
    x0 += cx * pq; x1 += cy * pq; x2 += cz * pq;
    a0 += cx * p0; b0 += cx * p1; c0 += cx * p2;
    d0 += cy * p0; e0 += cy * p1; f0 += cy * p2;
    g0 += cz * p0; h0 += cz * p1; i0 += cz * p2;
  }
  x[0] = x0; x[1] = x1; x[2] = x2;
  const det = a0 * (e0 * i0 - f0 * h0) - b0 * (d0 * i0 - f0 * g0) + c0 * (d0 * h0 - e0 * g0);
  const v0 = (e0 * i0 - f0 * h0) / det, v1 = (c0 * h0 - b0 * i0) / det, v2 = (b0 * f0 - c0 * e0) / det;
  const v3 = (f0 * g0 - d0 * i0) / det, v4 = (a0 * i0 - c0 * g0) / det, v5 = (c0 * d0 - a0 * f0) / det;
  const v6 = (d0 * h0 - e0 * g0) / det, v7 = (b0 * g0 - a0 * h0) / det, v8 = (a0 * e0 - b0 * d0) / det;
  for (let q = 0; q < nb; q++) {
    const p0 = dphi[3 * q], p1 = dphi[3 * q + 1], p2 = dphi[3 * q + 2];
    grads[3 * q] = v0 * p0 + v3 * p1 + v6 * p2;
    grads[3 * q + 1] = v1 * p0 + v4 * p1 + v7 * p2;
    grads[3 * q + 2] = v2 * p0 + v5 * p1 + v8 * p2;
  }
  return Math.abs(det);
}
