import type { Db } from '../db/client.js';
import { isUniqueViolation } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { searchText } from '../db/search.js';
import type { Prisma } from '../generated/sqlite/client.js';
import { saveEvents } from '../events/outbox.js';
import type { Represent } from '../events/representation.js';
import { EventRecorder } from '../events/recorder.js';
import { createContext } from '../graphql/context.js';
import { newPublicToken } from '../modules/payment-links/public-token.js';
import { contactDerivedColumns } from '../modules/contacts/contacts.input.js';
import { companyKeys } from '../modules/duplicates/keys.js';
import { workspaceNamed } from '../db/workspaces.js';

/**
 * A realistic, fixed demo data set (no randomness but ids and public tokens), loaded
 * with Prisma in one transaction. Rows refer to each other by readable keys (a user's
 * or contact's first name, a product's SKU, a company's domain label) that the loader
 * resolves; a typo fails the whole load, which then leaves nothing behind.
 */

type Tx = Prisma.TransactionClient;

// --- The team, and the custom properties -------------------------------------------

/** [name, e-mail]. The first e-mail also marks a workspace as holding the demo (see loadDemo). */
const USERS: [string, string][] = [
  ['Maya Chen', 'maya.chen@brightline.example'],
  ['Daniel Okafor', 'daniel.okafor@brightline.example'],
  ['Sofia Rossi', 'sofia.rossi@brightline.example'],
  ['Liam Walsh', 'liam.walsh@brightline.example'],
];
const MARKER_EMAIL = USERS[0]![1];

/** [object, key, label, type, options]. */
const PROPERTY_DEFINITIONS: [string, string, string, string, string[]][] = [
  ['contact', 'tier', 'Customer tier', 'enum', ['bronze', 'silver', 'gold']],
  ['contact', 'newsletter', 'Newsletter opt-in', 'boolean', []],
  ['deal', 'source', 'Lead source', 'string', []],
  ['deal', 'seats', 'Seats', 'number', []],
];

// --- Companies and contacts --------------------------------------------------------

/** [key, name, notes]; the domain is `<key>.example`. */
const COMPANIES: [string, string, string | null][] = [
  ['harborpine', 'Harbor & Pine Logistics', 'Regional freight forwarder, 14 depots.'],
  ['nimbushealth', 'Nimbus Health', 'Network of outpatient clinics.'],
  ['copperleaf', 'Copperleaf Coffee Co.', null],
  ['vantagerobotics', 'Vantage Robotics', 'Warehouse automation; field sales team of 50.'],
  ['bluefin', 'Bluefin Analytics', null],
  ['sakurafoods', 'Sakura Foods K.K.', 'Tokyo-based food distributor; invoices in JPY.'],
  ['rheinwerk', 'Rheinwerk GmbH', 'Industrial supplies, Cologne; invoices in EUR.'],
  ['lumenarch', 'Lumen Architects', null],
];

type Tier = 'bronze' | 'silver' | 'gold' | null;
/** [first name (unique: deals refer to contacts by it), last name, company keys, tier, newsletter]; no company: mail.example. */
const CONTACTS: [string, string | null, string[], Tier, boolean | null][] = [
  ['Jordan', 'Lee', ['harborpine'], 'gold', true],
  ['Aisha', 'Patel', ['harborpine'], 'silver', false],
  ['Marcus', 'Brennan', ['harborpine'], null, null],
  ['Elena', 'Vasquez', ['nimbushealth'], 'gold', true],
  ['Tom', 'Becker', ['nimbushealth'], 'bronze', true],
  ['Grace', 'Kim', ['copperleaf'], 'silver', true],
  ['Noah', 'Fischer', ['copperleaf'], 'bronze', false],
  ['Isabel', 'Moreno', ['copperleaf'], null, true],
  ['Ravi', 'Shah', ['vantagerobotics'], 'gold', false],
  ['Chloe', 'Dubois', ['vantagerobotics'], 'silver', true],
  ['Ethan', 'Brooks', ['bluefin'], 'silver', true],
  ['Zara', 'Ahmed', ['bluefin'], 'gold', true],
  ['Felix', 'Wagner', ['bluefin'], null, null],
  ['Hiroshi', 'Tanaka', ['sakurafoods'], 'gold', false],
  ['Yuki', 'Sato', ['sakurafoods'], 'silver', true],
  ['Katrin', 'Hoffmann', ['rheinwerk'], 'gold', true],
  ['Lukas', 'Meyer', ['rheinwerk'], 'bronze', false],
  ['Olivia', 'Grant', ['lumenarch'], 'silver', true],
  ['Samuel', 'Ortiz', ['lumenarch'], 'bronze', true],
  ['Renata', 'Alves', ['lumenarch', 'copperleaf'], 'gold', true],
  ['Owen', 'Fletcher', [], 'bronze', false],
  ['Hannah', 'Novak', [], 'silver', true],
  ['Mateo', 'Rojas', [], null, true],
  ['Priya', 'Raman', [], 'bronze', null],
  ['Caleb', 'Turner', [], null, false],
  ['Nadia', 'Petrova', [], 'silver', true],
  ['Benjamin', 'Cole', [], 'bronze', false],
  ['Leah', 'Goldberg', [], null, null],
  ['Ana', 'Silva', [], 'silver', true],
  ['Kai', null, [], 'gold', true],
];
const contactEmail = ([first, last, companies]: (typeof CONTACTS)[number]) =>
  `${[first, last].filter(Boolean).join('.').toLowerCase()}@${companies[0] ?? 'mail'}.example`;

