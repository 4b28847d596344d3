import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * What the harness reads from Linux's /proc: the resident memory and CPU time of a process
 * group, the TCP connections a group (or anyone) holds to a port, and how busy a CPU was.
 * Plain file reads between measured windows, so sampling costs the measured server nothing.
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

/** One established TCP connection as /proc/net/tcp{,6} lists it: the remote port and the socket's inode. */
interface TcpConnection {
  remotePort: number;
  inode: string;
}

function establishedConnections(): TcpConnection[] {
  const out: TcpConnection[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = readOrUndefined(file);
    if (!text) continue;
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …; addresses are HEXIP:HEXPORT.
      const remote = cols[2];
      if (cols[3] !== ESTABLISHED || !remote || cols[9] === undefined) continue;
      out.push({ remotePort: parseInt(remote.slice(remote.lastIndexOf(':') + 1), 16), inode: cols[9] });
    }
  }
  return out;
}

/** TCP connections in ESTABLISHED state whose remote end is `port` (clients of a local server). */
export function connectionsTo(port: number): number {
  return establishedConnections().filter((c) => c.remotePort === port).length;
}

/**
 * The connections to `port` that processes of group `pgid` hold (their file descriptors name
 * the sockets): what one server of a run opened, while other servers hold their own to the
 * same redis-server or bridge.
 */
export function groupConnectionsTo(pgid: number, port: number): number {
  const inodes = new Set<string>();
  for (const p of groupProcesses(pgid)) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${p.pid}/fd`);
    } catch {
      continue; // exited meanwhile
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${p.pid}/fd/${fd}`);
        if (link.startsWith('socket:[')) inodes.add(link.slice(8, -1));
      } catch {
        // closed meanwhile
      }
    }
  }
  return establishedConnections().filter((c) => c.remotePort === port && inodes.has(c.inode)).length;
}

/** Time the CPUs of a list spent so far, seconds. */
export interface CpuTimes {
  /** Every state of /proc/stat but idle and iowait (steal included). */
  busy: number;
  /** Time the hypervisor gave to other guests while these CPUs had work (a throttled VM shows here). */
  steal: number;
}

/**
 * CPU time of the CPUs in `cpuList` (a taskset list such as "1" or "0-2") so far. Over a
 * window, busy time minus the server's own CPU time is what other processes took from the
 * server's core.
 */
export function cpuTimes(cpuList: string): CpuTimes {
  const wanted = parseCpuList(cpuList);
  let busy = 0;
  let steal = 0;
  for (const line of (readOrUndefined('/proc/stat') ?? '').split('\n')) {
    const m = /^cpu(\d+) (.*)$/.exec(line);
    if (!m || !wanted.has(Number(m[1]))) continue;
    const [user, nice, system, , , irq, softirq, stolen] = m[2]!.trim().split(/\s+/).map(Number);
    busy += user! + nice! + system! + irq! + softirq! + stolen!;
    steal += stolen!;
  }
  return { busy: busy / TICKS_PER_SECOND, steal: steal / TICKS_PER_SECOND };
}

/** The CPUs of a taskset list ("1", "0-2", "0,3"). */
export function parseCpuList(list: string): Set<number> {
  const cpus = new Set<number>();
  for (const part of list.split(',')) {
    const [from, to = from] = part.split('-').map((n) => Number(n.trim()));
    if (!Number.isInteger(from) || !Number.isInteger(to)) throw new RangeError(`not a CPU list: "${list}"`);
    for (let c = from!; c <= to!; c++) cpus.add(c);
  }
  return cpus;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // The process exited between listing and reading, or the file does not exist here.
    return undefined;
  }
}
