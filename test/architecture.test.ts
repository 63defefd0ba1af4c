// The layout is a checked rule (issue 17 item 9, DESIGN §12): dependency-cruiser runs the rules of
// .dependency-cruiser.cjs over src/, and a forbidden import fails the suite. The second test shows
// the rules are live: a solver that imports an operation module is caught.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');

function cruise(cwd: string) {
  return spawnSync(process.execPath, [CLI, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd, encoding: 'utf8', timeout: 120_000 });
}

test('src/ keeps the layer rules and has no circular imports', () => {
  const r = cruise(ROOT);
  assert.equal(r.status, 0, `dependency-cruiser found violations:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /no dependency violations found/);
});

test('a solver that imports an operation module breaks the rules', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cruise-'));
  try {
    for (const f of ['.dependency-cruiser.cjs', 'tsconfig.json', 'package.json']) cpSync(join(ROOT, f), join(dir, f));
    mkdirSync(join(dir, 'src', 'solvers'), { recursive: true });
    mkdirSync(join(dir, 'src', 'ops'), { recursive: true });
    writeFileSync(join(dir, 'src', 'ops', 'invoke.ts'), 'export const invoke = 1;\n');
    writeFileSync(join(dir, 'src', 'solvers', 'heat.ts'), "import { invoke } from '../ops/invoke.ts';\nexport const run = () => invoke;\n");
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules')); // the swc parser comes from the project
    const r = cruise(dir);
    assert.notEqual(r.status, 0);
    assert.match(r.stdout, /solvers-know-only-numbers: src\/solvers\/heat\.ts → src\/ops\/invoke\.ts/);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
