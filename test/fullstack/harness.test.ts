import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { storeErrorReporter } from '../../bench/fullstack/app/app.ts';
import { paramsFromQuery, SMALL_KEYS, MANY } from '../../bench/fullstack/app/workload.ts';
import { readFullstackConfig } from '../../bench/fullstack/config.ts';
import { writeFullstackReport } from '../../bench/fullstack/report/page.ts';
import { targetChecks } from '../../bench/fullstack/report/tables.ts';
import type { FullstackResults } from '../../bench/fullstack/results.ts';
import { checkSanity, type RowResult } from '../../bench/fullstack/run-row.ts';
import { delay, launch, waitForHttp } from '../../bench/fullstack/support/launch.ts';
import { connectionsTo, groupCpuSeconds, groupProcesses } from '../../bench/fullstack/support/proc.ts';
import { rssSlopePctPer10s, slope, type Sample } from '../../bench/fullstack/support/sampler.ts';
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
    await l.stop();
    assert.equal(alive(l.pgid), false);
    assert.equal(l.running(), false);
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
    try {
      assert.equal(connectionsTo(port), 3);
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });
});

describe('full-stack harness: arithmetic and input', () => {
  it('the RSS slope is a least-squares trend in % of the warm level per 10 s', () => {
    assert.equal(
      slope([
        [0, 1],
        [1, 3],
        [2, 5],
      ]),
      2,
    );
    assert.equal(slope([[0, 7]]), 0);
    const samples: Sample[] = [-1, 0, 1, 2, 3, 4].map((t) => ({ t, rssMiB: 100 + t, redisClients: 1, bridgeSockets: 0 }));
    // +1 MiB/s on 100 MiB: +10 % per 10 s; the warm-up sample before t=0 is left out.
    assert.ok(Math.abs(rssSlopePctPer10s(samples, 0, 4, 100) - 10) < 1e-9);
    assert.equal(rssSlopePctPer10s(samples, 0, 4, 0), 0);
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
    process.env.FULLSTACK_MEASURE_S = '0';
    try {
      assert.throws(() => readFullstackConfig([]), /FULLSTACK_MEASURE_S must be a positive integer/);
    } finally {
      delete process.env.FULLSTACK_MEASURE_S;
    }
    const quick = readFullstackConfig(['--quick', '--runtime', 'bun,node']);
    assert.deepEqual(quick.targets, ['node', 'bun'], 'plan order, not argument order');
    assert.ok(quick.soakS >= quick.measureS);
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

describe('full-stack report', () => {
  const row = (target: RowResult['target'], id: string, label: string, reqPerSec: number, extra: Partial<RowResult> = {}): RowResult => ({
    target,
    kind: 'work',
    id,
    label,
    status: 'ok',
    measure: { requests: reqPerSec * 20, durationS: 20, reqPerSec, latencyAvgMs: 10, latencyP50Ms: 8, latencyP99Ms: 40, latencyMaxMs: 90, non2xx: 0, socketErrors: 0 },
    cpuMsPerRequest: 0.42,
    rss: { warmMiB: 100, peakMiB: 110, afterMiB: 104, slopePctPer10s: 0.2 },
    conns: { redisPeak: 1, redisSettled: 1, bridgePeak: 0, bridgeSettled: 0 },
    errors: { non2xx: 0, socket: 0, exceptions: 0 },
    samples: [
      { t: -1, rssMiB: 90, redisClients: 1, bridgeSockets: 0 },
      { t: 0, rssMiB: 100, redisClients: 1, bridgeSockets: 0 },
      { t: 10, rssMiB: 104, redisClients: 1, bridgeSockets: 0 },
    ],
    ...extra,
  });
  const results = (): FullstackResults => ({
    date: '2026-01-01T00:00:00.000Z',
    durationS: 600,
    config: { ...readFullstackConfig([]), only: null },
    environment: { cpu: 'test cpu', cores: 2, memoryGiB: 8, os: 'linux', node: 'v20', redisServer: '7.0.15', libraries: { hono: '4' }, runtimes: { bun: '1.4.5' } },
    loadAverage: { start: 1, end: 2 },
    targets: [
      {
        id: 'node',
        label: 'Node, one process',
        notes: ['a note'],
        work: [
          row('node', 'cachette', 'cachette, defaults', 5000, { storeErrors: 1234, storeErrorLines: ['[fullstack-store-error] ×1234 get: StoreTimeoutError: timed out'] }),
          row('node', 'iovalkey', 'iovalkey (raw, JSON)', 4000),
          row('node', 'unstorage', 'unstorage (redis driver)', 2000, {
            errors: { non2xx: 3, socket: 0, exceptions: 1 },
            exceptionLines: ['[fullstack-exception] WrongValueError: get fs:small:4 returned another value'],
          }),
          row('node', 'cache-manager', 'cache-manager 7', 0, { status: 'failed', reason: 'it broke', measure: undefined }),
        ],
        pages: [row('node', 'hono-cache:0', 'hono/cache', 0, { kind: 'page', status: 'unavailable', reason: 'Node has no Cache API', measure: undefined })],
      },
      {
        id: 'bun',
        label: 'Bun',
        notes: [],
        work: [
          row('bun', 'cachette', 'cachette, defaults', 3000),
          row('bun', 'cachette-bun-redis', "cachette over Bun's RedisClient", 2500),
          row('bun', 'bun-redis', 'Bun RedisClient (raw, JSON)', 6000, { rss: { warmMiB: 100, peakMiB: 120, afterMiB: 130, slopePctPer10s: 2 } }),
        ],
        pages: [],
      },
    ],
  });

  it('checks the issue targets from the figures: ratios, connections, memory, errors, rows that broke', () => {
    const checks = targetChecks(results().targets);
    const by = (what: RegExp) => checks.find((c) => what.test(c.what))!;
    assert.deepEqual([by(/≥ 2× the best peer/).met, by(/≥ 2× the best peer/).measured], [true, '2.50× (unstorage (redis driver))']);
    assert.equal(by(/≥ the raw client \(iovalkey\)/).met, true);
    assert.deepEqual([by(/Bun: cachette ≥/).met, by(/Bun: cachette ≥/).measured], [false, '0.50×']);
    assert.deepEqual([by(/default Valkey client/).met, by(/default Valkey client/).measured], [true, "default 1.20× of cachette over Bun's RedisClient"]);
    assert.equal(by(/1 server connection per process/).met, true);
    assert.equal(by(/RSS slope/).met, true, "the raw client's slope is not cachette's");
    const errors = by(/Errors: 0/);
    assert.equal(errors.met, false);
    assert.match(errors.measured, /node unstorage \(redis driver\): 4/);
    assert.match(errors.measured, /node cache-manager 7 did not run/);
  });

  it('writes the page with a table per runtime and an RSS chart per runtime', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cachette-fullstack-report-'));
    try {
      writeFullstackReport(results(), dir);
      const md = readFileSync(join(dir, 'FULLSTACK.md'), 'utf8');
      assert.match(md, /## Node, one process\n\na note/);
      assert.match(md, /\| cachette, defaults \| 5,000 \| 10\.0 \| 40\.0 \| 0\.42 \| 100 → 110 \| 104 \| \+0\.20 \| 1 \/ 1 \| 0¹ \|/);
      assert.match(
        md,
        /¹ cachette, defaults: cachette reported 1,234 store errors under load \(each a miss or a skipped write, not a failed request\); first: `\[fullstack-store-error\] ×1234 get: StoreTimeoutError: timed out`/,
      );
      assert.match(md, /\| unstorage \(redis driver\) \| 2,000 .*\*\*3 \/ 0 \/ 1\*\*² \|/);
      assert.match(md, /² unstorage \(redis driver\), first exceptions: `\[fullstack-exception\] WrongValueError: get fs:small:4 returned another value`/);
      assert.match(md, /\| cache-manager 7 \| \*\*did not run\*\*³ /);
      assert.match(md, /³ cache-manager 7: it broke/);
      assert.match(md, /\| hono\/cache \| not available¹ /);
      assert.match(md, /¹ hono\/cache: Node has no Cache API/);
      assert.match(md, /\| Node, one process \| 5,000 \| 4,000 \| 1\.25× \| unstorage \(redis driver\) \| 2,000 \| 2\.50× \|/);
      assert.match(md, /!\[RSS over time, Bun\]\(fullstack\/charts\/rss-bun\.svg\)/);
      const svg = readFileSync(join(dir, 'fullstack/charts/rss-node.svg'), 'utf8');
      assert.match(svg, /^<svg /);
      assert.equal((svg.match(/<polyline /g) ?? []).length, 3, 'one line per /work row that ran');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
