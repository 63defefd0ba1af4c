// Plots of a solver's `series`: line charts with uPlot (served by the node from node_modules; no
// CDN) and phase portraits drawn on a canvas. Every axis has a label with its unit (present.js);
// tick labels are formatted for their range (grouped digits, or ×10ⁿ beyond a million or below
// a thousandth) and each y axis is as wide as its longest tick label plus its title, so nothing is
// clipped (a y axis of a fixed width cut 1,000,000 to "000,000"). A key that names a reference is
// drawn dashed. What was drawn is left on the element as data attributes (axis titles, tick labels
// and widths), which the browser test reads.
import { sci } from './present.js';

const COLORS = ['#1d4ed8', '#b45309', '#047857', '#9d174d', '#6d28d9', '#0e7490', '#4d7c0f'];
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const TITLE_FONT = '600 13px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

let uPlotModule = null;
async function loadUPlot() {
  uPlotModule ??= import('/console/vendor/uPlot.esm.js').then((m) => m.default);
  return uPlotModule;
}

/** {x, ys, n} from a series object, or null when there is nothing plottable. */
export function seriesColumns(series) {
  if (!series || typeof series !== 'object') return null;
  const keys = Object.keys(series).filter((k) => Array.isArray(series[k]) && series[k].length > 1 && series[k].every((v) => typeof v === 'number'));
  if (keys.length < 2) return null;
  const n = Math.min(...keys.map((k) => series[k].length));
  return { x: keys[0], ys: keys.slice(1), n };
}

/** Tick labels for one axis: the same style for every tick of it. */
export function formatTicks(values) {
  const finite = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  const max = Math.max(0, ...finite.map(Math.abs));
  const exp = max >= 1e7 || (max > 0 && max < 1e-3);
  if (exp) return values.map((v) => (v === 0 ? '0' : sci(v, 3)));
  // enough decimals to tell neighbouring ticks apart, no more
  const steps = finite.slice(1).map((v, i) => Math.abs(v - finite[i])).filter((d) => d > 0);
  const step = steps.length ? Math.min(...steps) : max || 1;
  const decimals = Math.max(0, Math.min(8, -Math.floor(Math.log10(step) + 1e-9)));
  return values.map((v) => (v == null ? '' : v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })));
}

const measure = (() => {
  let ctx = null;
  return (text, font = AXIS_FONT) => {
    ctx ??= document.createElement('canvas').getContext('2d');
    ctx.font = font;
    return ctx.measureText(text).width;
  };
})();

const charts = [];

export function destroyPlots() {
  while (charts.length) {
    const c = charts.pop();
    c.observer?.disconnect();
    c.chart?.destroy?.();
  }
}
/** the old name */
export const destroyPlot = destroyPlots;

const isReference = (k) => /ref|exact|analytic/i.test(k);

/**
 * Draws the y keys of `series` against its x key into `el`, with axis titles `xLabel` and
 * `yLabel`. Returns the caption, or null when there was nothing to draw.
 */
export async function drawChart(el, series, { x, ys, xLabel, yLabel, title = '' }) {
  const n = Math.min(...[x, ...ys].map((k) => series[k]?.length ?? 0));
  if (!(n > 1)) return null;
  const uPlot = await loadUPlot();
  const data = [series[x].slice(0, n), ...ys.map((k) => series[k].slice(0, n))];
  const ticks = { x: [], y: [] };
  const widths = { y: 0, yTicks: 0 };
  const size = () => {
    const w = Math.max(240, Math.floor(el.clientWidth || 320));
    return { width: w, height: Math.round(Math.min(340, Math.max(220, w * 0.55))) };
  };
  const axisFmt = (which) => (_u, splits) => {
    const labels = formatTicks(splits);
    ticks[which] = labels;
    return labels;
  };
  // as wide as the longest tick label, its tick and gap, and the rotated title beside it
  const ySize = (_u, values) => {
    const longest = Math.max(0, ...(values ?? []).map((v) => measure(String(v))));
    widths.yTicks = Math.ceil(longest);
    widths.y = Math.ceil(longest) + 8 + 6 + 22;
    return widths.y;
  };
  const record = () => Object.assign(el.dataset, {
    xLabel, yLabel, xTicks: JSON.stringify(ticks.x), yTicks: JSON.stringify(ticks.y),
    yAxisWidth: String(widths.y), yTickWidth: String(widths.yTicks),
  });
  const opts = {
    title,
    ...size(),
    hooks: { draw: [record] },
    scales: { x: { time: false } },
    axes: [
      { label: xLabel, labelFont: TITLE_FONT, labelSize: 22, font: AXIS_FONT, stroke: '#1f2937', grid: { stroke: '#e5e7eb' }, ticks: { stroke: '#9ca3af' }, values: axisFmt('x'), size: 34 },
      { label: yLabel, labelFont: TITLE_FONT, labelSize: 22, font: AXIS_FONT, stroke: '#1f2937', grid: { stroke: '#e5e7eb' }, ticks: { stroke: '#9ca3af' }, values: axisFmt('y'), size: ySize, gap: 6 },
    ],
    series: [
      { label: xLabel },
      ...ys.map((k, i) => ({
        label: k,
        stroke: COLORS[i % COLORS.length],
        width: 2,
        dash: isReference(k) ? [6, 4] : undefined,
        points: { show: n <= 12 },
      })),
    ],
    legend: { live: true },
  };
  const chart = new uPlot(opts, data, el);
  const observer = new ResizeObserver(() => chart.setSize(size()));
  observer.observe(el);
  charts.push({ chart, observer });
  record();
  return `${ys.join(', ')} against ${x}: ${yLabel} against ${xLabel} (${n} points)`;
}

