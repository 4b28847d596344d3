// Issue 23, item 13: a client that stops reading a large response it shares with others, which
// has no validators to give it an own request, holds the others back for slowClientTimeout at
// most; then it is cut off and they finish.
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { memoryStore } from '../../../adapters/memory/index.ts';
import { withCache } from '../../../src/http/index.ts';
import { SlowClientError } from '../../../src/http/exchange/shared-body.ts';

const CHUNK = 16 * 1024;
const CHUNKS = 256; // 4 MiB

describe('a client that stops reading a shared response', () => {
  it('is cut off after slowClientTimeout, and the client that reads gets the whole body', async () => {
    const store = memoryStore();
    let calls = 0;
    const origin = async () => {
      calls++;
      let sent = 0;
      // No ETag, no Last-Modified: a client that falls behind has no own request to move to.
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ === CHUNKS) controller.close();
            else controller.enqueue(new Uint8Array(CHUNK).fill(sent % 251));
          },
        }),
        { headers: { 'cache-control': 'max-age=60', 'content-type': 'application/octet-stream' } },
      );
    };
    const cached = withCache(origin, { store, maxBodyBytes: 64 * 1024, shareWindowBytes: 64 * 1024, slowClientTimeout: 50 });
    const [reading, stopped] = await Promise.all([cached(new Request('http://x/big')), cached(new Request('http://x/big'))]);
    assert.equal(calls, 1, 'the two requests share one origin response');
    const stoppedReader = stopped.body!.getReader();
    await stoppedReader.read();
    assert.equal((await reading.arrayBuffer()).byteLength, CHUNK * CHUNKS);
    await assert.rejects(stoppedReader.read(), SlowClientError);
    await cached.close();
    await store.close();
  });
});
