/**
 * iovalkey, an optional peer dependency, loaded on first use rather than when the module is
 * imported: an app that imports cachette/adapters/valkey without iovalkey installed gets an
 * error naming the package and the command that installs it, at the call that needed it.
 * Loaded with `require` (iovalkey is CommonJS only, so this is the very instance an
 * `import 'iovalkey'` of the application gets), which keeps every entry that uses it
 * synchronous: no top-level await, so `require('cachette/adapters/valkey')` keeps working.
 */
import { createRequire } from 'node:module';
import type * as IoValkey from 'iovalkey';
import { loadPeer } from '../../src/util/optional-peer.ts';

let loaded: typeof IoValkey | undefined;

/** The iovalkey module; throws a MissingPeerError naming `needer` when it is not installed. */
export function iovalkey(needer: string): typeof IoValkey {
  loaded ??= loadPeer(needer, 'iovalkey', () => createRequire(import.meta.url)('iovalkey') as typeof IoValkey);
  return loaded;
}
