import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatheredWrites, gatherWrites } from '../src/http/gathered-writes.js';

// The event streams' writes (a REST stream's chunks in src/rest/adapter.ts, a subscription's connection in
// src/serve.ts): what comes close together is one write.

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

it('gatherWrites corks a response from a write after a quiet spell to the end of the turn, and within the window to its end; each write answers as the connection does', () => {
  const log: string[] = [];
  let full = false;
  const response = {
    write: (chunk: string) => (log.push(`write ${chunk}`), !full),
    cork: () => void log.push('cork'),
    uncork: () => void log.push('uncork'),
  };
  gatherWrites(response as unknown as ServerResponse, 20);
  const write = (chunk: string) => (response.write as (c: string) => boolean)(chunk);
  expect([write('a'), write('b')]).toEqual([true, true]);
  vi.advanceTimersByTime(0);
  expect(log).toEqual(['cork', 'write a', 'write b', 'uncork']);
  log.length = 0;
  vi.advanceTimersByTime(5);
  full = true;
  expect(write('c')).toBe(false);
  vi.advanceTimersByTime(14);
  expect(log).toEqual(['cork', 'write c']);
  vi.advanceTimersByTime(1);
  expect(log).toEqual(['cork', 'write c', 'uncork']);
  log.length = 0;
  vi.advanceTimersByTime(20);
  write('d');
  vi.advanceTimersByTime(0);
  expect(log).toEqual(['cork', 'write d', 'uncork']);
});

it('gatherWrites uncorks a response before its end, once: nothing is left for the window\'s end', () => {
  const log: string[] = [];
  const response = {
    write: (chunk: string) => (log.push(`write ${chunk}`), true),
    end: () => void log.push('end'),
    cork: () => void log.push('cork'),
    uncork: () => void log.push('uncork'),
  };
  gatherWrites(response as unknown as ServerResponse, 20);
  (response.write as (c: string) => boolean)('a');
  (response.end as () => void)();
  vi.advanceTimersByTime(100);
  expect(log).toEqual(['cork', 'write a', 'uncork', 'end']);
});

it('a response ended while corked sends every chunk before its end (Node 22 and later send the end first otherwise)', async () => {
  vi.useRealTimers();
  const server = createServer((_request, response) => {
    gatherWrites(response, 20);
    response.writeHead(200, { 'Content-Type': 'text/event-stream' });
    response.write(': open\n\n');
    setTimeout(() => {
      // Within the window of the first write's flush: corked until its end, or until the end below.
      response.write('event: complete\n');
      response.write('data:\n\n');
      response.end();
    }, 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(await res.text()).toBe(': open\n\nevent: complete\ndata:\n\n');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