// --- Products ----------------------------------------------------------------------

/** [name, sku, type, price, cost, currency, unit, tax rate, description]. */
const PRODUCTS: [string, string, string, number, number | null, string, string, number | null, string][] = [
  ['Onboarding workshop', 'SRV-ONBOARD', 'service', 1500, null, 'USD', 'session', null, 'A half-day remote workshop: pipelines, properties and the first import.'],
  ['Pro plan (monthly)', 'SUB-PRO-M', 'service', 49, null, 'USD', 'seat/month', null, 'Unlimited contacts and deals, API access.'],
  ['Analytics add-on', 'SUB-ANALYTICS', 'service', 19.99, null, 'USD', 'seat/month', null, 'Forecasts and win-rate reports.'],
  ['Barcode scanner BX-200', 'HW-BX200', 'product', 129, 74.25, 'USD', 'piece', 8.25, 'Bluetooth scanner for stock counts.'],
  ['Hardware starter kit (EU)', 'HW-KIT-EU', 'product', 320.5, 182.4, 'EUR', 'kit', 19, 'Two scanners, a dock and a label printer, EU plugs.'],
  ['Tokyo sales workshop seat', 'EVT-TOKYO', 'service', 45000, null, 'JPY', 'seat', 10, 'One seat at the full-day workshop in Tokyo.'],
];

// --- Pipelines, stages and deals ---------------------------------------------------

/** [stage, deal name, estimated value, owner, expected close date, contacts, product SKUs, source, seats]. */
type DealRow = [string, string, number, string, string | null, string[], string[], string, number?];
interface PipelineData {
  name: string;
  description: string;
  /** [name, color, probability]; `order` is the index. */
  stages: [string, string, number][];
  deals: DealRow[];
}

