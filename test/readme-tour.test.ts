import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startProcess } from './support/process.js';

// Issue 43: the README's tour works as pasted. Every shell block of its tour sections runs,
// in order, in one bash session (so `KEY=...` carries on), against the service started as
// `npm start` starts it on a fresh database, with the command line as `npm run --silent
// cli` runs it. A command that fails, or an answer without the first key the README shows
// for it, fails the test.

/** The tour's sections, in the README's order. */
const SECTIONS = ['Try it', 'Webhooks', 'Taking payments', 'Syncing', 'Importing and exporting', 'Live updates, search and reports', "A customer's whole story"];

interface Command {
  section: string;
  text: string;
  /** The README's comment right after it, when it shows an answer (`# {"data":...`). */
  shows?: string;
}

/** The commands of the tour's `sh` blocks: continuation lines joined, each with the answer the README shows. */
function tourCommands(readme: string): Command[] {
  const commands: Command[] = [];
  for (const section of SECTIONS) {
    const start = readme.indexOf(`\n## ${section}\n`);
    expect(start, section).toBeGreaterThan(-1);
    const end = readme.indexOf('\n## ', start + 1);
    const body = readme.slice(start, end === -1 ? undefined : end);
    for (const [, block] of body.matchAll(/```sh\n([\s\S]*?)```/g)) {
      let pending = '';
      for (const line of block!.split('\n')) {
        if (pending) {
          pending += `\n${line}`;
          if (!line.endsWith('\\')) commands.push({ section, text: pending }), (pending = '');
        } else if (line.startsWith('#')) {
          const last = commands.at(-1);
          if (last && last.section === section && last.shows === undefined && /^# \{/.test(line)) last.shows = line.slice(2);
        } else if (line.trim() && line.endsWith('\\')) pending = line;
        else if (line.trim()) commands.push({ section, text: line.replace(/\s+#.*$/, '') });
      }
    }
  }
  return commands;
}

let dir: string;
let service: ServiceProcess;
let receiver: Server;
const received: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sg-tour-'));
  // The README's local webhook receiver listens on port 4000.
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(`${req.headers['webhook-id']} ${body.slice(0, 60)}`);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve, reject) => receiver.once('error', reject).listen(4000, '127.0.0.1', resolve));
  service = await startProcess({ DATABASE_URL: `file:${join(dir, 'tour.db')}`, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn' });
}, 60_000);

afterAll(async () => {
  // The import section's files, written where the README's commands run (the checkout).
  for (const file of ['contacts.csv', 'rejected.csv']) rmSync(file, { force: true });
  await service?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the README's tour, as pasted", () => {
  it('runs every command of it with the answers it shows', { timeout: 180_000 }, async () => {
    const commands = tourCommands(readFileSync('README.md', 'utf8'));
    expect(commands.length).toBeGreaterThan(15);
    const DONE = '@@tour-done@@';
    const script: string[] = [
      // An HTTP error is a failure (the README's curls print the body either way).
      'curl() { command curl --fail-with-body --max-time 20 "$@"; }',
      `cd ${JSON.stringify(process.cwd())}`,
    ];
    const checked: Command[] = [];
    for (const command of commands) {
      let text = command.text.replaceAll('http://127.0.0.1:3000', service.url);
      // Said in the README: the first endpoint's host must resolve (this machine has no DNS); the local one follows it.
      if (text.includes('https://example.com/hooks/salesgraph')) continue;
      // A stream never ends by itself: two seconds of it, which ends curl with exit 28.
      if (text.startsWith('curl -N')) text = `${text} --max-time 2; [ $? -eq 28 ]`;
      script.push(`printf '%s\\n' ${JSON.stringify(`@@command ${checked.length}@@`)}`, `{ ${text}\n} 2>&1`, `echo "@@exit $?@@"`);
      checked.push(command);
    }
    script.push(`echo ${DONE}`);
    const { stdout } = await promisify(execFile)('bash', ['-c', script.join('\n')], {
      env: { ...process.env, DATABASE_URL: `file:${join(dir, 'tour.db')}`, PORT: new URL(service.url).port },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 170_000,
    });
    expect(stdout.trimEnd().endsWith(DONE)).toBe(true);
    const outputs = stdout.split(/^@@command \d+@@\n/m).slice(1);
    expect(outputs.length).toBe(checked.length);
    for (const [i, output] of outputs.entries()) {
      const { text, shows } = checked[i]!;
      const [, body, code] = /^([\s\S]*?)@@exit (\d+)@@/.exec(output)!;
      expect({ command: text, code: Number(code), output: Number(code) === 0 ? '' : body }).toEqual({ command: text, code: 0, output: '' });
      // The answer has the first key the README shows for it.
      const firstKey = shows && /^\{"(\w+)"/.exec(shows)?.[1];
      if (firstKey) expect({ command: text, keys: Object.keys(JSON.parse(body!)) }).toEqual({ command: text, keys: expect.arrayContaining([firstKey]) });
    }
    // The search finds what the README shows it finding.
    const searched = outputs.find((_, i) => checked[i]!.text.includes('/api/v1/search?q=ana%20silva'))!;
    expect(JSON.parse(searched.split('@@exit')[0]!).data.slice(0, 2).map((hit: { type: string; title: string }) => [hit.type, hit.title])).toEqual([
      ['contacts', 'Ana Silva'],
      ['deals', 'Ana Silva: Brazil agency'],
    ]);
    // The checkout was made on the demo link the README's TOKEN line found.
    const checkout = outputs.find((_, i) => checked[i]!.text.includes('/checkouts -H'))!;
    expect(JSON.parse(checkout.split('@@exit')[0]!)).toMatchObject({ status: 'pending', installments: 6, next_action: { type: 'redirect' } });
    // The import's summary is the README's.
    const imported = outputs.find((_, i) => checked[i]!.text.includes('cli -- import contacts'))!;
    expect(imported).toContain('created 0, updated 30, rejected 0');
    // The local receiver was subscribed to contact.*: the import's updates reached it, signed.
    await expect.poll(() => received.length, { timeout: 30_000 }).toBeGreaterThan(0);
  });
});
