/**
 * What the coherent A/B benches (writes-ab.ts, hits-ab.ts) share: each window is a fresh process
 * running one worker script of this folder, and rounds rotate the order of the variants, so that
 * the host's load falls on every variant alike (the windows of one round run minutes apart at
 * most, the variants in every position once per rotation).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';

/** One variant: a name, and the arguments of its worker after the script. */
export interface Variant {
  name: string;
  root: string;
  args: string[];
}

/** Runs `worker` (a file of this folder) once with `args`, in `root`; resolves the JSON line it printed last. */
export function window<T>(worker: string, root: string, args: readonly string[]): Promise<T> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, worker), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? done(JSON.parse(out.trim().split('\n').pop()!) as T) : fail(new Error(`window exited with ${code}`))));
  });
}

/**
 * `rounds` rounds of every variant, the order rotated each round; `describe` prints one window.
 * Resolves each variant's windows, and the load averages seen after each window.
 */
export async function interleave<T>(worker: string, variants: readonly Variant[], rounds: number, describe: (w: T) => string): Promise<{ results: Map<string, T[]>; loads: number[] }> {
  const results = new Map<string, T[]>(variants.map((v) => [v.name, []]));
  const loads: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + round) % variants.length]!;
      const w = await window<T>(worker, v.root, v.args);
      loads.push(loadavg()[0]!);
      results.get(v.name)!.push(w);
      console.log(`round ${round} ${v.name}: ${describe(w)}, load ${loadavg()[0]!.toFixed(2)}`);
    }
  }
  return { results, loads };
}

/** The median of `xs` (the upper one of an even count). */
export function median(xs: readonly number[]): number {
  return [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
}
