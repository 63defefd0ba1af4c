import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../../src/core/canonical.ts';
import { pulseAt, ALPHA, SVCOND_SECONDS } from '../../src/core/clock.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { isZid, newZid } from '../../src/core/ids.ts';

test('RFC 8785 §3.2.2 example canonicalises as the RFC prints it', () => {
  const input = JSON.parse('{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}');
  assert.equal(canonicalJson(input), '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
});

test('RFC 8785 sorts keys by UTF-16 code units', () => {
  const obj = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' };
  const text = canonicalJson(obj);
  const order = ['Carriage Return', 'One', 'Control', 'Latin Small Letter O With Diaeresis', 'Euro Sign', 'Emoji: Grinning Face', 'Hebrew Letter Dalet With Dagesh'];
  const positions = order.map((v) => text.indexOf(v));
  assert.ok(positions.every((p, i) => p > 0 && (i === 0 || p > positions[i - 1])), text);
  assert.throws(() => canonicalJson({ x: NaN }));
});

test('the pulse follows DESIGN §6: svcond = floor(t/0.777), phase = 2π·frac(1.287·t), R_t = S(1 + α sin φ)', () => {
  for (const t of [0, 1, 1790303030.123, 1795000000.5, 12.345, 99999999999.999, 7e12 + 0.001]) {
    const p = pulseAt(t);
    assert.equal(p.svcond, Math.floor(t / SVCOND_SECONDS));
    const frac = (1.287 * t) % 1;
    // exact reference via integer milliseconds
    const ms = BigInt(Math.round(t * 1000));
    const exactFrac = Number((1287n * ms) % 1000000n) / 1e6;
    assert.ok(Math.abs(p.phase - 2 * Math.PI * exactFrac) < 1e-12);
    if (t < 1e4) assert.ok(Math.abs(exactFrac - frac) < 1e-9);
    assert.ok(p.phase >= 0 && p.phase < 2 * Math.PI);
    assert.equal(p.R_t, 1 * (1 + ALPHA * Math.sin(p.phase)));
    assert.equal(pulseAt(t, 3).R_t, 3 * (1 + ALPHA * Math.sin(p.phase)));
  }
});

test('the seeded generator is deterministic, uniform and normal', () => {
  const a = createRng(42), b = createRng(42), c = createRng(43);
  const xa = Array.from({ length: 5 }, () => a.nextU32());
  assert.deepEqual(xa, Array.from({ length: 5 }, () => b.nextU32()));
  assert.notDeepEqual(xa, Array.from({ length: 5 }, () => c.nextU32()));
  const r = createRng(7);
  let s = 0, s2 = 0, n = 200000, ns = 0, ns2 = 0;
  for (let i = 0; i < n; i++) { const u = r.next(); s += u; s2 += u * u; const z = r.normal(); ns += z; ns2 += z * z; }
  assert.ok(Math.abs(s / n - 0.5) < 0.005);
  assert.ok(Math.abs(s2 / n - 1 / 3) < 0.005);
  assert.ok(Math.abs(ns / n) < 0.01);
  assert.ok(Math.abs(ns2 / n - 1) < 0.02);
  const counts = new Array(7).fill(0);
  for (let i = 0; i < 70000; i++) counts[r.int(7)]++;
  for (const k of counts) assert.ok(Math.abs(k - 10000) < 500);
});

test('ZIDs are Z plus 26 Crockford base32 characters', () => {
  const z = newZid();
  assert.ok(isZid(z));
  assert.equal(z.length, 27);
  for (const bad of ['', 'Z', 'z' + z.slice(1), z + 'A', z.slice(0, -1) + 'I', z.slice(0, -1) + 'U', 123]) assert.equal(isZid(bad), false);
});
