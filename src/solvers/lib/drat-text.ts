// Text DRAT (Wetzler, Heule & Hunt, SAT 2014) from the record form the solvers write while they
// search (cdcl.ts, dpll.ts): [1 (lemma) | 2 (deletion), DIMACS literals…, 0] one after another.
// One line per record: `l1 l2 … 0` for a lemma, `d l1 l2 … 0` for a deletion.

/** The DRAT text of a proof in record form. */
export function dratText(proof: Int32Array): string {
  const lines: string[] = [];
  const line: string[] = [];
  let i = 0;
  while (i < proof.length) {
    const kind = proof[i++];
    line.length = 0;
    if (kind === 2) line.push('d');
    while (proof[i] !== 0) line.push(String(proof[i++]));
    i++;
    line.push('0');
    lines.push(line.join(' '));
  }
  return lines.length ? lines.join('\n') + '\n' : '';
}
