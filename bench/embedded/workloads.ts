/**
 * The workloads of issue 14, after the reference benchmark's: the classic mix, value sizes,
 * and hit ratio. Each times every call on its own (performance.now() around one awaited call)
 * and checks what it read, so a contender that returned the wrong thing is flagged, not fast.
 */
import type { EmbeddedKv } from './store-kv.ts';
import { Samples, type LatencySummary } from './latency.ts';
import { payload, rng } from './values.ts';

/** What a workload hands a contender: bytes, or the same characters as a string. */
type Takes = 'bytes' | 'string';

const decoder = new TextDecoder();
const asTaken = (value: Uint8Array, takes: Takes) => (takes === 'string' ? decoder.decode(value) : value);
const lengthOf = (value: unknown) => (value === undefined || value === null ? -1 : (value as { length: number }).length);

/** Result of the classic mix. */
export interface MixResult {
  ops: number;
  opsPerSec: number;
  /** Share of gets that found a value. */
  hitRatio: number;
  get: LatencySummary;
  set: LatencySummary;
  delete: LatencySummary;
  /** Reads that did not return what this process last wrote (only checked when alone on the data). */
  wrong: number;
}

/** The share of sets and of deletes among a mix's calls; the rest are gets. */
export interface MixShares {
  set: number;
  delete: number;
}

/** diskcache's classic mix: 90 % get, 9 % set, 1 % delete. */
export const CLASSIC_MIX: MixShares = { set: 0.09, delete: 0.01 };
/** Issue 19's write-heavy mix for processes sharing a file: 50 % set, 1 % delete, 49 % get. */
export const WRITE_HEAVY_MIX: MixShares = { set: 0.5, delete: 0.01 };

/** Options of {@link classicMix}. */
export interface MixOptions {
  ops: number;
  warmup: number;
  seed: number;
  /** False when other processes write the same keys, so what was read cannot be predicted. */
  check: boolean;
  /** The shares of writes; default {@link CLASSIC_MIX}. */
  shares?: MixShares;
}

/**
 * Keys from a space of 100, values of 16–600 bytes, 90 % get, 9 % set, 1 % delete (or the
 * `shares` given), after a warm-up (every key written once, then `warmup` calls of the same
 * mix, untimed).
 */
