// Issue 23, item 4, through the caching proxy: a stored entry whose framing lies is a corrupt
// miss on every store, and the keep-alive connection it was asked on stays in step.
import { describe } from 'vitest';
import type { Store } from '../../src/store/types.ts';
import { expectStoredFramingIgnored, onEveryStore } from '../http/hostile-framing.ts';
import { cacheable, closesAfterEach, proxyFor, recordingOrigin } from './support.ts';

const closing = closesAfterEach();
let namespaces = 0;

async function check(store: Store): Promise<void> {
  const origin = closing(await recordingOrigin((req, res) => cacheable(res, `body of ${req.url}`)));
  const namespace = `framing-proxy-${Date.now().toString(36)}-${namespaces++}`;
  const proxy = closing(await proxyFor(origin.url, { store, namespace }));
  await expectStoredFramingIgnored({
    port: proxy.port,
    host: 'site.test',
    store,
    namespace,
    idle: () => proxy.idle(),
    originCalls: (path) => origin.received.filter((r) => r.url === path).length,
  });
}

describe('proxy: stored framing is never trusted', () => onEveryStore(check));
