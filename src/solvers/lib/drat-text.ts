// Text DRAT (Wetzler, Heule & Hunt, SAT 2014) from the record form the solvers write while they
// search (cdcl.ts, dpll.ts, sat/elim.ts): [1 (lemma) | 2 (deletion), DIMACS literals…, 0] one
// after another. One line per record: `l1 l2 … 0` for a lemma, `d l1 l2 … 0` for a deletion.
// The digits are written straight into one byte buffer (a proof can hold tens of millions of
// literals; a string per literal would be the cost of the whole step).

/** The DRAT text of a proof in record form. */
export function dratText(proof: Int32Array): string {
  // size first: sign, digits and a space per literal; "d " per deletion; "0\n" per record
  let size = 0;
  for (let i = 0; i < proof.length; ) {
    if (proof[i++] === 2) size += 2;
    for (; proof[i] !== 0; i++) {
      const l = proof[i];
      const a = l < 0 ? -l : l;
      size += (l < 0 ? 2 : 1) + (a < 10 ? 1 : a < 100 ? 2 : a < 1000 ? 3 : a < 10000 ? 4 : a < 100000 ? 5 : a < 1000000 ? 6 : a < 10000000 ? 7 : a < 100000000 ? 8 : a < 1000000000 ? 9 : 10);
    }
    i++;
    size += 2;
  }
  const out = Buffer.allocUnsafe(size);
  let p = 0;
  for (let i = 0; i < proof.length; ) {
    if (proof[i++] === 2) { out[p++] = 100; out[p++] = 32; } // "d "
    for (; proof[i] !== 0; i++) {
      let a = proof[i];
      if (a < 0) { out[p++] = 45; a = -a; }
      const start = p;
      do { out[p++] = 48 + (a % 10); a = (a / 10) | 0; } while (a > 0);
      for (let x = start, y = p - 1; x < y; x++, y--) { const t = out[x]; out[x] = out[y]; out[y] = t; }
      out[p++] = 32;
    }
    i++;
    out[p++] = 48; out[p++] = 10; // "0\n"
  }
  return out.toString('latin1', 0, p);
}
