import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { importProgress } from '../src/import/progress.js';

// The import's progress (API.md section 8): a bar on a terminal, plain lines otherwise.
function capture(isTTY: boolean) {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { isTTY, columns: 120, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return { stream, text: () => text };
}

// No database in it: once, in the SQLite half.
describe.runIf(process.env.TEST_PROVIDER !== 'postgresql')('import progress', () => {
  it('prints a plain line with rows, total and rows/s when stderr is not a terminal', () => {
    const out = capture(false);
    const progress = importProgress(2_000_000, out.stream, 0);
    progress.update(1_000);
    progress.update(2_000);
    progress.stop();
    const lines = out.text().trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^imported 2,000 of about 2,000,000 rows \([\d,]+ rows\/s\)$/);
  });

  it('prints nothing more often than its interval', () => {
    const out = capture(false);
    const progress = importProgress(10, out.stream, 60_000);
    progress.update(5);
    expect(out.text()).toBe('');
  });

  it('draws a bar with rows, rows/s and time left on a terminal', () => {
    const out = capture(true);
    const progress = importProgress(1_000, out.stream);
    progress.update(500);
    progress.stop();
    expect(out.text()).toMatch(/importing \[[^\]]+\] 500\/1000 rows \| \d+ rows\/s \| .+ left/);
  });
});
