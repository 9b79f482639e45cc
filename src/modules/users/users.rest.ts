import { listDocument, routes } from '../../rest/route.js';
import { USER_LIST } from './users.input.js';

const USER = 'fragment UserFields on User { id name email createdAt updatedAt }';

export const userRoutes = routes(
  {
    method: 'GET',
    path: '/users',
    document: `${listDocument(USER_LIST, 'users', 'UserFilter', '...UserFields')} ${USER}`,
  },
  { method: 'GET', path: '/users/{id}', document: `query ($id: ID!) { user(id: $id) { ...UserFields } } ${USER}` },
  { method: 'POST', path: '/users', document: `mutation ($input: CreateUserInput!) { createUser(input: $input) { ...UserFields } } ${USER}` },
  { method: 'PUT', path: '/users/{id}', document: `mutation ($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ...UserFields } } ${USER}` },
  { method: 'DELETE', path: '/users/{id}', document: 'mutation ($id: ID!) { deleteUser(id: $id) }' },
);
