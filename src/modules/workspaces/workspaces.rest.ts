import { routes } from '../../rest/route.js';

const WORKSPACE = 'fragment WorkspaceFields on Workspace { id name defaultCurrency createdAt updatedAt }';

export const workspaceRoutes = routes(
  { method: 'GET', path: '/workspace', document: `query { workspace { ...WorkspaceFields } } ${WORKSPACE}` },
  { method: 'PUT', path: '/workspace', document: `mutation ($input: UpdateWorkspaceInput!) { updateWorkspace(input: $input) { ...WorkspaceFields } } ${WORKSPACE}` },
);
