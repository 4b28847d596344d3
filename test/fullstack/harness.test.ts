import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { storeErrorReporter } from '../../bench/fullstack/app/app.ts';
import { paramsFromQuery, SMALL_KEYS, MANY } from '../../bench/fullstack/app/workload.ts';
import { readFullstackConfig } from '../../bench/fullstack/config.ts';
import { writeFullstackReport } from '../../bench/fullstack/report/page.ts';
import type { WindowResult } from '../../bench/fullstack/measure.ts';
import { fastestRaw, roundRatio, slope, summarize } from '../../bench/fullstack/report/summary.ts';
import { targetChecks } from '../../bench/fullstack/report/tables.ts';
import { readResults, type FullstackResults, type TargetResult } from '../../bench/fullstack/results.ts';
import { checkSanity } from '../../bench/fullstack/row-server.ts';
import type { RowResult } from '../../bench/fullstack/run-target.ts';
import { delay, launch, liveGroups, waitForHttp } from '../../bench/fullstack/support/launch.ts';
import { connectionsTo, cpuTimes, groupConnectionsTo, groupCpuSeconds, groupProcesses, parseCpuList } from '../../bench/fullstack/support/proc.ts';
import { ROOT } from '../../bench/fullstack/support/services.ts';
import { parseWrkOutput, runWrk } from '../../bench/fullstack/support/wrk.ts';
import { freePort } from '../support/redis-server.ts';
import { mustRunAll } from '../support/redis-env.ts';

const hasWrk = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim() !== '';
const alive = (pgid: number) => groupProcesses(pgid, undefined, true).length > 0;

