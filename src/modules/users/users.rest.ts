import { routes } from '../../rest/route.js';

const USER = 'fragment UserFields on User { id name email createdAt updatedAt }';

export const userRoutes = routes(
  {
    method: 'GET',
    path: '/users',
    document: `query ($page: Int, $perPage: Int, $filter: UserFilter) {
      users(page: $page, perPage: $perPage, filter: $filter) { currentPage perPage total lastPage data { ...UserFields } }
    } ${USER}`,
  },
  { method: 'GET', path: '/users/{id}', document: `query ($id: ID!) { user(id: $id) { ...UserFields } } ${USER}` },
  { method: 'POST', path: '/users', document: `mutation ($input: CreateUserInput!) { createUser(input: $input) { ...UserFields } } ${USER}` },
  { method: 'PUT', path: '/users/{id}', document: `mutation ($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ...UserFields } } ${USER}` },
  { method: 'DELETE', path: '/users/{id}', document: 'mutation ($id: ID!) { deleteUser(id: $id) }' },
);
