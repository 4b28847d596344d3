import { peerLibraryIds, rawClientIds } from '../contenders/registry.ts';
import type { PhaseName } from '../contenders/types.ts';
import type { ContenderResult } from '../phases/run-phases.ts';
import type { BenchResults } from './results.ts';

const rate = (r: ContenderResult | undefined, phase: PhaseName) => r?.phases.find((p) => p.phase === phase)?.callsPerSec;
const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${(a / b).toFixed(2)}×` : 'n/a');
const num = (n: number | undefined) => (n === undefined ? 'n/a' : n.toLocaleString('en-US'));

/** The best contender among `ids` on `phase`. */
export function best(rows: readonly ContenderResult[], ids: ReadonlySet<string>, phase: PhaseName): ContenderResult | undefined {
  return rows.filter((r) => ids.has(r.id)).sort((a, b) => (rate(b, phase) ?? 0) - (rate(a, phase) ?? 0))[0];
}

/** Headline ratios of cachette over valkey against raw iovalkey and the best peer library. */
export interface Headline {
  phase: PhaseName;
  cachette: number | undefined;
  raw: number | undefined;
  bestPeer: ContenderResult | undefined;
  bestPeerRate: number | undefined;
}

/** Concurrent get and set of cachette (valkey) against raw iovalkey and the best peer. */
export function headlines(results: BenchResults): Headline[] {
  const rows = results.main.concurrent;
  const cachette = rows.find((r) => r.id === 'cachette-valkey');
  const raw = rows.find((r) => r.id === 'iovalkey');
  return (['get', 'set'] as const).map((phase) => {
    const peer = best(rows, peerLibraryIds, phase);
    return { phase, cachette: rate(cachette, phase), raw: rate(raw, phase), bestPeer: peer, bestPeerRate: rate(peer, phase) };
  });
}

/** Sentences generated from the numbers of this run (nothing here is typed in by hand). */
export function observations(results: BenchResults): string[] {
  const out: string[] = [];
  const conc = results.main.concurrent;
  const serial = results.main.serial;
  const find = (rows: readonly ContenderResult[], id: string) => rows.find((r) => r.id === id);
  const cachette = find(conc, 'cachette-valkey');
  for (const h of headlines(results)) {
    out.push(
      `With ${results.config.concurrency} calls in flight, cachette over valkey did ${num(h.cachette)} ${h.phase}/s: ${ratio(h.cachette, h.raw)} raw iovalkey (${num(h.raw)}/s) and ${ratio(h.cachette, h.bestPeerRate)} the best peer library reading from redis on ${h.phase}, ${h.bestPeer?.label ?? 'n/a'} (${num(h.bestPeerRate)}/s).`,
    );
  }
  const bestRaw = best(conc, rawClientIds, 'get');
  if (bestRaw)
    out.push(
      `The fastest raw client on concurrent get was ${bestRaw.label} at ${num(rate(bestRaw, 'get'))}/s; cachette over valkey reached ${ratio(rate(cachette, 'get'), rate(bestRaw, 'get'))} of it.`,
    );
  const mgetPerCall = cachette?.phases.find((p) => p.phase === 'get')?.serverCommandsPerCall.mget;
  const getPerCall = cachette?.phases.find((p) => p.phase === 'get')?.serverCommandsPerCall.get ?? 0;
  if (mgetPerCall) {
    out.push(
      `Read batching works under the ${results.config.concurrency}-in-flight loop: per cachette get the server saw ${mgetPerCall.toFixed(3)} MGET and ${getPerCall.toFixed(3)} GET commands, i.e. about ${(1 / mgetPerCall).toFixed(0)} keys per MGET.`,
    );
  }
  const sc = find(serial, 'cachette-valkey');
  const sr = find(serial, 'iovalkey');
  out.push(
    `One call at a time the round trip dominates: cachette over valkey did ${num(rate(sc, 'get'))} get/s against ${num(rate(sr, 'get'))} for raw iovalkey (${ratio(rate(sc, 'get'), rate(sr, 'get'))}).`,
  );
  const naive = find(conc, 'naive');
  if (naive && cachette)
    out.push(
      `A client per call (naive) managed ${num(rate(naive, 'get'))} get/s with ${results.config.concurrency} in flight, ${ratio(rate(cachette, 'get'), rate(naive, 'get'))} slower than cachette, and held up to ${naive.conns} server connections.`,
    );
  const lost = conc.filter((r) => (r.phases.find((p) => p.phase === 'incr')?.wrong ?? 0) > 0);
  if (lost.length)
    out.push(
      `Libraries without an atomic increment lost updates under concurrency (read-then-write): ${lost.map((r) => `${r.label} lost ${r.phases.find((p) => p.phase === 'incr')!.wrong}`).join(', ')} increments over the incr phase.`,
    );
  const tiered = find(conc, 'bentocache-tiered');
  const mem = find(conc, 'cachette-memory');
  if (tiered && mem)
    out.push(
      `In-process reads are a different league: cachette's memory store did ${num(rate(mem, 'get'))} get/s and bentocache's L1 tier ${num(rate(tiered, 'get'))}/s; these rows are not comparable to the networked ones (cachette's own L1 tier over valkey, the l1 option, is measured by npm run bench:race, not here).`,
    );
  const macro = results.compression.macro;
  const off = macro.find((m) => m.id === 'cachette-compress-off');
  for (const m of macro.filter((x) => x !== off)) {
    out.push(
      `${m.label} on the ${(results.compression.inputBytes / 1024).toFixed(1)} KiB rows: ${num(m.memoryPerKey)} bytes of server memory per key (${ratio(m.memoryPerKey, off?.memoryPerKey)} of uncompressed), get ${num(rate(m, 'get'))}/s and set ${num(rate(m, 'set'))}/s against ${num(rate(off, 'get'))} and ${num(rate(off, 'set'))} uncompressed.`,
    );
  }
  const direct = results.delay.probes.find((p) => p.path === 'direct');
  const zero = results.delay.probes.find((p) => p.path === 0);
  if (direct && zero)
    out.push(
      `The delay proxy itself adds ${(zero.rttUs - direct.rttUs).toFixed(0)} µs to a serial PING round trip at 0 delay (${direct.rttUs.toFixed(0)} µs direct, ${zero.rttUs.toFixed(0)} µs proxied) and spends ${zero.proxyCpuUsPerCall} µs of its own CPU per round trip; subtract it when reading the delay tables.`,
    );
  const far = results.delay.runs.at(-1);
  if (far) {
    const c = find(far.contenders, 'cachette-valkey');
    const r = find(far.contenders, 'iovalkey');
    out.push(`At ${far.delayUs} µs of added delay, cachette over valkey did ${num(rate(c, 'get'))} get/s against ${num(rate(r, 'get'))} for raw iovalkey (${ratio(rate(c, 'get'), rate(r, 'get'))}).`);
  }
  return out;
}
