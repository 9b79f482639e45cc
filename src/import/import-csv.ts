import { createHash } from 'node:crypto';
import { type WriteStream, createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import { type DocumentNode, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode, parse as parseDocument } from 'graphql';
import { runOperation } from '../graphql/operations.js';
import type { Database } from '../db/client.js';
import { atomically, joinable } from '../db/locks.js';
import { newRow } from '../db/tenancy.js';
import { type CommitNotices, type Context, createContext } from '../graphql/context.js';
import { fieldErrorsOf } from '../graphql/batch.js';
import { renamed } from '../validation/messages.js';
import { activeDefinitions } from '../modules/property-definitions/properties.js';
import { existingWorkspace, noSuchWorkspace } from '../db/workspaces.js';
import { coerceVariables } from '../rest/coerce.js';
import type { RestRoute } from '../rest/route.js';
import { compileDocument } from '../rest/documents.js';
import { exportColumns } from '../rest/csv-export.js';
import { type ColumnTarget, type ImportSpec, planColumns, rowInput } from './columns.js';

/**
 * What each importable list writes (API.md section 8): contacts upsert by e-mail,
 * companies by domain and products by sku when the row has one, deals are created.
 * Writes run the GraphQL batch mutations, so every rule and event is the API's own.
 */
const RESOURCES = {
  contacts: { input: 'CreateContactInput', properties: 'contact', upsert: 'upsertContacts(inputs: $inputs) { created }' },
  companies: { input: 'CreateCompanyInput', matchBy: { field: 'domain', model: 'company', normalize: (v: string) => v.trim().toLowerCase() }, create: 'createCompanies', update: ['updateCompanies', 'UpdateCompaniesItem'] },
  products: { input: 'CreateProductInput', matchBy: { field: 'sku', model: 'product', normalize: (v: string) => v.trim() }, create: 'createProducts', update: ['updateProducts', 'UpdateProductsItem'] },
  deals: { input: 'CreateDealInput', properties: 'deal', create: 'createDeals', renamed: { 'stage.external_id': 'deal_stage_external_id', 'user.id': 'user_id' } },
} as const;

export type ImportResource = keyof typeof RESOURCES;
export const IMPORT_RESOURCES = Object.keys(RESOURCES) as ImportResource[];

/** Rows a transaction commits, at most (API.md); the mutations take them 100 at a time. */
export const ROWS_PER_TRANSACTION = 1000;
const ITEMS_PER_MUTATION = 100;

export interface ImportOptions {
  resource: ImportResource;
  file: string;
  workspace: string;
  dryRun: boolean;
  /** Where the rejected rows go (CSV: line, reasons, then the row's cells). */
  report?: string;
  /** The file's `scanFile`, when the caller has it already (the file is read once for it, not twice). */
  scanned?: { hash: string; lines: number };
  /** Called after each committed transaction with the rows read so far. */
  progress?: (rowsRead: number) => void;
  /** Told each committed transaction's events (the command line's, publishing to Redis when REDIS_URL is set). */
  commits?: CommitNotices;
}

export interface ImportSummary {
  created: number;
  updated: number;
  rejected: number;
  /** Rows an earlier run of the same file committed: not written again (rows it rejected are read again). */
  skipped: number;
}

/** An import refused before anything was written (exit 2): a file it cannot read, a workspace that does not exist. */
export class UnreadableImport extends Error {}

interface Row {
  /** Its place among the data rows: 1 is the first after the header. */
  index: number;
  line: number;
  cells: string[];
  input: Record<string, unknown>;
  reasons?: string[];
}

/** The file's SHA-256 and line count (for the progress bar's total), in one streamed pass. */
export async function scanFile(file: string): Promise<{ hash: string; lines: number }> {
  const hash = createHash('sha256');
  let lines = 0;
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    }
  } catch (error) {
    throw new UnreadableImport(`Cannot read ${file}: ${(error as Error).message}`);
  }
  return { hash: hash.digest('hex'), lines };
}

/** Thrown inside a dry run's transaction so that it rolls back. */
class DryRun extends Error {}

