// The pieces under the reactor: the RFC 6962 Merkle tree (checked against the Certificate
// Transparency reference vectors) and the expression compiler (the stand-in agrees with the
// node's mathjs sandbox bit for bit, and both refuse what is not arithmetic).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { merkleRoot, leafHash, inclusionPath, verifyInclusion, rootOfLeafHashes, fromHex } from '../../src/live/merkle.ts';
import { compileLocal, expressionCompiler, compileChecked } from '../../src/live/expr.ts';
import { isSvcError } from '../../src/core/errors.ts';

// RFC 6962 reference leaves and roots (certificate-transparency / transparency-dev test data).
const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(fromHex);
const CT_ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const CT_PATHS = [
  { index: 0, size: 8, path: ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4'] },
  { index: 5, size: 8, path: ['bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7'] },
];

test('the Merkle tree hash matches the RFC 6962 reference roots for 0 to 8 leaves', () => {
  for (let n = 0; n <= 8; n++) assert.equal(merkleRoot(CT_LEAVES.slice(0, n)).toString('hex'), CT_ROOTS[n], `size ${n}`);
  assert.equal(leafHash(Buffer.alloc(0)).toString('hex'), CT_ROOTS[1]);
});

test('inclusion paths match the reference audit paths and verify; nothing else does', () => {
  const hashes = CT_LEAVES.map(leafHash);
  const root = fromHex(CT_ROOTS[8]);
  for (const v of CT_PATHS) {
    const path = inclusionPath(hashes, v.index);
    assert.deepEqual(path.map((b) => b.toString('hex')), v.path);
    assert.equal(verifyInclusion(hashes[v.index], v.index, v.size, path, root), true);
    assert.equal(verifyInclusion(hashes[v.index], v.index ^ 1, v.size, path, root), false, 'wrong index');
    assert.equal(verifyInclusion(hashes[(v.index + 1) % 8], v.index, v.size, path, root), false, 'wrong leaf');
    assert.equal(verifyInclusion(hashes[v.index], v.index, v.size, path.slice(1), root), false, 'short path');
  }
  // every leaf of every tree size from 1 to 40 (all shapes of the split)
  const many = Array.from({ length: 40 }, (_, i) => leafHash(createHash('sha256').update(`leaf ${i}`).digest()));
  for (let n = 1; n <= many.length; n++) {
    const tree = many.slice(0, n);
    const r = rootOfLeafHashes(tree);
    for (let i = 0; i < n; i++) {
      const p = inclusionPath(tree, i);
      assert.equal(verifyInclusion(tree[i], i, n, p, r), true, `n=${n} i=${i}`);
      if (n > 1) assert.equal(verifyInclusion(tree[i], (i + 1) % n, n, p, r), false, `n=${n} i=${i} wrong index`);
    }
  }
});

const SAMPLES: [string, Record<string, number>][] = [
  ['r*x*(1-x)', { r: 3.7, x: 0.123456789 }],
  ['-2^2 + 2^-1 + 2^3^2', {}],
  ['7 % 3 + (-7) % 3 + mod(7.5, -2)', {}],
  ['x > 0.5 ? sin(x) * exp(-x) : sqrt(abs(x)) / 3', { x: 0.75 }],
  ['x > 0.5 ? sin(x) * exp(-x) : sqrt(abs(x)) / 3', { x: 0.25 }],
  ['abs(x - prev_x) < 1e-12 or step >= 3', { x: 0.6, prev_x: 0.6, step: 0 }],
  ['not (a > b) and a != b', { a: 1, b: 2 }],
  ['hypot(3, 4) + atan2(1, 2) + log(8, 2) + log10(1000) + max(1, 5, 3) + min(2, -1)', {}],
  ['x + 1.5e-3 * t - phase / pi + tau * 0 + e', { x: 2, t: 1795349130.633, phase: 0.78 }],
  ['(a + b) * (a - b) / (c ^ 2 + 1)', { a: 1e10, b: 3.3333333, c: 7 }],
];

test('the stand-in compiler gives the same bits as the node sandbox (mathjs) on the shared syntax', async () => {
  const { compile, source } = await expressionCompiler();
  for (const [expr, scope] of SAMPLES) {
    const local = compileLocal(expr).evaluate(scope);
    const num = (v: unknown) => (typeof v === 'boolean' ? (v ? 1 : 0) : v);
    if (source === 'operators/sandbox') {
      const remote = compile(expr).evaluate(scope);
      assert.ok(Object.is(num(local), num(remote)), `${expr}: ${local} vs ${remote}`);
    }
  }
  // the logistic map step, against plain JavaScript
  const step = compileLocal('r*x*(1-x)');
  let x = 0.2, y = 0.2;
  for (let i = 0; i < 50; i++) { x = step.evaluate({ r: 3.7, x }) as number; y = 3.7 * y * (1 - y); }
  assert.ok(Object.is(x, y));
});

test('expressions that are not arithmetic are refused with INVALID_INPUT, naming the problem', async () => {
  assert.throws(() => compileLocal('"str"'), /unexpected character/);
  for (const bad of ['', 'x = 1', 'f(x) = x', 'a.b', 'a[1]', 'import("fs")', 'evaluate("1")', 'x +', '(1', '1 1', 'x ; y', 'constructor', 'x'.repeat(501)]) {
    assert.throws(() => compileLocal(bad), (e: unknown) => isSvcError(e) && e.code === 'INVALID_INPUT', bad.slice(0, 30));
    await assert.rejects(compileChecked(bad, ['x', 'y', 'a', 'b', 'constructor'], 'expr.x'), (e: unknown) => isSvcError(e) && e.code === 'INVALID_INPUT', bad.slice(0, 30));
  }
  await assert.rejects(compileChecked('x + nope', ['x'], 'map.x'), /unknown name 'nope'/);
  assert.throws(() => compileLocal('sin(1, 2)'), /takes 1 argument/);
  assert.equal(compileLocal('((((((1))))))').evaluate({}), 1);
  assert.throws(() => compileLocal('('.repeat(80) + '1' + ')'.repeat(80)), /nested too deeply/);
});
