import { exportRoute, listDocument, routes, mergeRoute, restoreRoute } from '../../rest/route.js';
import { batchData } from '../../graphql/batch.js';
import { COMPANY_LIST } from './companies.input.js';

const COMPANY = 'fragment CompanyFields on Company { id name domain notes createdAt updatedAt }';

export const companyRoutes = routes(
  {
    method: 'GET',
    path: '/companies',
    document: `${listDocument(COMPANY_LIST, 'companies', 'CompanyFilter', '...CompanyFields')} ${COMPANY}`,
  },
  // Declared before /companies/{id}, and literal segments win anyway.
  exportRoute(COMPANY_LIST, 'companies', 'CompanyFilter', '...CompanyFields contactIds', COMPANY),
  // Batches (API.md section 8): literal segments win over /companies/{id}.
  { method: 'POST', path: '/companies/batch', document: `mutation ($inputs: [CreateCompanyInput!]!) { createCompanies(inputs: $inputs) { ...CompanyFields } } ${COMPANY}`, unwrap: batchData },
  { method: 'PUT', path: '/companies/batch', document: `mutation ($inputs: [UpdateCompaniesItem!]!) { updateCompanies(inputs: $inputs) { ...CompanyFields } } ${COMPANY}`, unwrap: batchData },
  { method: 'GET', path: '/companies/{id}', document: `query ($id: ID!) { company(id: $id) { ...CompanyFields } } ${COMPANY}` },
  { method: 'POST', path: '/companies', document: `mutation ($input: CreateCompanyInput!) { createCompany(input: $input) { ...CompanyFields } } ${COMPANY}` },
  { method: 'PUT', path: '/companies/{id}', document: `mutation ($id: ID!, $input: UpdateCompanyInput!) { updateCompany(id: $id, input: $input) { ...CompanyFields } } ${COMPANY}` },
  { method: 'DELETE', path: '/companies/{id}', document: 'mutation ($id: ID!) { deleteCompany(id: $id) }' },
  restoreRoute('companies', 'restoreCompany', COMPANY),
  mergeRoute('companies', 'mergeCompanies', COMPANY),
);
