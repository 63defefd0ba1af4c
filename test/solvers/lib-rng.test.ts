// The seeded PRNG of src/solvers/lib/rng.ts on its own: xoshiro128** against the output of the
// reference C implementation (prng.di.unimi.it/xoshiro128starstar.c), the SplitMix32 seeding
// against an independent BigInt transcription, FastRng as the same stream, and the derived
// draws (53-bit uniforms, unbiased integers, normals) by their distributions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng, rngFromState, FastRng } from '../../src/solvers/lib/rng.ts';

test('xoshiro128** reproduces the reference implementation\'s outputs', () => {
  // state words and first outputs as produced by the reference C code (test data of the
  // xoshiro-6502 port, edorfaus/xoshiro-6502, test-rom/testdata.asm)
  const r = rngFromState(0x964d4a0c, 0xd40ab895, 0xad7fdecb, 0x3006f0f0);
  assert.deepEqual([r.nextU32(), r.nextU32(), r.nextU32(), r.nextU32()], [0xf1391922, 0x6fe53806, 0xa5be2840, 0xf510ee70]);
});

/** SplitMix32 (Weyl sequence + MurmurHash3 fmix32) in BigInt arithmetic: the independent reference */
function splitmix32Ref(seed: number, count: number): number[] {
  const M = 0xffffffffn;
  let s = BigInt(seed >>> 0);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    s = (s + 0x9e3779b9n) & M;
    let z = s;
    z = ((z ^ (z >> 16n)) * 0x85ebca6bn) & M;
    z = ((z ^ (z >> 13n)) * 0xc2b2ae35n) & M;
    out.push(Number(z ^ (z >> 16n)));
  }
  return out;
}

/** xoshiro128** in BigInt arithmetic */
function xoshiroRef(state: number[], count: number): number[] {
  const M = 0xffffffffn;
  const s = state.map(BigInt);
  const rotl = (x: bigint, k: bigint) => ((x << k) | (x >> (32n - k))) & M;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    out.push(Number((rotl((s[1] * 5n) & M, 7n) * 9n) & M));
    const t = (s[1] << 9n) & M;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 11n);
  }
  return out;
}

test('createRng(seed) is xoshiro128** seeded with four SplitMix32 outputs, for any 32-bit seed', () => {
  for (const seed of [0, 1, 42, 0x7fffffff, 0x80000000, 0xffffffff, 3407805054]) {
    const r = createRng(seed);
    const got = Array.from({ length: 64 }, () => r.nextU32());
    assert.deepEqual(got, xoshiroRef(splitmix32Ref(seed, 4), 64), `seed ${seed}`);
  }
  // seeds are reduced to 32 bits; different seeds give different streams
  assert.deepEqual(createRng(2 ** 32 + 5).nextU32(), createRng(5).nextU32());
  assert.notEqual(createRng(1).nextU32(), createRng(2).nextU32());
  // an all-zero state (which xoshiro never leaves) is replaced
  const z = rngFromState(0, 0, 0, 0);
  assert.ok(Array.from({ length: 8 }, () => z.nextU32()).some((x) => x !== 0));
});

test('FastRng runs the same xoshiro128** stream, started from createRng(seed)\'s first four outputs', () => {
  for (const seed of [1, 99, 0xdeadbeef]) {
    const r = createRng(seed);
    const state = [r.nextU32(), r.nextU32(), r.nextU32(), r.nextU32()];
    const fast = new FastRng(seed);
    const got = Array.from({ length: 64 }, () => fast.nextI32() >>> 0);
    assert.deepEqual(got, xoshiroRef(state, 64), `seed ${seed}`);
  }
});

test('next() is a 53-bit uniform in [0, 1) built from two draws; int(n) is unbiased and in range', () => {
  const a = createRng(7), b = createRng(7);
  for (let i = 0; i < 100; i++) {
    const hi = b.nextU32() >>> 5, lo = b.nextU32() >>> 6;
    assert.equal(a.next(), (hi * 2 ** 26 + lo) / 2 ** 53);
  }
  const r = createRng(11);
  const n = 200_000;
  let sum = 0, sum2 = 0, min = 1, max = 0;
  for (let i = 0; i < n; i++) { const u = r.next(); sum += u; sum2 += u * u; min = Math.min(min, u); max = Math.max(max, u); }
  assert.ok(min >= 0 && max < 1);
  assert.ok(Math.abs(sum / n - 0.5) < 4 * Math.sqrt(1 / 12 / n), `mean ${sum / n}`);
  assert.ok(Math.abs(sum2 / n - sum * sum / n / n - 1 / 12) < 2e-3, 'variance 1/12');
  // int(6): chi-square over the faces (5 degrees of freedom; 20.5 is the 0.1 % point)
  const counts = new Array(6).fill(0);
  for (let i = 0; i < 60_000; i++) counts[r.int(6)]++;
  const chi2 = counts.reduce((s, c) => s + (c - 10_000) ** 2 / 10_000, 0);
  assert.ok(chi2 < 20.5, `chi2 ${chi2}: ${counts}`);
  // n close to 2^32 is where modulo bias would show: rejection keeps results below n
  for (let i = 0; i < 1000; i++) { const k = r.int(3_000_000_000); assert.ok(k >= 0 && k < 3_000_000_000 && Number.isInteger(k)); }
  assert.throws(() => r.int(0), RangeError);
  assert.throws(() => r.int(2 ** 32 + 1), RangeError);
});

test('normal() has mean 0, variance 1, the normal fourth moment and tail mass, deterministically', () => {
  const r = createRng(2024);
  const n = 200_000;
  let m1 = 0, m2 = 0, m4 = 0, tail = 0;
  for (let i = 0; i < n; i++) {
    const x = r.normal();
    m1 += x; m2 += x * x; m4 += x ** 4;
    if (Math.abs(x) > 1.959963984540054) tail++;
  }
  m1 /= n; m2 /= n; m4 /= n;
  assert.ok(Math.abs(m1) < 4 / Math.sqrt(n), `mean ${m1}`);
  assert.ok(Math.abs(m2 - 1) < 4 * Math.sqrt(2 / n), `variance ${m2}`);
  assert.ok(Math.abs(m4 - 3) < 4 * Math.sqrt(96 / n), `fourth moment ${m4}`);
  assert.ok(Math.abs(tail / n - 0.05) < 4 * Math.sqrt(0.05 * 0.95 / n), `two-sided 5 % tail ${tail / n}`);
  const a = createRng(5), b = createRng(5);
  for (let i = 0; i < 1000; i++) assert.ok(Object.is(a.normal(), b.normal()));
});
