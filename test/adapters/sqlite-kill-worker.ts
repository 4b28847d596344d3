/**
 * A process that writes large values into a SQLite store for test/adapters/sqlite-kill.test.ts,
 * which kills it with SIGKILL at the moment that matters. Argument: JSON { path, mode }.
 *
 * - `pause`: one set of a 200 KiB value under "lost". Right after its value file is written
 *   (node:fs's writeFileSync is wrapped, before the store is loaded), prints "paused <name>"
 *   and blocks until a byte arrives on stdin: the test kills it there, or lets it go on, and
 *   it then prints one JSON line of what it reads back.
 * - `churn`: sets of 200 KiB values, four per tick, until killed; prints "ready" once the
 *   first are stored.
 */
import fs, { readSync, writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { basename } from 'node:path';
import { checkValue, makeValue } from './sqlite-values.ts';

const job = JSON.parse(process.argv[process.argv.length - 1]!) as { path: string; mode: 'pause' | 'churn' };
const OPTIONS = { path: job.path, fileThreshold: 64 * 1024, maxBytes: 4 * 1024 * 1024, timeoutMs: 2000 };

if (job.mode === 'pause') {
  const writeFileSync = fs.writeFileSync;
  let paused = false;
  fs.writeFileSync = ((file: fs.PathOrFileDescriptor, data: string | NodeJS.ArrayBufferView, options?: fs.WriteFileOptions) => {
    writeFileSync(file, data, options);
    if (paused || !String(file).startsWith(`${job.path}-values`)) return;
    paused = true;
    writeSync(1, `paused ${basename(String(file))}\n`);
    // stdin is a pipe nobody made non-blocking (process.stdin is never touched): this blocks.
    readSync(0, Buffer.alloc(1));
  }) as typeof fs.writeFileSync;
  // The store's `import { writeFileSync } from 'node:fs'` sees the wrapper from now on.
  syncBuiltinESMExports();
}

const { sqliteStore } = await import('../../adapters/sqlite/index.ts');
const store = sqliteStore(OPTIONS);

if (job.mode === 'pause') {
  await store.set('lost', makeValue(200 * 1024, 1));
  const value = await store.get('lost');
  await store.close();
  console.log(JSON.stringify({ read: value === undefined ? null : checkValue(value) }));
} else {
  for (let round = 0; ; round++) {
    await Promise.all(Array.from({ length: 4 }, (_, i) => store.set(`churn:${(round * 4 + i) % 24}`, makeValue(200 * 1024, round * 4 + i))));
    if (round === 0) console.log('ready');
  }
}