export async function importCsv(database: Database, schema: GraphQLSchema, routes: RestRoute[], options: ImportOptions): Promise<ImportSummary> {
  const definition = RESOURCES[options.resource];
  const { hash } = options.scanned ?? (await scanFile(options.file));
  const workspace = await existingWorkspace(database.prisma, options.workspace);
  if (!workspace) throw new UnreadableImport(noSuchWorkspace(options.workspace));
  const context = createContext(database.prisma, { id: workspace.id, defaultCurrency: workspace.defaultCurrency }, { type: 'cli' }, { commits: options.commits });
  if (database.target.provider === 'sqlite') {
    // A long import walks indexes far larger than SQLite's default 2 MB page cache: 64 MB
    // for this process's writes (the service keeps its default, and its memory).
    await database.prisma.$executeRawUnsafe('PRAGMA cache_size = -65536');
  }
  const spec = importSpec(schema, routes, options.resource);
  const propertyTypes = new Map<string, string>();
  if ('properties' in definition) for (const [key, { type }] of await activeDefinitions(context, definition.properties)) propertyTypes.set(key, type);
  const checkpoint = options.dryRun ? null : await context.db.importCheckpoint.findFirst({ where: { resource: options.resource, fileHash: hash } });
  const earlier: EarlierRuns = { rowsDone: checkpoint?.rowsDone ?? 0, rejected: new Set(checkpoint ? (JSON.parse(checkpoint.rejectedRows) as number[]) : []) };
  // The rows this run rejected, in the transactions committed so far (each checkpoint keeps them).
  const rejectedBefore: number[] = [];
  const summary: ImportSummary = { created: 0, updated: 0, rejected: 0, skipped: 0 };
  // The report is written from the first rejected row on: a run that rejects none (or
  // stops before reading a row) leaves no file behind.
  const report: { header: string[]; stream?: WriteStream } = { header: [] };
  const reportRow = (cells: string[]) => {
    if (!options.report) return;
    if (!report.stream) {
      report.stream = createWriteStream(options.report);
      report.stream.write(stringify([report.header], { record_delimiter: '\r\n' }));
    }
    report.stream.write(stringify([cells], { record_delimiter: '\r\n' }));
  };
  const writer = new BatchWriter(schema, options.resource);

  let header: string[] | undefined;
  let targets: ColumnTarget[] = [];
  let chunk: Row[] = [];
  let rowsRead = 0;
  let nextLine = 2;

  // One transaction at a time: a workspace's writes take turns from their events to their
  // commit (src/events/outbox.ts: the event ids in commit order), so a second one in flight
  // would only queue, and one that got the turn first would wait for ever for the one
  // before it to commit (seen: a rerun's first transaction ended by its timeout, exit 2).
  // Each commits after the one before, so the checkpoint only ever moves forward.
  const commit = async () => {
    if (chunk.length === 0) return;
    const rows = chunk;
    chunk = [];
    const counts = await writeChunk(context, writer, rows, { resource: options.resource, hash, rowsRead, earlier, rejectedBefore, dryRun: options.dryRun });
    for (const row of rows) if (row.reasons) rejectedBefore.push(row.index);
    summary.created += counts.created;
    summary.updated += counts.updated;
    for (const row of rows.filter((r) => r.reasons)) {
      summary.rejected += 1;
      // A short row is padded, so the report stays a table a spreadsheet opens.
      const cells = [...row.cells, ...Array<string>(Math.max(0, (header?.length ?? 0) - row.cells.length)).fill('')];
      reportRow([String(row.line), row.reasons!.join(' '), ...cells]);
    }
    options.progress?.(rowsRead);
  };


  const parser = createReadStream(options.file).pipe(parse({ bom: true, relax_column_count: true, info: true, skip_empty_lines: true }));
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const line = nextLine;
      nextLine = info.lines + 1;
      if (!header) {
        header = record;
        const plan = planColumns(schema, spec, header, propertyTypes);
        if ('unknown' in plan) {
          const problems = [...(plan.unknown.length ? [`unknown columns: ${plan.unknown.join(', ')}`] : []), ...(plan.repeated.length ? [`repeated columns: ${plan.repeated.join(', ')}`] : [])];
          throw new UnreadableImport(`${options.file}: ${problems.join('; ')}. Nothing was written.`);
        }
        targets = plan.targets;
        report.header = ['line', 'reasons', ...header];
        continue;
      }
      rowsRead += 1;
      if (rowsRead <= earlier.rowsDone && !earlier.rejected.has(rowsRead)) {
        summary.skipped += 1;
        continue;
      }
      const row: Row = { index: rowsRead, line, cells: record, input: rowInput(targets, record) };
      if (record.length !== header.length) row.reasons = [`The row has ${record.length} cells; the header has ${header.length}.`];
      chunk.push(row);
      if (chunk.length >= ROWS_PER_TRANSACTION) await commit();
    }
    if (!header) throw new UnreadableImport(`${options.file}: no header row.`);
    await commit();
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('CSV_')) throw new UnreadableImport(`${options.file}: not readable as CSV: ${(error as Error).message}`);
    throw error;
  } finally {
    if (report.stream) {
      report.stream.end();
      await once(report.stream, 'close');
    }
  }
  return summary;
}

