/**
 * The package's entry names (package.json "exports") and the source each stands for, as the
 * repository's tsconfig `paths` map them (`cachette/x` → runtimes/x/index.ts, …): what the
 * documentation tests resolve a name a page gives to, and what Deno's import map says.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** Every entry name with the absolute path of its source. */
export function entrySources(root: string): Map<string, string> {
  const { config } = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => readFileSync(path, 'utf8')) as { config: { compilerOptions: { paths: Record<string, [string]> } } };
  const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  const sources = new Map<string, string>();
  for (const key of Object.keys(exports)) {
    const entry = `cachette${key.slice(1)}`;
    for (const [pattern, [target]] of Object.entries(config.compilerOptions.paths)) {
      const star = pattern.indexOf('*');
      const matches = star === -1 ? pattern === entry : entry.startsWith(pattern.slice(0, star)) && entry.length > star;
      if (!matches) continue;
      const source = join(root, star === -1 ? target : target.replace('*', entry.slice(star)));
      if (existsSync(source)) sources.set(entry, source);
      break;
    }
  }
  return sources;
}
