/**
 * The shared body's memory bound (issue 10, item 4): what one body holds for its clients stays
 * within the store copy's limit plus the window, however far apart the clients read; a client
 * a window behind moves onto its own path; the origin is read only as fast as someone needs;
 * nothing is read for nobody; a stalled origin fails the body.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { OriginIdleError } from '../../../src/http/exchange/idle-read.ts';
import { SharedBody, SlowClientError } from '../../../src/http/exchange/shared-body.ts';

const KIB = 1024;

/** An origin body of `chunks` chunks of `size` bytes (chunk i filled with i % 251), counting what was pulled. */
function source(chunks: number, size: number) {
  const stats = { pulled: 0, cancelled: false };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (i === chunks) return controller.close();
        controller.enqueue(new Uint8Array(size).fill(i++ % 251));
        stats.pulled += size;
      },
      cancel() {
        stats.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, stats, bytes: () => expected(chunks, size) };
}

function expected(chunks: number, size: number): Uint8Array {
  const out = new Uint8Array(chunks * size);
  for (let i = 0; i < chunks; i++) out.fill(i % 251, i * size, (i + 1) * size);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Lets every pending read and pull that can settle, settle. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('SharedBody', () => {
  it('gives a late joiner the whole body while the copy for the store is collected', async () => {
    const src = source(8, 16 * KIB);
    const body = new SharedBody(src.stream, { limit: 1024 * KIB, window: 64 * KIB, idleTimeoutMs: Infinity, stallTimeoutMs: Infinity });
    const first = body.stream().getReader();
    await first.read();
    const late = body.stream();
    const [rest, whole] = await Promise.all([
      readAll(
        new ReadableStream({
          pull: async (c) => {
            const r = await first.read();
            if (r.done) c.close();
            else c.enqueue(r.value);
          },
        }),
      ),
      readAll(late),
    ]);
    assert.equal(rest.byteLength, 7 * 16 * KIB);
    assert.deepEqual(whole, src.bytes());
    assert.deepEqual(await body.complete, src.bytes());
  });

  it('once too large to store, holds at most a window between a fast and a stalled client, and the origin waits', async () => {
    const src = source(64, 16 * KIB); // 1 MiB
    const body = new SharedBody(src.stream, { limit: 128 * KIB, window: 64 * KIB, idleTimeoutMs: Infinity, stallTimeoutMs: Infinity });
    const fast = body.stream().getReader();
    const slow = body.stream().getReader(); // never reads until the end
    let read = 0;
    let peak = 0;
    let blocked = false;
    while (!blocked) {
      const next = fast.read();
      const result = await Promise.race([next, settle().then(() => undefined)]);
      peak = Math.max(peak, body.buffered);
      if (result === undefined) {
        blocked = true;
        // Reading resumes once the slow client reads.
        void next.then(() => undefined);
      } else {
        read += result.value!.byteLength;
      }
    }
    assert.equal(await body.complete, undefined, 'too large: not stored');
    assert.ok(read >= 128 * KIB && read < 256 * KIB, `the fast client got ${read} bytes before waiting`);
    assert.ok(peak <= 128 * KIB + 64 * KIB + 16 * KIB, `held ${peak} bytes`);
    assert.ok(src.stats.pulled <= 128 * KIB + 64 * KIB + 32 * KIB, `pulled ${src.stats.pulled} bytes from the origin`);
    await fast.cancel();
    await slow.cancel();
  });

  it('cuts off a client that stopped reading once it has held the others back for stallTimeoutMs, when it has no own path (issue 23, item 13)', async () => {
    const src = source(64, 16 * KIB); // 1 MiB, no resume: no strong ETag to ask for the rest with
    const body = new SharedBody(src.stream, { limit: 128 * KIB, window: 64 * KIB, idleTimeoutMs: Infinity, stallTimeoutMs: 50 });
    const fast = body.stream();
    const stopped = body.stream().getReader();
    assert.equal((await stopped.read()).value?.byteLength, 16 * KIB, 'it read one chunk, then stopped');
    assert.deepEqual(await readAll(fast), src.bytes(), 'the reading client got the whole body');
    await assert.rejects(stopped.read(), SlowClientError);
    assert.equal(body.readers, 0);
    assert.equal(body.buffered, 0, 'nothing is held for the client that was cut off');
  });

  it('moves a client a window behind onto its own path, so the others run on and memory stays bounded', async () => {
    const src = source(64, 16 * KIB);
    const whole = src.bytes();
    const resumed: number[] = [];
    const body = new SharedBody(src.stream, {
      limit: 128 * KIB,
      window: 64 * KIB,
      idleTimeoutMs: Infinity,
      stallTimeoutMs: Infinity,
      resume: async (offset) => {
        resumed.push(offset);
        return new Response(whole.slice(offset)).body!;
      },
    });
    const fastStream = body.stream();
    const slow = body.stream().getReader();
    const first = await slow.read();
    let peak = 0;
    const fast = fastStream.getReader();
    let fastBytes = 0;
    for (let r = await fast.read(); !r.done; r = await fast.read()) {
      fastBytes += r.value.byteLength;
      peak = Math.max(peak, body.buffered);
    }
    assert.equal(fastBytes, whole.byteLength, 'the fast client was not held back');
    assert.ok(peak <= 128 * KIB + 64 * KIB + 16 * KIB, `held ${peak} bytes`);
    const parts = [first.value!];
    for (let r = await slow.read(); !r.done; r = await slow.read()) parts.push(r.value);
    const slowBytes = concat(parts);
    assert.deepEqual(slowBytes, whole, 'the slow client still got every byte, in order');
    assert.deepEqual(resumed, [16 * KIB], 'its own path started where it had stopped');
  });

  it('stops reading the origin when no client is left and nothing will be stored', async () => {
    const src = source(1000, 16 * KIB);
    const body = new SharedBody(src.stream, { limit: 64 * KIB, window: 64 * KIB, idleTimeoutMs: Infinity, stallTimeoutMs: Infinity });
    const only = body.stream().getReader();
    for (let i = 0; i < 6; i++) await only.read();
    await only.cancel();
    await settle();
    assert.equal(src.stats.cancelled, true);
    assert.ok(src.stats.pulled < 200 * KIB, `pulled ${src.stats.pulled} bytes`);
    assert.equal(body.buffered, 0);
  });

  it('keeps reading to store the body when every client left before the end', async () => {
    const src = source(8, 16 * KIB);
    const body = new SharedBody(src.stream, { limit: 1024 * KIB, window: 64 * KIB, idleTimeoutMs: Infinity, stallTimeoutMs: Infinity });
    const only = body.stream().getReader();
    await only.read();
    await only.cancel();
    assert.deepEqual(await body.complete, src.bytes());
    assert.equal(src.stats.cancelled, false);
  });

  it('fails every client and stores nothing when the origin stalls longer than the idle timeout', async () => {
    let never!: () => void;
    const stalled = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new Uint8Array([1, 2, 3]));
        await new Promise<void>((resolve) => (never = resolve));
        controller.close();
      },
    });
    const body = new SharedBody(stalled, { limit: 1024, window: 1024, idleTimeoutMs: 50, stallTimeoutMs: Infinity });
    const reader = body.stream().getReader();
    assert.deepEqual((await reader.read()).value, new Uint8Array([1, 2, 3]));
    await assert.rejects(reader.read(), OriginIdleError);
    assert.equal(await body.complete, undefined);
    assert.equal(body.joinable, false);
    never();
  });
});
