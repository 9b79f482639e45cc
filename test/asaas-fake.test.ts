import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AsaasEvent, type AsaasFake, type AsaasPayment, SAMPLE_CNPJ, SAMPLE_CPF, shiftDate, startAsaasFake, todayInSaoPaulo, validCpfCnpj } from './support/fakes/asaas.js';
import { type Answer, type Receiver, startReceiver } from './support/receiver.js';

// The Asaas fake's self-test: it is driven through plain fetch, as the service drives it, and
// the test plays the payer (receive, refunds, chargebacks) through its control methods.

let fake: AsaasFake;
const receivers: Receiver[] = [];
beforeEach(async () => {
  fake = await startAsaasFake();
});
afterEach(async () => {
  await fake.close();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function api(method: string, path: string, body?: unknown, key: string | null = fake.apiKey): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'User-Agent': 'asaas-fake-test' };
  if (key !== null) headers.access_token = key;
  const res = await fetch(`${fake.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}
async function receiver(answer?: Answer): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}
const bodies = (r: Receiver) => r.received.map((x) => JSON.parse(x.body) as AsaasEvent);
const today = () => todayInSaoPaulo();

async function customer(externalReference = 'contact-1'): Promise<string> {
  const { status, json } = await api('POST', '/customers', { name: 'Maria Silva', email: 'maria@example.com', cpfCnpj: SAMPLE_CPF, externalReference });
  expect(status).toBe(200);
  return json.id;
}
async function pay(fields: Record<string, unknown> = {}): Promise<AsaasPayment> {
  const cus = await customer();
  const { status, json } = await api('POST', '/payments', { customer: cus, billingType: 'PIX', value: 150.5, dueDate: today(), externalReference: 'link-1', ...fields });
  expect(status, JSON.stringify(json)).toBe(200);
  return json;
}

describe('validCpfCnpj', () => {
  it('checks the digits of CPFs and CNPJs', () => {
    expect(validCpfCnpj(SAMPLE_CPF)).toBe(true);
    expect(validCpfCnpj(SAMPLE_CNPJ)).toBe(true);
    expect(validCpfCnpj('529.982.247-25')).toBe(true);
    expect(validCpfCnpj('11.222.333/0001-81')).toBe(true);
    expect(validCpfCnpj('52998224726')).toBe(false);
    expect(validCpfCnpj('11222333000182')).toBe(false);
    expect(validCpfCnpj('11111111111')).toBe(false);
    expect(validCpfCnpj('00000000000000')).toBe(false);
    expect(validCpfCnpj('1234')).toBe(false);
    expect(validCpfCnpj('abcdefghijk')).toBe(false);
  });
  it('shifts dates by months, clamping the day', () => {
    expect(shiftDate('2025-01-31', 0, 1)).toBe('2025-02-28');
    expect(shiftDate('2024-12-15', 0, 2)).toBe('2025-02-15');
    expect(shiftDate('2025-02-27', 7)).toBe('2025-03-06');
  });
});

describe('the Asaas API', () => {
  it('answers 401 without the access_token, or with a wrong one, and accepts added keys', async () => {
    expect((await api('GET', '/finance/balance', undefined, null)).status).toBe(401);
    const wrong = await api('GET', '/finance/balance', undefined, '$aact_hmlg_nope');
    expect(wrong.status).toBe(401);
    expect(wrong.json.errors[0].code).toBeTypeOf('string');
    expect(await api('GET', '/finance/balance')).toEqual({ status: 200, json: { balance: 10_000 } });
    fake.addKey('$aact_hmlg_other');
    expect((await api('GET', '/finance/balance', undefined, '$aact_hmlg_other')).status).toBe(200);
    expect(fake.calls('GET', '/finance/balance')).toBe(4);
  });

  it('finds a customer by externalReference, or creates it; refuses a missing or invalid cpfCnpj', async () => {
    const none = await api('GET', '/customers?externalReference=contact-9');
    expect(none.json).toEqual({ object: 'list', hasMore: false, totalCount: 0, limit: 10, offset: 0, data: [] });
    const created = await api('POST', '/customers', { name: 'Empresa', email: 'e@example.com', cpfCnpj: '11.222.333/0001-81', externalReference: 'contact-9' });
    expect(created.json).toMatchObject({ object: 'customer', cpfCnpj: SAMPLE_CNPJ, personType: 'JURIDICA', externalReference: 'contact-9' });
    expect(created.json.id).toMatch(/^cus_/);
    const found = await api('GET', '/customers?externalReference=contact-9');
    expect(found.json.data.map((c: { id: string }) => c.id)).toEqual([created.json.id]);

    for (const cpfCnpj of [undefined, '123.456.789-00', '11111111111']) {
      const bad = await api('POST', '/customers', { name: 'X', cpfCnpj });
      expect(bad.status).toBe(400);
      expect(bad.json.errors[0].code).toBe('invalid_cpfCnpj');
    }
    expect(fake.customers.size).toBe(1);
  });

  it('refuses a payment for a customer whose document is invalid, and a due date before today', async () => {
    const id = await customer();
    fake.customers.get(id)!.cpfCnpj = '12345678900'; // a customer created before Asaas validated documents
    const bad = await api('POST', '/payments', { customer: id, billingType: 'PIX', value: 10, dueDate: today() });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].code).toBe('invalid_cpfCnpj');

    fake.customers.get(id)!.cpfCnpj = SAMPLE_CPF;
    const past = await api('POST', '/payments', { customer: id, billingType: 'PIX', value: 10, dueDate: shiftDate(today(), -1) });
    expect(past.status).toBe(400);
    expect(past.json.errors[0].code).toBe('invalid_dueDate');
    const noType = await api('POST', '/payments', { customer: id, billingType: 'CASH', value: 10, dueDate: today() });
    expect(noType.json.errors[0].code).toBe('invalid_billingType');
    expect(fake.payments.size).toBe(0);
  });

  it('creates a payment in Asaas shape, and finds it again by id and externalReference', async () => {
    const p = await pay({ billingType: 'BOLETO', description: 'Plano anual', callback: { successUrl: 'https://shop.example/ok', autoRedirect: false } });
    expect(p).toMatchObject({ object: 'payment', status: 'PENDING', value: 150.5, billingType: 'BOLETO', dueDate: today(), refunds: null, deleted: false, installment: null });
    expect(p.id).toMatch(/^pay_/);
    expect(p.netValue).toBeLessThan(p.value);
    expect(p.invoiceUrl).toBe(`${fake.origin}/i/${p.id}`);
    expect(p.bankSlipUrl).toMatch(/^http/);
    expect((await fetch(p.invoiceUrl)).status).toBe(200);
    expect((await api('GET', `/payments/${p.id}`)).json).toEqual(p);
    expect((await api('GET', '/payments?externalReference=link-1')).json.data).toEqual([p]);
    expect((await api('GET', '/payments/pay_nothing')).status).toBe(404);
  });

  it('splits installments into N payments sharing one installment id', async () => {
    const first = await pay({ billingType: 'CREDIT_CARD', value: undefined, installmentCount: 3, totalValue: 100 });
    expect(first.installment).toBeTruthy();
    expect(first.installmentNumber).toBe(1);
    const { json } = await api('GET', `/payments?installment=${first.installment}`);
    expect(json.totalCount).toBe(3);
    expect(json.data.map((p: AsaasPayment) => p.installmentNumber)).toEqual([1, 2, 3]);
    expect(json.data.map((p: AsaasPayment) => p.value)).toEqual([33.34, 33.33, 33.33]);
    expect(json.data.map((p: AsaasPayment) => p.dueDate)).toEqual([today(), shiftDate(today(), 0, 1), shiftDate(today(), 0, 2)]);

    for (let i = 0; i < 3; i++) await fake.chargeNext(first.installment!);
    await expect(fake.chargeNext(first.installment!)).rejects.toThrow(/no payment left/);
    expect([...fake.payments.values()].map((p) => p.status)).toEqual(['CONFIRMED', 'CONFIRMED', 'CONFIRMED']);
  });

  it('gives a Pix QR code: a PNG and a BR Code with its CRC', async () => {
    const p = await pay();
    const { status, json } = await api('GET', `/payments/${p.id}/pixQrCode`);
    expect(status).toBe(200);
    expect(Buffer.from(json.encodedImage, 'base64').subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(json.payload).toMatch(/^000201.*53039865406150\.505802BR.*6304[0-9A-F]{4}$/);
    expect(json.expirationDate).toBe(`${today()} 23:59:59`);
  });

  it('delivers PAYMENT_RECEIVED to the registered webhook, with its token', async () => {
    const r = await receiver();
    const hook = await api('POST', '/webhooks', {
      name: 'crm', url: r.url, email: 'ops@example.com', enabled: true, interrupted: false, authToken: 'token-123456789012345678901234567890',
      sendType: 'SEQUENTIALLY', events: ['PAYMENT_RECEIVED', 'PAYMENT_CONFIRMED'],
    });
    expect(hook.json).toMatchObject({ url: r.url, hasAuthToken: true, interrupted: false, events: ['PAYMENT_RECEIVED', 'PAYMENT_CONFIRMED'] });
    expect(hook.json.authToken).toBeUndefined();

    const p = await pay();
    await fake.receive(p.id); // resolves once delivered: no sleep
    expect(r.received).toHaveLength(1); // PAYMENT_CREATED is not among the webhook's events
    expect(r.received[0]!.headers['asaas-access-token']).toBe('token-123456789012345678901234567890');
    const [event] = bodies(r);
    expect(event).toMatchObject({ event: 'PAYMENT_RECEIVED', payment: { id: p.id, status: 'RECEIVED', paymentDate: today() } });
    expect(event!.id).toMatch(/^evt_/);
    expect(event!.dateCreated).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(fake.deliveries).toEqual([{ eventId: event!.id, event: 'PAYMENT_RECEIVED', url: r.url, status: 200 }]);
    expect(fake.events.map((e) => e.event)).toEqual(['PAYMENT_CREATED', 'PAYMENT_RECEIVED']);
  });

  it('refunds partly then fully, keeps the refunds findable, and refuses more than what remains', async () => {
    const r = await receiver();
    fake.addWebhook(r.url, 'tok');
    const p = await pay({ value: 100 });
    await fake.receive(p.id);

    const part = await api('POST', `/payments/${p.id}/refund`, { value: 30, description: 'refund-1' });
    expect(part.json).toMatchObject({ status: 'RECEIVED', refunds: [{ value: 30, status: 'DONE', description: 'refund-1' }] });
    const tooMuch = await api('POST', `/payments/${p.id}/refund`, { value: 70.01 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json.errors[0].code).toBe('invalid_value');
    const rest = await api('POST', `/payments/${p.id}/refund`, { description: 'refund-2' });
    expect(rest.json).toMatchObject({ status: 'REFUNDED' });
    expect(rest.json.refunds.map((x: { value: number }) => x.value)).toEqual([30, 70]);
    expect((await api('POST', `/payments/${p.id}/refund`, {})).status).toBe(400);

    const refunds = await api('GET', `/payments/${p.id}/refunds`);
    expect(refunds.json.data.map((x: { description: string }) => x.description)).toEqual(['refund-1', 'refund-2']);
    expect(refunds.json.data[0].transactionReceiptUrl).toMatch(/^http/);
    await fake.flush();
    expect(bodies(r).map((e) => e.event)).toEqual(['PAYMENT_CREATED', 'PAYMENT_RECEIVED', 'PAYMENT_PARTIALLY_REFUNDED', 'PAYMENT_REFUNDED']);
    expect(fake.balance).toBe(10_000 + p.netValue - 100);
  });

  it('refuses to delete a paid payment, deletes a pending one', async () => {
    const p = await pay();
    await fake.receive(p.id);
    const refused = await api('DELETE', `/payments/${p.id}`);
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0].code).toBe('invalid_action');

    const q = await pay({ externalReference: 'link-2' });
    expect((await api('DELETE', `/payments/${q.id}`)).json).toEqual({ deleted: true, id: q.id });
    expect((await api('GET', '/payments?externalReference=link-2')).json.totalCount).toBe(0);
    expect((await api('GET', `/payments/${q.id}`)).json.deleted).toBe(true);
    await fake.flush();
    expect(fake.events.at(-1)).toMatchObject({ event: 'PAYMENT_DELETED', payment: { id: q.id } });
  });

  it('runs a subscription for exactly maxPayments charges', async () => {
    const r = await receiver();
    fake.addWebhook(r.url, 'tok');
    const cus = await customer();
    const sub = await api('POST', '/subscriptions', { customer: cus, billingType: 'CREDIT_CARD', value: 49.9, nextDueDate: today(), cycle: 'MONTHLY', maxPayments: 2, externalReference: 'sub-1' });
    expect(sub.json).toMatchObject({ object: 'subscription', status: 'ACTIVE', nextDueDate: shiftDate(today(), 0, 1), maxPayments: 2 });
    expect((await api('GET', '/subscriptions?externalReference=sub-1')).json.totalCount).toBe(1);
    const first = await api('GET', `/payments?subscription=${sub.json.id}`);
    expect(first.json.data).toMatchObject([{ status: 'PENDING', value: 49.9, dueDate: today(), subscription: sub.json.id }]);

    const charged = [await fake.chargeNext(sub.json.id), await fake.chargeNext(sub.json.id)];
    await expect(fake.chargeNext(sub.json.id)).rejects.toThrow();
    expect(charged[0]).toBe(first.json.data[0].id);
    const all = await api('GET', `/payments?subscription=${sub.json.id}`);
    expect(all.json.data.map((p: AsaasPayment) => p.status)).toEqual(['CONFIRMED', 'CONFIRMED']);
    expect(fake.subscriptions.get(sub.json.id)!.status).toBe('EXPIRED');
    expect(bodies(r).map((e) => e.event)).toEqual(['PAYMENT_CREATED', 'PAYMENT_CONFIRMED', 'PAYMENT_CREATED', 'PAYMENT_CONFIRMED']);
    expect((await api('DELETE', `/subscriptions/${sub.json.id}`)).json).toEqual({ deleted: true, id: sub.json.id });
  });

  it('deletes a subscription with its pending payment', async () => {
    const cus = await customer();
    const sub = await api('POST', '/subscriptions', { customer: cus, billingType: 'PIX', value: 10, nextDueDate: today(), cycle: 'WEEKLY' });
    await api('DELETE', `/subscriptions/${sub.json.id}`);
    await fake.flush();
    expect((await api('GET', `/payments?subscription=${sub.json.id}`)).json.totalCount).toBe(0);
    expect(fake.events.map((e) => e.event)).toEqual(['PAYMENT_CREATED', 'PAYMENT_DELETED']);
  });

  it('walks a chargeback through its stages', async () => {
    const r = await receiver();
    fake.addWebhook(r.url, 'tok');
    const p = await pay({ billingType: 'CREDIT_CARD' });
    await fake.confirm(p.id);
    for (const stage of ['requested', 'dispute', 'awaiting_reversal', 'won'] as const) await fake.chargeback(p.id, stage);
    expect(bodies(r).map((e) => [e.event, e.payment.status])).toEqual([
      ['PAYMENT_CREATED', 'PENDING'], ['PAYMENT_CONFIRMED', 'CONFIRMED'], ['PAYMENT_CHARGEBACK_REQUESTED', 'CHARGEBACK_REQUESTED'],
      ['PAYMENT_CHARGEBACK_DISPUTE', 'CHARGEBACK_DISPUTE'], ['PAYMENT_AWAITING_CHARGEBACK_REVERSAL', 'AWAITING_CHARGEBACK_REVERSAL'], ['PAYMENT_RECEIVED', 'RECEIVED'],
    ]);
    expect(fake.payments.get(p.id)!.chargeback).toMatchObject({ status: 'REVERSED', disputeStatus: 'ACCEPTED' });
  });
});

describe('the payer and the back office', () => {
  it('overdue, risk analysis, dashboard refunds and a lost chargeback emit their events', async () => {
    const r = await receiver();
    fake.addWebhook(r.url, 'tok');
    const p = await pay({ billingType: 'CREDIT_CARD', value: 80 });
    await fake.overdue(p.id);
    await fake.riskAnalysis(p.id, 'awaiting');
    await fake.riskAnalysis(p.id, 'reproved');
    await fake.riskAnalysis(p.id, 'awaiting');
    await fake.riskAnalysis(p.id, 'approved');
    await fake.refundFromDashboard(p.id, 20);
    await fake.chargeback(p.id, 'requested');
    await fake.chargeback(p.id, 'dispute');
    await fake.chargeback(p.id, 'lost');
    expect(bodies(r).map((e) => [e.event, e.payment.status])).toEqual([
      ['PAYMENT_CREATED', 'PENDING'], ['PAYMENT_OVERDUE', 'OVERDUE'], ['PAYMENT_AWAITING_RISK_ANALYSIS', 'AWAITING_RISK_ANALYSIS'],
      ['PAYMENT_REPROVED_BY_RISK_ANALYSIS', 'PENDING'], ['PAYMENT_AWAITING_RISK_ANALYSIS', 'AWAITING_RISK_ANALYSIS'],
      ['PAYMENT_APPROVED_BY_RISK_ANALYSIS', 'AWAITING_RISK_ANALYSIS'], ['PAYMENT_CONFIRMED', 'CONFIRMED'],
      ['PAYMENT_PARTIALLY_REFUNDED', 'CONFIRMED'], ['PAYMENT_CHARGEBACK_REQUESTED', 'CHARGEBACK_REQUESTED'],
      ['PAYMENT_CHARGEBACK_DISPUTE', 'CHARGEBACK_DISPUTE'], ['PAYMENT_CHARGEBACK_REQUESTED', 'CHARGEBACK_REQUESTED'],
    ]);
    expect(fake.payments.get(p.id)!.chargeback).toMatchObject({ status: 'DISPUTE_LOST', disputeStatus: 'REJECTED' });
    await expect(fake.receive(p.id)).rejects.toThrow(/cannot receive/);
  });

  it('refuses a refund beyond the balance, and one of an unpaid payment', async () => {
    const p = await pay({ value: 100 });
    expect((await api('POST', `/payments/${p.id}/refund`, {})).json.errors[0].code).toBe('invalid_action');
    await fake.receive(p.id);
    fake.balance = 50;
    const refused = await api('POST', `/payments/${p.id}/refund`, { value: 60 });
    expect(refused.status).toBe(400);
    expect((await api('POST', `/payments/${p.id}/refund`, { value: 50 })).json.status).toBe('RECEIVED');
    expect(fake.balance).toBe(0);
  });

  it('reactivates an interrupted queue through PUT /webhooks/:id', async () => {
    let answer = 500;
    const r = await receiver(() => ({ status: answer }));
    const hook = await api('POST', '/webhooks', { url: r.url, authToken: 'tok', events: ['PAYMENT_RECEIVED'], interrupted: true });
    const p = await pay();
    await fake.receive(p.id);
    expect(r.received).toHaveLength(0); // created interrupted: events wait
    answer = 200;
    expect((await api('PUT', `/webhooks/${hook.json.id}`, { interrupted: false })).json.interrupted).toBe(false);
    await fake.flush();
    expect(bodies(r).map((e) => e.event)).toEqual(['PAYMENT_RECEIVED']);
  });
});

describe('webhook delivery modes', () => {
  async function twoEvents(): Promise<{ r: Receiver; p: AsaasPayment }> {
    const r = await receiver();
    fake.addWebhook(r.url, 'tok', ['PAYMENT_CONFIRMED', 'PAYMENT_RECEIVED']);
    const p = await pay({ billingType: 'CREDIT_CARD' });
    return { r, p };
  }

  it('hold keeps events until deliverHeld, which may reverse them', async () => {
    const { r, p } = await twoEvents();
    fake.webhooks.mode = 'hold';
    await fake.confirm(p.id);
    await fake.receive(p.id);
    expect(r.received).toHaveLength(0);
    expect(fake.webhookQueue.pending).toBe(2);
    await fake.deliverHeld({ reverse: true });
    expect(bodies(r).map((e) => e.event)).toEqual(['PAYMENT_RECEIVED', 'PAYMENT_CONFIRMED']);
  });

  it('duplicate delivers the same event id twice; lose never delivers', async () => {
    const { r, p } = await twoEvents();
    fake.webhooks.mode = 'duplicate';
    await fake.confirm(p.id);
    const ids = bodies(r).map((e) => e.id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
    fake.webhooks.mode = 'lose';
    await fake.receive(p.id);
    expect(r.received).toHaveLength(2);
    expect(fake.events.at(-1)!.event).toBe('PAYMENT_RECEIVED');
  });

  it('only 200 counts; 15 consecutive failures interrupt the queue until it is resumed', async () => {
    let failing = true;
    const r = await receiver(() => (failing ? { status: 201 } : { status: 200 }));
    fake.addWebhook(r.url, 'tok', ['PAYMENT_RECEIVED']);
    const p = await pay();
    await fake.receive(p.id);
    expect(fake.webhookQueue).toMatchObject({ pending: 1, consecutiveFailures: 1, interrupted: false });
    for (let i = 0; i < 14; i++) await fake.webhookQueue.retry();
    expect(fake.webhookQueue.interrupted).toBe(true);
    await fake.webhookQueue.retry();
    expect(r.received).toHaveLength(15); // paused: no sixteenth attempt
    failing = false;
    await fake.webhookQueue.resume();
    expect(fake.webhookQueue).toMatchObject({ pending: 0, interrupted: false });
    expect(fake.deliveries.at(-1)!.status).toBe(200);
  });
});

describe('failNext', () => {
  it('answers a forced 500 once, then works', async () => {
    const cus = await customer();
    fake.failNext({ method: 'POST', path: '/payments' }, { status: 500, body: { errors: [{ code: 'internal_error', description: 'boom' }] } });
    const body = { customer: cus, billingType: 'PIX', value: 10, dueDate: today(), externalReference: 'link-5' };
    expect((await api('POST', '/payments', body)).status).toBe(500);
    expect(fake.payments.size).toBe(0);
    expect((await api('POST', '/payments', body)).status).toBe(200);
    expect(fake.calls('POST', '/v3/payments')).toBe(2);
  });

  it("'after' does the work and drops the answer, so the payment is found by externalReference", async () => {
    const cus = await customer();
    fake.failNext({ path: '/payments' }, 'after');
    await expect(api('POST', '/payments', { customer: cus, billingType: 'PIX', value: 10, dueDate: today(), externalReference: 'link-6' })).rejects.toThrow();
    const found = await api('GET', '/payments?externalReference=link-6');
    expect(found.json.totalCount).toBe(1);
  });

  it("'timeout' never answers until close()", async () => {
    fake.failNext({ method: 'GET', path: '/finance' }, 'timeout');
    const pending = api('GET', '/finance/balance');
    const outcome = pending.then(() => 'answered', () => 'dropped');
    await fake.close();
    expect(await outcome).toBe('dropped');
    fake = await startAsaasFake(); // afterEach closes a fresh one
  });
});