/** Ticks at 1, 2 or 5 × 10ⁿ (about `count` of them), the first at or below lo and the last at or
 * above hi: the axis they span holds every point. */
export function niceTicks(lo, hi, count = 5) {
  if (!(hi > lo)) { const d = Math.abs(lo) || 1; lo -= d / 2; hi += d / 2; }
  const raw = (hi - lo) / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  const out = [];
  const last = Math.ceil(hi / step - 1e-9) * step;
  for (let v = Math.floor(lo / step + 1e-9) * step; v <= last + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : Number(v.toPrecision(12)));
  return out;
}

/**
 * A phase portrait: `y` against `x` in time order (and a second curve `also` = [x2, y2]) on a
 * canvas with labelled axes. Dense samples are joined by lines; samples far apart along the
 * orbit (a long chaotic run downsampled) are drawn as points, which still show the attractor.
 */
export function drawPhase(el, series, { x, y, also, xLabel, yLabel, title = '' }) {
  const curves = [[series[x], series[y]], ...(also ? [[series[also[0]], series[also[1]]]] : [])]
    .map(([a, b]) => { const n = Math.min(a.length, b.length); return [a.slice(0, n), b.slice(0, n)]; });
  const allX = curves.flatMap((c) => c[0]);
  const allY = curves.flatMap((c) => c[1]);
  const xt = niceTicks(Math.min(...allX), Math.max(...allX));
  const yt = niceTicks(Math.min(...allY), Math.max(...allY));
  const xl = formatTicks(xt);
  const yl = formatTicks(yt);
  const canvas = document.createElement('canvas');
  el.replaceChildren(canvas);
  const draw = () => {
    const dpr = window.devicePixelRatio || 1;
    const W = Math.max(240, Math.floor(el.clientWidth || 320));
    const H = Math.round(Math.min(420, Math.max(240, W * 0.7)));
    canvas.width = W * dpr;
    canvas.height = H * dpr;
    canvas.style.width = `${W}px`;
    canvas.style.height = `${H}px`;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.font = AXIS_FONT;
    const yTickW = Math.max(...yl.map((s) => ctx.measureText(s).width));
    const left = Math.ceil(yTickW) + 8 + 24;
    const top = title ? 28 : 10;
    const right = 12;
    const bottom = 22 + 24;
    const pw = W - left - right;
    const ph = H - top - bottom;
    const x0 = xt[0], x1 = xt[xt.length - 1], y0 = yt[0], y1 = yt[yt.length - 1];
    const px = (v) => left + ((v - x0) / (x1 - x0)) * pw;
    const py = (v) => top + ph - ((v - y0) / (y1 - y0)) * ph;
    // grid, ticks, tick labels
    ctx.strokeStyle = '#e5e7eb';
    ctx.fillStyle = '#1f2937';
    ctx.lineWidth = 1;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    xt.forEach((v, i) => { ctx.beginPath(); ctx.moveTo(px(v), top); ctx.lineTo(px(v), top + ph); ctx.stroke(); ctx.fillText(xl[i], px(v), top + ph + 6); });
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    yt.forEach((v, i) => { ctx.beginPath(); ctx.moveTo(left, py(v)); ctx.lineTo(left + pw, py(v)); ctx.stroke(); ctx.fillText(yl[i], left - 8, py(v)); });
    ctx.strokeStyle = '#6b7280';
    ctx.strokeRect(left, top, pw, ph);
    // axis titles and the title
    ctx.font = TITLE_FONT;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    ctx.fillText(xLabel, left + pw / 2, H - 4);
    ctx.save();
    ctx.translate(14, top + ph / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = 'middle';
    ctx.fillText(yLabel, 0, 0);
    ctx.restore();
    if (title) { ctx.textBaseline = 'top'; ctx.fillText(title, left + pw / 2, 6); }
    // the curves: lines when consecutive samples are close, points otherwise
    curves.forEach(([xs, ysv], ci) => {
      const color = COLORS[ci % COLORS.length];
      const steps = xs.slice(1).map((v, i) => Math.hypot(px(v) - px(xs[i]), py(ysv[i + 1]) - py(ysv[i]))).sort((a, b) => a - b);
      const median = steps.length ? steps[Math.floor(steps.length / 2)] : 0;
      const joined = median < 0.06 * Math.min(pw, ph);
      ctx.strokeStyle = color;
      ctx.fillStyle = color;
      ctx.lineWidth = 1.25;
      if (joined) {
        ctx.beginPath();
        xs.forEach((v, i) => (i ? ctx.lineTo(px(v), py(ysv[i])) : ctx.moveTo(px(v), py(ysv[i]))));
        ctx.stroke();
      } else {
        ctx.globalAlpha = 0.7;
        xs.forEach((v, i) => { ctx.beginPath(); ctx.arc(px(v), py(ysv[i]), 1.6, 0, 2 * Math.PI); ctx.fill(); });
        ctx.globalAlpha = 1;
      }
      el.dataset[`curve${ci}`] = joined ? 'lines' : 'points';
    });
    Object.assign(el.dataset, { xLabel, yLabel, xTicks: JSON.stringify(xl), yTicks: JSON.stringify(yl), yAxisWidth: String(left), yTickWidth: String(Math.ceil(yTickW)), points: String(allX.length) });
  };
  draw();
  const observer = new ResizeObserver(() => draw());
  observer.observe(el);
  charts.push({ observer });
  return `${y} against ${x}: ${yLabel} against ${xLabel} (${allX.length} points)`;
}

/** The old single-chart entry point: every series key against the first. */
export async function drawSeries(el, series, title = '') {
  destroyPlots();
  const cols = seriesColumns(series);
  if (!cols) return null;
  return drawChart(el, series, { x: cols.x, ys: cols.ys, xLabel: cols.x, yLabel: cols.ys.join(', '), title });
}
