/**
 * Issue 27, item 11: a value file is written before the row that names it, and a process killed
 * in between used to leave the file for ever, uncounted by `maxBytes` (47 of 304 files after 6
 * kills). Now each file is reserved before it is written, counted in the totals while reserved,
 * and collected with its file by the next open or sweep once its writer's time is up
 * (adapters/sqlite/pending-files.ts). Real processes, killed with SIGKILL: at the moment between
 * the file and the row (the worker waits there), right after a process removed a value file
 * (whose row, or reservation, a commit not yet made removed: a rollback brought them back, naming
 * a file that was gone, until files went only after their commit), and at random moments of a
 * write loop. "Its writer's time is up" is judged on this machine's clock: the test moves the
 * clock of the process that opens the file next, as ten minutes passing would.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, it, vi } from 'vitest';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { PENDING_GRACE_MS } from '../../adapters/sqlite/pending-files.ts';
import { SWEEP_EVERY } from '../../adapters/sqlite/upkeep.ts';
import { bytes } from '../support/suite-api.ts';
import { removeDir, tempDir } from './sqlite-temp.ts';
import { checkValue, makeValue } from './sqlite-values.ts';

const WORKER = join(import.meta.dirname, 'sqlite-kill-worker.ts');
// What the worker's store uses (sqlite-kill-worker.ts), and so this test's too.
const OPTIONS = { fileThreshold: 64 * 1024, maxBytes: 4 * 1024 * 1024, timeoutMs: 2000 };
/** Later than any reservation made now can last. */
const PAST_EVERY_DEADLINE = PENDING_GRACE_MS + OPTIONS.timeoutMs + 60_000;

let dir: string;
let count = 0;
beforeAll(() => {
  dir = tempDir('kill');
});
afterAll(() => removeDir(dir));
const children: ChildProcess[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A worker on `path` (its clock `aheadMs` ahead); `line(prefix)` resolves the first whole line of its output that starts with `prefix`. */
function startWorker(path: string, mode: 'pause' | 'remove' | 'churn', aheadMs = 0) {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify({ path, mode, aheadMs })], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const found = (prefix: string) =>
    out
      .split('\n')
      .slice(0, -1)
      .find((line) => line.startsWith(prefix));
  const line = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const look = () => {
        const hit = found(prefix);
        if (hit === undefined) return;
        child.stdout!.off('data', look);
        resolve(hit);
      };
      child.stdout!.on('data', look);
      look();
      void exited.then((code) => reject(new Error(`the worker exited (${code}) before printing "${prefix}": ${err || out}`)));
    });
  const kill = () => {
    child.kill('SIGKILL');
    return exited;
  };
  return { child, exited, line, kill };
}

/** What the file's rows hold, read past the store: their bytes, and the value files they name. */
function rows(path: string): { bytes: number; files: string[] } {
  const db = new Database(path, { readonly: true });
  try {
    const bytes = Number((db.prepare('SELECT coalesce(sum(size), 0) AS n FROM cachette_entries').get() as { n: number }).n);
    const files = db.prepare('SELECT file FROM cachette_entries WHERE file IS NOT NULL').pluck().all() as string[];
    return { bytes, files: files.sort() };
  } finally {
    db.close();
  }
}

const filesIn = (path: string) => (existsSync(`${path}-values`) ? readdirSync(`${path}-values`).sort() : []);

/** Moves this process's clock (Date only: timers run as they do) past every reservation made so far. */
function movePastEveryDeadline(): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + PAST_EVERY_DEADLINE });
}

/** Lets a `pause` worker whose reservation was collected go on: it stores its value inline, and every process reads it. */
async function resumeStalledWriter(worker: ReturnType<typeof startWorker>, path: string): Promise<void> {
  worker.child.stdin!.write('\n');
  assert.deepEqual(JSON.parse(await worker.line('{')), { read: true }, 'the writer stored its value whole and reads it back');
  assert.equal(await worker.exited, 0);
  const store = sqliteStore({ path, ...OPTIONS });
  try {
    assert.ok(checkValue((await store.get('lost'))!), 'another process reads it too');
    assert.deepEqual(filesIn(path), [], 'inside the database, not in a file');
    assert.deepEqual(rows(path).files, []);
    assert.equal((await store.usage()).bytes, rows(path).bytes);
  } finally {
    await store.close();
  }
}

