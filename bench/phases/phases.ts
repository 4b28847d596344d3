import { landed, type Contender, type PhaseName } from '../contenders/types.ts';
import { timedPass } from '../support/measure.ts';
import type { ValueCheck, ValueFactory } from '../support/payloads.ts';

/** What a phase needs to run against one contender. */
export interface PhaseContext {
  contender: Contender;
  /** Key prefix unique to the contender, so no two contenders ever share a key. */
  prefix: string;
  /** Calls per pass. */
  n: number;
  /** Keys per getMany / setMany. */
  batch: number;
  /** Total passes that will run (warm-up included), for checks that count. */
  passes: number;
  value: ValueFactory;
  check: ValueCheck;
}

/** One of the seven phases: untimed setup, the timed call, and a check of the work done. */
export interface PhaseDef {
  name: PhaseName;
  /** Runs once before the warm-up (untimed). */
  prepare?(ctx: PhaseContext): Promise<void>;
  /** Runs before every pass, warm-up included (untimed). */
  beforePass?(ctx: PhaseContext): Promise<void>;
  /** Call number `i`; resolves true when the contender did the expected work. */
  op(ctx: PhaseContext, i: number): Promise<boolean>;
  /** Runs after the last pass; resolves with how many checks failed. */
  verify?(ctx: PhaseContext): Promise<number>;
}

// The number of keys a read-back check samples after a write phase.
const SAMPLE = 20;
// Counters the incr phase spreads its calls over: several calls per key per pass, so a
// non-atomic read-then-write emulation under concurrency visibly loses increments.
const COUNTERS = 16;

const key = (ctx: PhaseContext, space: string, i: number) => `${ctx.prefix}:${space}:${i}`;

/** Writes the values the read phases read (keys `v:0 … v:n-1`), 50 writes in flight. */
async function fill(ctx: PhaseContext, space: string): Promise<void> {
  await timedPass(ctx.n, 50, (i) => landed(ctx.contender.set(key(ctx, space, i), ctx.value(i))));
}

/** Reads back `SAMPLE` keys of a space and counts those that are not what was written. */
async function countBadReads(ctx: PhaseContext, space: string, keysWritten: number): Promise<number> {
  let bad = 0;
  for (let s = 0; s < SAMPLE; s++) {
    const i = Math.floor((s * keysWritten) / SAMPLE);
    if (!ctx.check(await ctx.contender.get(key(ctx, space, i)), i)) bad++;
  }
  return bad;
}

const isAbsent = (v: unknown) => v === undefined || v === null;

/** The seven phases in report order. */
export const phaseDefs: readonly PhaseDef[] = [
  {
    name: 'get',
    prepare: (ctx) => fill(ctx, 'v'),
    op: async (ctx, i) => ctx.check(await ctx.contender.get(key(ctx, 'v', i)), i),
  },
  {
    name: 'get-miss',
    op: async (ctx, i) => isAbsent(await ctx.contender.get(key(ctx, 'absent', i))),
  },
  {
    name: 'set',
    op: (ctx, i) => landed(ctx.contender.set(key(ctx, 's', i), ctx.value(i))),
    verify: (ctx) => countBadReads(ctx, 's', ctx.n),
  },
  {
    name: 'mget',
    prepare: (ctx) => fill(ctx, 'v'),
    op: async (ctx, i) => {
      const ids = Array.from({ length: ctx.batch }, (_, j) => (i * ctx.batch + j) % ctx.n);
      const values = await ctx.contender.getMany(ids.map((id) => key(ctx, 'v', id)));
      return values.length === ids.length && ids.every((id, j) => ctx.check(values[j], id));
    },
  },
  {
    name: 'mset',
    op: (ctx, i) => {
      const base = i * ctx.batch;
      return landed(ctx.contender.setMany(Array.from({ length: ctx.batch }, (_, j) => [key(ctx, 'ms', base + j), ctx.value(base + j)] as const)));
    },
    verify: (ctx) => countBadReads(ctx, 'ms', ctx.n * ctx.batch),
  },
  {
    name: 'incr',
    op: async (ctx, i) => (await ctx.contender.incr(key(ctx, 'ctr', i % COUNTERS))) > 0,
    // One more increment per counter reveals its total; a shortfall is increments lost by a
    // non-atomic emulation, reported as failed checks.
    async verify(ctx) {
      let lost = 0;
      for (let c = 0; c < COUNTERS; c++) {
        const calls = ctx.passes * Math.ceil((ctx.n - c) / COUNTERS);
        const total = await ctx.contender.incr(key(ctx, 'ctr', c));
        lost += Math.max(0, calls + 1 - total);
      }
      return lost;
    },
  },
  {
    name: 'delete',
    beforePass: (ctx) => fill(ctx, 'del'),
    op: async (ctx, i) => {
      await ctx.contender.delete(key(ctx, 'del', i));
      return true;
    },
    async verify(ctx) {
      let left = 0;
      for (let s = 0; s < SAMPLE; s++) if (!isAbsent(await ctx.contender.get(key(ctx, 'del', Math.floor((s * ctx.n) / SAMPLE))))) left++;
      return left;
    },
  },
];
