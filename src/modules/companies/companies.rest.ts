import { routes } from '../../rest/route.js';

const COMPANY = 'fragment CompanyFields on Company { id name domain notes createdAt updatedAt }';

export const companyRoutes = routes(
  {
    method: 'GET',
    path: '/companies',
    document: `query ($page: Int, $perPage: Int, $filter: CompanyFilter) {
      companies(page: $page, perPage: $perPage, filter: $filter) { currentPage perPage total lastPage data { ...CompanyFields } }
    } ${COMPANY}`,
  },
  { method: 'GET', path: '/companies/{id}', document: `query ($id: ID!) { company(id: $id) { ...CompanyFields } } ${COMPANY}` },
  { method: 'POST', path: '/companies', document: `mutation ($input: CreateCompanyInput!) { createCompany(input: $input) { ...CompanyFields } } ${COMPANY}` },
  { method: 'PUT', path: '/companies/{id}', document: `mutation ($id: ID!, $input: UpdateCompanyInput!) { updateCompany(id: $id, input: $input) { ...CompanyFields } } ${COMPANY}` },
  { method: 'DELETE', path: '/companies/{id}', document: 'mutation ($id: ID!) { deleteCompany(id: $id) }' },
);
