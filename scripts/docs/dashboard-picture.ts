/**
 * Draws docs/dashboard.svg: the panels of docs/grafana-dashboard.json from a real run of
 * cachette/prometheus. A cache on a real redis-server (started here, on a free port of
 * 127.0.0.1) takes getOrSet calls from 16 concurrent loops over 400 keys with a 2 s ttl for 24 s;
 * at 9 s the server is paused (SIGSTOP) for 4 s, then resumed. The exporter's text is scraped
 * every 500 ms and read with the tests' strict parser; each panel's series is what its query
 * computes over those scrapes (rate over 2 s, the hit ratio, histogram_quantile with
 * Prometheus's linear interpolation). Drawn by this script, not by Grafana.
 *
 *   npx tsx scripts/docs/dashboard-picture.ts
 */
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/index.ts';
import { prometheusMetrics } from '../../src/prometheus/index.ts';
import { parsePrometheusText } from '../../test/support/prometheus-text.ts';
import { startRedis } from '../../test/support/redis-server.ts';

const root = join(import.meta.dirname, '../..');
const RUN_MS = 24_000;
const PAUSE_AT = 9_000;
const PAUSE_MS = 4_000;
const SCRAPE_MS = 500;
const WINDOW = 4; // scrapes per rate window (2 s)

const server = await startRedis();
const cache = createCache({ store: valkeyStore(server.url), ttl: '2s', logger: false, timeout: 200, circuitBreaker: { threshold: 5, cooldownMs: 1000 } });
const metrics = prometheusMetrics(cache, { labels: { cache: 'demo' } });
const scrapes: Array<{ at: number; samples: Map<string, number> }> = [];
const start = Date.now();
let running = true;

async function loop(seed: number): Promise<void> {
  let x = seed;
  while (running) {
    x = (x * 1103515245 + 12345) >>> 0;
    // Skewed keys: a few hot, many cold, as in most caches.
    const key = `item:${Math.floor(((x % 1000) / 1000) ** 3 * 400)}`;
    await cache.getOrSet(key, async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return { key, at: Date.now() };
    });
  }
}
const loops = Array.from({ length: 16 }, (_, i) => loop(i + 1));
const scraper = setInterval(() => scrapes.push({ at: Date.now() - start, samples: parsePrometheusText(metrics.text()) }), SCRAPE_MS);
setTimeout(() => process.kill(server.pid!, 'SIGSTOP'), PAUSE_AT);
setTimeout(() => process.kill(server.pid!, 'SIGCONT'), PAUSE_AT + PAUSE_MS);
await new Promise((resolve) => setTimeout(resolve, RUN_MS));
running = false;
clearInterval(scraper);
await Promise.all(loops);
await cache.close();
await server.stop();

// --- the panels' queries over the scrapes ---------------------------------------------------
type Series = { label: string; points: Array<[number, number]> };
const value = (samples: Map<string, number>, series: string) => samples.get(series) ?? 0;
const L = 'cache="demo"';
function rate(series: (s: Map<string, number>) => number): Array<[number, number]> {
  const points: Array<[number, number]> = [];
  for (let i = WINDOW; i < scrapes.length; i++) {
    const [a, b] = [scrapes[i - WINDOW]!, scrapes[i]!];
    points.push([b.at / 1000, (series(b.samples) - series(a.samples)) / ((b.at - a.at) / 1000)]);
  }
  return points;
}
const lookups = (result: string) => (s: Map<string, number>) => value(s, `cachette_lookups_total{${L},cachette_lookup_result="${result}"}`);
/** histogram_quantile over the rate of each bucket, interpolated linearly inside the bucket. */
function quantile(q: number, result: string): Array<[number, number]> {
  const prefix = `cachette_lookup_duration_seconds_bucket{${L},cachette_lookup_result="${result}",le="`;
  const bounds = [...scrapes[0]!.samples.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length, -2));
  const points: Array<[number, number]> = [];
  for (let i = WINDOW; i < scrapes.length; i++) {
    const counts = bounds.map((le) => value(scrapes[i]!.samples, `${prefix}${le}"}`) - value(scrapes[i - WINDOW]!.samples, `${prefix}${le}"}`));
    const total = counts.at(-1)!;
    if (total === 0) continue;
    const rank = q * total;
    const at = counts.findIndex((c) => c >= rank);
    const upper = bounds[at] === '+Inf' ? Number(bounds[at - 1]) : Number(bounds[at]);
    const lower = at === 0 ? 0 : Number(bounds[at - 1]);
    const below = at === 0 ? 0 : counts[at - 1]!;
    const inBucket = counts[at]! - below;
    points.push([scrapes[i]!.at / 1000, bounds[at] === '+Inf' || inBucket === 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket]);
  }
  return points;
}
const sumAll = (s: Map<string, number>) => ['hit', 'miss', 'stale'].reduce((n, r) => n + lookups(r)(s), 0);
const hitRatio = rate(lookups('hit')).map(([t, hits], i) => [t, hits / (rate(sumAll)[i]![1] || 1)] as [number, number]);
const counter = (name: string) => (s: Map<string, number>) => value(s, `${name}{${L}}`);
const up = (direction: string): Array<[number, number]> => scrapes.map(({ at, samples }) => [at / 1000, value(samples, `cachette_store_up{${L},cachette_store_direction="${direction}"}`)]);

