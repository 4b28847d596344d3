/**
 * Dependency-free SVG charts for every bench report: grouped horizontal bars (rates, or ratios
 * against a reference such as the raw client), lines over time, and points on two axes. One
 * frame for all of them: a title that wraps instead of running off the edge, axes with round
 * ticks, a legend laid out for the longest name, and a footer that says which run drew it (the
 * command, date, commit and load), in red when the commit had uncommitted changes.
 */
import { stampText, type RunStamp } from './run-stamp.ts';

export type { RunStamp } from './run-stamp.ts';

interface ChartFrame {
  title: string;
  stamp: RunStamp;
}

/** One group of bars: a label, one value per series (undefined leaves a gap), and an optional note printed after each bar. */
export interface BarGroup {
  label: string;
  values: Array<number | undefined>;
  notes?: Array<string | undefined>;
}

/** Grouped horizontal bars. */
export interface BarChart extends ChartFrame {
  /** Names of the bars inside each group, in order. */
  series: string[];
  groups: BarGroup[];
  /** Axis caption, e.g. "calls/s". */
  unit: string;
  /** How values read: "rate" (117k) or "ratio" (0.85×). Default "rate". */
  format?: 'rate' | 'ratio';
  /** A dashed vertical line, e.g. `{ value: 1, label: 'the raw client' }` on a chart of ratios. */
  reference?: { value: number; label: string };
}

/** One line: a label and its (x, y) points in x order. */
export interface LineSeries {
  label: string;
  points: ReadonlyArray<readonly [number, number]>;
}

/** Lines over a shared x axis, y from 0. */
export interface LineChart extends ChartFrame {
  series: LineSeries[];
  /** Axis captions, e.g. "s" and "RSS MiB". */
  xUnit: string;
  yUnit: string;
  /** Vertical dashed lines, e.g. where the load starts and ends. */
  markers?: Array<{ x: number; label: string }>;
}

/** One point of a scatter chart: its series (a colour) and its mark (a short text inside it). */
export interface ScatterPoint {
  x: number;
  y: number;
  series: number;
  mark: string;
}

/** Points on two axes, each marked with a short text that the legend names. */
export interface ScatterChart extends ChartFrame {
  points: ScatterPoint[];
  /** Colours: what each series is. */
  series: string[];
  /** What each mark stands for. */
  marks: Array<{ mark: string; label: string }>;
  xUnit: string;
  yUnit: string;
  /** The x axis' range, e.g. [0.75, 1] for hit ratios; values shown as percentages when `xPercent`. */
  xRange: [number, number];
  xPercent?: boolean;
  /** "log1p" spreads values from 0 to thousands (0, 1, 10, 100, 1000 equally apart). Default "linear". */
  yScale?: 'linear' | 'log1p';
}

const COLORS = ['#2f6fb0', '#e08a2c', '#3a9a5b', '#9b59b6', '#c0392b', '#16a085', '#7f8c8d', '#d35400', '#2c3e50'];
const FONT = 12;
const WIDTH = 820;
const MARGIN = 14;

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Roughly how wide `text` is at `size` px in a sans-serif face: enough to lay out labels without measuring. */
const textWidth = (text: string, size = FONT) => text.length * size * 0.58;
const rate = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : n >= 10 || Number.isInteger(n) ? String(Math.round(n)) : n.toFixed(1));
const ratio = (n: number) => `${n.toFixed(2)}×`;

/** Round tick values from 0 to at least `max`: steps of 1, 2 or 5 times a power of ten. */
function ticks(max: number, count = 5): number[] {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const out: number[] = [];
  for (let t = 0; t <= max + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)));
  if (out[out.length - 1]! < max) out.push(Number((out[out.length - 1]! + step).toPrecision(12)));
  return out;
}

