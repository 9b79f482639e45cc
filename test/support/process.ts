import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * The service and the command line run as `npm start` runs them: the compiled
 * `build/` (the global setup brings it up to date with the sources first), one
 * plain Node process each, with no TypeScript compiler starting up every time.
 */
const MAIN = 'build/main.js';
export const CLI = 'build/cli.js';

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** Everything printed so far, stdout and stderr. */
  output: () => string;
  /** What was printed on stdout so far (the access log, the start and stop lines). */
  stdout: () => string;
  /** What was printed on stderr so far (error lines). */
  stderr: () => string;
  /** Resolves once stdout matches `pattern` (at once if it already does). */
  printed: (pattern: RegExp) => Promise<void>;
  /** SIGTERM, then the exit code once it has exited. */
  stop: () => Promise<number | null>;
}

/**
 * Starts the service as a real process (`build/main.js`) and waits for its "listening" line.
 * No drain delay at SIGTERM unless `env` asks for one (test/shutdown.test.ts does).
 */
export async function startProcess(env: Record<string, string>, options: { execArgv?: string[] } = {}): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...(options.execArgv ?? []), MAIN], { env: { ...process.env, HOST: '127.0.0.1', PORT: '0', DRAIN_DELAY_SECONDS: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      output += d;
      stdout += d;
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (d) => {
      output += d;
      stderr += d;
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  return {
    child,
    url,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    printed: (pattern) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!pattern.test(stdout)) return;
          child.stdout!.off('data', check);
          resolve();
        };
        child.stdout!.on('data', check);
        check();
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs the command line (`build/cli.js`) to its end: its exit code and what it printed. */
export async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}
