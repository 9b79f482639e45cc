import { batchData } from '../../graphql/batch.js';
import { listDocument, routes, restoreRoute } from '../../rest/route.js';
import { TASK_LIST } from './tasks.input.js';

const TASK = 'fragment TaskFields on Task { id title description dueDate isDone priority position createdAt updatedAt }';

export const taskRoutes = routes(
  {
    method: 'GET',
    path: '/tasks',
    document: `${listDocument(TASK_LIST, 'tasks', 'TaskFilter', '...TaskFields')} ${TASK}`,
  },
  // Batches (API.md section 8): literal segments win over /tasks/{id}.
  { method: 'POST', path: '/tasks/batch', document: `mutation ($inputs: [CreateTaskInput!]!) { createTasks(inputs: $inputs) { ...TaskFields } } ${TASK}`, unwrap: batchData },
  { method: 'PUT', path: '/tasks/batch', document: `mutation ($inputs: [UpdateTasksItem!]!) { updateTasks(inputs: $inputs) { ...TaskFields } } ${TASK}`, unwrap: batchData },
  { method: 'GET', path: '/tasks/{id}', document: `query ($id: ID!) { task(id: $id) { ...TaskFields } } ${TASK}` },
  { method: 'POST', path: '/tasks', document: `mutation ($input: CreateTaskInput!) { createTask(input: $input) { ...TaskFields } } ${TASK}` },
  { method: 'PUT', path: '/tasks/{id}', document: `mutation ($id: ID!, $input: UpdateTaskInput!) { updateTask(id: $id, input: $input) { ...TaskFields } } ${TASK}` },
  { method: 'DELETE', path: '/tasks/{id}', document: 'mutation ($id: ID!) { deleteTask(id: $id) }' },
  restoreRoute('tasks', 'restoreTask', TASK),
);
