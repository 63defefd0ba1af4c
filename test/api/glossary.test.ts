// The glossary (issue 29 item 5): every unit symbol of every solver is explained, docs/glossary.md
// carries the same text as /docs (the OpenAPI description), and the seal's terms are there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadSolvers } from '../../src/solvers/engine/loader.ts';
import { UNIT_GLOSSARY, TERM_GLOSSARY, glossaryMarkdown } from '../../src/http/glossary.ts';

test('every solver unit symbol and every seal term is in the glossary; docs/glossary.md equals the served text', async () => {
  const units = new Set(UNIT_GLOSSARY.map(([u]) => u));
  for (const s of await loadSolvers()) assert.ok(units.has(s.descriptor.unit), `${s.descriptor.name}: unit '${s.descriptor.unit}' is not in the glossary`);
  const terms = new Set(TERM_GLOSSARY.map(([t]) => t));
  for (const t of ['svcond', 'R_t', 'masterSum', 'KO42', 'recovery equation', 'precision.errorPct', 'Monte Carlo standard error', 'details.retryWith']) assert.ok(terms.has(t), t);
  assert.match(TERM_GLOSSARY.find(([t]) => t === 'recovery equation')![1], /still recover/);
  const doc = readFileSync(new URL('../../docs/glossary.md', import.meta.url), 'utf8');
  assert.ok(doc.includes(glossaryMarkdown().replace(/^## Glossary\n\n/, '')), 'docs/glossary.md differs from src/http/glossary.ts: regenerate it');
  const openapi = readFileSync(new URL('../../src/http/openapi.ts', import.meta.url), 'utf8');
  assert.match(openapi, /glossaryMarkdown\(\)/, 'the OpenAPI description serves the glossary');
});
