import { Presets, SingleBar } from 'cli-progress';

/** How often a progress line is printed when stderr is not a terminal. */
const LINE_EVERY_MS = 3000;

/**
 * An import's progress on stderr: a bar (rows, rows/s, time left) on a terminal, else a
 * line every few seconds. `expected` is an estimate (the file's lines less the header).
 */
export function importProgress(expected: number, stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr, lineEveryMs = LINE_EVERY_MS) {
  const started = performance.now();
  const rate = (rows: number) => Math.round(rows / Math.max(0.001, (performance.now() - started) / 1000));
  if (stream.isTTY) {
    const bar = new SingleBar({ stream, format: 'importing [{bar}] {value}/{total} rows | {rate} rows/s | {eta_formatted} left', etaBuffer: 20 }, Presets.shades_classic);
    bar.start(Math.max(expected, 1), 0, { rate: 0 });
    return {
      update: (rows: number) => bar.update(rows, { rate: rate(rows) }),
      stop: () => bar.stop(),
    };
  }
  let printed = started;
  return {
    update(rows: number) {
      if (performance.now() - printed < lineEveryMs) return;
      printed = performance.now();
      stream.write(`imported ${rows.toLocaleString('en-US')} of about ${expected.toLocaleString('en-US')} rows (${rate(rows).toLocaleString('en-US')} rows/s)\n`);
    },
    stop: () => {},
  };
}