const PIPELINES: PipelineData[] = [
  {
    name: 'New business',
    description: 'Inbound and outbound sales to new customers.',
    stages: [['Lead', '#9CA3AF', 10], ['Qualified', '#60A5FA', 25], ['Demo', '#A78BFA', 40], ['Proposal', '#F59E0B', 60], ['Won', '#10B981', 100], ['Lost', '#EF4444', 0]],
    deals: [
      ['Lead', 'Harbor & Pine: scanner fleet', 25800, 'Liam', '2027-03-31', ['Marcus'], ['HW-BX200'], 'outbound', 200],
      ['Lead', 'Owen Fletcher: solo plan', 588, 'Sofia', null, ['Owen'], ['SUB-PRO-M'], 'website', 1],
      ['Lead', 'Mateo Rojas: agency pilot', 2940, 'Daniel', '2027-02-26', ['Mateo'], ['SUB-PRO-M'], 'event', 5],
      ['Qualified', 'Copperleaf: POS rollout', 18400, 'Maya', '2027-02-15', ['Grace', 'Noah'], ['HW-BX200', 'SUB-PRO-M'], 'website', 40],
      ['Qualified', 'Nimbus Health: clinic CRM', 42000, 'Daniel', '2027-01-29', ['Elena'], ['SUB-PRO-M', 'SUB-ANALYTICS'], 'referral', 60],
      ['Demo', 'Vantage Robotics: field sales team', 35280, 'Sofia', '2027-01-15', ['Ravi', 'Chloe'], ['SUB-PRO-M', 'SRV-ONBOARD'], 'outbound', 55],
      ['Demo', 'Bluefin: analytics bundle', 16560.5, 'Liam', '2027-01-22', ['Zara'], ['SUB-ANALYTICS'], 'partner', 30],
      ['Demo', 'Priya Raman: consulting practice', 1176, 'Maya', null, ['Priya'], [], 'website', 2],
      ['Proposal', 'Lumen Architects: studio licences', 9408, 'Maya', '2026-12-18', ['Olivia', 'Renata'], ['SUB-PRO-M'], 'referral', 16],
      ['Proposal', 'Rheinwerk: warehouse onboarding', 28000, 'Daniel', '2026-12-31', ['Katrin'], ['SRV-ONBOARD'], 'event', 45],
      ['Won', 'Harbor & Pine: dispatch team', 14112, 'Liam', '2026-11-06', ['Jordan', 'Aisha'], ['SUB-PRO-M', 'SRV-ONBOARD'], 'outbound', 24],
      ['Won', 'Copperleaf: onboarding', 1500, 'Maya', '2026-10-30', ['Isabel'], ['SRV-ONBOARD'], 'website'],
      ['Won', 'Sakura Foods: Tokyo workshop', 12600, 'Sofia', '2026-11-13', ['Hiroshi'], [], 'event', 4],
      ['Lost', 'Benjamin Cole: freelancer plan', 588, 'Daniel', '2026-10-16', ['Benjamin'], ['SUB-PRO-M'], 'website', 1],
      ['Lost', 'Nimbus Health: scanners', 6450, 'Liam', '2026-11-02', ['Tom'], ['HW-BX200'], 'outbound', 50],
    ],
  },
  {
    name: 'Renewals',
    description: 'Customers whose yearly contract comes up for renewal.',
    stages: [['Upcoming', '#9CA3AF', 50], ['In discussion', '#F59E0B', 70], ['Renewed', '#10B981', 100], ['Churned', '#EF4444', 0]],
    deals: [
      ['Upcoming', 'Bluefin Analytics: 2027 renewal', 21168, 'Sofia', '2027-02-01', ['Ethan'], ['SUB-PRO-M', 'SUB-ANALYTICS'], 'renewal', 30],
      ['Upcoming', 'Lumen Architects: 2027 renewal', 4704, 'Maya', '2027-03-01', ['Samuel'], ['SUB-PRO-M'], 'renewal', 8],
      ['In discussion', 'Harbor & Pine: seat expansion', 11760, 'Liam', '2026-12-15', ['Jordan'], ['SUB-PRO-M'], 'renewal', 20],
      ['In discussion', 'Vantage Robotics: analytics upsell', 4796.75, 'Sofia', '2026-12-20', ['Chloe'], ['SUB-ANALYTICS'], 'renewal', 20],
      ['In discussion', 'Hannah Novak: annual plan', 588, 'Daniel', '2026-12-05', ['Hannah'], ['SUB-PRO-M'], 'renewal', 1],
      ['Renewed', 'Nimbus Health: 2026 renewal', 28224, 'Daniel', '2026-09-30', ['Elena', 'Tom'], ['SUB-PRO-M'], 'renewal', 48],
      ['Renewed', 'Copperleaf: 2026 renewal', 7056, 'Maya', '2026-10-15', ['Grace'], ['SUB-PRO-M'], 'renewal', 12],
      ['Churned', 'Caleb Turner: solo plan', 588, 'Sofia', '2026-08-31', ['Caleb'], ['SUB-PRO-M'], 'renewal', 1],
      ['Churned', 'Leah Goldberg: team plan', 2352, 'Liam', '2026-09-15', ['Leah'], ['SUB-PRO-M'], 'renewal', 4],
    ],
  },
  {
    name: 'Partnerships',
    description: 'Resellers, referral partners and integrations.',
    stages: [['Identified', '#9CA3AF', 10], ['Intro call', '#60A5FA', 30], ['Pilot', '#A78BFA', 60], ['Signed', '#10B981', 100], ['Dropped', '#EF4444', 0]],
    deals: [
      ['Identified', 'Rheinwerk: EU reseller', 60000, 'Daniel', '2027-06-30', ['Lukas'], [], 'partner'],
      ['Identified', 'Nadia Petrova: implementation partner', 15000, 'Maya', null, ['Nadia'], [], 'partner'],
      ['Intro call', 'Sakura Foods: Japan distribution', 80000, 'Sofia', '2027-05-31', ['Yuki'], [], 'event'],
      ['Intro call', 'Renata Alves: referral agreement', 8000, 'Maya', '2027-01-31', ['Renata'], [], 'referral'],
      ['Pilot', 'Bluefin: data connector pilot', 24000, 'Liam', '2027-03-15', ['Felix', 'Zara'], ['SUB-ANALYTICS'], 'partner', 10],
      ['Pilot', 'Ana Silva: Brazil agency', 12000, 'Daniel', '2027-02-28', ['Ana'], ['SRV-ONBOARD'], 'partner'],
      ['Pilot', 'Vantage Robotics: hardware bundle', 30000, 'Sofia', '2027-04-30', ['Ravi'], ['HW-BX200'], 'partner', 100],
      ['Signed', 'Kai: certified onboarding partner', 5000, 'Maya', '2026-10-01', ['Kai'], ['SRV-ONBOARD'], 'partner'],
      ['Signed', 'Lumen Architects: co-marketing', 3000, 'Liam', '2026-11-20', ['Olivia'], [], 'partner'],
      ['Dropped', 'Mateo Rojas: white-label', 9000, 'Daniel', '2026-09-30', ['Mateo'], [], 'partner'],
      ['Dropped', 'Isabel Moreno: cafe franchise network', 20000, 'Liam', '2026-10-20', ['Isabel'], [], 'event'],
    ],
  },
];

