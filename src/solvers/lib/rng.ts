// Seeded, deterministic randomness for every solver: xoshiro128** (Blackman & Vigna,
// "Scrambled linear pseudorandom number generators", ACM TOMS 47(4), 2021), seeded through
// SplitMix32 so any 32-bit seed gives a well-mixed state. Pure 32-bit integer arithmetic with
// Math.imul, so the same seed gives the same bits on every platform.

export interface Rng {
  /** uniform 32-bit unsigned integer */
  nextU32(): number;
  /** uniform in [0, 1) with 53 random bits */
  next(): number;
  /** uniform integer in [0, n) without modulo bias */
  int(n: number): number;
  /** standard normal (Marsaglia polar method) */
  normal(): number;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** The generator for a 32-bit seed: the xoshiro128** state is four SplitMix32 outputs. */
export function createRng(seed: number): Rng {
  const sm = splitmix32(seed);
  return rngFromState(sm(), sm(), sm(), sm());
}

/** The generator started from an explicit xoshiro128** state s0..s3 (not all zero; an all-zero
 * state is replaced by s0 = 1). Used by createRng and to check the published test vectors. */
export function rngFromState(s0: number, s1: number, s2: number, s3: number): Rng {
  let a = s0 >>> 0, b = s1 >>> 0, c = s2 >>> 0, d = s3 >>> 0;
  if ((a | b | c | d) === 0) a = 1;
  let spare: number | null = null;
  const nextU32 = (): number => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a; d ^= b; b ^= c; a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result;
  };
  const next = (): number => {
    const hi = nextU32() >>> 5; // 27 bits
    const lo = nextU32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  };
  return {
    nextU32,
    next,
    int(n: number): number {
      if (!(n > 0) || n > 0x100000000) throw new RangeError('int(n): n out of range');
      const limit = 0x100000000 - (0x100000000 % n);
      let x: number;
      do x = nextU32(); while (x >= limit);
      return x % n;
    },
    normal(): number {
      if (spare !== null) { const s = spare; spare = null; return s; }
      let u: number, v: number, s: number;
      do {
        u = 2 * next() - 1;
        v = 2 * next() - 1;
        s = u * u + v * v;
      } while (s >= 1 || s === 0);
      const m = Math.sqrt(-2 * Math.log(s) / s);
      spare = v * m;
      return u * m;
    },
  };
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

// Bulk random streams for the Monte Carlo inner loops (quant, gauge).
//
// The same generator as createRng above (xoshiro128**, Blackman & Vigna 2021), seeded from
// createRng(seed) so a seed still determines every bit, but with its state held as int32 class
// fields: V8 keeps them unboxed, which makes a draw several times cheaper than the closure-based
// createRng in a loop of millions. Uniforms carry 32 random bits, (u + 0.5)/2^32, so they lie
// strictly inside (0, 1) and logs of them are finite.


const INV_2_32 = 1 / 4294967296;

export class FastRng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    const r = createRng(seed);
    this.a = r.nextU32() | 0; this.b = r.nextU32() | 0; this.c = r.nextU32() | 0; this.d = r.nextU32() | 0;
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** uniform 32-bit integer as a signed int32 */
  nextI32(): number {
    const b = this.b;
    const x = Math.imul(b, 5);
    const result = Math.imul((x << 7) | (x >>> 25), 9);
    const t = b << 9;
    this.c ^= this.a; this.d ^= b; this.b = b ^ this.c; this.a ^= this.d;
    this.c ^= t;
    this.d = (this.d << 11) | (this.d >>> 21);
    return result;
  }

  /** uniform in (0, 1), 32 random bits */
  uniform(): number {
    return ((this.nextI32() >>> 0) + 0.5) * INV_2_32;
  }

  /** Fills out[0..n) with standard normals: the same ziggurat as normal(), with the generator
   *  state held in locals through the fast path (about three times cheaper per draw in a loop). */
  fillNormals(out: Float64Array, n: number): void {
    let a = this.a, b = this.b, c = this.c, d = this.d;
    for (let i = 0; i < n; i++) {
      // xoshiro128** step, inlined
      const x = Math.imul(b, 5);
      const hz = Math.imul((x << 7) | (x >>> 25), 9);
      const t = b << 9;
      c ^= a; d ^= b; b ^= c; a ^= d;
      c ^= t;
      d = (d << 11) | (d >>> 21);
      const iz = hz & 127;
      const j = hz >> 7;
      if ((j < 0 ? -j : j) < ZIG_K[iz]) { out[i] = j * ZIG_W[iz]; continue; }
      // slow path (about 1 % of draws): hand the state back, finish with normalSlow
      this.a = a; this.b = b; this.c = c; this.d = d;
      out[i] = this.normalSlow(j, iz);
      a = this.a; b = this.b; c = this.c; d = this.d;
    }
    this.a = a; this.b = b; this.c = c; this.d = d;
  }

  /** standard normal by the ziggurat method (Marsaglia & Tsang, J. Stat. Softw. 5(8), 2000),
   *  128 layers. The layer index comes from the low 7 bits and the abscissa from the other 25,
   *  so the two never share bits (the defect Doornik 2005 pointed out in the original). */
  normal(): number {
    const hz = this.nextI32();
    const iz = hz & 127;
    const j = hz >> 7; // signed 25-bit
    if ((j < 0 ? -j : j) < ZIG_K[iz]) return j * ZIG_W[iz];
    return this.normalSlow(j, iz);
  }

  /** The ziggurat's rejection branch for a draw (j, iz) outside the rectangle of layer iz: the
   *  tail beyond R for the base layer (Marsaglia 1964), the wedge test otherwise; on rejection a
   *  fresh draw starts over. */
  private normalSlow(j: number, iz: number): number {
    for (;;) {
      const x = j * ZIG_W[iz];
      if (iz === 0) {
        let xt: number, y: number;
        do {
          xt = -Math.log(this.uniform()) / ZIG_R;
          y = -Math.log(this.uniform());
        } while (y + y < xt * xt);
        return j > 0 ? ZIG_R + xt : -ZIG_R - xt;
      }
      if (ZIG_F[iz] + this.uniform() * (ZIG_F[iz - 1] - ZIG_F[iz]) < Math.exp(-0.5 * x * x)) return x;
      const hz = this.nextI32();
      iz = hz & 127;
      j = hz >> 7;
      if ((j < 0 ? -j : j) < ZIG_K[iz]) return j * ZIG_W[iz];
    }
  }
}

// Ziggurat tables (Marsaglia & Tsang 2000, zigset) for a 25-bit signed abscissa (m = 2^24).
const ZIG_R = 3.442619855899;
const ZIG_K = new Float64Array(128);
const ZIG_W = new Float64Array(128);
const ZIG_F = new Float64Array(128);
(() => {
  const m = 16777216;
  const vn = 9.91256303526217e-3;
  let dn = ZIG_R, tn = dn;
  const q = vn / Math.exp(-0.5 * dn * dn);
  ZIG_K[0] = (dn / q) * m; ZIG_K[1] = 0;
  ZIG_W[0] = q / m; ZIG_W[127] = dn / m;
  ZIG_F[0] = 1; ZIG_F[127] = Math.exp(-0.5 * dn * dn);
  for (let i = 126; i >= 1; i--) {
    dn = Math.sqrt(-2 * Math.log(vn / dn + Math.exp(-0.5 * dn * dn)));
    ZIG_K[i + 1] = (dn / tn) * m;
    tn = dn;
    ZIG_F[i] = Math.exp(-0.5 * dn * dn);
    ZIG_W[i] = dn / m;
  }
})();