/** Splits `text` into lines that fit `width` at `size`. */
function wrap(text: string, width: number, size: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** A chart's document: the title (wrapped) above `body`, which is `height` tall and drawn from y = 0, and the stamp below. */
function frame(c: ChartFrame, height: number, body: string[]): string {
  const title = wrap(c.title, WIDTH - 2 * MARGIN, 15);
  const top = 18 + title.length * 19;
  const { run, dirty } = stampText(c.stamp);
  const footer = top + height + 18;
  const total = footer + (dirty ? 34 : 16);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${total}" viewBox="0 0 ${WIDTH} ${total}" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" font-size="${FONT}">`,
    `<title>${escapeXml(c.title)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    ...title.map((line, i) => `<text x="${MARGIN}" y="${24 + i * 19}" font-size="15" font-weight="600">${escapeXml(line)}</text>`),
    `<g transform="translate(0 ${top})">`,
    ...body,
    '</g>',
    `<text x="${MARGIN}" y="${footer}" font-size="11" fill="#666">${escapeXml(run)}</text>`,
    ...(dirty ? [`<text x="${MARGIN}" y="${footer + 16}" font-size="11" font-weight="600" fill="#c0392b">⚠ ${escapeXml(dirty)}</text>`] : []),
    '</svg>',
    '',
  ].join('\n');
}

/** A legend of coloured swatches in as many columns as the longest name allows, from `y`; returns its elements and height. */
function legend(names: readonly string[], y: number, swatch: (i: number, x: number, y: number) => string): { svg: string[]; height: number } {
  const widest = Math.max(0, ...names.map((n) => textWidth(n))) + 34;
  const columns = Math.max(1, Math.min(names.length, Math.floor((WIDTH - 2 * MARGIN) / widest)));
  const columnWidth = (WIDTH - 2 * MARGIN) / columns;
  const svg = names.flatMap((name, i) => {
    const x = MARGIN + (i % columns) * columnWidth;
    const row = y + Math.floor(i / columns) * 18;
    return [swatch(i, x, row), `<text x="${x + 20}" y="${row + 10}">${escapeXml(name)}</text>`];
  });
  return { svg, height: Math.ceil(names.length / columns) * 18 };
}

/** Renders grouped horizontal bars as a standalone SVG document. */
export function barChartSvg(c: BarChart): string {
  const show = c.format === 'ratio' ? ratio : rate;
  const values = c.groups.flatMap((g) => g.values.filter((v): v is number => v !== undefined));
  const noteWidth = Math.max(0, ...c.groups.flatMap((g) => (g.notes ?? []).map((n, i) => (n ? textWidth(`${show(g.values[i] ?? 0)}  ${n}`, 10) : 0))));
  const labelW = Math.min(300, Math.max(80, ...c.groups.map((g) => textWidth(g.label))) + 12);
  const plotW = WIDTH - MARGIN - labelW - Math.max(46, noteWidth + 8);
  const axis = ticks(Math.max(1e-9, ...values, c.reference?.value ?? 0));
  const max = axis[axis.length - 1]!;
  const px = (v: number) => labelW + (v / max) * plotW;
  const barH = 13;
  const groupH = c.series.length * barH + 12;
  const key = legend(c.series, 0, (i, x, y) => `<rect x="${x}" y="${y}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`);
  const top = key.height + 10;
  const plotH = c.groups.length * groupH;
  const out = [...key.svg];
  for (const t of axis) {
    out.push(
      `<line x1="${px(t).toFixed(1)}" y1="${top - 4}" x2="${px(t).toFixed(1)}" y2="${top + plotH}" stroke="#e4e4e4"/>`,
      `<text x="${px(t).toFixed(1)}" y="${top + plotH + 15}" text-anchor="middle" fill="#555">${show(t)}</text>`,
    );
  }
  out.push(`<text x="${labelW + plotW}" y="${top + plotH + 30}" text-anchor="end" fill="#555">${escapeXml(c.unit)}</text>`);
  if (c.reference) {
    const x = px(c.reference.value).toFixed(1);
    out.push(
      `<line x1="${x}" y1="${top - 4}" x2="${x}" y2="${top + plotH}" stroke="#333" stroke-dasharray="5 3"/>`,
      `<text x="${labelW}" y="${top + plotH + 46}" fill="#333">${escapeXml(`dashed line: ${show(c.reference.value)}, ${c.reference.label}`)}</text>`,
    );
  }
  c.groups.forEach((g, gi) => {
    const y0 = top + gi * groupH;
    const label = wrap(g.label, labelW - 12, FONT).slice(0, 2);
    for (const [li, line] of label.entries()) {
      out.push(`<text x="${labelW - 8}" y="${y0 + (c.series.length * barH) / 2 + 4 + (li - (label.length - 1) / 2) * 13}" text-anchor="end">${escapeXml(line)}</text>`);
    }
    g.values.forEach((v, si) => {
      if (v === undefined) return;
      const y = y0 + si * barH;
      const w = Math.max(1, px(v) - labelW);
      const note = g.notes?.[si];
      out.push(
        `<rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${barH - 2}" fill="${COLORS[si % COLORS.length]}"><title>${escapeXml(`${g.label}, ${c.series[si]}${note ? ` (${note})` : ''}: ${show(v)} ${c.unit}`)}</title></rect>`,
        `<text x="${(labelW + w + 4).toFixed(1)}" y="${y + barH - 3}" fill="#333" font-size="10" stroke="#fff" stroke-width="3" paint-order="stroke">${escapeXml(note ? `${show(v)}  ${note}` : show(v))}</text>`,
      );
    });
  });
  return frame(c, top + plotH + (c.reference ? 50 : 34), out);
}

/** Renders lines over a shared x axis (y from 0) as a standalone SVG document, legend below. */
export function lineChartSvg(c: LineChart): string {
  const left = 56;
  const plotW = WIDTH - left - 24;
  const plotH = 250;
  const top = 18;
  const xs = c.series.flatMap((s) => s.points.map(([x]) => x)).concat((c.markers ?? []).map((m) => m.x));
  const yAxis = ticks(Math.max(1, ...c.series.flatMap((s) => s.points.map(([, y]) => y))));
  const xAxis = ticks(Math.max(1, ...xs), 7);
  const yMax = yAxis[yAxis.length - 1]!;
  const xMax = xAxis[xAxis.length - 1]!;
  const px = (x: number) => (left + (x / xMax) * plotW).toFixed(1);
  const py = (y: number) => (top + plotH - (y / yMax) * plotH).toFixed(1);
  const out = [`<text x="${MARGIN}" y="${top - 8}" fill="#555">${escapeXml(c.yUnit)}</text>`];
  for (const y of yAxis)
    out.push(`<line x1="${left}" y1="${py(y)}" x2="${left + plotW}" y2="${py(y)}" stroke="#eee"/>`, `<text x="${left - 6}" y="${Number(py(y)) + 4}" text-anchor="end" fill="#555">${rate(y)}</text>`);
  for (const x of xAxis) out.push(`<text x="${px(x)}" y="${top + plotH + 16}" text-anchor="middle" fill="#555">${rate(x)}</text>`);
  out.push(
    `<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#999"/>`,
    `<text x="${left + plotW}" y="${top + plotH + 32}" text-anchor="end" fill="#555">${escapeXml(c.xUnit)}</text>`,
  );
  for (const m of c.markers ?? []) {
    out.push(
      `<line x1="${px(m.x)}" y1="${top}" x2="${px(m.x)}" y2="${top + plotH}" stroke="#aaa" stroke-dasharray="4 3"/>`,
      `<text x="${Number(px(m.x)) + 3}" y="${top + 10}" fill="#777" font-size="10">${escapeXml(m.label)}</text>`,
    );
  }
  c.series.forEach((s, i) => {
    if (s.points.length === 0) return;
    out.push(
      `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.8" points="${s.points.map(([x, y]) => `${px(x)},${py(y)}`).join(' ')}"><title>${escapeXml(s.label)}</title></polyline>`,
    );
  });
  const key = legend(
    c.series.map((s) => s.label),
    top + plotH + 44,
    (i, x, y) => `<rect x="${x}" y="${y + 4}" width="14" height="4" fill="${COLORS[i % COLORS.length]}"/>`,
  );
  out.push(...key.svg);
  return frame(c, top + plotH + 44 + key.height, out);
}

/** Renders marked points on two axes as a standalone SVG document, with the legends of colours and marks below. */
export function scatterChartSvg(c: ScatterChart): string {
  const left = 56;
  const plotW = WIDTH - left - 24;
  const plotH = 300;
  const top = 18;
  const log = c.yScale === 'log1p';
  const yMaxValue = Math.max(1, ...c.points.map((p) => p.y));
  const yAxis = log ? [0, 1, 10, 100, 1000, 10_000, 100_000].filter((t, i, all) => t <= yMaxValue || all[i - 1]! < yMaxValue) : ticks(yMaxValue);
  const yScaled = (y: number) => (log ? Math.log10(1 + y) : y);
  const yTop = yScaled(yAxis[yAxis.length - 1]!);
  const [x0, x1] = c.xRange;
  const px = (x: number) => (left + ((x - x0) / (x1 - x0)) * plotW).toFixed(1);
  const py = (y: number) => (top + plotH - (yScaled(y) / yTop) * plotH).toFixed(1);
  const xLabel = (x: number) => (c.xPercent ? `${Math.round(x * 1000) / 10} %` : rate(x));
  const yLabel = (y: number) => (log ? y.toLocaleString('en-US') : rate(y));
  const xStep = ticks(x1 - x0, 7)[1]!;
  const out = [`<text x="${MARGIN}" y="${top - 8}" fill="#555">${escapeXml(c.yUnit)}</text>`];
  for (const y of yAxis)
    out.push(`<line x1="${left}" y1="${py(y)}" x2="${left + plotW}" y2="${py(y)}" stroke="#eee"/>`, `<text x="${left - 6}" y="${Number(py(y)) + 4}" text-anchor="end" fill="#555">${yLabel(y)}</text>`);
  for (let x = Math.ceil(x0 / xStep - 1e-9) * xStep; x <= x1 + xStep * 1e-9; x += xStep) {
    out.push(`<line x1="${px(x)}" y1="${top}" x2="${px(x)}" y2="${top + plotH}" stroke="#f2f2f2"/>`, `<text x="${px(x)}" y="${top + plotH + 16}" text-anchor="middle" fill="#555">${xLabel(x)}</text>`);
  }
  out.push(
    `<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#999"/>`,
    `<text x="${left + plotW}" y="${top + plotH + 32}" text-anchor="end" fill="#555">${escapeXml(c.xUnit)}</text>`,
  );
  for (const p of c.points) {
    const label = c.marks.find((m) => m.mark === p.mark)?.label ?? p.mark;
    out.push(
      `<g><title>${escapeXml(`${label}, ${c.series[p.series]}: ${rate(p.y)} ${c.yUnit}, ${xLabel(p.x)} ${c.xUnit}`)}</title><circle cx="${px(p.x)}" cy="${py(p.y)}" r="8" fill="${COLORS[p.series % COLORS.length]}" fill-opacity="0.85"/>`,
      `<text x="${px(p.x)}" y="${Number(py(p.y)) + 4}" text-anchor="middle" font-size="10" font-weight="600" fill="#fff">${escapeXml(p.mark)}</text></g>`,
    );
  }
  const colours = legend(c.series, top + plotH + 44, (i, x, y) => `<circle cx="${x + 6}" cy="${y + 6}" r="6" fill="${COLORS[i % COLORS.length]}"/>`);
  const marks = legend(
    c.marks.map((m) => m.label),
    top + plotH + 52 + colours.height,
    (i, x, y) =>
      `<circle cx="${x + 6}" cy="${y + 6}" r="7" fill="#555"/><text x="${x + 6}" y="${y + 10}" text-anchor="middle" font-size="9" font-weight="600" fill="#fff">${escapeXml(c.marks[i]!.mark)}</text>`,
  );
  out.push(...colours.svg, ...marks.svg);
  return frame(c, top + plotH + 52 + colours.height + marks.height, out);
}
