/**
 * Three ways to write a tick's entries that each carry their own expiry, measured on the store's
 * own connection (adapters/valkey/resp) without the engine: `setMany` of 10 entries, 50 calls in
 * flight, every entry with its own TTL, the calls of one tick sent together as the store sends them.
 *
 * - `set-px`: one `SET key value PX ttl` per entry, pipelined (what the store sends);
 * - `mset-pexpire`: per call, one `MSET` of its entries then one `PEXPIRE key ttl` per entry;
 * - `script`: one EVALSHA per tick, a script that runs `SET … PX` for every entry of the tick.
 *
 * Prints, per form and round, calls/s, client CPU per call and server CPU per call (the server's
 * own `used_cpu_user + used_cpu_sys`), rounds interleaved. Run it pinned, the server on another core:
 *
 *   npx tsc -p bench/tsconfig.build.json && taskset -c 1 node bench/.build/bench/phases/write-forms.js \
 *     --url redis://127.0.0.1:6379 [--n 20000] [--rounds 3]
 */
import { RespConnection } from '../../adapters/valkey/resp/connection.ts';
import type { ReplySink } from '../../adapters/valkey/resp/reply-sinks.ts';
import { bulk, commandHead } from '../../adapters/valkey/resp/encoder.ts';
import { smallValue } from '../support/payloads.ts';
import { timedPass } from '../support/measure.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at < 0 ? fallback : args[at + 1]!;
};
const url = new URL(option('url', 'redis://127.0.0.1:6379'));
const n = Number(option('n', '20000'));
const rounds = Number(option('rounds', '3'));
const BATCH = 10;
const IN_FLIGHT = 50;

const connection = new RespConnection({ host: url.hostname, port: Number(url.port || 6379) });
const admin = new RespConnection({ host: url.hostname, port: Number(url.port || 6379) });
const any = () => true;

const LUA = "for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[i], 'PX', ARGV[#KEYS + i]) end return #KEYS";
const sha = (await connection.command(['SCRIPT', 'LOAD', LUA], any)) as Buffer;

const SET_PX = commandHead('SET', 5);
const PX = bulk('PX');
const PEXPIRE = commandHead('PEXPIRE', 3);
const MSET = bulk('MSET');
const EVALSHA = bulk('EVALSHA');

interface Entry {
  key: string;
  value: Uint8Array;
  ttlMs: number;
}

/** A sink that resolves `done` once `count` replies came in. */
function counted(count: number, done: () => void, fail: (error: Error) => void): ReplySink {
  let left = count;
  return {
    resolve: () => {
      if (--left === 0) done();
      return true;
    },
    reject: fail,
  };
}

type Form = (calls: Array<{ entries: Entry[]; done: () => void; fail: (error: Error) => void }>) => void;

const encoder = connection.encoder;
const forms: Record<string, Form> = {
  'set-px': (calls) => {
    for (const call of calls) {
      const sink = counted(call.entries.length, call.done, call.fail);
      for (const entry of call.entries) {
        encoder.raw(SET_PX);
        encoder.string(entry.key);
        encoder.bytes(entry.value);
        encoder.raw(PX);
        encoder.number(entry.ttlMs);
        connection.expect(sink);
      }
    }
  },
  'mset-pexpire': (calls) => {
    for (const call of calls) {
      const sink = counted(1 + call.entries.length, call.done, call.fail);
      encoder.array(1 + 2 * call.entries.length);
      encoder.raw(MSET);
      for (const entry of call.entries) {
        encoder.string(entry.key);
        encoder.bytes(entry.value);
      }
      connection.expect(sink);
      for (const entry of call.entries) {
        encoder.raw(PEXPIRE);
        encoder.string(entry.key);
        encoder.number(entry.ttlMs);
        connection.expect(sink);
      }
    }
  },
  script: (calls) => {
    const entries = calls.flatMap((call) => call.entries);
    encoder.array(3 + 3 * entries.length);
    encoder.raw(EVALSHA);
    encoder.bytes(sha);
    encoder.number(entries.length);
    for (const entry of entries) encoder.string(entry.key);
    for (const entry of entries) encoder.bytes(entry.value);
    for (const entry of entries) encoder.number(entry.ttlMs);
    connection.expect({
      resolve: () => {
        for (const call of calls) call.done();
        return true;
      },
      reject: (error) => {
        for (const call of calls) call.fail(error);
      },
    });
  },
};

/** The calls of one tick, sent together when it ends (as the store's own tick does). */
function tickWriter(form: Form): (entries: Entry[]) => Promise<boolean> {
  let pending: Array<{ entries: Entry[]; done: () => void; fail: (error: Error) => void }> = [];
  return (entries) =>
    new Promise<boolean>((resolve, reject) => {
      if (pending.length === 0)
        process.nextTick(() => {
          const calls = pending;
          pending = [];
          form(calls);
          connection.flush();
        });
      pending.push({ entries, done: () => resolve(true), fail: reject });
    });
}

const value = (i: number) => Buffer.from(JSON.stringify(smallValue(i)));
const values = Array.from({ length: 1000 }, (_, i) => value(i));
const entriesOf = (form: string, i: number): Entry[] =>
  Array.from({ length: BATCH }, (_, j) => ({ key: `wf:${form}:${(i * BATCH + j) % 100_000}`, value: values[(i + j) % values.length]!, ttlMs: 60_000 + ((i * BATCH + j) % 1000) }));

async function serverCpuUs(): Promise<number> {
  const info = String(await admin.command(['INFO', 'cpu'], any));
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)![1]);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

const names = Object.keys(forms);
for (const name of names)
  await timedPass(
    Math.min(n, 5000),
    IN_FLIGHT,
    (
      (write) => (i: number) =>
        write(entriesOf(name, i))
    )(tickWriter(forms[name]!)),
  );
for (let round = 0; round < rounds; round++) {
  const order = names.map((_, i) => names[(i + round) % names.length]!);
  const line: string[] = [];
  for (const name of order) {
    const write = tickWriter(forms[name]!);
    const server0 = await serverCpuUs();
    const pass = await timedPass(n, IN_FLIGHT, (i) => write(entriesOf(name, i)));
    const server = (await serverCpuUs()) - server0;
    line.push(`${name} ${Math.round((n / pass.ms) * 1000)}/s client ${(pass.cpuUs / n).toFixed(1)}µs server ${(server / n).toFixed(1)}µs`);
  }
  console.log(`round ${round + 1}: ${line.join(' | ')}`);
}
// Every form leaves each key with its own expiry: one more call each, then its keys' PTTLs.
for (const name of names) {
  await tickWriter(forms[name]!)(entriesOf(name, 0));
  for (const entry of entriesOf(name, 0)) {
    const pttl = (await admin.command(['PTTL', entry.key], any)) as number;
    if (!(pttl > entry.ttlMs - 1000 && pttl <= entry.ttlMs)) throw new Error(`${name}: ${entry.key} has PTTL ${pttl}, written with ${entry.ttlMs}`);
  }
}
await connection.quit();
await admin.quit();
