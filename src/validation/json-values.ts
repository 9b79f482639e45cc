import { type FieldErrors, noFieldErrors } from '../graphql/errors.js';
import { Messages, fieldPath } from './messages.js';

/** How deep a request's JSON may nest (the body or variables at level 0, `properties` at 1). */
export const MAX_JSON_DEPTH = 32;

/**
 * What no field rule can see in a client's JSON: NUL characters in strings or keys
 * (PostgreSQL can store neither, so both databases refuse them) and nesting deeper
 * than MAX_JSON_DEPTH (reported on the top-level field that holds it). Walks with an
 * explicit stack, so no value, however deep, can overflow the call stack here or in
 * the recursive code that runs after it.
 */
export function jsonValueErrors(value: unknown): FieldErrors {
  const errors = noFieldErrors();
  const report = (path: PropertyKey[], message: (field: string) => string) => {
    const field = fieldPath(path) || 'body';
    errors[field] ??= [message(field)];
  };
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) report(path, Messages.nul);
    } else if (typeof current === 'object' && current !== null && !(current instanceof Date)) {
      if (path.length >= MAX_JSON_DEPTH) {
        report(path.slice(0, 1), (field) => Messages.tooDeep(field, MAX_JSON_DEPTH));
        continue;
      }
      const entries: [PropertyKey, unknown][] = Array.isArray(current) ? current.map((item, i) => [i, item]) : Object.entries(current);
      for (const [key, item] of entries) {
        if (typeof key === 'string' && key.includes('\u0000')) report(path.length > 0 ? path : [key], Messages.nul);
        else stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return errors;
}
