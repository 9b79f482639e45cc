import { type FieldErrors, noFieldErrors } from './messages.js';
import { Messages, fieldPath } from './messages.js';

/** How deep a request's JSON may nest (the body or variables at level 0, `properties` at 1). */
export const MAX_JSON_DEPTH = 32;

/** A UTF-16 surrogate with no partner (`"\ud800"` is valid JSON): with the `u` flag, a paired one is one code point and does not match. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Why a string from a client cannot be stored as it is, if it cannot. */
export const unstorable = (text: string) => (text.includes('\u0000') ? Messages.nul : LONE_SURROGATE.test(text) ? Messages.loneSurrogate : undefined);

/**
 * What no field rule can see in a client's JSON: NUL characters and lone surrogates in
 * strings or keys (PostgreSQL can store neither; SQLite would store replacement
 * characters instead, so both databases refuse them) and nesting deeper
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
      const why = unstorable(current);
      if (why) report(path, why);
    } else if (typeof current === 'object' && current !== null && !(current instanceof Date)) {
      if (path.length >= MAX_JSON_DEPTH) {
        report(path.slice(0, 1), (field) => Messages.tooDeep(field, MAX_JSON_DEPTH));
        continue;
      }
      const entries: [PropertyKey, unknown][] = Array.isArray(current) ? current.map((item, i) => [i, item]) : Object.entries(current);
      for (const [key, item] of entries) {
        const why = typeof key === 'string' ? unstorable(key) : undefined;
        if (why) report(path.length > 0 ? path : [key], why);
        else stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return errors;
}
