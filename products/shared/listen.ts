/** Listening for the servers behind the `cachette` command, and the URL they are reached at. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts `server` listening and resolves the port it got (`port` 0 picks a free one). A
 * failure such as EADDRINUSE rejects with Node's own error, whose `code` the command line
 * turns into a hint.
 */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** `http://host:port`, with an IPv6 address in brackets. */
export function serverUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Stops accepting connections, drops the open ones and resolves once the server is closed. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
