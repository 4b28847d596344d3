/**
 * What a tick of 50 operations costs as native commands against the scripts they replaced, one
 * kind at a time, on the store's own connection (adapters/valkey/resp): the server's time per
 * operation (INFO commandstats, microseconds spent inside the commands — steady on a shared
 * machine) and the client's CPU per operation. This is the measurement behind the choice of
 * commands in adapters/valkey (see docs/stores.md, "How it talks to the server").
 *
 *   npx tsx bench/phases/command-costs.ts [--ticks 2000] [--only 'expiring writes']
 *
 * The scripts below are the ones the store used to send; they live here only to be measured.
 */
import { cpus, loadavg } from 'node:os';
import { RespConnection } from '../../adapters/valkey/resp/connection.ts';
import { INCR_WITH_TTL_LUA } from '../../adapters/shared/redis-protocol.ts';
import { openServer } from '../support/server.ts';

const SET_MANY_LUA = `for i = 1, #KEYS do
  local ttl = tonumber(ARGV[2 * i])
  if ttl > 0 then redis.call('SET', KEYS[i], ARGV[2 * i - 1], 'PX', ttl) else redis.call('SET', KEYS[i], ARGV[2 * i - 1]) end
end
return #KEYS`;
const DELETE_EACH_LUA = `local out = {}
for i = 1, #KEYS do out[i] = redis.call('DEL', KEYS[i]) end
return out`;
const INCR_MANY_LUA = `local out = {}
for i = 1, #KEYS do
  local ttl = tonumber(ARGV[2 * i])
  if ttl > 0 then redis.call('SET', KEYS[i], '0', 'PX', ttl, 'NX') end
  out[i] = redis.pcall('INCRBY', KEYS[i], ARGV[2 * i - 1])
end
return out`;

const OPS = 50;
const value = Buffer.from(JSON.stringify({ id: 1, name: 'x'.repeat(100), tags: ['a', 'b'] }));
type Args = Array<string | number | Uint8Array>;

/** One way of sending a tick of `OPS` operations: the commands for tick `t`. */
interface Variant {
  kind: string;
  name: string;
  tick(t: number): Args[];
}

const keys = (t: number) => Array.from({ length: OPS }, (_, i) => `cc:${(t * OPS + i) % 5000}`);
const script = (lua: string, ks: string[], argv: Args): Args => ['EVAL', lua, ks.length, ...ks, ...argv];

const variants: Variant[] = [
  { kind: 'expiring writes', name: '50 × SET PX', tick: (t) => keys(t).map((k) => ['SET', k, value, 'PX', 60_000]) },
  {
    kind: 'expiring writes',
    name: 'one SET_MANY_LUA',
    tick: (t) => [
      script(
        SET_MANY_LUA,
        keys(t),
        keys(t).flatMap(() => [value, 60_000]),
      ),
    ],
  },
  // Each key keeps its own expiry here too, but for the moment between MSET and its PEXPIRE.
  { kind: 'expiring writes', name: 'MSET + 50 × PEXPIRE', tick: (t) => [['MSET', ...keys(t).flatMap((k) => [k, value])], ...keys(t).map((k) => ['PEXPIRE', k, 60_000])] },
  { kind: 'plain writes', name: '50 × SET', tick: (t) => keys(t).map((k) => ['SET', k, value]) },
  { kind: 'plain writes', name: 'one MSET', tick: (t) => [['MSET', ...keys(t).flatMap((k) => [k, value])]] },
  { kind: 'reads', name: '50 × GET', tick: (t) => keys(t).map((k) => ['GET', k]) },
  { kind: 'reads', name: 'one MGET', tick: (t) => [['MGET', ...keys(t)]] },
  { kind: 'deletes (own counts)', name: '50 × DEL', tick: (t) => keys(t).map((k) => ['DEL', k]) },
  { kind: 'deletes (own counts)', name: 'one DELETE_EACH_LUA', tick: (t) => [script(DELETE_EACH_LUA, keys(t), [])] },
  { kind: 'deletes (one total)', name: 'one DEL of 50 keys', tick: (t) => [['DEL', ...keys(t)]] },
  { kind: 'increments', name: '50 × INCRBY', tick: (t) => keys(t).map((k) => ['INCRBY', `${k}:n`, 1]) },
  {
    kind: 'increments',
    name: 'one INCR_MANY_LUA',
    tick: (t) => [
      script(
        INCR_MANY_LUA,
        keys(t).map((k) => `${k}:n`),
        keys(t).flatMap(() => [1, 0]),
      ),
    ],
  },
  { kind: 'increments with a TTL', name: '50 × INCR_WITH_TTL script', tick: (t) => keys(t).map((k) => script(INCR_WITH_TTL_LUA, [`${k}:t`], [1, 60_000])) },
  {
    kind: 'increments with a TTL',
    name: '50 × (SET NX PX + INCRBY)',
    tick: (t) =>
      keys(t).flatMap((k): Args[] => [
        ['SET', `${k}:p`, '0', 'PX', 60_000, 'NX'],
        ['INCRBY', `${k}:p`, 1],
      ]),
  },
  {
    kind: 'increments with a TTL',
    name: 'one INCR_MANY_LUA',
    tick: (t) => [
      script(
        INCR_MANY_LUA,
        keys(t).map((k) => `${k}:m`),
        keys(t).flatMap(() => [1, 60_000]),
      ),
    ],
  },
];

