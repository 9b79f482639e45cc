import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';

const TSX = 'node_modules/.bin/tsx';

export interface ServerProcess {
  label: string;
  child: ChildProcess;
  url: string;
  /** The process that serves (not tsx's launcher); with WEB_CONCURRENCY > 1, the cluster primary. */
  pid: number;
  /** Everything it printed (stdout and stderr), for error messages. */
  output(): string;
  /** CPU seconds (user + system, all threads) of the processes that serve, added up. */
  cpuSeconds(): number;
  /** Resident memory of the processes that serve, added up (tsx starts the script as a child of its launcher). */
  rssBytes(): number;
  /** SIGTERM, then SIGKILL after a grace period; resolves once it has exited. */
  stop(): Promise<void>;
  /** SIGKILL to it and everything under it, synchronously (the last resort on exit). */
  killNow(): void;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone
  }
}

/** The pid and all its descendants, parents first. */
function processTree(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(Number(name));
    if (fields) parentOf.set(Number(name), Number(fields[1])); // field 4, ppid
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i += 1) {
    for (const [pid, ppid] of parentOf) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

const NODE = realpathSync(process.execPath);
const isNode = (pid: number) => {
  try {
    return readlinkSync(`/proc/${pid}/exe`) === NODE;
  } catch {
    return false;
  }
};

function cpuTicks(pid: number): number {
  const fields = statFields(pid);
  return fields ? Number(fields[11]) + Number(fields[12]) : 0; // fields 14 and 15, utime and stime
}

function rssBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Starts `node <script>` (compiled JavaScript, as `npm start` serves) or `tsx <script>`
 * (TypeScript) with the environment given and waits for its "listening on <url>" line.
 * Its output is kept (and its stderr echoed, prefixed) so a failure can be told.
 */
export async function startServer(label: string, script: string, env: Record<string, string>): Promise<ServerProcess> {
  // BENCH_CPU_PROF=<folder>: the compiled service writes a V8 CPU profile there when it exits (node --cpu-prof).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const [command, args] = script.endsWith('.js') ? [process.execPath, [...profile, script]] : [TSX, [script]];
  // Profiling: no drain delay, so that the process exits (and writes its profile) within stop()'s grace period.
  const drain = profile.length ? { DRAIN_DELAY_SECONDS: '0' } : {};
  const child = spawn(command, args, { env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env, ...drain }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-64 * 1024);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', (d: Buffer) => {
    keep(d);
    process.stderr.write(d.toString().replace(/^(?=.)/gm, `[${label}] `));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        child.stdout!.off('data', onData);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`${label} exited (${code ?? signal}) before listening:\n${output}`)));
    child.once('error', reject);
  });
  const pid = child.pid!;
  const killTree = (pids: number[]) => {
    for (const p of pids) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  // The serving processes: every node process under the launcher (tsx runs the script in a node
  // child, which with WEB_CONCURRENCY > 1 forks its workers; esbuild's service process sits
  // beside them), found once: the "listening" line comes when every worker listens.
  const underLauncher = processTree(pid).filter(isNode).slice(1);
  const serving = underLauncher.length ? underLauncher : [pid];
  const sum = (of: (pid: number) => number) => serving.reduce((total, p) => total + of(p), 0);
  return {
    label,
    child,
    url,
    output: () => output,
    cpuSeconds: () => sum(cpuTicks) / CLOCK_TICKS,
    pid: serving[0]!,
    rssBytes: () => sum(rssBytes),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const pids = processTree(pid);
      child.kill('SIGTERM');
      const killed = setTimeout(() => killTree(pids), 5000);
      await exited;
      clearTimeout(killed);
    },
    killNow() {
      if (child.exitCode === null && child.signalCode === null) killTree(processTree(pid));
    },
  };
}

/** The service as `npm start` serves it: src/ compiled to build/ (incrementally), then run by node. */
export function buildService(): string {
  execFileSync('node_modules/.bin/tsc', ['-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  return 'build/main.js';
}
