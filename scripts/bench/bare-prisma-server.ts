// The floor the benchmark compares the service with: node:http and the project's own
// Prisma client (openDatabase), no GraphQL, no key lookup, no middleware. It answers
// GET /api/v1/products/{id} and GET /api/v1/products?page=N with the service's JSON.
//   DATABASE_URL=... BENCH_API_KEY=sg_... BENCH_WORKSPACE_ID=... PORT=0 tsx scripts/bench/bare-prisma-server.ts
import { type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '../../src/db/client.js';
import { resolveDatabase } from '../../src/db/database-url.js';

const key = process.env.BENCH_API_KEY;
const workspaceId = process.env.BENCH_WORKSPACE_ID;
if (!key || !workspaceId) throw new Error('BENCH_API_KEY and BENCH_WORKSPACE_ID are required');

const { prisma, close } = await openDatabase(resolveDatabase(process.env.DATABASE_URL));

const select = {
  id: true, name: true, sku: true, type: true, description: true, price: true, cost: true,
  currency: true, unit: true, taxRate: true, isActive: true, createdAt: true, updatedAt: true,
} as const;
type Decimal = { toString(): string };
interface Row {
  id: string; name: string; sku: string | null; type: string; description: string | null;
  price: Decimal; cost: Decimal | null; currency: string; unit: string; taxRate: Decimal | null;
  isActive: boolean; createdAt: Date; updatedAt: Date;
}
const decimal = (d: Decimal | null) => (d === null ? null : Number(d.toString()));
// The service's REST body: the GraphQL field names in snake_case, Decimal as a JSON number.
const product = (p: Row) => ({
  id: p.id, name: p.name, sku: p.sku, type: p.type, description: p.description,
  price: decimal(p.price), cost: decimal(p.cost), currency: p.currency, unit: p.unit,
  tax_rate: decimal(p.taxRate), is_active: p.isActive,
  created_at: p.createdAt.toISOString(), updated_at: p.updatedAt.toISOString(),
});

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};

const PER_PAGE = 15;
const server = createServer(async (req, res) => {
  try {
    if (req.headers['x-api-key'] !== key) return send(res, 401, { message: 'Unauthenticated.' });
    const url = new URL(req.url ?? '/', 'http://bare');
    const byId = /^\/api\/v1\/products\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && byId) {
      const row = await prisma.product.findUnique({ where: { id: decodeURIComponent(byId[1]!), workspaceId }, select });
      return row ? send(res, 200, product(row)) : send(res, 404, { message: 'Not found.' });
    }
    if (req.method === 'GET' && url.pathname === '/api/v1/products') {
      const page = Math.max(1, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1);
      const where = { workspaceId };
      const [total, rows] = await Promise.all([
        prisma.product.count({ where }),
        prisma.product.findMany({ where, select, orderBy: { id: 'asc' }, skip: (page - 1) * PER_PAGE, take: PER_PAGE }),
      ]);
      return send(res, 200, { current_page: page, per_page: PER_PAGE, total, last_page: Math.max(1, Math.ceil(total / PER_PAGE)), data: rows.map(product) });
    }
    send(res, 404, { message: 'Not found.' });
  } catch (error) {
    process.stderr.write(`bare server: ${(error as Error).stack}\n`);
    send(res, 500, { message: 'Server error.' });
  }
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address() as AddressInfo;
  process.stdout.write(`bare-prisma listening on http://${address}:${port}\n`);
});

const stop = () => {
  server.close(() => void close().then(() => process.exit(0)));
  server.closeIdleConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