/** Sends the commands of one tick in one write and resolves once every reply is in. */
function sendTick(connection: RespConnection, commands: Args[]): Promise<unknown> {
  return Promise.all(commands.map((args) => connection.command(args, () => true)));
}

/** Server µs per call of each command, from INFO commandstats. */
async function commandUsec(admin: RespConnection): Promise<Map<string, { calls: number; usec: number }>> {
  const text = String(await admin.command(['INFO', 'commandstats'], () => true));
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const m of text.matchAll(/cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/g)) stats.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  return stats;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--ticks');
  const ticks = at < 0 ? 2000 : Number(process.argv[at + 1]);
  const server = await openServer(cpus().length >= 2 ? 0 : undefined);
  const url = new URL(server.url);
  const connection = new RespConnection({ host: url.hostname, port: Number(url.port) });
  const admin = new RespConnection({ host: url.hostname, port: Number(url.port) });
  const load = loadavg();
  const rows: string[] = [];
  try {
    await sendTick(connection, variants[2]!.tick(0)); // the keys the reads and deletes find
    const onlyAt = process.argv.indexOf('--only');
    const only = onlyAt < 0 ? undefined : process.argv[onlyAt + 1];
    for (const variant of variants) {
      if (only !== undefined && variant.kind !== only) continue;
      for (let t = 0; t < 50; t++) await sendTick(connection, variant.tick(t)); // warm-up, scripts loaded
      const before = await commandUsec(admin);
      const cpu = process.cpuUsage();
      const started = performance.now();
      // Several ticks in flight at once, as under load: each tick one write.
      const inFlight = 4;
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          for (let t = next++; t < ticks; t = next++) await sendTick(connection, variant.tick(t));
        }),
      );
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const after = await commandUsec(admin);
      // Only the commands sent: a script's own redis.call()s are counted inside its EVAL as well as under their names.
      const sent = new Set(variant.tick(0).map((args) => String(args[0]).toLowerCase()));
      let usec = 0;
      for (const name of sent) usec += (after.get(name)?.usec ?? 0) - (before.get(name)?.usec ?? 0);
      const ops = ticks * OPS;
      rows.push(
        `| ${variant.kind} | ${variant.name} | ${((usec / ops) * 1000).toFixed(0)} | ${((used.user + used.system) / ops).toFixed(2)} | ${Math.round((ops / ms) * 1000).toLocaleString('en-US')} |`,
      );
      console.error(rows.at(-1));
    }
  } finally {
    await connection.quit();
    await admin.quit();
    await server.stop();
  }
  console.log(
    `\n${OPS} operations per tick, ${ticks} ticks each (4 in flight), redis-server ${server.version}; load average ${load.map((l) => l.toFixed(2)).join(' ')} → ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  console.log('| operations | sent as | server ns per op | client µs CPU per op | ops/s |');
  console.log('|---|---|---:|---:|---:|');
  for (const row of rows) console.log(row);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
