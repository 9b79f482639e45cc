import { Writable } from 'node:stream';
import { runCommandLine } from '../../src/command-line.js';

/**
 * Runs a command of the command line in this process, as `build/cli.js` runs it in its
 * own (the same function, arguments and environment): its exit code and what it printed.
 * Tests of what a command does use this and save a process start each; the few that are
 * about the process itself (stdout's exact bytes, a kill mid-import) use `runCli`.
 */
export async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (add: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        add(String(chunk));
        done();
      },
    });
  const code = await runCommandLine(args, { env: { ...process.env, ...env }, stdout: sink((t) => (stdout += t)), stderr: sink((t) => (stderr += t)) });
  return { code, stdout, stderr };
}