// --- Tasks and tickets -------------------------------------------------------------

/** [title, priority, done, due date, owners, assignees]; `position` is the index + 1. */
const TASKS: [string, string, boolean, string | null, string[], string[]][] = [
  ['Send Copperleaf the POS rollout proposal', 'high', false, '2026-11-27', ['Maya'], ['Maya']],
  ['Prepare the Nimbus Health security questionnaire', 'urgent', false, '2026-11-25', ['Daniel'], ['Daniel', 'Sofia']],
  ['Book the demo room for Vantage Robotics', 'normal', true, '2026-11-18', ['Sofia'], ['Liam']],
  ['Follow up on Bluefin renewal pricing', 'high', false, '2026-12-02', ['Sofia'], ['Sofia']],
  ['Ship scanner samples to Harbor & Pine', 'normal', false, '2026-12-04', ['Liam'], ['Liam']],
  ['Translate the onboarding deck into Japanese', 'low', false, '2027-01-08', ['Sofia'], ['Maya']],
  ['Update the EUR price list for Rheinwerk', 'normal', true, '2026-11-10', ['Daniel'], ['Daniel']],
  ['Review lost deals from Q3', 'low', true, '2026-10-30', ['Maya'], ['Maya', 'Daniel', 'Sofia', 'Liam']],
  ['Rotate the Stripe webhook signing secret', 'urgent', false, '2026-11-24', ['Liam'], ['Daniel']],
  ['Draft Sakura Foods distribution terms', 'high', false, '2026-12-11', ['Sofia', 'Maya'], ['Sofia']],
  ['Call Hannah Novak about the annual plan', 'normal', false, null, ['Daniel'], []],
  ['Merge duplicate contacts after the import', 'low', true, '2026-11-05', ['Maya'], ['Liam']],
];

/** [name, closed]; `order` is the index. */
const TICKET_STATUSES: [string, boolean][] = [
  ['Open', false],
  ['In progress', false],
  ['Waiting', false],
  ['Closed', true],
];

/** [status, title, description]; `position` counts from 1 within each status. */
const TICKETS: [string, string, string | null][] = [
  ['Open', 'Contacts CSV with semicolons does not import', 'Exported from Excel with a German locale.'],
  ['Open', 'Invoice shows the wrong VAT rate', 'Rheinwerk expects 19%, the PDF says 16%.'],
  ['Open', 'Payment page in Portuguese', null],
  ['Open', 'Scanner BX-200 does not pair over Bluetooth', 'Firmware 2.1 on Android 15.'],
  ['In progress', 'Payment link answers 404 after renaming', null],
  ['In progress', 'Webhook retries show twice in the history', 'Seen on three Stripe payments on 12 November.'],
  ['In progress', 'Bulk change of deal owners', 'Liam is taking over Daniel\'s renewals.'],
  ['In progress', 'Installments not offered at checkout', null],
  ['Waiting', 'Logo files from Lumen Architects', 'Needed for the co-marketing page.'],
  ['Waiting', 'Customer to confirm refund bank details', null],
  ['Waiting', 'Mercado Pago account verification', 'Documents sent on 20 November.'],
  ['Closed', 'Password reset link expired', null],
  ['Closed', 'Charged twice for the Pro plan', 'Refunded the second charge.'],
  ['Closed', 'Change the billing e-mail of Nimbus Health', null],
  ['Closed', 'Export deals to a spreadsheet', 'Pointed them at GET /api/v1/deals.'],
];

// --- Payments ----------------------------------------------------------------------