const dashboard = JSON.parse(readFileSync(join(root, 'docs/grafana-dashboard.json'), 'utf8')) as { panels: Array<{ title: string }> };
const panels: Array<{ unit: string; series: Series[] }> = [
  { unit: '/s', series: ['hit', 'miss', 'stale'].map((r) => ({ label: r, points: rate(lookups(r)) })) },
  { unit: '', series: [{ label: 'hit ratio', points: hitRatio }] },
  { unit: 'ms', series: ['hit', 'miss'].flatMap((r) => [0.5, 0.99].map((q) => ({ label: `p${q * 100} ${r}`, points: quantile(q, r).map(([t, v]) => [t, v * 1000] as [number, number]) }))) },
  {
    unit: '/s',
    series: [
      { label: 'fills', points: rate(counter('cachette_fills_total')) },
      { label: 'failed', points: rate(counter('cachette_fill_errors_total')) },
      { label: 'coalesced', points: rate(counter('cachette_coalesced_total')) },
    ],
  },
  {
    unit: '',
    series: [
      { label: 'up (read)', points: up('read') },
      { label: 'up (write)', points: up('write') },
    ],
  },
  {
    unit: '/s',
    series: [
      { label: 'store errors', points: rate(counter('cachette_store_errors_total')) },
      { label: 'skipped (breaker open)', points: rate(counter('cachette_store_skipped_total')) },
    ],
  },
];

// --- drawing ---------------------------------------------------------------------------------
const COLORS = ['#3274d9', '#e0752d', '#56a64b', '#a352cc', '#d44a3a'];
const W = 560;
const H = 210;
const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
function panel(index: number, x: number, y: number, width: number): string {
  const { unit, series } = panels[index]!;
  const all = series.flatMap((s) => s.points.map((p) => p[1])).filter(Number.isFinite);
  const max = Math.max(1e-9, ...all) * 1.1;
  const px = (t: number) => x + 50 + ((width - 70) * t) / (RUN_MS / 1000);
  const py = (v: number) => y + H - 30 - ((H - 70) * v) / max;
  const lines = series.map(
    (s, i) => `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.5" points="${s.points.map(([t, v]) => `${px(t).toFixed(1)},${py(v).toFixed(1)}`).join(' ')}"/>`,
  );
  const legend = series.map((s, i) => `<text x="${x + 60 + i * 150}" y="${y + H - 8}" fill="${COLORS[i % COLORS.length]}" font-size="11">■ ${escape(s.label)}</text>`);
  const ticks = [0, 0.5, 1].map((f) => `<text x="${x + 45}" y="${py(max * f * 0.909) + 4}" text-anchor="end" font-size="10" fill="#8e8e8e">${(max * f * 0.909).toPrecision(3)}${unit}</text>`);
  const pause = `<rect x="${px(PAUSE_AT / 1000)}" y="${y + 30}" width="${px((PAUSE_AT + PAUSE_MS) / 1000) - px(PAUSE_AT / 1000)}" height="${H - 60}" fill="#d44a3a" opacity="0.08"/>`;
  return [
    `<rect x="${x}" y="${y}" width="${width}" height="${H}" rx="4" fill="#181b1f" stroke="#2c3235"/>`,
    `<text x="${x + 10}" y="${y + 20}" font-size="13" fill="#d8d9da">${escape(dashboard.panels[index]!.title)}</text>`,
    pause,
    ...ticks,
    ...lines,
    ...legend,
  ].join('\n');
}
const commit = execSync('git rev-parse --short=10 HEAD', { cwd: root, encoding: 'utf8' }).trim();
const clean = execSync('git status --porcelain', { cwd: root, encoding: 'utf8' }).trim() === '';
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const footer = `Drawn by scripts/docs/dashboard-picture.ts from a real run (${when} UTC, commit ${commit}${clean ? '' : ' with local changes'}, load ${loadavg()[0]!.toFixed(1)}): the panels of docs/grafana-dashboard.json; shaded: redis-server paused.`;
const height = 3 * (H + 10) + 40;
const svg = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W + 30}" height="${height}" font-family="Inter, Helvetica, Arial, sans-serif">`,
  `<rect width="100%" height="100%" fill="#111217"/>`,
  panel(0, 10, 10, W),
  panel(1, W + 20, 10, W),
  panel(2, 10, H + 20, W),
  panel(3, W + 20, H + 20, W),
  panel(4, 10, 2 * H + 30, W),
  panel(5, W + 20, 2 * H + 30, W),
  `<text x="10" y="${height - 12}" font-size="11" fill="#8e8e8e">${escape(footer)}</text>`,
  '</svg>',
].join('\n');
writeFileSync(join(root, 'docs/dashboard.svg'), `${svg}\n`);
console.log(`wrote docs/dashboard.svg: ${scrapes.length} scrapes; ${footer}`);
