import type { z } from 'zod';
/** Field name (snake_case, dotted for nested) to the reasons it was refused. */
export type FieldErrors = Record<string, string[]>;

/** An empty field map with no prototype: client-chosen names (`constructor`, `__proto__`) are ordinary keys. */
export const noFieldErrors = (): FieldErrors => Object.create(null);

/** camelCase (GraphQL) to snake_case (the wire's field names). */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The field name a client sees: snake_case segments joined by dots (`stages.1.name`). */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => (typeof p === 'string' ? snakeCase(p) : String(p))).join('.');
}

/** How Laravel names a field in a message: `first_name` is "first name"; nested paths stay dotted. */
function attribute(field: string): string {
  return field.includes('.') ? field : field.replace(/_/g, ' ');
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  date: 'a valid date',
};

/** "The {field} field must be {a string}." and friends, in one place for zod and GraphQL type errors. */
export const Messages = {
  required: (f: string) => `The ${attribute(f)} field is required.`,
  type: (f: string, expected: string) => `The ${attribute(f)} field must be ${TYPE_WORDS[expected] ?? `a valid ${expected}`}.`,
  invalid: (f: string) => `The ${attribute(f)} field is invalid.`,
  selected: (f: string) => `The selected ${attribute(f)} is invalid.`,
  format: (f: string) => `The ${attribute(f)} field format is invalid.`,
  email: (f: string) => `The ${attribute(f)} field must be a valid email address.`,
  phone: (f: string) => `The ${attribute(f)} field must be a phone number: 3 to 32 digits, spaces and +()-. with at least 3 digits.`,
  minChars: (f: string, n: number) => `The ${attribute(f)} field must be at least ${n} characters.`,
  maxChars: (f: string, n: number) => `The ${attribute(f)} field must not be greater than ${n} characters.`,
  min: (f: string, n: number | bigint) => `The ${attribute(f)} field must be at least ${n}.`,
  max: (f: string, n: number | bigint) => `The ${attribute(f)} field must not be greater than ${n}.`,
  minItems: (f: string, n: number | bigint) => `The ${attribute(f)} field must have at least ${n} items.`,
  maxItems: (f: string, n: number | bigint) => `The ${attribute(f)} field must not have more than ${n} items.`,
  taken: (f: string) => `The ${attribute(f)} has already been taken.`,
  distinct: (f: string) => `The ${attribute(f)} field has a duplicate value.`,
  unknownId: (f: string) => `The selected ${attribute(f)} is invalid.`,
  nul: (f: string) => `The ${attribute(f)} field must not contain NUL characters.`,
  loneSurrogate: (f: string) => `The ${attribute(f)} field must be valid Unicode text.`,
  tooDeep: (f: string, n: number) => `The ${attribute(f)} field is nested too deeply: at most ${n} levels.`,
};

/**
 * A message written about `field`, reworded for the same field under another name:
 * a batch item's `email` is `inputs.3.email` ("The inputs.3.email field is required.").
 * Every message names its field as `attribute` does, so only that name changes.
 */
export function renamed(message: string, field: string, to: string): string {
  // A function: a client's key (`properties.$&`) is text, not a replacement pattern.
  return message.replace(attribute(field), () => attribute(to));
}

/** A zod issue's message: custom messages use `:attribute` for the field's name. */
function messageFor(issue: z.core.$ZodIssue, field: string): string {
  if (issue.message.includes(':attribute')) return issue.message.replace(':attribute', attribute(field));
  // A refinement's own sentence (zod's default for one is "Invalid input").
  if (issue.code === 'custom' && issue.message !== 'Invalid input') return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined || issue.input === null) return Messages.required(field);
      return Messages.type(field, issue.expected === 'record' ? 'object' : String(issue.expected));
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? Messages.required(field) : Messages.minChars(field, Number(issue.minimum));
      if (issue.origin === 'array' || issue.origin === 'set') return Messages.minItems(field, issue.minimum);
      return Messages.min(field, issue.minimum);
    case 'too_big':
      if (issue.origin === 'string') return Messages.maxChars(field, Number(issue.maximum));
      if (issue.origin === 'array' || issue.origin === 'set') return Messages.maxItems(field, issue.maximum);
      return Messages.max(field, issue.maximum);
    case 'invalid_format':
      return issue.format === 'email' ? Messages.email(field) : Messages.format(field);
    case 'invalid_value':
      return issue.input === undefined || issue.input === null ? Messages.required(field) : Messages.selected(field);
    default:
      return Messages.invalid(field);
  }
}

/** zod issues as the API's field map: every field, every reason, once each. */
export function fieldErrorsFrom(issues: ReadonlyArray<z.core.$ZodIssue>, prefix: ReadonlyArray<PropertyKey> = []): FieldErrors {
  const errors = noFieldErrors();
  for (const issue of issues) {
    const field = fieldPath([...prefix, ...issue.path]) || 'input';
    const message = messageFor(issue, field);
    const list = (errors[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return errors;
}