export async function classicMix(kv: EmbeddedKv, takes: Takes, options: MixOptions): Promise<MixResult> {
  const next = rng(options.seed);
  const pool = Array.from({ length: 64 }, (_, i) => asTaken(payload(16 + Math.floor(next() * 585), options.seed * 100 + i), takes));
  const keys = Array.from({ length: 100 }, (_, i) => `mix:${i}`);
  const expected = new Int32Array(100).fill(-1);
  for (let k = 0; k < 100; k++) {
    await kv.set(keys[k]!, pool[k % pool.length]!);
    expected[k] = k % pool.length;
  }
  const total = options.warmup + options.ops;
  const kinds = new Uint8Array(total);
  const keyOf = new Uint8Array(total);
  const valueAt = new Uint8Array(total);
  const { set, delete: remove } = options.shares ?? CLASSIC_MIX;
  for (let i = 0; i < total; i++) {
    const r = next();
    kinds[i] = r < 1 - set - remove ? 0 : r < 1 - remove ? 1 : 2;
    keyOf[i] = Math.floor(next() * 100);
    valueAt[i] = Math.floor(next() * pool.length);
  }
  const samples = [new Samples(options.ops), new Samples(options.ops), new Samples(options.ops)] as const;
  let gets = 0;
  let hits = 0;
  let wrong = 0;
  let started = 0;
  for (let i = 0; i < total; i++) {
    if (i === options.warmup) started = performance.now();
    const k = keyOf[i]!;
    const t = performance.now();
    if (kinds[i] === 0) {
      const value = await kv.get(keys[k]!);
      const took = performance.now() - t;
      if (i < options.warmup) continue;
      samples[0].add(took);
      gets++;
      const length = lengthOf(value);
      if (length >= 0) hits++;
      if (options.check && length !== (expected[k]! < 0 ? -1 : pool[expected[k]!]!.length)) wrong++;
    } else if (kinds[i] === 1) {
      await kv.set(keys[k]!, pool[valueAt[i]!]!);
      if (i >= options.warmup) samples[1].add(performance.now() - t);
      expected[k] = valueAt[i]!;
    } else {
      await kv.delete(keys[k]!);
      if (i >= options.warmup) samples[2].add(performance.now() - t);
      expected[k] = -1;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    ops: options.ops,
    opsPerSec: Math.round(options.ops / seconds),
    hitRatio: gets ? Math.round((hits / gets) * 1000) / 1000 : 0,
    get: samples[0].summary(),
    set: samples[1].summary(),
    delete: samples[2].summary(),
    wrong,
  };
}

/** Result of one value size. */
export interface SizeResult {
  size: number;
  sets: number;
  keys: number;
  set: LatencySummary;
  get: LatencySummary;
  /** Calls per second over each whole phase. */
  setPerSec: number;
  getPerSec: number;
  wrong: number;
}

/** `sets` writes of `size`-byte values over `keys` keys, then as many reads of them. */
export async function valueSizes(kv: EmbeddedKv, takes: Takes, size: number, sets: number, keys: number): Promise<SizeResult> {
  const pool = Array.from({ length: 8 }, (_, i) => asTaken(payload(size, size + i), takes));
  const names = Array.from({ length: keys }, (_, i) => `size${size}:${i}`);
  const setSamples = new Samples(sets);
  const getSamples = new Samples(sets);
  let t0 = performance.now();
  for (let i = 0; i < sets; i++) {
    const t = performance.now();
    await kv.set(names[i % keys]!, pool[i % pool.length]!);
    setSamples.add(performance.now() - t);
  }
  const setSeconds = (performance.now() - t0) / 1000;
  let wrong = 0;
  t0 = performance.now();
  for (let i = 0; i < sets; i++) {
    const t = performance.now();
    const value = await kv.get(names[i % keys]!);
    getSamples.add(performance.now() - t);
    if (lengthOf(value) !== size) wrong++;
  }
  const getSeconds = (performance.now() - t0) / 1000;
  return { size, sets, keys, set: setSamples.summary(), get: getSamples.summary(), setPerSec: Math.round(sets / setSeconds), getPerSec: Math.round(sets / getSeconds), wrong };
}

/** Result of one hit ratio. */
export interface HitRatioResult {
  target: number;
  observed: number;
  get: LatencySummary;
  opsPerSec: number;
  wrong: number;
}

/**
 * `keys` keys of 256 bytes written once (untimed), then `gets` reads per target ratio, each a
 * stored key with probability `target` and an absent one otherwise.
 */
export async function hitRatios(kv: EmbeddedKv, takes: Takes, keys: number, gets: number, targets: readonly number[]): Promise<HitRatioResult[]> {
  const pool = Array.from({ length: 16 }, (_, i) => asTaken(payload(256, 256 + i), takes));
  // The fill is not timed: 64 writes in flight let libraries that batch commits (lmdb) fill fast.
  for (let i = 0; i < keys; i += 64) await Promise.all(Array.from({ length: Math.min(64, keys - i) }, (_, j) => kv.set(`hr:${i + j}`, pool[(i + j) % pool.length]!)));
  const results: HitRatioResult[] = [];
  for (const target of targets) {
    const next = rng(Math.round(target * 1000));
    const names = Array.from({ length: gets }, () => (next() < target ? `hr:${Math.floor(next() * keys)}` : `hr-absent:${Math.floor(next() * keys)}`));
    const samples = new Samples(gets);
    let hits = 0;
    let wrong = 0;
    const t0 = performance.now();
    for (const name of names) {
      const t = performance.now();
      const value = await kv.get(name);
      samples.add(performance.now() - t);
      const length = lengthOf(value);
      if (length >= 0) hits++;
      if (length !== (name.startsWith('hr:') ? 256 : -1)) wrong++;
    }
    const seconds = (performance.now() - t0) / 1000;
    results.push({ target, observed: Math.round((hits / gets) * 1000) / 1000, get: samples.summary(), opsPerSec: Math.round(gets / seconds), wrong });
  }
  return results;
}
