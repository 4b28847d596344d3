/** Dependency-free SVG bar charts for the README (grouped horizontal bars, one group per row). */

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

const COLORS = ['#2f6fb0', '#e08a2c', '#3a9a5b', '#9b59b6', '#c0392b'];
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
