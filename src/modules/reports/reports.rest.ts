import { routes } from '../../rest/route.js';

const ROW = 'group currency count total';

export const reportRoutes = routes(
  {
    method: 'GET',
    path: '/reports/pipeline',
    resource: 'deals',
    document: `query ($filter: DealReportFilter) { dealReport(filter: $filter) { data { ${ROW} weightedTotal } } }`,
  },
  {
    method: 'GET',
    path: '/reports/payments',
    resource: 'payment-transactions',
    document: `query ($filter: PaymentReportFilter) { paymentReport(filter: $filter) { data { ${ROW} } } }`,
  },
);
