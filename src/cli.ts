import { runCommandLine } from './command-line.js';

// The command line's process: its arguments, environment and streams (src/command-line.ts runs the command).
process.exit(await runCommandLine(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }));
