import { listDocument, routes } from '../../rest/route.js';
import { PAYMENT_PROVIDER_ACCOUNT_LIST } from './payment-provider-accounts.input.js';

const ACCOUNT = 'fragment PaymentProviderAccountFields on PaymentProviderAccount { id name provider mode credentialsHint webhookUrl createdAt }';
const WITH_SECRET = 'fragment PaymentProviderAccountWithSecretFields on PaymentProviderAccountWithSecret { id name provider mode credentialsHint webhookUrl createdAt webhookSecret webhookToken }';

export const paymentProviderAccountRoutes = routes(
  {
    method: 'GET',
    path: '/payment-provider-accounts',
    document: `${listDocument(PAYMENT_PROVIDER_ACCOUNT_LIST, 'paymentProviderAccounts', null, '...PaymentProviderAccountFields')} ${ACCOUNT}`,
  },
  {
    method: 'GET',
    path: '/payment-provider-accounts/{id}',
    document: `query ($id: ID!) { paymentProviderAccount(id: $id) { ...PaymentProviderAccountFields } } ${ACCOUNT}`,
  },
  {
    method: 'POST',
    path: '/payment-provider-accounts',
    document: `mutation ($input: CreatePaymentProviderAccountInput!) { createPaymentProviderAccount(input: $input) { ...PaymentProviderAccountWithSecretFields } } ${WITH_SECRET}`,
    // A test account's secret, or an Asaas account's token: each shown once, only where there is one.
    omitWhenNull: ['webhook_secret', 'webhook_token'],
  },
  {
    method: 'PUT',
    path: '/payment-provider-accounts/{id}',
    document: `mutation ($id: ID!, $input: UpdatePaymentProviderAccountInput!) { updatePaymentProviderAccount(id: $id, input: $input) { ...PaymentProviderAccountFields } } ${ACCOUNT}`,
  },
);
