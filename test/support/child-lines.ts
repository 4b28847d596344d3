import type { ChildProcess } from 'node:child_process';

/**
 * The lines a child process writes on stdout, one at a time: `next()` resolves with the next
 * line, at once when it already arrived. For the tests and benches that drive helper processes line by line.
 */
export function childLines(child: ChildProcess): () => Promise<string> {
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let at: number;
    while ((at = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  return () => (lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise<string>((resolve) => waiting.push(resolve)));
}
