// acoustic: resonant frequencies of a duct (a 1-D acoustic resonator) with open or closed ends.
//
// Method: finite-volume discretisation of the Helmholtz equation p'' + k²p = 0 on N equal cells
// (LeVeque, "Finite Volume Methods for Hyperbolic Problems", 2002, ch. 4; Kinsler et al.,
// "Fundamentals of Acoustics", 4th ed., §9.2 for the duct modes). Face fluxes are (p_{i+1} − p_i)/h;
// a closed (rigid) end has zero flux (∂p/∂x = 0); an open end is a pressure release p = 0 at the
// face, imposed with a mirrored ghost cell (flux 2·p₀/h). This gives the symmetric tridiagonal
// matrix A = h⁻²·tridiag(−1, 2, −1) with end diagonals 1 (closed) or 3 (open), whose eigenvalues are
// k²; f = c·k/(2π). Eigenvalues come from Sturm-sequence bisection (lib/sturm.ts), which is
// unconditionally stable; the discretisation error is O((k·h)²), so accuracy needs h ≪ 1/k (the
// schema asks for at least 8 cells per wavelength; the default N = 400 keeps the first modes well
// inside 0.1 %). No radiation end-correction is applied: the open end is ideal.
// Reference: n·c/(2L) for open-open and closed-closed, (2n−1)·c/(4L) for open-closed.

import { z } from 'zod';
import { tridiagonalEigenvalues } from './lib/sturm.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { retryByOrder, optionalRetry } from './lib/retry.ts';
import { precisionOf } from './lib/precision.ts';

/** The default cell count: 400, or 25 cells per mode number for the higher modes (a fixed 400
 * would refuse mode > 100 and miss the 0.1 % bound past mode 19). */
export const defaultCells = (mode: number): number => Math.max(400, 25 * mode);

const input = z.strictObject({
  L: z.number().min(1e-4).max(1e4).default(1).describe('duct length (m)'),
  c: z.number().min(1).max(1e5).default(343).describe('speed of sound (m/s)'),
  ends: z.enum(['open-open', 'closed-closed', 'open-closed']).default('open-closed')
    .describe('end conditions; open-closed is open at x = 0 and closed at x = L'),
  mode: z.number().int().min(1).max(500).default(1).describe('mode number n (1 = fundamental); at most N/4'),
  N: z.number().int().min(8).max(20000).optional().describe('number of finite-volume cells (default 400, or 25·mode when that is larger: 25 cells per mode keep the O((kh)²) error below the 0.1 % bound)'),
}).superRefine((v, ctx) => {
  if (v.N !== undefined && v.mode > Math.floor(v.N / 4)) {
    ctx.addIssue({
      code: 'custom',
      path: ['mode'],
      message: `mode must be at most N/4 = ${Math.floor(v.N / 4)} (at least 8 cells per wavelength); raise N`,
    });
  }
}).overwrite((v) => ({ ...v, N: v.N ?? defaultCells(v.mode) }));

export type AcousticInput = z.infer<typeof input>;


export const descriptor: SolverDescriptor<typeof input> = {
  name: 'acoustic',
  domain: 'Acoustics',
  method: 'finite-volume-sturm',
  methodDescription: 'finite-volume Helmholtz eigensolver (open/closed ends, Sturm bisection)',
  operators: ['KO42', 'WM1'],
  unit: 'Hz',
  summary: 'Resonant frequency of mode n of a duct with open or closed ends, from a finite-volume Helmholtz eigenproblem solved by Sturm-sequence bisection, checked against n·c/2L or (2n−1)·c/4L.',
  input,
  examples: [
    'What is the fundamental frequency of a 1 m pipe closed at one end?',
    'Resonant modes of an organ pipe open at both ends, 2.5 m long',
    'Third harmonic of a quarter-wave resonator with speed of sound 343 m/s',
    'Find the standing wave frequencies in a closed-closed duct of length 0.6 m',
    'Acoustic resonance of a flute-like tube, open-open, 0.66 m',
    'Helmholtz eigenmodes of an air column in a clarinet (closed at the reed end)',
    'Natural frequencies of a ventilation duct 4 m long with rigid ends',
    'Second mode of a half-wave tube filled with helium, c = 970 m/s',
    'Sound pressure eigenfrequencies of a pipe using finite volumes',
  ],
  vocabulary: [
    'acoustic', 'acoustics', 'sound', 'pipe', 'duct', 'tube', 'organ pipe', 'resonator', 'resonance',
    'resonant frequency', 'standing wave', 'harmonic', 'fundamental', 'overtone', 'quarter-wave',
    'half-wave', 'air column', 'speed of sound', 'helmholtz', 'open end', 'closed end', 'flute',
    'clarinet', 'eigenfrequency', 'hz',
  ],
};

