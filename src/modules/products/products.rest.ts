import { exportRoute, listDocument, routes, restoreRoute } from '../../rest/route.js';
import { batchData } from '../../graphql/batch.js';
import { PRODUCT_LIST } from './products.input.js';

const PRODUCT = `fragment ProductFields on Product {
  id name sku type description price cost currency unit taxRate isActive createdAt updatedAt
}`;

export const productRoutes = routes(
  {
    method: 'GET',
    path: '/products',
    document: `${listDocument(PRODUCT_LIST, 'products', 'ProductFilter', '...ProductFields')} ${PRODUCT}`,
  },
  // Batches (API.md section 8): literal segments win over /products/{id}.
  {
    method: 'POST',
    path: '/products/batch',
    document: `mutation ($inputs: [CreateProductInput!]!) { createProducts(inputs: $inputs) { ...ProductFields } } ${PRODUCT}`,
    unwrap: batchData,
  },
  {
    method: 'PUT',
    path: '/products/batch',
    document: `mutation ($inputs: [UpdateProductsItem!]!) { updateProducts(inputs: $inputs) { ...ProductFields } } ${PRODUCT}`,
    unwrap: batchData,
  },
  // Declared before /products/{id}, and literal segments win anyway.
  exportRoute(PRODUCT_LIST, 'products', 'ProductFilter', '...ProductFields', PRODUCT),
  {
    method: 'GET',
    path: '/products/{id}',
    document: `query ($id: ID!) { product(id: $id) { ...ProductFields } } ${PRODUCT}`,
  },
  {
    method: 'POST',
    path: '/products',
    document: `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ...ProductFields } } ${PRODUCT}`,
  },
  {
    method: 'PUT',
    path: '/products/{id}',
    document: `mutation ($id: ID!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { ...ProductFields } } ${PRODUCT}`,
  },
  {
    method: 'DELETE',
    path: '/products/{id}',
    document: `mutation ($id: ID!) { deleteProduct(id: $id) }`,
  },
  restoreRoute('products', 'restoreProduct', PRODUCT),
);
