/** The access-log lines (JSON, on stdout) written by this process while `fn` runs. */
export async function logged(fn: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => (String(chunk).includes('"duration_ms"') ? lines.push(String(chunk)) : write(chunk), true)) as typeof process.stdout.write;
  try {
    await fn();
  } finally {
    process.stdout.write = write;
  }
  return lines.map((line) => JSON.parse(line));
}
