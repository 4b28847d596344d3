/**
 * The valkey store's RESP encoder: commands byte for byte as RESP2 writes them (checked against
 * an encoding written independently here), binary-safe, whatever the keys' characters and the
 * values' sizes, and handed-out bytes that later commands never overwrite.
 */
import { describe, expect, it } from 'vitest';
import { encodeCommand } from '../../adapters/valkey/resp/connection.ts';
import { BY_REFERENCE, RespEncoder, sliceChunks } from '../../adapters/valkey/resp/encoder.ts';
import type { HeadedText } from '../../src/store/text-entry.ts';

type Arg = string | number | Uint8Array;

/** RESP2 bytes of a command, the plain way. */
function reference(args: readonly Arg[]): Buffer {
  const parts = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = typeof arg === 'string' ? Buffer.from(arg, 'utf8') : typeof arg === 'number' ? Buffer.from(String(arg)) : Buffer.from(arg);
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

const encoded = (encoder: RespEncoder) => Buffer.concat(encoder.take());

describe('RESP encoder', () => {
  const commands: Arg[][] = [
    ['GET', 'key'],
    ['SET', 'ключ/🗝 with spaces', new Uint8Array([0, 13, 10, 255])],
    ['SET', 'k', new Uint8Array(0), 'PX', 1],
    ['INCRBY', 'n', -50],
    ['INCRBY', 'n', 1.5],
    ['X', 0, 9, 10, 99, 100, 12_345_678_901, Number.MAX_SAFE_INTEGER, 2 ** 60],
    ['MGET', ...Array.from({ length: 300 }, (_, i) => `key:${i}:${'x'.repeat(i % 90)}`)],
    ['SET', 'é'.repeat(200), 'long non-ASCII value'.repeat(10)],
  ];

  it('writes each command as RESP2 does', () => {
    const encoder = new RespEncoder();
    for (const args of commands) {
      encodeCommand(encoder, args);
      expect(encoded(encoder)).toEqual(reference(args));
    }
  });

  it('writes many commands in one take, in order, across slab refills', () => {
    const encoder = new RespEncoder(256);
    const all: Arg[][] = [];
    for (let i = 0; i < 500; i++) all.push(commands[i % commands.length]!);
    for (const args of all) encodeCommand(encoder, args);
    expect(encoded(encoder).equals(Buffer.concat(all.map(reference)))).toBe(true);
  });

  it('passes large values by reference, as their own chunk, and slices commands back out', () => {
    const encoder = new RespEncoder();
    const big = new Uint8Array(BY_REFERENCE + 10).map((_, i) => i & 0xff);
    const first = [Buffer.from('SET'), Buffer.from('a'), big] as const;
    encodeCommand(encoder, first);
    const split = encoder.size;
    encodeCommand(encoder, ['GET', 'b']);
    const chunks = encoder.take();
    expect(chunks.length).toBe(3);
    expect(chunks[1]!.buffer).toBe(big.buffer);
    expect(sliceChunks(chunks, 0, split)).toEqual(reference([...first]));
    expect(sliceChunks(chunks, split, split + reference(['GET', 'b']).length)).toEqual(reference(['GET', 'b']));
  });

  it('moves a small part not yet taken to a new slab, and closes a large one where it lies', () => {
    const encoder = new RespEncoder(256);
    const small = ['SET', 'k', 'x'.repeat(10)];
    const large = ['SET', 'k', 'x'.repeat(100)];
    const overflow = ['SET', 'k2', 'y'.repeat(200)];
    // Up to a quarter of the slab moves along: the take stays one chunk.
    encodeCommand(encoder, small);
    encodeCommand(encoder, overflow);
    const moved = encoder.take();
    expect(moved.length).toBe(1);
    expect(Buffer.concat(moved)).toEqual(Buffer.concat([reference(small), reference(overflow)]));
    // More than that stays in the full slab, as a chunk of its own.
    const second = new RespEncoder(256);
    encodeCommand(second, large);
    encodeCommand(second, overflow);
    const closed = second.take();
    expect(closed.length).toBe(2);
    // The split falls where room ran out, inside the next command: chunks are written in order.
    expect(closed[0]!.subarray(0, reference(large).length)).toEqual(reference(large));
    expect(closed[0]!.buffer).not.toBe(closed[1]!.buffer);
    expect(Buffer.concat(closed)).toEqual(Buffer.concat([reference(large), reference(overflow)]));
  });

  it('never rewrites bytes it handed out', () => {
    const encoder = new RespEncoder(128);
    encodeCommand(encoder, ['SET', 'kept', 'v']);
    const [handed] = encoder.take();
    const copy = Buffer.from(handed!);
    for (let i = 0; i < 100; i++) encodeCommand(encoder, ['SET', `other${i}`, 'x'.repeat(50)]);
    encoder.take();
    expect(handed).toEqual(copy);
  });

  /** A head of `n` bytes counting down from 0xff, and `text`; its bytes are never asked for, and the head is told the text's UTF-8 length. */
  const headed = (n: number, text: string): HeadedText => {
    const utf8 = Buffer.byteLength(text, 'utf8');
    return {
      headLength: n,
      text,
      size: n + utf8,
      writeHead(out, at, textBytes) {
        expect(textBytes).toBe(utf8);
        for (let i = 0; i < n; i++) out[at + i] = 0xff - i;
      },
      bytes() {
        throw new Error('the encoder made the bytes of a headed value');
      },
    };
  };
  const bytesOf = (value: HeadedText) => Buffer.concat([Buffer.from(Array.from({ length: value.headLength }, (_, i) => 0xff - i)), Buffer.from(value.text, 'utf8')]);

  it('writes a headed value as the bulk string of its bytes, its text written once where it stays and its head in place, never asking for its bytes', () => {
    const values = [
      headed(37, '{"id":1}'),
      headed(0, ''),
      headed(61, 'x'.repeat(300)),
      headed(37, 'y'.repeat(BY_REFERENCE + 10)),
      headed(2, '\r\n$3\r\n'),
      headed(37, 'Zoë 🙂'),
      headed(37, `${'a'.repeat(200)}é`),
      headed(5, 'é'.repeat(BY_REFERENCE)),
      // The UTF-8 length takes more digits than the length in units: the text moves by one or two bytes.
      headed(0, 'é'.repeat(5)),
      headed(40, '€'.repeat(20)),
      headed(0, '€'.repeat(40)),
      headed(3, '🙂'.repeat(20_000)),
    ];
    // A small slab: values land across refills and past what a slab holds.
    const encoder = new RespEncoder(256);
    for (const value of values) {
      encoder.array(3);
      encoder.string('SET');
      encoder.string('k');
      encoder.headed(value);
    }
    encoder.string('after');
    const expected = Buffer.concat([...values.map((value) => reference(['SET', 'k', bytesOf(value)])), Buffer.from('$5\r\nafter\r\n')]);
    expect(encoded(encoder).equals(expected)).toBe(true);
  });

  it('writes non-ASCII headed text at every position a slab refill can meet it, taken at once or command by command', () => {
    const texts = ['Zoë', '€'.repeat(4), `${'a'.repeat(30)}🙂`, 'é'.repeat(60)];
    for (const text of texts) {
      // 512 bytes: the short texts get room for 3 bytes a unit, the longest is counted first.
      const whole = new RespEncoder(512);
      const expected: Buffer[] = [];
      for (let pad = 0; pad < 560; pad++) {
        const one = new RespEncoder(512);
        for (const encoder of [whole, one]) {
          encoder.string('p'.repeat(pad));
          encoder.headed(headed(pad % 40, text));
        }
        const alone = Buffer.concat([Buffer.from(`$${pad}\r\n${'p'.repeat(pad)}\r\n`), reference([bytesOf(headed(pad % 40, text))]).subarray(4)]);
        expect(encoded(one).equals(alone)).toBe(true);
        expected.push(alone);
      }
      expect(encoded(whole).equals(Buffer.concat(expected))).toBe(true);
    }
  });
});
