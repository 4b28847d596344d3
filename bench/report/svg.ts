/** Dependency-free SVG charts for the reports: grouped horizontal bars, and lines over time. */

/** One group of bars: a label and one value per series (undefined leaves a gap). */
export interface BarGroup {
  label: string;
  values: Array<number | undefined>;
}

/** What to draw. */
export interface BarChart {
  title: string;
  /** Names of the bars inside each group, in order. */
  series: string[];
  groups: BarGroup[];
  /** Axis caption, e.g. "calls/s". */
  unit: string;
}

const COLORS = ['#2f6fb0', '#e08a2c', '#3a9a5b', '#9b59b6', '#c0392b', '#16a085', '#7f8c8d', '#d35400', '#2c3e50'];
const LABEL_W = 270;
const BAR_H = 14;
const GAP = 10;
const PLOT_W = 480;

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));

/** Renders the chart as a standalone SVG document. */
export function barChartSvg(c: BarChart): string {
  const max = Math.max(1, ...c.groups.flatMap((g) => g.values.filter((v): v is number => v !== undefined)));
  const groupH = c.series.length * BAR_H + GAP;
  const top = 52;
  const height = top + c.groups.length * groupH + 30;
  const width = LABEL_W + PLOT_W + 70;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="12" y="20" font-size="15" font-weight="600">${escape(c.title)}</text>`,
  ];
  c.series.forEach((s, i) => {
    const x = LABEL_W + i * 110;
    out.push(`<rect x="${x}" y="30" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`, `<text x="${x + 16}" y="40">${escape(s)}</text>`);
  });
  for (let t = 0; t <= 4; t++) {
    const x = LABEL_W + (PLOT_W * t) / 4;
    out.push(`<line x1="${x}" y1="${top - 4}" x2="${x}" y2="${height - 26}" stroke="#ddd"/>`, `<text x="${x}" y="${height - 12}" text-anchor="middle" fill="#555">${fmt((max * t) / 4)}</text>`);
  }
  out.push(`<text x="${LABEL_W + PLOT_W}" y="${height - 1}" text-anchor="end" fill="#555">${escape(c.unit)}</text>`);
  c.groups.forEach((g, gi) => {
    const y0 = top + gi * groupH;
    out.push(`<text x="${LABEL_W - 8}" y="${y0 + (c.series.length * BAR_H) / 2 + 4}" text-anchor="end">${escape(g.label)}</text>`);
    g.values.forEach((v, si) => {
      if (v === undefined) return;
      const w = Math.max(1, (v / max) * PLOT_W);
      const y = y0 + si * BAR_H;
      out.push(
        `<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H - 2}" fill="${COLORS[si % COLORS.length]}"><title>${escape(`${g.label} ${c.series[si]}: ${Math.round(v)} ${c.unit}`)}</title></rect>`,
        `<text x="${(LABEL_W + w + 4).toFixed(1)}" y="${y + BAR_H - 4}" fill="#333" font-size="10">${fmt(v)}</text>`,
      );
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** One line: a label and its (x, y) points in x order. */
export interface LineSeries {
  label: string;
  points: ReadonlyArray<readonly [number, number]>;
}

/** What to draw as lines. */
export interface LineChart {
  title: string;
  series: LineSeries[];
  /** Axis captions, e.g. "s" and "RSS MiB". */
  xUnit: string;
  yUnit: string;
  /** Vertical dashed lines, e.g. where the load starts and ends. */
  markers?: Array<{ x: number; label: string }>;
}

/** Renders lines over a shared x axis (y from 0) as a standalone SVG document, legend below. */
export function lineChartSvg(c: LineChart): string {
  const left = 60;
  const top = 40;
  const plotW = 700;
  const plotH = 260;
  const legendRows = Math.ceil(c.series.length / 2);
  const width = left + plotW + 30;
  const height = top + plotH + 44 + legendRows * 18;
  const xs = c.series.flatMap((s) => s.points.map(([x]) => x)).concat((c.markers ?? []).map((m) => m.x));
  const ys = c.series.flatMap((s) => s.points.map(([, y]) => y));
  const xMin = Math.min(0, ...xs);
  const xMax = Math.max(xMin + 1, ...xs);
  const yMax = Math.max(1, ...ys) * 1.1;
  const px = (x: number) => (left + ((x - xMin) / (xMax - xMin)) * plotW).toFixed(1);
  const py = (y: number) => (top + plotH - (y / yMax) * plotH).toFixed(1);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="12" y="20" font-size="15" font-weight="600">${escape(c.title)}</text>`,
  ];
  for (let t = 0; t <= 5; t++) {
    const y = (yMax * t) / 5;
    out.push(`<line x1="${left}" y1="${py(y)}" x2="${left + plotW}" y2="${py(y)}" stroke="#eee"/>`, `<text x="${left - 6}" y="${Number(py(y)) + 4}" text-anchor="end" fill="#555">${fmt(y)}</text>`);
    const x = xMin + ((xMax - xMin) * t) / 5;
    out.push(`<text x="${px(x)}" y="${top + plotH + 16}" text-anchor="middle" fill="#555">${fmt(x)}</text>`);
  }
  out.push(
    `<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#999"/>`,
    `<text x="${left + plotW}" y="${top + plotH + 30}" text-anchor="end" fill="#555">${escape(c.xUnit)}</text>`,
    `<text x="${left - 6}" y="${top - 8}" text-anchor="end" fill="#555">${escape(c.yUnit)}</text>`,
  );
  for (const m of c.markers ?? []) {
    out.push(
      `<line x1="${px(m.x)}" y1="${top}" x2="${px(m.x)}" y2="${top + plotH}" stroke="#aaa" stroke-dasharray="4 3"/>`,
      `<text x="${Number(px(m.x)) + 3}" y="${top + 10}" fill="#777" font-size="10">${escape(m.label)}</text>`,
    );
  }
  c.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    if (s.points.length > 0) {
      out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.8" points="${s.points.map(([x, y]) => `${px(x)},${py(y)}`).join(' ')}"><title>${escape(s.label)}</title></polyline>`);
    }
    const lx = left + (i % 2) * (plotW / 2);
    const ly = top + plotH + 44 + Math.floor(i / 2) * 18;
    out.push(`<rect x="${lx}" y="${ly - 10}" width="12" height="4" fill="${color}"/>`, `<text x="${lx + 18}" y="${ly - 4}">${escape(s.label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
