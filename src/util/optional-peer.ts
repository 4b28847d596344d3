/**
 * Optional peer dependencies (iovalkey, @upstash/redis, @hono/node-server, @opentelemetry/api,
 * better-sqlite3): an entry point that needs one loads it through {@link loadPeer} or
 * {@link importPeer}, so that a missing package is an error naming it and the command that
 * installs it, instead of the runtime's bare "Cannot find package" raised from inside
 * cachette's files. Loading is the caller's business (a `require` where the entry may use
 * `node:module`, an `import()` elsewhere): this module only recognises and words the failure.
 */

/** An optional peer dependency an entry point needs is not installed. */
export class MissingPeerError extends Error {
  override name = 'MissingPeerError';
  /** A stable, machine-readable code. */
  readonly code = 'E_MISSING_PEER';

  constructor(
    /** The package that is missing, e.g. "iovalkey". */
    readonly peer: string,
    /** The command that installs it, e.g. "npm install iovalkey". */
    readonly install: string,
    /** What needed it, as the user called it: "valkeyStore()", "cachette/otel". */
    needer: string,
    cause: unknown,
  ) {
    super(`${needer} needs the ${peer} package, which is not installed: ${install}`, { cause });
  }
}

/**
 * Runs `load` (a synchronous `require` of `peer`); when it fails because `peer` itself is
 * missing, throws a {@link MissingPeerError} for `needer`. Any other failure (the package is
 * there but broken, or one of its own dependencies is missing) is rethrown as it is.
 */
export function loadPeer<T>(needer: string, peer: string, load: () => T, install = `npm install ${peer}`): T {
  try {
    return load();
  } catch (error) {
    throw peerFailure(error, needer, peer, install);
  }
}

/** {@link loadPeer} for an `import()`: resolves with the module, or rejects with a {@link MissingPeerError}. */
export function importPeer<T>(needer: string, peer: string, load: () => Promise<T>, install = `npm install ${peer}`): Promise<T> {
  return load().catch((error: unknown) => {
    throw peerFailure(error, needer, peer, install);
  });
}

/**
 * True when `error` (or an error it wraps, through `cause`) says that `peer` could not be found:
 * Node, Bun and Deno word it differently, and all of them name the package.
 */
export function isMissingPackage(error: unknown, peer: string): boolean {
  // The package, or one of its subpaths, as a quoted specifier: "Cannot find package 'iovalkey'",
  // `Cannot find module "@upstash/redis/cloudflare"`. Not a file path inside it ('/app/node_modules/
  // @upstash/redis/cloudflare'): that is an installed package that lacks the file, not a missing one.
  const named = new RegExp(`["'\`]${peer.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(/[^"'\`]*)?["'\`]`);
  for (let seen = 0, current = error; current instanceof Error && seen < 4; seen++, current = current.cause) {
    const code = (current as { code?: unknown }).code;
    const notFound = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /cannot find|could not find|not found|failed to resolve/i.test(current.message);
    // The first line only: Node may add a hint naming another file of the package ("Did you mean …?").
    if (notFound && named.test(current.message.split('\n', 1)[0]!)) return true;
  }
  return false;
}

function peerFailure(error: unknown, needer: string, peer: string, install: string): unknown {
  return isMissingPackage(error, peer) ? new MissingPeerError(peer, install, needer, error) : error;
}
