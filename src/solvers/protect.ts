// PulseGuard protection (spec, solver notes for `protect`):
//   SVC-PROTECT-001 = |sin(5φ)| / f_pulse        (φ: the live phase, or the one given)
//   SVC-PROTECT-002 = 0.5 + 0.3·sin(t/30)         (t: unix seconds)
// A liveness signal λ ∈ [0, 1] (from `liveness`, else `health`, else an HTTP `status`) sets the
// branch of the closed-form master field d²φ/dτ² = μ²·φ with μ² = 2·(0.5 − λ):
//   λ > 0.5  → μ² < 0: harmonic branch, bounded guard   P = p2·cos(√|μ²|·τ)
//   λ ≤ 0.5  → μ² ≥ 0: hyperbolic branch, growing alarm  P = p2·cosh(√μ²·τ)
// with proper time τ = p1 (the protect-001 span, in svconds) modulated by R(t)/S = 1 + α·sin φ.
// guardState: BREACH on the hyperbolic branch; DEGRADED on the harmonic branch with λ < 0.8;
// OK otherwise. The reference recomputes P from the formulas by a separate path (the Taylor
// series of cos/cosh, summed to machine precision), so `precision` checks the arithmetic.
import { z } from 'zod';
import type { SolverDescriptor, SolverRun } from './types.ts';
import { ALPHA, PULSE_HZ, pulseAt } from '../core/clock.ts';
import { precisionOf } from './lib/precision.ts';
import { noEffect, sent } from './lib/no-effect.ts';

export const noCommonFields = true;

export const descriptor: SolverDescriptor = {
  name: 'protect',
  domain: 'PulseGuard Protection',
  method: 'pulseguard',
  methodDescription: 'SVC-PROTECT operators plus proper-time modulation',
  operators: ['KO42', 'SVC-PROTECT-001', 'SVC-PROTECT-002'],
  unit: 'P',
  summary: 'Guard power P and guardState (OK, DEGRADED, BREACH) from a liveness signal, sealed with R(t).',
  input: z.strictObject({
    t: z.number().finite().min(0).max(1e11).optional().describe('unix seconds (default: now)'),
    phase: z.number().finite().min(-1e6).max(1e6).optional().describe('radians (default: the live phase at t)'),
    health: z.enum(['up', 'slow', 'down']).optional().describe('up (liveness 1), slow (0.6) or down (0); send one of liveness, health, status'),
    liveness: z.number().finite().min(0).max(1).optional().describe('0 (down) to 1 (up; the default when none of liveness, health, status is given); send one of them'),
    status: z.number().int().min(100).max(599).optional().describe('HTTP status; 200 means up (below 400: 1; 429, 503, 504: 0.6; other 5xx: 0; other 4xx: 0.9); send one of liveness, health, status'),
  }).superRefine((v, ctx) => {
    // liveness wins over health, which wins over status: a second signal would be ignored (DESIGN §9)
    const given = sent(v, ['liveness', 'health', 'status']);
    for (const k of given.slice(1)) noEffect(ctx, k, `with ${given[0]}, which sets the liveness signal: send one of liveness, health, status`);
  }),
  examples: [
    'is my service healthy, guard state for status 503',
    'pulseguard check with health down',
    'protection guard for liveness 0.4',
    'compute the guard power for an endpoint returning 200',
    'raise an alarm if the server is down',
    'liveness probe says slow, what is the guard state',
    'seal a health check of my api',
    'uptime guard breach detection',
  ],
  vocabulary: ['protect', 'guard', 'pulseguard', 'liveness', 'health', 'uptime', 'breach', 'degraded', 'alarm', 'status', 'down', 'monitor', 'availability'],
};

export function livenessOf(input: { liveness?: number; health?: string; status?: number }): { lambda: number; source: string } {
  if (input.liveness !== undefined) return { lambda: input.liveness, source: 'liveness' };
  if (input.health !== undefined) return { lambda: input.health === 'up' ? 1 : input.health === 'slow' ? 0.6 : 0, source: 'health' };
  if (input.status !== undefined) {
    const s = input.status;
    const lambda = s < 400 ? 1 : s === 429 || s === 503 || s === 504 ? 0.6 : s >= 500 ? 0 : 0.9;
    return { lambda, source: 'status' };
  }
  return { lambda: 1, source: 'default' };
}

/** cos or cosh by their Taylor series: an independent path to the same numbers. */
function seriesCosLike(x: number, hyperbolic: boolean): number {
  // reduce: cos is periodic; cosh(x) = cosh(|x|)
  let y = Math.abs(x);
  if (!hyperbolic) y = y % (2 * Math.PI);
  let term = 1, sum = 1;
  for (let k = 1; k < 200; k++) {
    term *= (y * y) / ((2 * k - 1) * (2 * k));
    sum += hyperbolic ? term : (k % 2 ? -term : term);
    if (Math.abs(term) < 1e-18 * Math.abs(sum)) break;
  }
  return sum;
}

export const run: SolverRun = (input, ctx) => {
  const t: number = input.t ?? ctx.now ?? 0;
  const phase: number = input.phase ?? pulseAt(t).phase;
  const p1 = Math.abs(Math.sin(5 * phase)) / PULSE_HZ;
  const p2 = 0.5 + 0.3 * Math.sin(t / 30);
  const { lambda, source } = livenessOf(input);
  const mu2 = 2 * (0.5 - lambda);
  const tau = p1 * (1 + ALPHA * Math.sin(phase));
  const branch = mu2 < 0 ? 'harmonic' : 'hyperbolic';
  const rate = Math.sqrt(Math.abs(mu2));
  const C = branch === 'harmonic' ? Math.cos(rate * tau) : Math.cosh(rate * tau);
  const P = p2 * C;
  const reference = p2 * seriesCosLike(rate * tau, branch === 'hyperbolic');
  const errorPct = reference === 0 ? 0 : (Math.abs(P - reference) / Math.abs(reference)) * 100;
  const guardState = branch === 'hyperbolic' ? 'BREACH' : lambda < 0.8 ? 'DEGRADED' : 'OK';
  return {
    value: P,
    result: {
      guardState,
      branch,
      liveness: lambda,
      livenessSource: source,
      'SVC-PROTECT-001': p1,
      'SVC-PROTECT-002': p2,
      mu2,
      properTime: tau,
      t,
      phase,
    },
    precision: precisionOf({
      errorPct,
      reference: 'the spec formulas, recomputed by Taylor series',
      referenceValue: reference,
    }),
  };
};
