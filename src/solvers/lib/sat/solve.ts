// The SAT driver: preprocessing (lib/sat/elim.ts: bounded variable elimination with subsumption,
// Eén & Biere, SAT 2005), then the CDCL search (lib/cdcl.ts) on the reduced formula, then the model
// extended back to the original variables. One DRAT proof covers both parts: the preprocessing's
// records (resolvents added, eliminated and subsumed clauses deleted) come first, the search's
// lemmas and deletions after, so the proof is checked against the ORIGINAL formula.
import { solveCdcl, type CdclOptions, type CdclResult } from '../cdcl.ts';
import { eliminate, extendModel, type ElimOptions } from './elim.ts';

export interface SatOptions extends CdclOptions {
  /** bounded variable elimination before the search (default true) */
  elim?: boolean | ElimOptions;
}

export interface SatResult extends CdclResult {
  elim: { eliminated: number; resolvents: number; removed: number; subsumed: number } | null;
}

/** DRAT text bytes of a record-form proof (as cdcl.ts counts them) */
function proofBytesOf(p: Int32Array): number {
  let b = 0;
  for (let i = 0; i < p.length; ) {
    b += p[i++] === 2 ? 4 : 2;
    for (; p[i] !== 0; i++) { const a = p[i] < 0 ? -p[i] : p[i]; b += (p[i] < 0 ? 2 : 1) + String(a).length; }
    i++;
  }
  return b;
}

/** formulas larger than this (literals) go to the search without elimination: its clause-by-clause
 * occurrence lists would cost more memory than the search itself */
export const ELIM_MAX_LITERALS = 20_000_000;

export function solveSat(nVars: number, lits: Int32Array, opts: SatOptions = {}): SatResult {
  if (opts.elim === false || lits.length > ELIM_MAX_LITERALS) return { ...solveCdcl(nVars, lits, opts), elim: null };
  const e = eliminate(nVars, lits, typeof opts.elim === 'object' ? opts.elim : {});
  const logProof = opts.proof ?? true;
  const elimStats = { eliminated: e.stats.eliminated, resolvents: e.stats.resolvents, removed: e.stats.removed, subsumed: e.stats.subsumed };
  const countLemmas = (p: Int32Array) => { let k = 0; for (let i = 0; i < p.length; ) { if (p[i] === 1) k++; i++; while (p[i] !== 0) i++; i++; } return k; };
  if (e.refuted) {
    // unit propagation alone refuted the formula; its proof already ends with the empty clause
    const stats = { conflicts: 0, decisions: 0, propagations: 0, restarts: 0, learned: 0, deleted: 0, reductions: 0, modeSwitches: 0, rephases: 0, vivified: 0, vivifiedLits: 0, failedLiterals: 0, substituted: 0 };
    return { status: 'UNSAT', model: null, proof: logProof ? e.proof : null, proofBytes: logProof ? proofBytesOf(e.proof) : 0, proofTruncated: false, lemmas: countLemmas(e.proof), stats, elim: elimStats };
  }
  const elimBytes = logProof ? proofBytesOf(e.proof) : 0;
  const maxProofBytes = opts.maxProofBytes ?? 64 * 1024 * 1024;
  const r = solveCdcl(nVars, e.lits, { ...opts, maxProofBytes: Math.max(0, maxProofBytes - elimBytes), eliminated: e.eliminated });
  if (r.model) extendModel(r.model, e.stack);
  let proof = r.proof;
  if (logProof && proof) {
    const all = new Int32Array(e.proof.length + proof.length);
    all.set(e.proof); all.set(proof, e.proof.length);
    proof = all;
  }
  return { ...r, proof, proofBytes: r.proofBytes + elimBytes, lemmas: r.lemmas + countLemmas(e.proof), elim: elimStats };
}
