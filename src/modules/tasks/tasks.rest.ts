import { listDocument, routes } from '../../rest/route.js';
import { TASK_LIST } from './tasks.input.js';

const TASK = 'fragment TaskFields on Task { id title description dueDate isDone priority position createdAt updatedAt }';

export const taskRoutes = routes(
  {
    method: 'GET',
    path: '/tasks',
    document: `${listDocument(TASK_LIST, 'tasks', 'TaskFilter', '...TaskFields')} ${TASK}`,
  },
  { method: 'GET', path: '/tasks/{id}', document: `query ($id: ID!) { task(id: $id) { ...TaskFields } } ${TASK}` },
  { method: 'POST', path: '/tasks', document: `mutation ($input: CreateTaskInput!) { createTask(input: $input) { ...TaskFields } } ${TASK}` },
  { method: 'PUT', path: '/tasks/{id}', document: `mutation ($id: ID!, $input: UpdateTaskInput!) { updateTask(id: $id, input: $input) { ...TaskFields } } ${TASK}` },
  { method: 'DELETE', path: '/tasks/{id}', document: 'mutation ($id: ID!) { deleteTask(id: $id) }' },
);
