import { routes } from '../../rest/route.js';

const ACCOUNT = 'fragment PaymentProviderAccountFields on PaymentProviderAccount { id name provider createdAt }';
const WITH_SECRET = 'fragment PaymentProviderAccountWithSecretFields on PaymentProviderAccountWithSecret { id name provider createdAt webhookSecret }';

export const paymentProviderAccountRoutes = routes(
  {
    method: 'GET',
    path: '/payment-provider-accounts',
    document: `query ($page: Int, $perPage: Int) {
      paymentProviderAccounts(page: $page, perPage: $perPage) { currentPage perPage total lastPage data { ...PaymentProviderAccountFields } }
    } ${ACCOUNT}`,
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
  },
);
