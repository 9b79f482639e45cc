import { listDocument, routes } from '../../rest/route.js';
import { PIPELINE_LIST } from './pipelines.input.js';

const PIPELINE = `fragment PipelineFields on Pipeline {
  id name description createdAt updatedAt
  stages(perPage: 100) { id externalId name order color probability }
}`;

export const pipelineRoutes = routes(
  {
    method: 'GET',
    path: '/pipelines',
    document: `${listDocument(PIPELINE_LIST, 'pipelines', null, '...PipelineFields')} ${PIPELINE}`,
  },
  { method: 'GET', path: '/pipelines/{id}', document: `query ($id: ID!) { pipeline(id: $id) { ...PipelineFields } } ${PIPELINE}` },
  { method: 'POST', path: '/pipelines', document: `mutation ($input: CreatePipelineInput!) { createPipeline(input: $input) { ...PipelineFields } } ${PIPELINE}` },
  { method: 'PUT', path: '/pipelines/{id}', document: `mutation ($id: ID!, $input: UpdatePipelineInput!) { updatePipeline(id: $id, input: $input) { ...PipelineFields } } ${PIPELINE}` },
  { method: 'DELETE', path: '/pipelines/{id}', document: 'mutation ($id: ID!) { deletePipeline(id: $id) }' },
);
