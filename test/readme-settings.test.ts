import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EnvSchema } from '../src/config.js';

/** The first column of README's "Running in production" table: one `VARIABLE` per row. */
function documentedVariables(): string[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = /^## Running in production\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  if (!section) throw new Error('README has no "## Running in production" section');
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return rows.map((row) => {
    const cell = row.split('|')[1]!.trim();
    const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(cell)?.[1];
    if (!name) throw new Error(`a row whose first cell is not one variable: ${cell}`);
    return name;
  });
}

describe('README "Running in production"', () => {
  it('lists exactly the environment variables config.ts reads, each once', () => {
    const documented = documentedVariables();
    expect(documented.length).toBe(new Set(documented).size);
    expect([...documented].sort()).toEqual(Object.keys(EnvSchema.shape).sort());
  });
});
