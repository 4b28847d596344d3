import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * What the sampler reads from Linux's /proc: the resident memory of a process group, and the
 * TCP connections open to a port. Plain file reads, once a second, so sampling costs the
 * measured server nothing.
 */

/** Programs of the launch supervisor, never counted as the server. */
const SUPERVISOR_PROGRAMS = new Set(['sh', 'cat']);

/** One process of a group. */
export interface GroupProcess {
  pid: number;
  /** Program name (`comm`), e.g. "node", "bun", "deno", "workerd". */
  program: string;
  rssBytes: number;
  /** CPU time used so far, user + system, seconds. */
  cpuSeconds: number;
}

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ, 100 on Linux almost everywhere). */
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * The live processes of process group `pgid` (zombies hold nothing and are left out), the
 * launch supervisor excluded unless `supervisor` is set; with `program`, only those running
 * it (workerd rows count workerd, not the Node process hosting miniflare).
 */
export function groupProcesses(pgid: number, program?: string, supervisor = false): GroupProcess[] {
  const out: GroupProcess[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readOrUndefined(`/proc/${name}/stat`);
    if (!stat) continue;
    // comm is in parentheses and may itself contain spaces or parentheses: split after the last ")".
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // After comm: state, ppid, pgrp, … utime and stime are the 12th and 13th.
    if (Number(fields[2]) !== pgid || fields[0] === 'Z') continue;
    if ((!supervisor && SUPERVISOR_PROGRAMS.has(comm)) || (program !== undefined && comm !== program)) continue;
    const status = readOrUndefined(`/proc/${name}/status`);
    const kib = status ? /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] : undefined;
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    // A kernel thread has no VmRSS line: it holds no memory.
    out.push({ pid: Number(name), program: comm, rssBytes: kib ? Number(kib) * 1024 : 0, cpuSeconds });
  }
  return out;
}

/** Resident memory of the group's processes (see {@link groupProcesses}), in bytes. */
export function groupRssBytes(pgid: number, program?: string): number {
  return groupProcesses(pgid, program).reduce((sum, p) => sum + p.rssBytes, 0);
}

/** CPU seconds (user + system) the group's processes have used so far. */
export function groupCpuSeconds(pgid: number, program?: string): number {
  return groupProcesses(pgid, program).reduce((sum, p) => sum + p.cpuSeconds, 0);
}

const ESTABLISHED = '01';

/** TCP connections in ESTABLISHED state whose remote end is `port` (clients of a local server). */
export function connectionsTo(port: number): number {
  let count = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = readOrUndefined(file);
    if (!text) continue;
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st …; addresses are HEXIP:HEXPORT.
      const remote = cols[2];
      if (cols[3] !== ESTABLISHED || !remote) continue;
      if (parseInt(remote.slice(remote.lastIndexOf(':') + 1), 16) === port) count++;
    }
  }
  return count;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // The process exited between listing and reading, or the file does not exist here.
    return undefined;
  }
}
