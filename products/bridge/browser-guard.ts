/**
 * Keeping web pages away from the bridge. A page a developer has open can send requests to
 * 127.0.0.1 (a form or `fetch` with `mode: 'no-cors'` needs no permission to send), and
 * through DNS rebinding even read the answers: the page's own name is re-pointed at 127.0.0.1,
 * so that its requests count as same-origin. The bearer token stops a page that does not know
 * it; these checks stop every page, token or not, because no client of the Upstash protocol
 * is a browser:
 *
 * - `Host` must name the bridge: an IP address, `localhost` (or a name under `.localhost`,
 *   which resolvers keep on the loopback interface), the `host` it listens on, or one of
 *   `allowedHosts`. A rebinding page sends its own name, which is none of them. The port is
 *   not checked: a port mapping (Docker's `-p 9000:8079`) changes it, and a name is enough.
 * - A request a browser made is refused whatever its Host: browsers send `Origin` with every
 *   POST and every CORS preflight, and `Sec-Fetch-Site` with every request. Node's own fetch
 *   sends `Sec-Fetch-Mode: cors` and nothing else of the kind, so that field alone is allowed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { BridgeError } from './bridge-error.ts';

/** Fields only a browser sends (or, for the preflight's, only a browser's CORS preflight). */
const BROWSER_FIELDS = ['origin', 'sec-fetch-site', 'sec-fetch-dest', 'sec-fetch-user', 'access-control-request-method'] as const;

/** Options of {@link browserGuard}. */
export interface BrowserGuardOptions {
  /** The address the bridge listens on (a name there is accepted as a Host). */
  host: string;
  /** More accepted Host names; one starting with a dot accepts that name and every name under it. */
  allowedHosts?: readonly string[] | undefined;
}

/** Validates `allowedHosts` once and returns the check that throws a 403 {@link BridgeError} for a request a page could have made. */
export function browserGuard(options: BrowserGuardOptions): (headers: IncomingHttpHeaders) => void {
  const entries = [...(options.allowedHosts ?? []).map(allowedName), 'localhost', '.localhost'];
  if (isIP(options.host) === 0) entries.push(options.host.toLowerCase());
  const names = new Set(entries.filter((entry) => !entry.startsWith('.')));
  const domains = entries.filter((entry) => entry.startsWith('.'));
  const accepts = (name: string) => isIP(name) !== 0 || names.has(name) || domains.some((domain) => name.endsWith(domain) || name === domain.slice(1));

  return (headers) => {
    for (const field of BROWSER_FIELDS) {
      if (headers[field] !== undefined)
        throw new BridgeError(403, `Forbidden: the request carries ${field}, so a web browser sent it; the bridge answers no browser (a page could use the token's access)`);
    }
    const host = headers.host;
    // HTTP/1.1 requires Host (Node answers 400 without one); only an HTTP/1.0 client, never a browser, omits it.
    if (host === undefined) return;
    const name = hostName(host);
    if (name === undefined || !accepts(name)) {
      throw new BridgeError(403, `Forbidden: Host ${JSON.stringify(host.slice(0, 100))} does not name this bridge (DNS rebinding?); accept a name with --allowed-hosts (allowedHosts)`);
    }
  };
}

/** The lowercase name of a Host field (brackets of an IPv6 literal, the port and a final dot removed), or undefined when malformed. */
function hostName(host: string): string | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9\-._~]+))(?::\d{1,5})?$/.exec(host);
  if (match === null) return undefined;
  return (match[1] ?? match[2]!).toLowerCase().replace(/\.$/, '');
}

function allowedName(entry: string): string {
  if (typeof entry !== 'string' || !/^\.?[A-Za-z0-9][A-Za-z0-9\-._~]*$/.test(entry)) {
    throw new TypeError(`startBridge: "allowedHosts" must list host names such as "bridge.internal" or ".example.test", got ${JSON.stringify(entry)}`);
  }
  return entry.toLowerCase().replace(/\.$/, '');
}
