/**
 * The valkey store's RESP parser against every reply shape split at every byte boundary, and
 * against a hostile server: whatever it declares, the parser allocates no more than what arrived
 * (within bounds), and anything that breaks the protocol is a RespProtocolError — never a crash,
 * never a reply handed to the wrong caller.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, ReplyError, RespParser, RespProtocolError, type RespValue } from '../../adapters/valkey/resp/parser.ts';

/** RESP2 bytes of `value`, written independently of the parser (the reference encoding). */
function resp(value: RespValue): Buffer {
  if (value === null) return Buffer.from('$-1\r\n');
  if (typeof value === 'number') return Buffer.from(`:${value}\r\n`);
  if (typeof value === 'string') return Buffer.from(`+${value}\r\n`);
  if (value instanceof ReplyError) return Buffer.from(`-${value.message}\r\n`);
  if (Buffer.isBuffer(value)) return Buffer.concat([Buffer.from(`$${value.length}\r\n`), value, Buffer.from('\r\n')]);
  return Buffer.concat([Buffer.from(`*${value.length}\r\n`), ...value.map(resp)]);
}

/** Everything the parser hands out for `chunks`, fed in order. */
function parse(chunks: readonly Buffer[]): RespValue[] {
  const out: RespValue[] = [];
  const parser = new RespParser((value) => out.push(value));
  for (const chunk of chunks) parser.feed(chunk);
  expect(parser.partial).toBe(false);
  return out;
}

/** Values comparable with toEqual: Buffers as byte lists, errors as their messages. */
function plain(value: RespValue): unknown {
  if (Buffer.isBuffer(value)) return { bytes: [...value] };
  if (value instanceof ReplyError) return { error: value.message };
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

/** One of every reply shape a RESP2 server sends. */
const corpus: RespValue[] = [
  'OK',
  'QUEUED with spaces',
  new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'),
  new ReplyError('ERR é unicode in an error'),
  0,
  42,
  -8,
  9_007_199_254_740_991,
  Buffer.alloc(0),
  Buffer.from('hello'),
  Buffer.from('with\r\ninside\r\n'),
  allBytes,
  null,
  [],
  [Buffer.from('a'), null, Buffer.from('c')],
  [1, [2, [3, [Buffer.from('deep'), null]], []], new ReplyError('ERR in an array')],
  [Buffer.from('message'), Buffer.from('__redis__:invalidate'), [Buffer.from('k1'), Buffer.from('k2')]],
];

describe('RESP parser', () => {
  const stream = Buffer.concat(corpus.map(resp));
  const nullArray = Buffer.from('*-1\r\n');

  it('parses every reply shape in one chunk, nil arrays included', () => {
    expect(parse([stream]).map(plain)).toEqual(corpus.map(plain));
    expect(parse([nullArray])).toEqual([null]);
  });

  it('parses the same replies split at every byte boundary', () => {
    for (let at = 0; at <= stream.length; at++) {
      expect(parse([stream.subarray(0, at), stream.subarray(at)]).map(plain), `split at ${at}`).toEqual(corpus.map(plain));
    }
  });

  it('parses them one byte at a time', () => {
    const bytes = Array.from({ length: stream.length }, (_, i) => stream.subarray(i, i + 1));
    expect(parse(bytes).map(plain)).toEqual(corpus.map(plain));
  });

  it('parses them in random splits (seeded, repeatable)', () => {
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 200; run++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < stream.length; ) {
        const size = 1 + Math.floor(random() * 40);
        chunks.push(stream.subarray(at, at + size));
        at += size;
      }
      expect(parse(chunks).map(plain)).toEqual(corpus.map(plain));
    }
  });

  it('assembles a big bulk string arriving in many chunks, and keeps parsing after it', () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 7);
    for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
    const bytes = Buffer.concat([resp([big, Buffer.from('after')]), resp(7)]);
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 65_536) chunks.push(bytes.subarray(at, at + 65_536));
    const [first, second] = parse(chunks) as [Buffer[], number];
    expect(Buffer.compare(first[0]!, big)).toBe(0);
    expect(first[1]!.toString()).toBe('after');
    expect(second).toBe(7);
  });

  it('hands out bulk strings without copying when they sit in one chunk', () => {
    const chunk = resp(Buffer.from('view'));
    const [value] = parse([chunk]) as [Buffer];
    expect(value.buffer).toBe(chunk.buffer);
  });
});

