import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// src/v8-flags.ts keeps Prisma's WebAssembly query compiler on V8's baseline tier and
// the heap's growth at 30% (measured by `npm run bench`). V8 reads the WebAssembly flags
// when a module is compiled, so they must be set before anything else loads: first import.
describe('V8 flags', () => {
  it('are set by the first import of the service entry point', () => {
    const main = readFileSync(new URL('../src/main.ts', import.meta.url), 'utf8');
    const firstImport = /^import\s[^;]*;/m.exec(main)?.[0];
    expect(firstImport).toBe("import './v8-flags.js';");
    const flags = readFileSync(new URL('../src/v8-flags.ts', import.meta.url), 'utf8');
    expect([...flags.matchAll(/setFlagsFromString\('([^']+)'\)/g)].map((m) => m[1])).toEqual(['--no-wasm-tier-up', '--no-wasm-dynamic-tiering', '--heap-growing-percent=30']);
  });
});
