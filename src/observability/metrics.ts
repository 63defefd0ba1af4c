// A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text
// exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/).
// No dependency: the node needs a dozen series, and prom-client's global registry would be shared
// by every app in one process (tests start several).

export type Labels = Record<string, string>;

/** Default latency buckets in seconds: 1 ms to 30 s (requests and solver jobs). */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** At most this many label sets per metric; past it new sets fold into one `other` series. */
const MAX_SERIES = 2000;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelKey(names: readonly string[], labels: Labels): string {
  return names.map((n) => labels[n] ?? '').join('\u0000');
}

function renderLabels(names: readonly string[], values: string[], extra?: [string, string]): string {
  const parts = names.map((n, i) => `${n}="${escapeLabel(values[i])}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function num(x: number): string {
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (Number.isNaN(x)) return 'NaN';
  return String(x);
}

interface Metric {
  readonly name: string;
  render(): string;
}

abstract class Labelled<V> implements Metric {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  protected readonly series = new Map<string, { values: string[]; v: V }>();

  constructor(name: string, help: string, labelNames: readonly string[] = []) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  protected abstract init(): V;

  protected slot(labels: Labels): V {
    let key = labelKey(this.labelNames, labels);
    let s = this.series.get(key);
    if (!s) {
      let values = this.labelNames.map((n) => labels[n] ?? '');
      if (this.series.size >= MAX_SERIES) {
        values = this.labelNames.map(() => 'other');
        key = labelKey(this.labelNames, Object.fromEntries(this.labelNames.map((n) => [n, 'other'])));
        s = this.series.get(key);
      }
      if (!s) {
        s = { values, v: this.init() };
        this.series.set(key, s);
      }
    }
    return s.v;
  }

  abstract render(): string;
}

export class Counter extends Labelled<{ n: number }> {
  protected init() { return { n: 0 }; }
  inc(labels: Labels = {}, by = 1): void { this.slot(labels).n += by; }
  get(labels: Labels = {}): number { return this.series.get(labelKey(this.labelNames, labels))?.v.n ?? 0; }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const s of this.series.values()) lines.push(`${this.name}${renderLabels(this.labelNames, s.values)} ${num(s.v.n)}`);
    return lines.join('\n');
  }
}

export class Gauge extends Labelled<{ n: number }> {
  /** computed at scrape time when given */
  private readonly collect?: (g: Gauge) => void;
  constructor(name: string, help: string, labelNames: readonly string[] = [], collect?: (g: Gauge) => void) {
    super(name, help, labelNames);
    this.collect = collect;
  }
  protected init() { return { n: 0 }; }
  set(labels: Labels, v: number): void { this.slot(labels).n = v; }
  inc(labels: Labels = {}, by = 1): void { this.slot(labels).n += by; }
  dec(labels: Labels = {}, by = 1): void { this.slot(labels).n -= by; }
  get(labels: Labels = {}): number { return this.series.get(labelKey(this.labelNames, labels))?.v.n ?? 0; }
  render(): string {
    if (this.collect) { try { this.collect(this); } catch { /* a failing collector shows stale values */ } }
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`];
    for (const s of this.series.values()) lines.push(`${this.name}${renderLabels(this.labelNames, s.values)} ${num(s.v.n)}`);
    return lines.join('\n');
  }
}

export class Histogram extends Labelled<{ counts: Float64Array; sum: number; count: number }> {
  readonly buckets: readonly number[];
  constructor(name: string, help: string, labelNames: readonly string[] = [], buckets: readonly number[] = DURATION_BUCKETS) {
    super(name, help, labelNames);
    this.buckets = [...buckets].sort((a, b) => a - b);
  }
  protected init() { return { counts: new Float64Array(this.buckets.length), sum: 0, count: 0 }; }
  observe(labels: Labels, v: number): void {
    const s = this.slot(labels);
    // counts[i] holds observations in (buckets[i-1], buckets[i]]; cumulated when rendered
    const b = this.buckets;
    let i = 0;
    while (i < b.length && v > b[i]) i++;
    if (i < b.length) s.counts[i]++;
    s.sum += v;
    s.count++;
  }
  /** count and sum of one label set (tests) */
  get(labels: Labels = {}): { count: number; sum: number } {
    const s = this.series.get(labelKey(this.labelNames, labels))?.v;
    return { count: s?.count ?? 0, sum: s?.sum ?? 0 };
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      let cum = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        cum += s.v.counts[i];
        lines.push(`${this.name}_bucket${renderLabels(this.labelNames, s.values, ['le', num(this.buckets[i])])} ${cum}`);
      }
      lines.push(`${this.name}_bucket${renderLabels(this.labelNames, s.values, ['le', '+Inf'])} ${s.v.count}`);
      lines.push(`${this.name}_sum${renderLabels(this.labelNames, s.values)} ${num(s.v.sum)}`);
      lines.push(`${this.name}_count${renderLabels(this.labelNames, s.values)} ${s.v.count}`);
    }
    return lines.join('\n');
  }
}

export class Registry {
  private readonly metrics: Metric[] = [];
  register<M extends Metric>(m: M): M {
    if (this.metrics.some((x) => x.name === m.name)) throw new Error(`metric ${m.name} registered twice`);
    this.metrics.push(m);
    return m;
  }
  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.register(new Counter(name, help, labelNames));
  }
  gauge(name: string, help: string, labelNames: readonly string[] = [], collect?: (g: Gauge) => void): Gauge {
    return this.register(new Gauge(name, help, labelNames, collect));
  }
  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets?: readonly number[]): Histogram {
    return this.register(new Histogram(name, help, labelNames, buckets));
  }
  render(): string {
    return this.metrics.map((m) => m.render()).join('\n') + '\n';
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
