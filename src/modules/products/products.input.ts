import { searchText } from '../../db/search.js';
import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { currencyCode, decimal, longText, percentage, text } from '../../validation/rules.js';

export const PRODUCT_TYPES = ['product', 'service'] as const;

const fields = {
  name: text(255),
  sku: z.string().trim().min(1).max(64).nullable(),
  type: z.enum(PRODUCT_TYPES),
  description: longText().nullable(),
  price: decimal(),
  cost: decimal().nullable(),
  currency: currencyCode(),
  unit: text(32),
  taxRate: percentage().nullable(),
  isActive: z.boolean(),
};

export const CreateProductInput = z.object(fields).partial({ sku: true, description: true, cost: true, taxRate: true, isActive: true });
export const UpdateProductInput = z.object(fields).partial();

/** The list's sorting (API.md section 8). */
export const PRODUCT_LIST = listSpec('products', 'Product', ['name', 'sku', 'price']);

export const ProductListArgs = z.object({
  ...listRules,
  isActive: z.boolean().optional(),
  type: z.enum(PRODUCT_TYPES).optional(),
  search: z.string().max(255).optional(),
});

/** The text `search` matches against (see src/db/search.ts). */
export const productSearchText = (p: { name: string; sku: string | null }) => searchText(p.name, p.sku);