/** [key, name, provider]. */
const PROVIDER_ACCOUNTS: [string, string, string][] = [
  ['stripe', 'Stripe (US)', 'stripe'],
  ['mercadopago', 'Mercado Pago (Brasil)', 'mercadopago'],
  // The built-in test provider: its link can be paid end to end (README, "Taking payments").
  ['test', 'Test provider', 'test'],
];

interface LinkData {
  name: string;
  description: string;
  currency: string;
  /** null: the payer enters the amount (transactions then use OPEN_AMOUNTS). */
  amount: number | null;
  maxInstallments: number;
  interestRate: number;
  isActive: boolean;
  account: string;
  skus: string[];
  /** Monthly billing for this many cycles. */
  billingCycles?: number;
}

/** The link paid through the test provider, printed by `cli -- demo`. */
const PAYABLE_LINK = 'Starter pack (pay online)';

const PAYMENT_LINKS: LinkData[] = [
  { name: 'Onboarding workshop', description: 'Book a half-day onboarding workshop.', currency: 'USD', amount: 1500, maxInstallments: 6, interestRate: 0, isActive: true, account: 'stripe', skus: ['SRV-ONBOARD'] },
  { name: 'Pro plan, monthly', description: 'One Pro seat, billed monthly for a year.', currency: 'USD', amount: 49, maxInstallments: 1, interestRate: 0, isActive: true, account: 'stripe', skus: ['SUB-PRO-M'], billingCycles: 12 },
  { name: 'Tokyo sales workshop', description: 'One seat at the Tokyo workshop.', currency: 'JPY', amount: 45000, maxInstallments: 3, interestRate: 0, isActive: true, account: 'stripe', skus: ['EVT-TOKYO'] },
  { name: 'Hardware starter kit: launch offer', description: 'The EU starter kit at the launch price (offer ended).', currency: 'EUR', amount: 320.5, maxInstallments: 12, interestRate: 1.99, isActive: false, account: 'stripe', skus: ['HW-KIT-EU'] },
  { name: 'Consulting invoice (Brasil)', description: 'Pay a consulting invoice in up to 12 installments.', currency: 'BRL', amount: null, maxInstallments: 12, interestRate: 2.49, isActive: true, account: 'mercadopago', skus: [] },
  { name: PAYABLE_LINK, description: 'Try the checkout: the test provider lets you approve or decline.', currency: 'USD', amount: 120, maxInstallments: 6, interestRate: 1.5, isActive: true, account: 'test', skus: [] },
];
const OPEN_AMOUNTS = [850, 1200, 475.5, 2300, 990];

/** [link index, code, type, value, max redemptions, times redeemed, expires at, active]. */
const COUPONS: [number, string, string, number, number | null, number, string | null, boolean][] = [
  [0, 'WELCOME10', 'percent', 10, 100, 14, null, true],
  [5, 'TRYIT10', 'percent', 10, null, 0, null, true],
  [0, 'ONBOARD200', 'amount', 200, null, 3, null, true],
  [1, 'PROANNUAL15', 'percent', 15, 25, 9, null, true],
  [1, 'FIRSTMONTH', 'amount', 49, 500, 87, null, true],
  [2, 'TOKYO5000', 'amount', 5000, 20, 6, null, true],
  [2, 'EARLYBIRD20', 'percent', 20, 30, 11, '2026-12-31T23:59:59Z', true],
  [3, 'LAUNCH25', 'percent', 25, 50, 37, null, false],
  [4, 'PARCEIRO5', 'percent', 5, null, 2, null, true],
];

/** Transaction n (1..40) goes to link TX_LINKS[(n-1) % 8] and ends in TX_STATUSES[(n-1) % 10]: every status at least 4 times. */
const TRANSACTION_COUNT = 40;
const TX_LINKS = [1, 0, 1, 2, 1, 4, 3, 4];
const TX_STATUSES = ['paid', 'pending', 'paid', 'failed', 'processing', 'paid', 'refunded', 'canceled', 'paid', 'failed'] as const;
type TxStatus = (typeof TX_STATUSES)[number];

/** Each final status's event history: [event type, status, minutes after the first event]. */
const HISTORIES: Record<TxStatus, [string, string, number][]> = {
  pending: [['payment.created', 'pending', 0]],
  processing: [['payment.created', 'pending', 0], ['payment.processing', 'processing', 1]],
  paid: [['payment.created', 'pending', 0], ['payment.processing', 'processing', 1], ['payment.paid', 'paid', 2]],
  failed: [['payment.created', 'pending', 0], ['payment.processing', 'processing', 1], ['payment.failed', 'failed', 2]],
  refunded: [['payment.created', 'pending', 0], ['payment.processing', 'processing', 1], ['payment.paid', 'paid', 2], ['payment.refunded', 'refunded', 3 * 24 * 60]],
  canceled: [['payment.created', 'pending', 0], ['payment.canceled', 'canceled', 30]],
};
const FIRST_PAYMENT_AT = Date.UTC(2026, 9, 1, 9, 0); // 2026-10-01 09:00 UTC; one payment every 16 hours
const MINUTE = 60_000;

