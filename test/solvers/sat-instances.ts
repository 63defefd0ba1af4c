// SAT instance families shared by the CDCL tests (sat-cdcl.test.ts) and the bench (bench/sat.bench.ts).

/** Pigeonhole: h + 1 pigeons in h holes (unsatisfiable). */
export function pigeonhole(h: number): number[][] {
  const p = h + 1, v = (i: number, j: number) => i * h + j + 1;
  const out: number[][] = [];
  for (let i = 0; i < p; i++) out.push(Array.from({ length: h }, (_, j) => v(i, j)));
  for (let j = 0; j < h; j++) for (let a = 0; a < p; a++) for (let b = a + 1; b < p; b++) out.push([-v(a, j), -v(b, j)]);
  return out;
}
