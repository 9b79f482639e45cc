import { activePropertyKeys } from '../property-definitions/properties.js';
import { exportRoute, listDocument, routes, restoreRoute } from '../../rest/route.js';
import { batchData } from '../../graphql/batch.js';
import { DEAL_LIST } from './deals.input.js';

const DEAL = `fragment DealFields on Deal {
  id name estimatedValue currency expectedCloseDate
  stage { id externalId name pipelineId order color probability }
  user { id name }
  createdAt updatedAt
}`;

export const dealRoutes = routes(
  {
    method: 'GET',
    path: '/deals',
    document: `${listDocument(DEAL_LIST, 'deals', 'DealFilter', '...DealFields')} ${DEAL}`,
  },
  // Declared before /deals/{id}, and literal segments win anyway.
  exportRoute(DEAL_LIST, 'deals', 'DealFilter', '...DealFields properties contactIds productIds', DEAL, { propertyKeys: (ctx) => activePropertyKeys(ctx, 'deal') }),
  // Batches (API.md section 8): literal segments win over /deals/{id}.
  { method: 'POST', path: '/deals/batch', document: `mutation ($inputs: [CreateDealInput!]!) { createDeals(inputs: $inputs) { ...DealFields } } ${DEAL}`, unwrap: batchData },
  { method: 'PUT', path: '/deals/batch', document: `mutation ($inputs: [UpdateDealsItem!]!) { updateDeals(inputs: $inputs) { ...DealFields } } ${DEAL}`, unwrap: batchData },
  { method: 'GET', path: '/deals/{id}', document: `query ($id: ID!) { deal(id: $id) { ...DealFields } } ${DEAL}` },
  { method: 'POST', path: '/deals', document: `mutation ($input: CreateDealInput!) { createDeal(input: $input) { ...DealFields } } ${DEAL}` },
  { method: 'PUT', path: '/deals/{id}', document: `mutation ($id: ID!, $input: UpdateDealInput!) { updateDeal(id: $id, input: $input) { ...DealFields } } ${DEAL}` },
  { method: 'DELETE', path: '/deals/{id}', document: 'mutation ($id: ID!) { deleteDeal(id: $id) }' },
  restoreRoute('deals', 'restoreDeal', DEAL),
);