describe('full-stack harness: processes', () => {
  it('stop() ends the whole process group, grandchildren included', async () => {
    const l = launch({ name: 'sleepers', command: ['sh', '-c', 'sleep 300 & sleep 300 & wait'] });
    for (let i = 0; i < 50 && groupProcesses(l.pgid).filter((p) => p.program === 'sleep').length < 2; i++) await delay(20);
    assert.equal(groupProcesses(l.pgid).filter((p) => p.program === 'sleep').length, 2);
    assert.ok(
      liveGroups().some((g) => g.pgid === l.pgid && g.name === 'sleepers'),
      'a running group is listed',
    );
    await l.stop();
    assert.equal(alive(l.pgid), false);
    assert.equal(l.running(), false);
    assert.ok(!liveGroups().some((g) => g.pgid === l.pgid), 'a stopped group is not');
  });

  it('a harness killed with SIGKILL leaves nothing running: the lifeline closes and the group goes', async () => {
    // A child harness launches a sleeper, prints its group id, and is then killed outright.
    const script = `import { launch } from ${JSON.stringify(join(ROOT, 'bench/fullstack/support/launch.ts'))};
      const l = launch({ name: 'orphan', command: ['sleep', '300'] });
      console.log(l.pgid); setInterval(() => {}, 1000);`;
    const harness = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const pgid = await new Promise<number>((resolve, reject) => {
      harness.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      harness.once('exit', (code) => reject(new Error(`the child harness exited (${code}) before launching`)));
    });
    for (let i = 0; i < 50 && !groupProcesses(pgid).some((p) => p.program === 'sleep'); i++) await delay(20);
    assert.ok(alive(pgid), 'the sleeper runs while its harness lives');
    harness.kill('SIGKILL');
    for (let i = 0; i < 100 && alive(pgid); i++) await delay(50);
    assert.equal(alive(pgid), false, 'the sleeper died with its harness');
  });

  it('a server that exits before answering is an error carrying its output, not a hang', async () => {
    const port = await freePort();
    const l = launch({ name: 'broken server', command: ['sh', '-c', 'echo "cannot open the store" >&2; exit 3'] });
    await assert.rejects(waitForHttp(l, `http://127.0.0.1:${port}/health`, 30_000), (e: Error) => /broken server exited before a 200/.test(e.message) && /cannot open the store/.test(e.message));
    assert.equal(await l.exited, 3);
    await l.stop();
  });

  it('counts lines carrying each marker on stdout and stderr, a burst line counting its ×N', async () => {
    const l = launch({ name: 'noisy', command: ['sh', '-c', 'echo "[x] one"; echo "fine"; echo "[x] two" >&2; echo "[y] ×40 get: timeout"'], markers: ['[x]', '[y]'] });
    await l.exited;
    await l.stop();
    assert.deepEqual(l.marked('[x]'), { count: 2, first: ['[x] one', '[x] two'] });
    assert.deepEqual(l.marked('[y]'), { count: 40, first: ['[y] ×40 get: timeout'] });
    assert.throws(() => l.marked('[z]'), /"\[z\]" is not one of the markers/);
    assert.match(l.outputTail(), /fine/);
  });

  it('reads the CPU time a process group used', async () => {
    // 300 ms of busy loop, then idle: the group's CPU time must show the loop.
    const l = launch({ name: 'spinner', command: [process.execPath, '-e', 'const t = Date.now(); while (Date.now() - t < 300); setInterval(() => {}, 1000);'] });
    try {
      for (let i = 0; i < 200 && groupCpuSeconds(l.pgid) < 0.05; i++) await delay(25);
      assert.ok(groupCpuSeconds(l.pgid) >= 0.05, 'a busy loop shows as CPU time');
    } finally {
      await l.stop();
    }
  });

  it('reads RSS per process group and counts connections to a port from /proc', async () => {
    const l = launch({ name: 'sleeper', command: ['sleep', '300'] });
    try {
      for (let i = 0; i < 50 && groupProcesses(l.pgid).length === 0; i++) await delay(20);
      const [sleeper, ...others] = groupProcesses(l.pgid);
      assert.equal(others.length, 0, 'the supervisor (sh, cat) is not counted');
      assert.equal(sleeper!.program, 'sleep');
      assert.ok(sleeper!.rssBytes > 0);
      assert.deepEqual(groupProcesses(l.pgid, 'workerd'), []);
    } finally {
      await l.stop();
    }
    const server: Server = createServer(() => {});
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const sockets: Socket[] = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<Socket>((r) => {
            const s = connect(port, '127.0.0.1', () => r(s));
          }),
      ),
    );
    // A group of its own holding two connections to the same port: only those two are its own.
    const holder = launch({
      name: 'holder',
      command: [process.execPath, '-e', `const net = require('node:net'); for (let i = 0; i < 2; i++) net.connect(${port}, '127.0.0.1'); setInterval(() => {}, 1000);`],
    });
    try {
      for (let i = 0; i < 100 && connectionsTo(port) < 5; i++) await delay(20);
      assert.equal(connectionsTo(port), 5);
      assert.equal(groupConnectionsTo(holder.pgid, port), 2);
      assert.equal(groupConnectionsTo(holder.pgid, port + 1 === 65536 ? 1 : port + 1), 0);
    } finally {
      await holder.stop();
      for (const s of sockets) s.destroy();
      server.close();
    }
  });

  it("reads how busy a CPU is from /proc/stat, and parses taskset's CPU lists", async () => {
    assert.deepEqual([...parseCpuList('0-2,5')], [0, 1, 2, 5]);
    assert.deepEqual([...parseCpuList('1')], [1]);
    assert.throws(() => parseCpuList('a'), /not a CPU list: "a"/);
    // A busy loop pinned to CPU 0 shows on CPU 0.
    const before = cpuTimes('0');
    const spinner = launch({ name: 'spinner', command: [process.execPath, '-e', 'const t = Date.now(); while (Date.now() - t < 400); setInterval(() => {}, 1000);'], cpus: '0' });
    try {
      for (let i = 0; i < 200 && groupCpuSeconds(spinner.pgid) < 0.3; i++) await delay(25);
      const after = cpuTimes('0');
      assert.ok(after.busy - before.busy >= 0.25, 'the loop made CPU 0 busy');
      assert.ok(after.steal >= before.steal && after.steal - before.steal <= after.busy - before.busy);
    } finally {
      await spinner.stop();
    }
  });
});