interface DuctSpectrum {
  /** frequencies (Hz) of modes 1..count */
  freqs: Float64Array;
}

/** The first `count` physical modes (the zero mode of a closed-closed duct is skipped). */
function ductModes(lengthM: number, cMps: number, ends: AcousticInput['ends'], cells: number, count: number): DuctSpectrum {
  const h = lengthM / cells;
  const inv = 1 / (h * h);
  const d = new Float64Array(cells).fill(2 * inv);
  const e = new Float64Array(cells - 1).fill(-inv);
  const leftOpen = ends !== 'closed-closed';
  const rightOpen = ends === 'open-open';
  d[0] = (leftOpen ? 3 : 1) * inv;
  d[cells - 1] = (rightOpen ? 3 : 1) * inv;
  const skip = ends === 'closed-closed' ? 1 : 0;
  const lam = tridiagonalEigenvalues(d, e, skip, count);
  const freqs = new Float64Array(count);
  for (let i = 0; i < count; i++) freqs[i] = (cMps * Math.sqrt(Math.max(lam[i], 0))) / (2 * Math.PI);
  return { freqs };
}

export function analyticFrequency(lengthM: number, cMps: number, ends: AcousticInput['ends'], n: number): number {
  return ends === 'open-closed' ? ((2 * n - 1) * cMps) / (4 * lengthM) : (n * cMps) / (2 * lengthM);
}

export const run: SolverRun<AcousticInput> = (inp, ctx): SolverOutput => {
  const { L, c, ends, mode } = inp;
  const N = inp.N ?? defaultCells(mode);
  const available = ends === 'closed-closed' ? N - 1 : N;
  const listed = Math.min(Math.max(mode, 10), available);
  ctx.progress(0);
  const fine = ductModes(L, c, ends, N, listed);
  ctx.progress(0.6);
  // a posteriori error estimate: the same mode on N/2 cells, Richardson for an O(h²) method
  const coarseCells = Math.floor(N / 2);
  const coarse = ductModes(L, c, ends, coarseCells, mode);
  ctx.progress(0.9);
  const value = fine.freqs[mode - 1];
  const fCoarse = coarse.freqs[mode - 1];
  const richardson = value + (value - fCoarse) / 3;
  const ref = analyticFrequency(L, c, ends, mode);
  const errorPct = (Math.abs(value - ref) / ref) * 100;
  const boundPct = 0.1;

  const modes: number[] = [];
  const f: number[] = [];
  const fRef: number[] = [];
  const errPct: number[] = [];
  for (let i = 0; i < listed; i++) {
    const r = analyticFrequency(L, c, ends, i + 1);
    modes.push(i + 1);
    f.push(fine.freqs[i]);
    fRef.push(r);
    errPct.push((Math.abs(fine.freqs[i] - r) / r) * 100);
  }
  ctx.progress(1);
  return {
    value,
    result: {
      frequencyHz: value,
      referenceHz: ref,
      mode,
      ends,
      lengthM: L,
      soundSpeed: c,
      cells: N,
      cellSizeM: L / N,
      wavenumber: (2 * Math.PI * value) / c,
      wavelengthM: c / value,
      discretisationErrorPct: errorPct,
      errorEstimatePct: (Math.abs(richardson - value) / Math.abs(richardson)) * 100,
      richardsonHz: richardson,
      coarseCells,
      openEnd: ends === 'closed-closed' ? null : ends === 'open-open' ? 'both' : 'x = 0',
    },
    precision: precisionOf({
      errorPct,
      boundPct,
      reference: ends === 'open-closed' ? 'quarter-wave duct (2n−1)·c/4L' : 'half-wave duct n·c/2L',
      referenceValue: ref,
    }),
    series: { mode: modes, f, fRef, errorPct: errPct },
    // cells the caller set too few for the bound: the O((kh)²) error names the count that meets it
    ...(errorPct > boundPct && inp.N !== undefined ? optionalRetry(retryByOrder({ field: 'N', value: N, errorPct, boundPct, order: 2, kind: 'count', integer: true, max: 20000 })) : {}),
  };
};
