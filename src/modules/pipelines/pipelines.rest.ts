import { routes } from '../../rest/route.js';

const PIPELINE = `fragment PipelineFields on Pipeline {
  id name description createdAt updatedAt
  stages(perPage: 100) { id externalId name order color probability }
}`;

export const pipelineRoutes = routes(
  {
    method: 'GET',
    path: '/pipelines',
    document: `query ($page: Int, $perPage: Int) {
      pipelines(page: $page, perPage: $perPage) { currentPage perPage total lastPage data { ...PipelineFields } }
    } ${PIPELINE}`,
  },
  { method: 'GET', path: '/pipelines/{id}', document: `query ($id: ID!) { pipeline(id: $id) { ...PipelineFields } } ${PIPELINE}` },
  { method: 'POST', path: '/pipelines', document: `mutation ($input: CreatePipelineInput!) { createPipeline(input: $input) { ...PipelineFields } } ${PIPELINE}` },
  { method: 'PUT', path: '/pipelines/{id}', document: `mutation ($id: ID!, $input: UpdatePipelineInput!) { updatePipeline(id: $id, input: $input) { ...PipelineFields } } ${PIPELINE}` },
  { method: 'DELETE', path: '/pipelines/{id}', document: 'mutation ($id: ID!) { deletePipeline(id: $id) }' },
);