/** The columns an export of the list has (all of them known to an import), and the write's own. */
function importSpec(schema: GraphQLSchema, routes: RestRoute[], resource: ImportResource): ImportSpec {
  const route = routes.find((r) => r.csv && r.path === `/${resource}/export`);
  if (!route) throw new Error(`import: no export route for ${resource}`);
  const compiled = compileDocument(schema, route.document, `GET ${route.path}`);
  const definition = RESOURCES[resource];
  return {
    input: definition.input,
    responseOnly: exportColumns(schema, compiled.document, compiled.operation).map((c) => c.header),
    renamed: 'renamed' in definition ? definition.renamed : undefined,
  };
}

/** What the checkpoint of earlier runs of the file says: rows up to `rowsDone` were read, and those in `rejected` not taken. */
interface EarlierRuns {
  rowsDone: number;
  rejected: Set<number>;
}

/**
 * Writes one transaction's rows: each run of 100 through the batch mutation; the items
 * a mutation refuses are rejected with its reasons and the rest written again. The
 * checkpoint moves in the same transaction: the rows read so far (`rowsRead`), and
 * which of them were not taken (by this run, or by an earlier one and not read again yet),
 * so that a rerun reads exactly those again.
 */
async function writeChunk(
  ctx: Context,
  writer: BatchWriter,
  rows: Row[],
  at: { resource: ImportResource; hash: string; rowsRead: number; earlier: EarlierRuns; rejectedBefore: number[]; dryRun: boolean },
) {
  const counts = { created: 0, updated: 0 };
  const fresh = rows.map((r) => r.reasons);
  // What the mutations leave for after the commit (their events' announcement): this transaction's, not theirs.
  let committed: (() => void)[] = [];
  try {
    await atomically(ctx.db, async (tx) => {
      // A transaction that lost a race runs again from the start.
      counts.created = 0;
      counts.updated = 0;
      committed = [];
      rows.forEach((r, i) => (r.reasons = fresh[i]));
      const inner: Context = { ...ctx, db: joinable(tx) as Context['db'], afterCommit: (fn) => committed.push(fn) };
      const pending = rows.filter((r) => !r.reasons);
      for (let i = 0; i < pending.length; i += ITEMS_PER_MUTATION) {
        const done = await writer.write(inner, pending.slice(i, i + ITEMS_PER_MUTATION));
        counts.created += done.created;
        counts.updated += done.updated;
      }
      if (at.dryRun) throw new DryRun();
      const rejected = [...at.rejectedBefore, ...rows.filter((r) => r.reasons).map((r) => r.index), ...[...at.earlier.rejected].filter((n) => n > at.rowsRead)];
      const checkpoint = { rowsDone: Math.max(at.rowsRead, at.earlier.rowsDone), rejectedRows: JSON.stringify(rejected.sort((a, b) => a - b)) };
      await inner.db.importCheckpoint.upsert({
        where: { workspaceId_resource_fileHash: { workspaceId: ctx.workspace.id, resource: at.resource, fileHash: at.hash } },
        create: { ...newRow(ctx.workspace.id), resource: at.resource, fileHash: at.hash, ...checkpoint },
        update: checkpoint,
      });
    });
    for (const fn of committed) fn();
  } catch (error) {
    if (!(error instanceof DryRun)) throw error;
  }
  return counts;
}

/** The batch mutations of one list, run in-process as the REST adapter runs them. */
class BatchWriter {
  readonly #resource: ImportResource;
  // Documents of one mutation each, kept: runOperation compiles a document once.
  readonly #create?: DocumentNode;
  readonly #update?: DocumentNode;
  readonly #upsert?: DocumentNode;

  constructor(
    private readonly schema: GraphQLSchema,
    resource: ImportResource,
  ) {
    this.#resource = resource;
    const definition = RESOURCES[resource];
    if ('upsert' in definition) this.#upsert = parseDocument(`mutation ($inputs: [${definition.input}!]!) { ${definition.upsert} }`);
    if ('create' in definition) this.#create = parseDocument(`mutation ($inputs: [${definition.input}!]!) { ${definition.create}(inputs: $inputs) { id } }`);
    if ('update' in definition) this.#update = parseDocument(`mutation ($inputs: [${definition.update[1]}!]!) { ${definition.update[0]}(inputs: $inputs) { id } }`);
  }

