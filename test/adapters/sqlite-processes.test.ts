import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { text } from '../support/suite-api.ts';
import { removeDir, tempDir } from './sqlite-temp.ts';

const WORKER = join(import.meta.dirname, 'sqlite-process-worker.ts');
const BIN = join(import.meta.dirname, '../../node_modules/.bin');

/** How each runtime runs the worker script. */
const COMMANDS = {
  node: [process.execPath, '--import', 'tsx', WORKER],
  bun: [join(BIN, 'bun'), WORKER],
  deno: [join(BIN, 'deno'), 'run', '--allow-all', '--no-check', WORKER],
} as const;

interface Report {
  id: string;
  binding: string;
  reads: number;
  hits: number;
  torn: number;
  writes: number;
  leasesWon: number[];
}

/** Starts one worker; resolves `ready` once its store is open, `done` with its report. */
function startWorker(runtime: keyof typeof COMMANDS, job: object): { ready: Promise<void>; done: Promise<Report> } {
  const [bin, ...args] = COMMANDS[runtime];
  const child = spawn(bin, [...args, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let markReady: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('ready\n')) markReady();
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const done = new Promise<Report>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as Report);
      else reject(new Error(`${runtime} worker exited with ${code}: ${err || out}`));
    });
  });
  // A worker that dies before "ready" must fail the test, not hang it.
  done.catch(() => markReady());
  return { ready, done };
}

async function runTogether(dir: string, runtimes: Array<keyof typeof COMMANDS>, work: { increments: number; churn: number; leases: number }) {
  const path = join(dir, 'shared.db');
  const goFile = join(dir, `go-${runtimes.length}`);
  const workers = runtimes.map((runtime, i) => startWorker(runtime, { path, id: `${runtime}-${i}`, goFile, ...work }));
  await Promise.all(workers.map((w) => w.ready));
  writeFileSync(goFile, '');
  return { path, reports: await Promise.all(workers.map((w) => w.done)) };
}

describe('several processes on one file', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('processes');
  });
  afterAll(() => removeDir(dir));

  for (const runtimes of [
    ['node', 'node'],
    ['node', 'node', 'bun', 'deno'],
  ] as Array<Array<keyof typeof COMMANDS>>) {
    it(`${runtimes.length} processes (${runtimes.join(', ')}): no lost increments, no torn values, one winner per lease`, async () => {
      const run = join(dir, runtimes.join('-'));
      // Enough to interleave every process many times over; small enough not to starve the suites running beside it.
      const work = { increments: 200, churn: 600, leases: 100 };
      const { path, reports } = await runTogether(run, runtimes, work);
      const store = sqliteStore(path);
      try {
        assert.equal(text(await store.get('shared-counter')), String(work.increments * runtimes.length), 'every increment of every process counted');
        for (const r of reports) assert.equal(text(await store.get(`own:${r.id}`)), String(work.increments));
        assert.deepEqual(
          reports.map((r) => r.torn),
          runtimes.map(() => 0),
          'no read saw a torn value',
        );
        assert.ok(
          reports.every((r) => r.hits > 0 && r.writes > 0),
          'every process both wrote and read values',
        );
        // Each lease has exactly one winner, and the stored token names that winner.
        const winners = new Map<number, string>();
        for (const r of reports)
          for (const lease of r.leasesWon) {
            assert.equal(winners.has(lease), false, `lease ${lease} won twice`);
            winners.set(lease, r.id);
          }
        assert.equal(winners.size, work.leases);
        for (const [lease, id] of winners) assert.equal(text(await store.get(`lease:${lease}`)), id);
        assert.deepEqual([...new Set(reports.map((r) => r.binding))].sort(), [...new Set(runtimes.map((r) => ({ node: 'better-sqlite3', bun: 'bun:sqlite', deno: 'node:sqlite' })[r]))].sort());
      } finally {
        await store.close();
      }
    }, 120_000);
  }
});
