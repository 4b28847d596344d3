/**
 * What cachette/express costs an Express 5 app: the server's CPU per request and wrk's req/s for
 * one JSON route served bare, answered from the cache (a hit), and sent through the cache on
 * every request (`Cache-Control: no-cache`: the route runs, its response is captured, streamed
 * and stored again). Memory store; loopback only; wrk (installed with apt) makes the load.
 *
 *   npx tsx bench/express-overhead.ts             (3 runs of 5 s per row, 10 connections, median)
 *   npx tsx bench/express-overhead.ts --quick     (a smoke run: 1 run of 1 s per row)
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import express from 'express';
import { memoryStore } from '../adapters/memory/index.ts';
import { cache } from '../runtimes/node-http/express/index.ts';
import { median } from './support/stats.ts';

const quick = process.argv.includes('--quick');
const runs = quick ? 1 : 3;
const seconds = quick ? 1 : 5;
const connections = 10;
const run = promisify(execFile);

const payload = { items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}`, price: i * 1.5 })) };
const store = memoryStore();
const middleware = cache({ store, ttl: '1h' });
const app = express();
app.get('/bare', (_req, res) => void res.json(payload));
app.use('/cached', middleware);
app.get('/cached', (_req, res) => void res.json(payload));
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

interface Row {
  label: string;
  rps: number;
  avgMs: number;
  p99Ms: number;
  cpuUs: number;
}

/** Milliseconds from wrk's "1.23ms" / "456.00us" / "1.02s". */
function ms(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!match) throw new Error(`wrk printed an unexpected latency: ${text}`);
  return Number(match[1]) * { us: 0.001, ms: 1, s: 1000 }[match[2] as 'us' | 'ms' | 's'];
}

async function measure(label: string, path: string, headers: string[] = []): Promise<Row> {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...headers.flatMap((h) => ['-H', h]), base + path];
  await run('wrk', ['-t1', '-c2', '-d1s', ...headers.flatMap((h) => ['-H', h]), base + path]); // warm-up
  const results: Row[] = [];
  for (let i = 0; i < runs; i++) {
    const cpu0 = process.cpuUsage();
    const { stdout } = await run('wrk', args);
    const cpu = process.cpuUsage(cpu0);
    const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
    if (non2xx > 0 || /Socket errors/.test(stdout)) throw new Error(`${label}: wrk saw errors\n${stdout}`);
    results.push({
      label,
      rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]),
      avgMs: ms(/Latency\s+(\S+)/.exec(stdout)![1]!),
      p99Ms: ms(/99%\s+(\S+)/.exec(stdout)![1]!),
      cpuUs: (cpu.user + cpu.system) / requests,
    });
  }
  const pick = (f: (r: Row) => number) => median(results.map(f));
  return { label, rps: pick((r) => r.rps), avgMs: pick((r) => r.avgMs), p99Ms: pick((r) => r.p99Ms), cpuUs: pick((r) => r.cpuUs) };
}

try {
  await run('sh', ['-c', 'command -v wrk']).catch(() => {
    throw new Error('bench/express-overhead.ts needs wrk (apt-get install wrk)');
  });
  // The hit path needs the entry stored first.
  await (await fetch(`${base}/cached`)).text();
  await middleware.idle();
  const rows = [
    await measure('bare Express route (res.json, ~1 KB)', '/bare'),
    await measure('behind cache(): hit', '/cached'),
    await measure('behind cache(): forwarded, captured and stored each time', '/cached', ['Cache-Control: no-cache']),
  ];
  console.log(`| row | req/s | avg ms | p99 ms | server CPU µs/request |\n|---|---:|---:|---:|---:|`);
  for (const r of rows) console.log(`| ${r.label} | ${Math.round(r.rps)} | ${r.avgMs.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.cpuUs.toFixed(1)} |`);
  console.log(`\n(${runs} run(s) of ${seconds} s per row, ${connections} connections, wrk and this server on one machine; median)`);
} finally {
  server.closeAllConnections();
  server.close();
  await middleware.close();
  await store.close();
}
