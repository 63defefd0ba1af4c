// Classical fourth-order Runge-Kutta (Kutta 1901; Hairer, Nørsett & Wanner, "Solving Ordinary
// Differential Equations I", §II.1). Fixed step; the caller chooses h. Works in place on
// Float64Arrays to keep inner loops allocation-free.

/** dy/dt = f(t, y), written into `out` */
export type Deriv = (t: number, y: Float64Array, out: Float64Array) => void;

export interface Rk4Workspace {
  k1: Float64Array; k2: Float64Array; k3: Float64Array; k4: Float64Array; tmp: Float64Array;
}

export function rk4Workspace(n: number): Rk4Workspace {
  return { k1: new Float64Array(n), k2: new Float64Array(n), k3: new Float64Array(n), k4: new Float64Array(n), tmp: new Float64Array(n) };
}

/** Advances y (in place) from t to t + h. */
export function rk4Step(f: Deriv, t: number, y: Float64Array, h: number, ws: Rk4Workspace): void {
  const n = y.length;
  const { k1, k2, k3, k4, tmp } = ws;
  f(t, y, k1);
  for (let i = 0; i < n; i++) tmp[i] = y[i] + 0.5 * h * k1[i];
  f(t + 0.5 * h, tmp, k2);
  for (let i = 0; i < n; i++) tmp[i] = y[i] + 0.5 * h * k2[i];
  f(t + 0.5 * h, tmp, k3);
  for (let i = 0; i < n; i++) tmp[i] = y[i] + h * k3[i];
  f(t + h, tmp, k4);
  for (let i = 0; i < n; i++) y[i] += (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

/** Integrates `steps` fixed steps of size h from t0; calls `observe(t, y, step)` after each step if given. */
export function rk4Integrate(f: Deriv, t0: number, y: Float64Array, h: number, steps: number,
  observe?: (t: number, y: Float64Array, step: number) => void): Float64Array {
  const ws = rk4Workspace(y.length);
  let t = t0;
  for (let s = 1; s <= steps; s++) {
    rk4Step(f, t, y, h, ws);
    t = t0 + s * h;
    if (observe) observe(t, y, s);
  }
  return y;
}
