import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GatheredWrites, gatheredStream } from '../src/http/gathered-writes.js';

// The event streams' writes (src/rest/adapter.ts): what comes close together is one write.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function gathered(gatherMs = 20) {
  const written: string[] = [];
  const writes = new GatheredWrites(gatherMs, (chunks) => written.push(chunks.map((c) => decoder.decode(c)).join('|')));
  return { written, push: (text: string) => writes.push(encoder.encode(text)), writes };
}

it('writes after a quiet spell at the end of the turn, with what that turn brought', () => {
  const { written, push, writes } = gathered();
  push('a');
  push('b');
  expect([written, writes.pending]).toEqual([[], 2]);
  vi.advanceTimersByTime(0);
  expect([written, writes.pending]).toEqual([['a|b'], 0]);
});

it('gathers what comes within the window after a write into one write at its end; quiet again, the next goes at once', () => {
  const { written, push } = gathered();
  push('a');
  vi.advanceTimersByTime(0);
  vi.advanceTimersByTime(5);
  push('b');
  vi.advanceTimersByTime(7);
  push('c');
  vi.advanceTimersByTime(7); // 19 ms after the write of a
  expect(written).toEqual(['a']);
  vi.advanceTimersByTime(1);
  expect(written).toEqual(['a', 'b|c']);
  vi.advanceTimersByTime(20); // 20 ms after the last write: quiet
  push('d');
  vi.advanceTimersByTime(0);
  expect(written).toEqual(['a', 'b|c', 'd']);
});

it('flush writes what is pending at once and cancels the write that was due; stop drops it', () => {
  const { written, push, writes } = gathered();
  push('a');
  vi.advanceTimersByTime(0);
  push('b');
  writes.flush();
  expect(written).toEqual(['a', 'b']);
  vi.advanceTimersByTime(100);
  expect(written).toEqual(['a', 'b']);
  push('c');
  writes.stop();
  vi.advanceTimersByTime(100);
  expect([written, writes.pending]).toEqual([['a', 'b'], 0]);
  writes.flush();
  expect(written).toEqual(['a', 'b']);
});

describe('gatheredStream (an event stream\'s body, both faces)', () => {
  it('passes the messages on gathered, and ends when the source ends', async () => {
    let source!: ReadableStreamDefaultController<Uint8Array>;
    const reader = gatheredStream(new ReadableStream<Uint8Array>({ start: (c) => void (source = c) }), 20, 100).getReader();
    source.enqueue(encoder.encode('a'));
    await vi.advanceTimersByTimeAsync(0);
    expect(decoder.decode((await reader.read()).value)).toBe('a');
    let second: string | undefined;
    const reading = reader.read().then(({ value }) => (second = decoder.decode(value)));
    await vi.advanceTimersByTimeAsync(5);
    source.enqueue(encoder.encode('b'));
    await vi.advanceTimersByTimeAsync(5);
    source.enqueue(encoder.encode('c'));
    source.enqueue(encoder.encode('d'));
    await vi.advanceTimersByTimeAsync(9);
    expect(second).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await reading;
    expect(second).toBe('bcd');
    source.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('cuts off a reader that falls `bound` messages behind, and cancels the source; cancelling the body cancels it too', async () => {
    const cancelled: unknown[] = [];
    let source!: ReadableStreamDefaultController<Uint8Array>;
    const open = () => new ReadableStream<Uint8Array>({ start: (c) => void (source = c), cancel: (reason) => void cancelled.push(reason) });
    const body = gatheredStream(open(), 20, 5);
    // Nobody reads: five messages wait, the sixth is one too many. A message is what ends with a blank
    // line: Yoga writes an event's two lines as two chunks, one message.
    for (let i = 1; i <= 5; i += 1) {
      source.enqueue(encoder.encode('event: next\n'));
      source.enqueue(encoder.encode(`data: ${i}\n\n`));
      await vi.advanceTimersByTimeAsync(20);
    }
    expect(cancelled).toEqual([]);
    source.enqueue(encoder.encode('data: 6\n\n'));
    await vi.advanceTimersByTimeAsync(20);
    expect(cancelled.map((e) => (e as Error).message)).toEqual(['reader too slow']);
    await expect(body.getReader().read()).rejects.toThrow('reader too slow');

    const reader = gatheredStream(open(), 20, 5).getReader();
    await reader.cancel('gone');
    expect(cancelled.at(-1)).toBe('gone');
  });

  it('the request\'s signal (the connection closed) cancels the source and ends the body', async () => {
    let cancelled: unknown;
    const connection = new AbortController();
    const body = gatheredStream(new ReadableStream<Uint8Array>({ cancel: (reason) => void (cancelled = reason) }), 20, 5, connection.signal);
    connection.abort('closed');
    await vi.advanceTimersByTimeAsync(0);
    expect(cancelled).toBe('closed');
    await expect(body.getReader().read()).rejects.toThrow('the client went away');
  });
});