describe('RESP parser against a hostile server', () => {
  /** Feeds `bytes` and returns the error thrown, failing the test when none is. */
  function refusal(...chunks: string[]): RespProtocolError {
    const parser = new RespParser(() => {});
    try {
      for (const chunk of chunks) parser.feed(Buffer.from(chunk, 'latin1'));
    } catch (error) {
      expect(error).toBeInstanceOf(RespProtocolError);
      return error as RespProtocolError;
    }
    throw new Error(`no protocol error for ${JSON.stringify(chunks)}`);
  }

  it.each([
    ['a RESP3 push', '>3\r\n$7\r\nmessage\r\n'],
    ['a RESP3 map', '%1\r\n+a\r\n:1\r\n'],
    ['a RESP3 attribute', '|1\r\n+ttl\r\n:3\r\n'],
    ['a RESP3 null', '_\r\n'],
    ['a type byte that is not RESP at all', 'HTTP/1.1 400 Bad Request\r\n'],
    ['a bulk string not ended by CRLF', '$3\r\nabcX\r\n'],
    ['a line ended by CR alone', '+OK\rX'],
    ['a length that is not a number', '$ab\r\n'],
    ['a negative length other than -1', '$-2\r\n'],
    ['an empty length', '*\r\n'],
    ['an integer with a letter', ':12x\r\n'],
    ['an empty integer', ':\r\n'],
    ['an integer of 25 digits', `:${'9'.repeat(25)}\r\n`],
  ])('refuses %s', (_, bytes) => {
    refusal(bytes);
  });

  it('refuses a bulk string longer than its bound before receiving it', () => {
    expect(refusal('$999999999999\r\n').message).toMatch(/malformed length/);
    expect(refusal(`$${512 * 1024 * 1024 + 1}\r\n`).message).toMatch(/bulk string of 536870913 bytes/);
  });

  it('refuses an array longer than its bound, and one of 2^32 elements, as protocol errors (not a crash)', () => {
    expect(refusal('*4294967296\r\n').message).toMatch(/malformed length|bound/);
    expect(refusal(`*${DEFAULT_LIMITS.maxArrayLength + 1}\r\n`).message).toMatch(/bound/);
  });

  it('bounds the elements of a whole reply, nested arrays included, each array within its own bound', () => {
    const limits = { ...DEFAULT_LIMITS, maxReplyElements: 10 };
    const parser = new RespParser(() => {}, limits);
    // Three arrays of four: 3 + 12 elements, past 10 on the eleventh.
    expect(() => parser.feed(Buffer.from(`*3\r\n${'*4\r\n'.repeat(3)}${':1\r\n'.repeat(12)}`))).toThrow(/a reply of more than 10 elements/);
    // The count starts again with each reply: ten one-element replies are fine.
    const out: RespValue[] = [];
    const fresh = new RespParser((value) => out.push(value), limits);
    fresh.feed(Buffer.from('*9\r\n' + ':1\r\n'.repeat(9) + '*9\r\n' + ':1\r\n'.repeat(9)));
    expect(out).toHaveLength(2);
  });

  it('bounds the bytes received while one reply is incomplete, within one chunk of the bound', () => {
    const limits = { ...DEFAULT_LIMITS, maxReplyBytes: 1000 };
    const parser = new RespParser(() => {}, limits);
    parser.feed(Buffer.from('*2\r\n$600\r\n'));
    parser.feed(Buffer.alloc(400, 0x61));
    expect(() => parser.feed(Buffer.alloc(601, 0x61))).toThrow(/a reply of more than 1000 bytes/);
    // A bulk string of many chunks counts the same way; a reply that completes starts the count again.
    const out: RespValue[] = [];
    const again = new RespParser((value) => out.push(value), limits);
    for (let i = 0; i < 5; i++) {
      again.feed(Buffer.from('$900\r\n'));
      again.feed(Buffer.alloc(450, 0x62));
      again.feed(Buffer.concat([Buffer.alloc(450, 0x62), Buffer.from('\r\n')]));
    }
    expect(out).toHaveLength(5);
    const bulk = new RespParser(() => {}, limits);
    bulk.feed(Buffer.from(`$${10_000}\r\n`));
    bulk.feed(Buffer.alloc(999));
    expect(() => bulk.feed(Buffer.alloc(2))).toThrow(/a reply of more than 1000 bytes/);
  });

  it('refuses arrays nested deeper than its bound', () => {
    expect(refusal('*1\r\n'.repeat(9)).message).toMatch(/nested deeper than 8/);
  });

  it('refuses a line that never ends beyond its bound, however it is split', () => {
    expect(refusal(`+${'x'.repeat(70_000)}`).message).toMatch(/longer than/);
    expect(refusal('+', 'x'.repeat(40_000), 'x'.repeat(40_000)).message).toMatch(/longer than/);
  });

  it('allocates nothing ahead of the bytes that arrived for a huge declared bulk or array', () => {
    const parser = new RespParser(() => {});
    const before = process.memoryUsage().arrayBuffers;
    parser.feed(Buffer.from(`$${512 * 1024 * 1024}\r\nfirst bytes`));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
    expect(parser.partial).toBe(true);
    const arrays = new RespParser(() => {});
    const heap = process.memoryUsage().heapUsed;
    arrays.feed(Buffer.from(`*${DEFAULT_LIMITS.maxArrayLength}\r\n:1\r\n`));
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(16 * 1024 * 1024);
  });

  it('refuses a reply handed out to nobody when the consumer says so, and stops there', () => {
    const seen: RespValue[] = [];
    const parser = new RespParser((value) => {
      if (seen.length === 1) throw new RespProtocolError('a reply to no command');
      seen.push(value);
    });
    expect(() => parser.feed(Buffer.from(':1\r\n:2\r\n'))).toThrow(RespProtocolError);
    expect(seen).toEqual([1]);
  });
});
