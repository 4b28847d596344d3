/** Bounded polling for what travels on other connections (invalidations, reconnects): never a timed assertion. */
import { sleep } from './suite-api.ts';

/** Resolves once `check` holds, trying up to `tries` times 10 ms apart; throws naming `what` otherwise. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await sleep(10);
  }
  throw new Error(`never happened: ${what}`);
}
