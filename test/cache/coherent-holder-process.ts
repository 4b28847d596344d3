/** Starts test/cache/processes/coherent-holder.ts: a coherent-L1 cache in a process of its own, asked one line at a time. */
import { spawn, type ChildProcess } from 'node:child_process';
import { childLines } from '../support/child-lines.ts';

/** A holder process over the store at `url` (valkey or postgres), namespace `namespace`; `ask` sends a line (a key to read, `=key value` to set) and resolves its answer. */
export function startHolder(url: string, namespace: string): { child: ChildProcess; next(): Promise<string>; ask(line: string): Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/cache/processes/coherent-holder.ts', url, namespace], { stdio: ['pipe', 'pipe', 'inherit'] });
  const next = childLines(child);
  return {
    child,
    next,
    ask: (line) => {
      child.stdin!.write(`${line}\n`);
      return next();
    },
  };
}
