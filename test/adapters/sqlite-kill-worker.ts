/**
 * A process that writes large values into a SQLite store for test/adapters/sqlite-kill.test.ts,
 * which kills it with SIGKILL at the moment that matters. Argument: JSON { path, mode, aheadMs }.
 *
 * - `pause`: one set of a 200 KiB value under "lost". Right after its value file is written
 *   (node:fs's writeFileSync is wrapped, before the store is loaded), prints "paused <name>"
 *   and blocks until a byte arrives on stdin: the test kills it there, or lets it go on, and
 *   it then prints one JSON line of what it reads back.
 * - `remove`: opens the store (which collects the reservations whose time is up), then sets
 *   "a" to a 200 KiB value twice (the second set replaces the first's file in its own commit).
 *   Right after it removes its first value file (unlinkSync wrapped the same way), prints
 *   "removed <name>" and blocks: the test kills it there. `aheadMs` moves its clock (Date
 *   only) forward, as that much time passing would.
 * - `churn`: sets of 200 KiB values, four per tick, until killed; prints "ready" once the
 *   first are stored.
 */
import fs, { readSync, writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { basename } from 'node:path';
import { checkValue, makeValue } from './sqlite-values.ts';

type Mode = 'pause' | 'remove' | 'churn';
const job = JSON.parse(process.argv[process.argv.length - 1]!) as { path: string; mode: Mode; aheadMs?: number };
const OPTIONS = { path: job.path, fileThreshold: 64 * 1024, maxBytes: 4 * 1024 * 1024, timeoutMs: 2000 };

/** Wraps `fs[name]` so that its first call on a value file prints "<word> <file name>" and blocks until stdin has a byte. */
function pauseAfterFirst(name: 'writeFileSync' | 'unlinkSync', word: string): void {
  const original = fs[name] as (file: fs.PathLike, ...rest: unknown[]) => void;
  let paused = false;
  (fs as Record<typeof name, unknown>)[name] = (file: fs.PathLike, ...rest: unknown[]) => {
    original(file, ...rest);
    if (paused || !String(file).startsWith(`${job.path}-values`)) return;
    paused = true;
    writeSync(1, `${word} ${basename(String(file))}\n`);
    // stdin is a pipe nobody made non-blocking (process.stdin is never touched): this blocks.
    readSync(0, Buffer.alloc(1));
  };
  // The store's `import { writeFileSync, unlinkSync } from 'node:fs'` sees the wrapper from now on.
  syncBuiltinESMExports();
}

if (job.mode === 'pause') pauseAfterFirst('writeFileSync', 'paused');
if (job.mode === 'remove') pauseAfterFirst('unlinkSync', 'removed');
if (job.aheadMs) {
  const now = Date.now;
  Date.now = () => now() + job.aheadMs!;
}

const { sqliteStore } = await import('../../adapters/sqlite/index.ts');
const store = sqliteStore(OPTIONS);

if (job.mode === 'pause') {
  await store.set('lost', makeValue(200 * 1024, 1));
  const value = await store.get('lost');
  await store.close();
  console.log(JSON.stringify({ read: value === undefined ? null : checkValue(value) }));
} else if (job.mode === 'remove') {
  await store.set('a', makeValue(200 * 1024, 1));
  await store.set('a', makeValue(200 * 1024, 2));
  await store.close();
  console.log('not paused');
} else {
  for (let round = 0; ; round++) {
    await Promise.all(Array.from({ length: 4 }, (_, i) => store.set(`churn:${(round * 4 + i) % 24}`, makeValue(200 * 1024, round * 4 + i))));
    if (round === 0) console.log('ready');
  }
}
