import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { GatheredWrites } from '../src/http/gathered-writes.js';

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