  /**
   * Writes what it can of `rows`; the rows it cannot get their reasons. A row naming the
   * same record as an earlier one (its e-mail, domain or sku) goes in a later wave, so it
   * updates what the earlier row wrote, as it would in a later batch.
   */
  async write(ctx: Context, rows: Row[]): Promise<{ created: number; updated: number }> {
    const total = { created: 0, updated: 0 };
    for (const wave of waves(rows, (r) => this.#keyOf(r))) {
      const done = await this.#writeWave(ctx, wave);
      total.created += done.created;
      total.updated += done.updated;
    }
    return total;
  }

  /** The value a row is matched by (an upsert's e-mail; a domain or sku), normalized, if it has one. */
  #keyOf(row: Row): string | undefined {
    const definition = RESOURCES[this.#resource];
    const [field, normalize] = 'matchBy' in definition ? [definition.matchBy.field, definition.matchBy.normalize] : 'upsert' in definition ? ['email', (v: string) => v.trim().toLowerCase()] : [];
    const value = field ? row.input[field] : undefined;
    return typeof value === 'string' && value !== '' ? normalize!(value) : undefined;
  }

  async #writeWave(ctx: Context, rows: Row[]): Promise<{ created: number; updated: number }> {
    const definition = RESOURCES[this.#resource];
    if (this.#upsert) {
      const results = await this.#run(ctx, this.#upsert, rows, (r) => r.input);
      const created = results.filter((r) => (r as { created: boolean }).created).length;
      return { created, updated: results.length - created };
    }
    let updates: Row[] = [];
    let creates = rows;
    if ('matchBy' in definition) {
      const { field, model } = definition.matchBy;
      const keyOf = (r: Row) => this.#keyOf(r);
      const keys = [...new Set(rows.map(keyOf).filter((k): k is string => k !== undefined))];
      const found = keys.length ? await (ctx.db as any)[model].findMany({ where: { [field]: { in: keys } }, select: { id: true, [field]: true } }) : [];
      const idOf = new Map<string, string>(found.map((f: Record<string, string>) => [f[field], f.id]));
      updates = rows.filter((r) => idOf.has(keyOf(r) ?? ''));
      creates = rows.filter((r) => !updates.includes(r));
      const ids = new Map(updates.map((r) => [r, idOf.get(keyOf(r)!)!]));
      await this.#run(ctx, this.#update!, updates, (r) => ({ ...r.input, id: ids.get(r) }));
    }
    const created = await this.#run(ctx, this.#create!, creates, (r) => r.input);
    return { created: created.length, updated: updates.filter((r) => !r.reasons).length };
  }

  /** Runs `operation` on the rows' items until it takes them all; refused items' rows get their reasons. */
  async #run(ctx: Context, document: DocumentNode, rows: Row[], item: (r: Row) => Record<string, unknown>): Promise<unknown[]> {
    const operation = document.definitions[0] as OperationDefinitionNode;
    let pending = rows.filter((r) => !r.reasons);
    while (pending.length > 0) {
      const { variables, errors: typeErrors } = coerceVariables(this.schema, operation, { inputs: pending.map(item) }, 'body');
      const context: Context = { ...ctx, inputTypeErrors: Object.keys(typeErrors).length ? typeErrors : undefined };
      const result = await runOperation(this.schema, document, variables, context);
      if (result.ok) return Object.values(result.data as Record<string, unknown[]>)[0]!;
      const refused = result.status === 422 && result.error ? itemErrors(result.error) : {};
      const rejected = new Set(Object.keys(refused).map(Number));
      if (rejected.size === 0) throw result.thrown;
      pending.forEach((r, i) => {
        if (rejected.has(i)) r.reasons = refused[i]!;
      });
      pending = pending.filter((r) => !r.reasons);
    }
    return [];
  }
}

/** The rows in runs where no key repeats: a row whose key an earlier row has goes one run later. */
function waves(rows: Row[], keyOf: (r: Row) => string | undefined): Row[][] {
  const out: Row[][] = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    const key = keyOf(row);
    const wave = key === undefined ? 0 : (seen.get(key) ?? -1) + 1;
    if (key !== undefined) seen.set(key, wave);
    (out[wave] ??= []).push(row);
  }
  return out.filter(Boolean);
}

/** A batch's 422 as reasons per item index (`inputs.3.email` → item 3: "email: ..."); empty for any other error. */
function itemErrors(error: GraphQLError): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const [key, reasons] of Object.entries(fieldErrorsOf(error) ?? {})) {
    const match = /^inputs\.(\d+)(?:\.(.+))?$/.exec(key);
    if (!match) return {};
    // A row's reasons name its columns: "The inputs.3.first_name field" reads "The first name field".
    (out[Number(match[1])] ??= []).push(...reasons.map((r) => renamed(r, key, match[2] ?? 'row')));
  }
  return out;
}
