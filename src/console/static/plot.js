// Plots a solver's `series` with uPlot (served by the node from node_modules; no CDN). The
// first key is the abscissa (`t` or another), every other numeric array is a line; a key that
// names a reference is drawn dashed.
const COLORS = ['#1d4ed8', '#b45309', '#047857', '#9d174d', '#6d28d9', '#0e7490', '#4d7c0f'];

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

let current = null;

export function destroyPlot() {
  current?.observer.disconnect();
  current?.chart.destroy();
  current = null;
}

/** Draws `series` into `el`; returns a caption, or null when there was nothing to draw. */
export async function drawSeries(el, series, title = '') {
  destroyPlot();
  const cols = seriesColumns(series);
  if (!cols) return null;
  const uPlot = await loadUPlot();
  const data = [series[cols.x].slice(0, cols.n), ...cols.ys.map((k) => series[k].slice(0, cols.n))];
  const size = () => {
    const w = Math.max(240, Math.floor(el.clientWidth || 320));
    return { width: w, height: Math.round(Math.min(340, Math.max(200, w * 0.55))) };
  };
  const opts = {
    title,
    ...size(),
    scales: { x: { time: false } },
    axes: [
      { label: cols.x, stroke: '#1f2937', grid: { stroke: '#e5e7eb' }, ticks: { stroke: '#9ca3af' } },
      { stroke: '#1f2937', grid: { stroke: '#e5e7eb' }, ticks: { stroke: '#9ca3af' }, size: 64 },
    ],
    series: [
      { label: cols.x },
      ...cols.ys.map((k, i) => ({
        label: k,
        stroke: COLORS[i % COLORS.length],
        width: 2,
        dash: /ref|exact|analytic/i.test(k) ? [6, 4] : undefined,
        points: { show: false },
      })),
    ],
    legend: { live: true },
  };
  const chart = new uPlot(opts, data, el);
  const observer = new ResizeObserver(() => chart.setSize(size()));
  observer.observe(el);
  current = { chart, observer };
  return `${cols.ys.join(', ')} against ${cols.x} (${cols.n} points)`;
}