describe('sqlite store: processes killed while writing a value file', () => {
  it('a writer killed between its value file and its row: the file is counted while its writer may still come back, and the first open after that removes it', async () => {
    const path = join(dir, `case-${count++}`, 'cache.db');
    const setup = sqliteStore({ path, ...OPTIONS });
    await setup.set('kept', makeValue(200 * 1024, 7));
    await setup.close();
    const worker = startWorker(path, 'pause');
    const name = (await worker.line('paused ')).slice('paused '.length);
    assert.ok(existsSync(join(`${path}-values`, name)), 'the worker wrote its value file and waits before the row');
    await worker.kill();

    // For any other process this is a write in progress: however many sweeps run, its file stays, counted.
    const soon = sqliteStore({ path, ...OPTIONS });
    for (let i = 0; i <= SWEEP_EVERY; i++) await soon.set(`small:${i}`, bytes(`v${i}`));
    assert.ok(existsSync(join(`${path}-values`, name)), 'a reservation is never collected before its time is up');
    assert.equal((await soon.usage()).bytes, rows(path).bytes + 200 * 1024, 'its bytes count against maxBytes while it waits');
    await soon.close();

    movePastEveryDeadline();
    const later = sqliteStore({ path, ...OPTIONS });
    try {
      assert.ok(!existsSync(join(`${path}-values`, name)), 'opening the file removed the orphan');
      assert.deepEqual(filesIn(path), rows(path).files, 'every value file left is named by a row');
      assert.equal((await later.usage()).bytes, rows(path).bytes, 'and the totals count exactly the rows');
      assert.equal(await later.get('lost'), undefined);
      assert.ok(checkValue((await later.get('kept'))!), 'the entries stored before are untouched');
    } finally {
      await later.close();
    }
  }, 60_000);

  it('a writer stalled past its time finds its file collected and stores the value inline: no row ever names a file that is gone', async () => {
    const path = join(dir, `case-${count++}`, 'cache.db');
    const worker = startWorker(path, 'pause');
    const name = (await worker.line('paused ')).slice('paused '.length);
    movePastEveryDeadline();
    const collector = sqliteStore({ path, ...OPTIONS });
    await collector.close();
    vi.useRealTimers();
    assert.ok(!existsSync(join(`${path}-values`, name)), 'the open collected the reservation of the stalled writer, and its file');
    await resumeStalledWriter(worker, path);
  }, 60_000);

  it('a writer killed right after it removed the file its commit replaced: the commit stands, and every row names a file that is there', async () => {
    const path = join(dir, `case-${count++}`, 'cache.db');
    const worker = startWorker(path, 'remove');
    const name = (await worker.line('removed ')).slice('removed '.length);
    await worker.kill();
    assert.ok(!existsSync(join(`${path}-values`, name)));
    movePastEveryDeadline();
    const store = sqliteStore({ path, ...OPTIONS });
    try {
      // Had the file gone before the commit, the rollback (the kill) would have brought back the row naming it.
      assert.ok(!rows(path).files.includes(name), 'no row names the removed file');
      assert.deepEqual(filesIn(path), rows(path).files, 'every value file left is named by a row, and every row names one that is there');
      const value = (await store.get('a'))!;
      assert.ok(value && checkValue(value), 'the value under "a" reads back whole');
      assert.equal(new DataView(value.buffer, value.byteOffset).getUint32(4), 2, 'the second set, whose commit removed the first file');
      assert.equal((await store.usage()).bytes, rows(path).bytes, 'the totals count exactly the rows');
    } finally {
      await store.close();
    }
  }, 60_000);

  it("a collector killed right after it removed a stalled writer's file: the writer finds its reservation gone and stores the value inline", async () => {
    const path = join(dir, `case-${count++}`, 'cache.db');
    const writer = startWorker(path, 'pause');
    const name = (await writer.line('paused ')).slice('paused '.length);
    const collector = startWorker(path, 'remove', PAST_EVERY_DEADLINE);
    assert.equal(await collector.line('removed '), `removed ${name}`, "the collector's open collected the stalled writer's reservation and removed its file");
    await collector.kill();
    // Had the file gone before the commit, the rollback (the kill) would have brought back the reservation, for the writer to take.
    await resumeStalledWriter(writer, path);
  }, 60_000);

  it('six writers killed at random moments of a write loop leave no file and no byte uncounted after the next open', async () => {
    const path = join(dir, `case-${count++}`, 'cache.db');
    let reserved = 0;
    for (let kill = 0; kill < 6; kill++) {
      const worker = startWorker(path, 'churn');
      await worker.line('ready');
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 200));
      await worker.kill();
      const left = filesIn(path).filter((file) => !rows(path).files.includes(file));
      reserved += left.length;
    }
    movePastEveryDeadline();
    const store = sqliteStore({ path, ...OPTIONS });
    try {
      assert.deepEqual(filesIn(path), rows(path).files, `every value file left is named by a row (${reserved} were not after the kills)`);
      const usage = await store.usage();
      assert.equal(usage.bytes, rows(path).bytes, 'the totals count exactly the rows');
      assert.ok(usage.bytes <= OPTIONS.maxBytes, `within maxBytes: ${usage.bytes}`);
    } finally {
      await store.close();
    }
  }, 120_000);
});