// --- The loader --------------------------------------------------------------------

export interface DemoResult {
  loaded: boolean;
  workspaceId: string;
  counts: Record<string, number>;
  /** The public token of the link a payer can pay end to end (the test provider's). */
  payableToken: string;
}

const payableToken = async (db: Db | Tx, workspaceId: string) =>
  (await db.paymentLink.findFirstOrThrow({ where: { workspaceId, name: PAYABLE_LINK }, select: { publicToken: true } })).publicToken;

/** A lookup that fails loudly on a key the tables do not define. */
function lookup<T>(what: string, entries: [string, T][]): (key: string) => T {
  const map = new Map(entries);
  return (key) => {
    if (!map.has(key)) throw new Error(`demo data: unknown ${what} "${key}"`);
    return map.get(key)!;
  };
}
const connect = (ids: string[]) => ({ connect: ids.map((id) => ({ id })) });
const pad = (n: number) => String(n).padStart(4, '0');

/** The workspace's rows per resource. */
export async function countDemoRows(db: Db | Tx, workspaceId: string): Promise<Record<string, number>> {
  const where = { workspaceId };
  return {
    users: await db.user.count({ where }),
    propertyDefinitions: await db.propertyDefinition.count({ where }),
    companies: await db.company.count({ where }),
    contacts: await db.contact.count({ where }),
    products: await db.product.count({ where }),
    pipelines: await db.pipeline.count({ where }),
    dealStages: await db.dealStage.count({ where }),
    deals: await db.deal.count({ where }),
    tasks: await db.task.count({ where }),
    ticketStatuses: await db.ticketStatus.count({ where }),
    tickets: await db.ticket.count({ where }),
    paymentProviderAccounts: await db.paymentProviderAccount.count({ where }),
    paymentLinks: await db.paymentLink.count({ where }),
    paymentCoupons: await db.paymentCoupon.count({ where }),
    paymentTransactions: await db.paymentTransaction.count({ where }),
    paymentEvents: await db.paymentTransactionEvent.count({ where }),
  };
}

