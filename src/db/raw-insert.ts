import type { Db } from './client.js';

/** Rows per statement: far below SQLite's 32,766 bound variables for any of our tables. */
const ROWS_PER_STATEMENT = 500;

/**
 * `INSERT INTO "<table>" (columns) VALUES (...), (...)` as bound raw SQL, in as few
 * statements as the rows need. For the hot path's appends (events, deliveries): Prisma's
 * `createMany` compiles a query plan per call, which cost more CPU than the INSERT itself.
 * `table` and `columns` are ours, never a client's; every value is bound (Prisma writes
 * each database's placeholders, and Dates as each stores them). `conflict`: a clause
 * after the values (`ON CONFLICT ... DO UPDATE ...`), ours as well.
 */
export async function insertRows(db: Pick<Db, '$executeRaw'>, table: string, columns: readonly string[], rows: readonly (readonly unknown[])[], conflict = ''): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
    const strings: string[] = [];
    const values: unknown[] = [];
    let text = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES `;
    chunk.forEach((row, r) => {
      text += r === 0 ? '(' : '), (';
      row.forEach((value, c) => {
        if (c > 0) text += ', ';
        strings.push(text);
        values.push(value);
        text = '';
      });
    });
    strings.push(`${text})${conflict ? ` ${conflict}` : ''}`);
    await db.$executeRaw(Object.assign(strings, { raw: strings }) as unknown as TemplateStringsArray, ...values);
  }
}