describe('full-stack harness: arithmetic and input', () => {
  it('a row is summed up from its windows: medians, range, RSS trend per minute of load, errors', () => {
    assert.equal(
      slope([
        [0, 1],
        [1, 3],
        [2, 5],
      ]),
      2,
    );
    assert.equal(slope([[0, 7]]), 0);
    // RSS +1 MiB per 2-s window of load: +30 MiB per minute.
    const row = rowOf('node', 'cachette', [1000, 1200, 900, 5000], { rssWarmMiB: 99, exceptions: 1 });
    row.windows[2]!.non2xx = 3;
    const s = summarize(row);
    assert.equal(s.reqPerSec, 1100);
    assert.deepEqual(s.reqPerSecRange, [900, 5000]);
    assert.ok(Math.abs(s.rss.slopeMiBPerMin - 30) < 1e-9);
    assert.deepEqual([s.rss.warmMiB, s.rss.peakMiB], [99, 103]);
    assert.deepEqual(s.errors, { non2xx: 3, socket: 0, exceptions: 1 });
  });

  it('ratios are taken round by round, so a slow round slows both sides of it', () => {
    // The machine halved both rows in round 1: per round the ratio stays 2.
    const fast = rowOf('node', 'cachette', [2000, 1000, 2000]);
    const slow = rowOf('node', 'iovalkey', [1000, 500, 1000]);
    assert.deepEqual(roundRatio(fast, slow), { median: 2, low: 2, high: 2, rounds: 3 });
    // Rounds one side missed do not count.
    assert.equal(roundRatio(fast, { ...slow, windows: slow.windows.slice(0, 1) })!.rounds, 1);
    assert.equal(roundRatio(fast, { ...slow, windows: [] }), undefined);
  });

  it('the fastest raw client is the one that wins its rounds, not the one with the higher median', () => {
    // iovalkey's median (1,000) is higher, but node-redis beat it in two rounds of three.
    const iovalkey = rowOf('node', 'iovalkey', [1000, 1000, 100]);
    const nodeRedis = rowOf('node', 'node-redis', [900, 1100, 110]);
    const target = { id: 'node', label: 'Node', notes: [], connections: 100, durationS: 1, loadAverage: { start: 0, end: 0 }, work: [iovalkey, nodeRedis], pages: [] } satisfies TargetResult;
    assert.ok(summarize(iovalkey).reqPerSec > summarize(nodeRedis).reqPerSec);
    assert.equal(fastestRaw(target), nodeRedis);
  });

  it('query keys are checked: out of range, odd writes and non-integers are refused', () => {
    assert.deepEqual(paramsFromQuery(new URLSearchParams('read=4&write=6&doc=3&counter=7')), { read: 4, write: 6, doc: 3, counter: 7 });
    for (const bad of ['read=-1', `read=${SMALL_KEYS - MANY}`, 'write=7', 'doc=1e2', 'counter=100', 'read=', 'read=0x10']) {
      assert.throws(() => paramsFromQuery(new URLSearchParams(bad)), RangeError, bad);
    }
    const random = paramsFromQuery(new URLSearchParams(''));
    assert.ok(random.read >= 0 && random.read + MANY <= SMALL_KEYS && random.write % 2 === 0);
  });

  it('the sanity check names what is wrong', () => {
    const good = { small: true, many: 5, counter: 3, doc: true };
    assert.equal(checkSanity(good, { ...good, counter: 4 }), undefined);
    assert.match(checkSanity({ ...good, many: 4 }, good)!, /expected \{small: true, many: 5/);
    assert.match(checkSanity(good, good)!, /counter went from 3 to 3/);
  });

  it('the configuration refuses unknown runtimes and bad knobs', () => {
    assert.throws(() => readFullstackConfig(['--runtime', 'node,rust']), /unknown runtime "rust"; known: node, node-cluster/);
    assert.throws(() => readFullstackConfig(['--runtime']), /--runtime needs a comma-separated list/);
    process.env.FULLSTACK_WINDOW_S = '0';
    try {
      assert.throws(() => readFullstackConfig([]), /FULLSTACK_WINDOW_S must be a positive integer/);
    } finally {
      delete process.env.FULLSTACK_WINDOW_S;
    }
    const quick = readFullstackConfig(['--quick', '--runtime', 'bun,node']);
    assert.deepEqual(quick.targets, ['node', 'bun'], 'plan order, not argument order');
    assert.ok(quick.pageRounds <= quick.rounds && quick.warmupMaxS >= quick.warmupMinS);
  });

  it('store errors are tallied and printed once per period, or one by one without a period', async () => {
    const lines: string[] = [];
    const print = console.error;
    console.error = (...args: unknown[]) => void lines.push(args.join(' '));
    try {
      const tallied = storeErrorReporter(30);
      for (let i = 0; i < 5; i++) tallied({ operation: 'get', error: new Error(`timeout ${i}`) });
      for (let i = 0; i < 40 && lines.length === 0; i++) await delay(10);
      assert.deepEqual(lines, ['[fullstack-store-error] ×5 get: Error: timeout 0']);
      lines.length = 0;
      storeErrorReporter()({ operation: 'set', error: 'refused' });
      assert.deepEqual(lines, ['[fullstack-store-error] ×1 set: refused']);
    } finally {
      console.error = print;
    }
  });

  it('wrk output without the summary line is an error that shows the output', () => {
    assert.throws(() => parseWrkOutput('Running 1s test\nunable to connect'), /wrk printed no summary:\nRunning 1s test/);
  });
});

describe.runIf(hasWrk || mustRunAll)('full-stack harness: wrk', () => {
  it('measures through the bench script, and spreads page requests over hits and never-seen ids', async () => {
    if (!hasWrk) throw new Error('wrk is not installed (apt-get install wrk) and CI forbids skipping');
    const paths: string[] = [];
    const server = createHttpServer((req, res) => {
      paths.push(req.url ?? '');
      res.statusCode = req.url === '/fail' ? 500 : 200;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const plain = await runWrk({ url: `${base}/work`, connections: 2, threads: 1, durationS: 1 });
      // wrk counts completed responses; the requests in flight when it stops (one per connection at most) reached the server uncounted.
      const counted = (requests: number) => requests > 0 && requests <= paths.length && requests >= paths.length - 2;
      assert.ok(counted(plain.requests), `${plain.requests} requests, ${paths.length} seen`);
      assert.ok(paths.every((p) => p === '/work'));
      assert.equal(plain.non2xx + plain.socketErrors, 0);

      paths.length = 0;
      const pages = await runWrk({ url: base, connections: 2, threads: 1, durationS: 1, pages: { keys: 5, missPercent: 50 } });
      const ids = paths.map((p) => Number(/^\/page\/(\d+)$/.exec(p)?.[1]));
      assert.ok(
        ids.every((id) => Number.isInteger(id)),
        'every request is /page/<id>',
      );
      const misses = ids.filter((id) => id > 5);
      assert.ok(
        ids.some((id) => id >= 1 && id <= 5),
        'hits cycle over /page/1…5',
      );
      assert.ok(misses.length > 0 && new Set(misses).size === misses.length, 'misses never repeat');
      assert.ok(counted(pages.requests), `${pages.requests} requests, ${paths.length} seen`);

      const failing = await runWrk({ url: `${base}/fail`, connections: 1, threads: 1, durationS: 1 });
      assert.equal(failing.non2xx, failing.requests, 'every 500 counts');
    } finally {
      server.close();
    }
  });
});

const ROLES: Record<string, RowResult['role']> = {
  cachette: 'cachette',
  'cachette-l1': 'cachette-variant',
  'cachette-bun-redis': 'cachette-variant',
  iovalkey: 'raw',
  'node-redis': 'raw',
  'bun-redis': 'raw',
  unstorage: 'peer',
  'cache-manager': 'peer',
};

/** A measured row whose windows ran at `rates`, one per round, RSS 100 MiB + 1 per window. */
function rowOf(target: string, id: string, rates: number[], extra: Partial<RowResult> = {}): RowResult {
  const windows = rates.map(
    (reqPerSec, round): WindowResult => ({
      round,
      at: round * 20,
      loadS: 4 + 2 * (round + 1),
      requests: reqPerSec * 2,
      reqPerSec,
      latencyAvgMs: 10,
      latencyP50Ms: 8,
      latencyP99Ms: 40,
      latencyMaxMs: 90,
      non2xx: 0,
      socketErrors: 0,
      cpuMsPerRequest: 0.42,
      rssMiB: 100 + round,
      connections: 1,
      otherCpuPct: 3,
      stealPct: 0.5,
      load1: 1.5,
    }),
  );
  return {
    target,
    kind: 'work',
    id,
    label: `${id} label`,
    role: ROLES[id],
    connectionsPerProcess: id === 'cachette-l1' ? 2 : 1,
    status: 'ok',
    windows,
    rssWarmMiB: 100,
    rssIdleMiB: 101,
    connectionsIdle: 1,
    exceptions: 0,
    storeErrors: 0,
    ...extra,
  };
}

describe('full-stack report', () => {
  const target = (id: TargetResult['id'], label: string, work: RowResult[], pages: RowResult[] = []): TargetResult => ({
    id,
    label,
    notes: id === 'node' ? ['a note'] : [],
    connections: 100,
    durationS: 100,
    loadAverage: { start: 1.2, end: 1.8 },
    idleCoreBusyPct: 4,
    work,
    pages,
  });
  const results = (): FullstackResults => ({
    date: '2026-01-01T00:00:00.000Z',
    commit: 'abc1234567',
    durationS: 600,
    config: { ...readFullstackConfig([]), only: null },
    environment: { cpu: 'test cpu', cores: 2, memoryGiB: 8, os: 'linux', node: 'v20', redisServer: '7.0.15', libraries: { hono: '4' }, runtimes: { bun: '1.4.5' } },
    loadAverage: { start: 1, end: 2 },
    targets: [
      target(
        'node',
        'Node, one process',
        [
          rowOf('node', 'cachette', [5000, 2500, 5000], { storeErrors: 1234, storeErrorLines: ['[fullstack-store-error] ×1234 get: StoreTimeoutError: timed out'] }),
          rowOf('node', 'cachette-l1', [9000, 4500, 9000], { windows: rowOf('node', 'x', [9000, 4500, 9000]).windows.map((w) => ({ ...w, connections: 2 })) }),
          rowOf('node', 'iovalkey', [4000, 2000, 4000]),
          rowOf('node', 'node-redis', [4500, 2250, 4500]),
          rowOf('node', 'unstorage', [2000, 1000, 2000], { exceptions: 1, exceptionLines: ['[fullstack-exception] WrongValueError: get fs:small:4 returned another value'] }),
          { ...rowOf('node', 'cache-manager', []), status: 'failed', reason: 'it broke' },
        ],
        [{ ...rowOf('node', 'hono-cache:0', []), kind: 'page', role: undefined, status: 'unavailable', reason: 'Node has no Cache API' }],
      ),
      target('bun', 'Bun', [
        rowOf('bun', 'cachette', [3000, 3000]),
        rowOf('bun', 'cachette-bun-redis', [2500, 2500]),
        rowOf('bun', 'bun-redis', [6000, 6000], { windows: rowOf('bun', 'x', [6000, 6000]).windows.map((w) => ({ ...w, rssMiB: 60 })) }),
      ]),
    ],
  });

  it('checks the issue targets from the figures: ratios round by round, connections, memory, errors, rows that broke', () => {
    const checks = targetChecks(results().targets);
    const by = (what: RegExp) => checks.find((c) => what.test(c.what))!;
    const nodeRaw = by(/Node, one process: cachette ≥ 1.0× the fastest raw/);
    assert.deepEqual([nodeRaw.met, nodeRaw.measured], [true, '1.11× (1.11–1.11) of node-redis label'], 'against the faster of the two raw clients');
    assert.deepEqual([by(/Node, one process: cachette ≥ 1.5× the best peer/).met, by(/Node, one process: cachette ≥ 1.5× the best peer/).measured], [true, '2.50× (2.50–2.50) of unstorage label']);
    assert.equal(by(/l1: \{ consistency: 'tracking' \}` ≥ 2×/).met, true);
    assert.deepEqual([by(/Bun: cachette ≥ 1.0×/).met, by(/Bun: cachette ≥ 1.0×/).measured], [false, '0.50× (0.50–0.50) of bun-redis label']);
    assert.equal(by(/Bun: cachette ≥ 1.5× the best peer/).measured, 'not measured');
    assert.equal(by(/default Valkey transport/).met, true);
    const conns = by(/one per process, two with tracking/);
    assert.equal(conns.met, true, conns.measured);
    assert.equal(by(/RSS flat/).met, true);
    const extra = by(/within 20 MiB/);
    assert.equal(extra.met, false, 'Bun: cachette peaks 41 MiB above the raw client');
    assert.match(extra.measured, /bun \+41\.0 MiB/);
    const errors = by(/Errors: 0/);
    assert.equal(errors.met, false);
    assert.match(errors.measured, /node unstorage label: 1/);
    assert.match(errors.measured, /node cache-manager label did not run to the end/);
  });

  it('says so at the top when other processes took too much of the server core for its ratios to hold', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cachette-fullstack-report-'));
    try {
      const crowded = results();
      for (const t of crowded.targets) for (const row of t.work) for (const w of row.windows) w.otherCpuPct = 70;
      writeFullstackReport(crowded, dir);
      assert.match(
        readFileSync(join(dir, 'FULLSTACK.md'), 'utf8'),
        /^# cachette full-stack load test\n\n> \*\*This run cannot rank contenders\.\*\* Other processes took a median 70 % of the server's core/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rebuilds the page only from results of this harness', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cachette-fullstack-results-'));
    try {
      writeFileSync(join(dir, 'new.json'), JSON.stringify(results()));
      assert.equal(readResults(join(dir, 'new.json')).commit, 'abc1234567');
      const old = results();
      // A row as the harness wrote them before rounds: one measured window and a soak, no windows.
      delete (old.targets[0]!.work[0] as Partial<RowResult>).windows;
      writeFileSync(join(dir, 'old.json'), JSON.stringify(old));
      assert.throws(() => readResults(join(dir, 'old.json')), /old\.json was written by an older harness \(rows without windows\): run npm run bench:fullstack again/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes the page with ratio columns, the run line under every table, and an RSS chart per runtime', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cachette-fullstack-report-'));
    try {
      writeFullstackReport(results(), dir);
      const md = readFileSync(join(dir, 'FULLSTACK.md'), 'utf8');
      assert.doesNotMatch(md, /cannot rank/, 'other processes took 3 % of the server core');
      assert.match(md, /## Node, one process\n\na note/);
      assert.match(md, /\| contender \| req\/s \(lowest–highest window\) \| ÷ fastest raw \(node-redis\) \| ÷ best peer \(unstorage\) \|/);
      assert.match(md, /\| cachette label \| 5,000 \(2,500–5,000\) \| 1\.11× \(1\.11–1\.11\) \| 2\.50× \(2\.50–2\.50\) \| 40\.0 \| 0\.420 \| 100 → 102 \| 101 \| \+30\.0 \| 1 \/ 1 \| 0¹ \|/);
      assert.match(
        md,
        /¹ cachette label: cachette reported 1,234 store errors under load \(each a miss or a skipped write, not a failed request\); first: `\[fullstack-store-error\] ×1234 get: StoreTimeoutError: timed out`/,
      );
      assert.match(md, /\| unstorage label \| 2,000 .*\*\*0 \/ 0 \/ 1\*\*² \|/);
      assert.match(md, /\| cache-manager label \| \*\*did not run\*\*³ /);
      assert.match(md, /³ cache-manager label: it broke/);
      assert.match(md, /\| hono-cache:0 label \| not available¹ /);
      assert.match(md, /\| Node, one process \| 5,000 \| node-redis label \| 4,500 \| 1\.11× \(1\.11–1\.11\) \| unstorage label \| 2,000 \| 2\.50× \(2\.50–2\.50\) \| 1\.00× \|/);
      assert.match(
        md,
        /<sub>Run of 2026-01-01 00:00 UTC on commit `abc1234567`, 1-minute load average 1\.2 → 1\.8; the server's core was 4 % busy with other processes just before, and other processes took a median 3 % of it during the windows \(steal 0\.5 %\)\.<\/sub> 100 connections\./,
      );
      assert.match(md, /!\[RSS over the load, Bun\]\(fullstack\/charts\/rss-bun\.svg\)/);
      const svg = readFileSync(join(dir, 'fullstack/charts/rss-node.svg'), 'utf8');
      assert.match(svg, /^<svg /);
      assert.equal((svg.match(/<polyline /g) ?? []).length, 5, 'one line per /work row with windows');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