/** Inserts the whole data set; runs inside loadDemo's transaction. */
async function insertDemo(tx: Tx, represent: Represent, workspaceName: string, log: (line: string) => void): Promise<DemoResult> {
  const workspace = await workspaceNamed(tx as Db, workspaceName);
  const workspaceId = workspace.id;
  // Everything below is written through the event recorder: one event per record, in this transaction.
  const cli = { type: 'cli' } as const;
  const reading = createContext(tx as Db, { id: workspaceId, defaultCurrency: workspace.defaultCurrency }, cli);
  const recorder = new EventRecorder(represent, reading, { actor: cli, requestId: null });
  const db = recorder.client(tx);
  log(`Loading the demo data set into workspace "${workspaceName}" (${workspaceId}), in one transaction...`);
  const row = () => ({ id: newId(), workspaceId });
  const loaded = (count: number, what: string) => log(`  ${count} ${what}`);

  const userIds: [string, string][] = [];
  for (const [name, email] of USERS) {
    const { id } = await db.user.create({ data: { ...row(), name, email } });
    userIds.push([name.split(' ')[0]!, id]);
  }
  const user = lookup('user', userIds);
  loaded(USERS.length, 'users');

  await db.propertyDefinition.createMany({
    data: PROPERTY_DEFINITIONS.map(([object, key, label, type, options]) => ({ ...row(), object, key, label, type, options })),
  });
  loaded(PROPERTY_DEFINITIONS.length, 'property definitions');

  const companyRows = COMPANIES.map(([key, name, notes]) => ({ ...row(), name, domain: `${key}.example`, notes, ...companyKeys({ name, domain: `${key}.example` }) }));
  await db.company.createMany({ data: companyRows });
  const company = lookup('company', COMPANIES.map(([key], i) => [key, companyRows[i]!.id]));
  loaded(COMPANIES.length, 'companies');

  const contactIds: [string, string][] = [];
  for (const contact of CONTACTS) {
    const [firstName, lastName, companies, tier, newsletter] = contact;
    const email = contactEmail(contact);
    const properties = { ...(tier ? { tier } : {}), ...(newsletter !== null ? { newsletter } : {}) };
    const { id } = await db.contact.create({
      data: { ...row(), firstName, lastName, email, properties, ...contactDerivedColumns({ firstName, lastName: lastName ?? null, email }), companies: connect(companies.map(company)) },
    });
    contactIds.push([firstName, id]);
  }
  const contact = lookup('contact', contactIds);
  loaded(CONTACTS.length, 'contacts');

  const productRows = PRODUCTS.map(([name, sku, type, price, cost, currency, unit, taxRate, description]) => ({
    ...row(),
    name,
    sku,
    type,
    price,
    cost,
    currency,
    unit,
    taxRate,
    description,
    search: searchText(name, sku),
  }));
  await db.product.createMany({ data: productRows });
  const product = lookup('product', productRows.map((p) => [p.sku, p]));
  loaded(PRODUCTS.length, 'products');

  let stageCount = 0;
  let dealCount = 0;
  for (const [index, pipeline] of PIPELINES.entries()) {
    const pipelineId = newId();
    const stageRows = pipeline.stages.map(([name, color, probability], order) => ({ ...row(), pipelineId, externalId: newId(), name, order, color, probability }));
    await db.pipeline.create({ data: { id: pipelineId, workspaceId, name: pipeline.name, description: pipeline.description, isDefault: index === 0 } });
    await db.dealStage.createMany({ data: stageRows });
    const stage = lookup(`stage of ${pipeline.name}`, stageRows.map((s) => [s.name, s.id]));
    for (const [stageName, name, estimatedValue, owner, expectedCloseDate, contacts, skus, source, seats] of pipeline.deals) {
      await db.deal.create({
        data: {
          ...row(),
          name,
          estimatedValue,
          expectedCloseDate,
          stageId: stage(stageName),
          userId: user(owner),
          properties: seats === undefined ? { source } : { source, seats },
          contacts: connect(contacts.map(contact)),
          products: connect(skus.map((sku) => product(sku).id)),
        },
      });
    }
    stageCount += stageRows.length;
    dealCount += pipeline.deals.length;
  }
  loaded(PIPELINES.length, `pipelines, ${stageCount} stages, ${dealCount} deals`);

  for (const [index, [title, priority, isDone, dueDate, owners, assignees]] of TASKS.entries()) {
    await db.task.create({
      data: { ...row(), title, priority, isDone, dueDate, position: index + 1, owners: connect(owners.map(user)), assignees: connect(assignees.map(user)) },
    });
  }
  loaded(TASKS.length, 'tasks');

  const statusRows = TICKET_STATUSES.map(([name, isClosed], order) => ({ ...row(), name, order, isClosed }));
  await db.ticketStatus.createMany({ data: statusRows });
  const status = lookup('ticket status', statusRows.map((s) => [s.name, s.id]));
  const positions = new Map<string, number>();
  await db.ticket.createMany({
    data: TICKETS.map(([statusName, title, description]) => {
      const position = (positions.get(statusName) ?? 0) + 1;
      positions.set(statusName, position);
      return { ...row(), title, description, statusId: status(statusName), position };
    }),
  });
  loaded(TICKET_STATUSES.length, `ticket statuses, ${TICKETS.length} tickets`);

  const accountRows = PROVIDER_ACCOUNTS.map(([key, name, provider]) => ({ key, row: { ...row(), name, provider } }));
  await db.paymentProviderAccount.createMany({ data: accountRows.map((a) => a.row) });
  const account = lookup('provider account', accountRows.map((a) => [a.key, a.row.id]));
  loaded(PROVIDER_ACCOUNTS.length, 'payment provider accounts');

  const links: { id: string; providerAccountId: string; data: LinkData }[] = [];
  for (const link of PAYMENT_LINKS) {
    const { name, description, currency, amount, maxInstallments, interestRate, isActive, billingCycles } = link;
    for (const sku of link.skus) {
      if (product(sku).currency !== currency) throw new Error(`demo data: ${sku} is not priced in ${currency}`);
    }
    const created = await db.paymentLink.create({
      data: {
        ...row(),
        publicToken: newPublicToken(),
        name,
        nameSearch: searchText(name),
        description,
        amount,
        currency,
        isActive,
        maxInstallments,
        interestRate,
        ...(billingCycles ? { isRecurring: true, intervalUnit: 'month', intervalCount: 1, billingCycles } : {}),
        providerAccountId: account(link.account),
        products: connect(link.skus.map((sku) => product(sku).id)),
      },
    });
    links.push({ id: created.id, providerAccountId: created.providerAccountId, data: link });
  }
  loaded(PAYMENT_LINKS.length, 'payment links');

  await db.paymentCoupon.createMany({
    data: COUPONS.map(([link, code, type, value, maxRedemptions, timesRedeemed, expiresAt, isActive]) => ({
      ...row(),
      code,
      codeKey: code.toLowerCase(),
      type,
      value,
      maxRedemptions,
      timesRedeemed,
      expiresAt: expiresAt ? new Date(expiresAt) : null,
      isActive,
      paymentLinkId: links[link]!.id,
    })),
  });
  loaded(COUPONS.length, 'coupons');

  const transactions = [];
  const events = [];
  for (let n = 1; n <= TRANSACTION_COUNT; n++) {
    const link = links[TX_LINKS[(n - 1) % TX_LINKS.length]!]!;
    const status = TX_STATUSES[(n - 1) % TX_STATUSES.length]!;
    const providerReference = `${link.data.account === 'stripe' ? 'pi' : 'mp'}_demo_${pad(n)}`;
    const amount = link.data.amount ?? OPEN_AMOUNTS[n % OPEN_AMOUNTS.length]!;
    const start = FIRST_PAYMENT_AT + (n - 1) * 16 * 60 * MINUTE;
    const history = HISTORIES[status];
    const transaction = {
      ...row(),
      status,
      providerReference,
      referenceSearch: searchText(providerReference),
      providerAccountId: link.providerAccountId,
      paymentLinkId: link.id,
      amount,
      currency: link.data.currency,
      metadata: { order_id: `ORD-${1000 + n}`, customer_email: contactEmail(CONTACTS[(n * 7) % CONTACTS.length]!), installments: 1 + (n % link.data.maxInstallments) },
      createdAt: new Date(start),
      updatedAt: new Date(start + history.at(-1)![2] * MINUTE),
    };
    transactions.push(transaction);
    for (const [i, [type, eventStatus, minutes]] of history.entries()) {
      const reference = `evt_demo_${pad(n)}_${i + 1}`;
      events.push({
        ...row(),
        transactionId: transaction.id,
        type,
        status: eventStatus,
        providerReference: reference,
        payload: {
          id: reference,
          type,
          data: { object: providerReference, status: eventStatus, amount, currency: link.data.currency },
          ...(eventStatus === 'failed' ? { failure_code: 'card_declined' } : {}),
          ...(eventStatus === 'refunded' ? { reason: 'requested_by_customer' } : {}),
        },
        occurredAt: new Date(start + minutes * MINUTE),
      });
    }
  }
  await db.paymentTransaction.createMany({ data: transactions });
  await db.paymentTransactionEvent.createMany({ data: events });
  loaded(transactions.length, `payment transactions, ${events.length} events`);
  // Delivered by the running service's workers (they poll), to endpoints the workspace may already have.
  const { events: recorded } = await saveEvents(reading.db, recorder);
  loaded(recorded.length, 'events (one per record)');

  return { loaded: true, workspaceId, counts: await countDemoRows(tx, workspaceId), payableToken: await payableToken(tx, workspaceId) };
}

