// The node's one clock (DESIGN §6). Everything that needs "now" takes a Clock, so tests and the
// reactor can inject one. `t` is unix seconds with millisecond resolution.

export const PULSE_HZ = 1.287;
export const SVCOND_SECONDS = 0.777;
export const ALPHA = 0.00129;

export interface Clock {
  /** unix seconds, millisecond resolution */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() / 1000 };

/** A clock that returns a fixed instant, or advances only when told to. For tests. */
export function fixedClock(t: number): Clock & { set(t: number): void; advance(dt: number): void } {
  let cur = t;
  return {
    now: () => cur,
    set: (v: number) => { cur = v; },
    advance: (dt: number) => { cur = Math.round((cur + dt) * 1000) / 1000; },
  };
}

export interface Pulse {
  t: number;
  svcond: number;
  phase: number;
  R_t: number;
}

/** frac(1.287·t) computed without losing the fraction to the size of t: t is split into whole
 * milliseconds so the product is exact in integer arithmetic before the final division. */
function pulseFraction(t: number): number {
  const ms = Math.round(t * 1000);
  // 1.287 * t = 1287 * ms / 1e6 ; 1287·ms mod 1e6 depends only on ms mod 1e6, so reducing ms
  // first keeps every product below 2^31: exact for any t a caller may pass (protect takes t up to 1e11)
  const num = (1287 * (ms % 1_000_000)) % 1_000_000;
  return num / 1_000_000;
}

/** The pulse at instant t for a chain whose operator weights sum to S (1 when normalised). */
export function pulseAt(t: number, S = 1, phaseOffset = 0): Pulse {
  const svcond = Math.floor(t / SVCOND_SECONDS);
  let phase = 2 * Math.PI * pulseFraction(t) + phaseOffset;
  phase = phase % (2 * Math.PI);
  if (phase < 0) phase += 2 * Math.PI;
  const R_t = S * (1 + ALPHA * Math.sin(phase));
  return { t, svcond, phase, R_t };
}
