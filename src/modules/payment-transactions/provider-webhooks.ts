import type { Database } from '../../db/client.js';
import type { Represent } from '../../events/representation.js';
import { type CommitNotices, type Settings, createContext } from '../../graphql/context.js';
import type { RequestFacts } from '../../http/request-facts.js';
import { errorBody, json, readBody } from '../../http/responses.js';
import { logError } from '../../log.js';
import { remoteAccount } from '../../payments/providers.js';
import { recordProviderReports } from './provider-reports.js';

const BAD_SIGNATURE = 'Invalid webhook signature.';
const ID_SHAPE = /^[A-Za-z0-9]{1,64}$/;
/** The headers by which Stripe and Asaas sign; a request with neither is the test provider's scheme (or nobody's). */
const PROVIDER_HEADERS = ['stripe-signature', 'asaas-access-token'];

/**
 * POST /api/v1/provider-webhooks/{account_id} for real providers (API.md section 11):
 * verified by the account's provider on the raw bytes (Stripe's signature, Asaas's token)
 * before anything is parsed, then translated and recorded once per provider event id.
 * Every verified delivery answers 200, event types the service does not use and
 * re-deliveries included (Asaas counts nothing else as received). Requests in the test
 * provider's scheme go on to the public REST route (`undefined`).
 */
export function createProviderWebhooks(database: Database, represent: Represent, settings: Settings, commits?: CommitNotices) {
  const prisma = database.prisma;
  return async function receive(request: Request, facts: RequestFacts, accountId: string): Promise<Response | undefined> {
    if (!PROVIDER_HEADERS.some((h) => request.headers.has(h))) return undefined;
    facts.route = 'POST /api/v1/provider-webhooks/{accountId}';
    if (request.method !== 'POST') return json(405, errorBody('Method not allowed.'), { Allow: 'POST' });
    if (!ID_SHAPE.test(accountId)) return json(401, errorBody(BAD_SIGNATURE));
    const account = await prisma.paymentProviderAccount.findUnique({
      where: { id: accountId },
      select: { id: true, provider: true, sealedCredentials: true, workspace: { select: { id: true, defaultCurrency: true } } },
    });
    const remote = account ? remoteAccount(settings.payments, account) : undefined;
    if (!account || !remote) return undefined;
    const { adapter } = remote;
    let secrets;
    try {
      secrets = remote.credentials();
    } catch (error) {
      logError(facts.requestId, error, `webhook for payment provider account ${account.id}`);
      return json(401, errorBody(BAD_SIGNATURE));
    }
    const body = await readBody(request);
    if (!body.ok) return json(body.status, errorBody(body.message));
    if (!(await adapter.verifyWebhook(secrets, body.bytes, request.headers, new Date()))) return json(401, errorBody(BAD_SIGNATURE));
    facts.workspaceId = account.workspace.id;
    let reports;
    try {
      reports = adapter.translateWebhook(body.bytes);
    } catch {
      return json(400, errorBody('The body must be the provider\'s JSON event.'));
    }
    if (adapter.completeReports) {
      try {
        reports = await adapter.completeReports(secrets, reports, settings.payments.call);
      } catch (error) {
        // Nothing recorded (its receipt neither): the provider's next delivery of it is taken whole.
        logError(facts.requestId, error, `completing a webhook for payment provider account ${account.id}`);
        return json(503, errorBody('The provider could not be asked about this event; deliver it again.'), { 'Retry-After': '60' });
      }
    }
    const context = createContext(prisma, account.workspace, { type: 'provider', id: account.id }, { requestId: facts.requestId, origin: new URL(request.url).origin, settings, commits });
    const recorded = await recordProviderReports(context, represent, account.id, reports);
    return json(200, { received: true, recorded: recorded.filter((r) => r === 'recorded').length });
  };
}