/**
 * Loads the demo into the named workspace (created when missing), in one transaction.
 * A workspace that already has the demo's first user (a unique e-mail per workspace)
 * holds the data set: nothing is loaded again. Two runs racing on one workspace end
 * the same way: the loser's insert of that user hits the unique index (PostgreSQL) or
 * the write lock (SQLite), rolls back, and then finds the winner's data.
 */
export async function loadDemo(prisma: Db, represent: Represent, workspaceName: string, log: (line: string) => void): Promise<DemoResult> {
  const alreadyThere = async (): Promise<DemoResult | undefined> => {
    const marker = await prisma.user.findFirst({ where: { email: MARKER_EMAIL, workspace: { name: workspaceName } }, select: { workspaceId: true } });
    if (!marker) return undefined;
    log(`Workspace "${workspaceName}" already holds the demo data set (its user ${MARKER_EMAIL} exists): nothing loaded.`);
    return { loaded: false, workspaceId: marker.workspaceId, counts: await countDemoRows(prisma, marker.workspaceId), payableToken: await payableToken(prisma, marker.workspaceId) };
  };

  const existing = await alreadyThere();
  if (existing) return existing;
  try {
    // A process writing to the same SQLite file meanwhile (a running server, another demo run) is waited for by the database layer.
    return await prisma.$transaction((tx) => insertDemo(tx, represent, workspaceName, log), { timeout: 60_000, maxWait: 10_000 });
  } catch (error) {
    // Another run loaded the demo meanwhile: its first user's e-mail is taken.
    const raced = isUniqueViolation(error) ? await alreadyThere() : undefined;
    if (raced) return raced;
    throw error;
  }
}
