import { PHONE } from '../validation/rules.js';
import { digitsOf, fieldKey, phoneWords } from './words.js';

/** What search finds, by the REST name `types` uses, and the event resource whose REST object it reads. */
export const SEARCH_TYPES = {
  contacts: 'contact',
  companies: 'company',
  deals: 'deal',
  products: 'product',
  tickets: 'ticket',
  tasks: 'task',
  'payment-links': 'payment_link',
  notes: 'note',
} as const;

export type SearchType = keyof typeof SEARCH_TYPES;
export const SEARCH_TYPE_NAMES = Object.keys(SEARCH_TYPES) as SearchType[];

/** The search type of an event resource (undefined: not searched). */
export const searchTypeOf = (resource: string): SearchType | undefined => SEARCH_TYPE_NAMES.find((type) => SEARCH_TYPES[type] === resource);

/** A record as search stores it: what a hit shows, and what it is found and ranked by. */
export interface SearchDocument {
  title: string;
  subtitle: string | null;
  /** The searched fields, each as its words (`fieldKey`): an exact match ranks first, a field's start next. */
  fields: string[];
  /** Words found only as words: a phone's digit suffixes. */
  extraWords: string[];
}

type RestObject = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : '');
const nonEmpty = (...values: unknown[]) => values.map(text).filter(Boolean);

/** A custom property map's searched values: every string (string, enum and phone properties); phones by their digits too. */
function properties(object: RestObject): { fields: string[]; extraWords: string[] } {
  const values = Object.values((object.properties ?? {}) as Record<string, unknown>).filter((v): v is string => typeof v === 'string');
  const phones = values.filter((v) => PHONE.test(v.trim()));
  // A phone is also the field of its digits: a query of the whole number ranks it first.
  return { fields: [...values, ...phones.map(digitsOf)], extraWords: phones.flatMap(phoneWords) };
}

/** An e-mail whole, its local part and its domain: each a field of its own. */
const emailFields = (email: string) => (email.includes('@') ? [email, email.slice(0, email.lastIndexOf('@')), email.slice(email.lastIndexOf('@') + 1)] : nonEmpty(email));

/** Each searched type's document, from its REST object (the events' `data.object`). */
const DOCUMENTS: Record<SearchType, (o: RestObject) => SearchDocument> = {
  contacts: (o) => {
    const name = nonEmpty(o.first_name, o.last_name).join(' ');
    const custom = properties(o);
    return { title: name || text(o.email), subtitle: text(o.email) || null, fields: [name, ...nonEmpty(o.first_name, o.last_name), ...emailFields(text(o.email)), ...custom.fields], extraWords: custom.extraWords };
  },
  companies: (o) => ({ title: text(o.name), subtitle: text(o.domain) || null, fields: nonEmpty(o.name, o.domain), extraWords: [] }),
  deals: (o) => {
    const custom = properties(o);
    return { title: text(o.name), subtitle: text((o.stage as RestObject | null)?.name) || null, fields: [...nonEmpty(o.name), ...custom.fields], extraWords: custom.extraWords };
  },
  products: (o) => ({ title: text(o.name), subtitle: text(o.sku) || null, fields: nonEmpty(o.name, o.sku), extraWords: [] }),
  tickets: (o) => ({ title: text(o.title), subtitle: null, fields: nonEmpty(o.title), extraWords: [] }),
  tasks: (o) => ({ title: text(o.title), subtitle: text(o.due_date) || null, fields: nonEmpty(o.title), extraWords: [] }),
  'payment-links': (o) => ({ title: text(o.name), subtitle: text(o.currency) || null, fields: nonEmpty(o.name), extraWords: [] }),
  // Found by the words of the body, each line a field; shown by its first line and what it is about.
  notes: (o) => {
    const about = ((o.targets ?? []) as { title?: unknown }[]).map((target) => text(target.title)).filter(Boolean);
    return { title: noteTitle(text(o.body)), subtitle: about.join(', ') || null, fields: lines(text(o.body)), extraWords: [] };
  },
};

const lines = (body: string) => body.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);

/** What a note is shown by (a search hit's title, a timeline item's summary): its first line, at most 100 characters. */
export function noteTitle(body: string): string {
  const first = lines(body)[0] ?? '';
  return first.length > 100 ? `${first.slice(0, 99)}…` : first;
}

/** What a record is shown by (a search hit's, a trash entry's title), from its REST object. */
export const titleOf = (type: SearchType, object: RestObject): string => DOCUMENTS[type](object).title;

/** The token that keeps a workspace's words apart from every other's, in the same index. */
export const workspaceWord = (workspaceId: string) => `w${workspaceId.toLowerCase()}`;

/**
 * A record's word as the index stores it, and as a query asks for it: behind an `x`, so
 * that no query word, matched as a prefix (`w`, say), can reach the workspace's token.
 */
export const indexWord = (word: string) => `x${word}`;

/** A field's first word, as the index stores it beside the words: a query word that starts a field (the rank's tier 1) is found by it. */
export const headWord = (word: string) => `y${word}`;

/** A field of one word, as the index stores it beside the words: a one-word query equal to a field (the rank's tier 0) is found by it. */
export const wholeWord = (word: string) => `z${word}`;

/** A record's row of SearchEntry: `words` for the full-text index, `fields` (one per line, framed by newlines) for the rank. */
export function searchRow(type: SearchType, workspaceId: string, object: RestObject) {
  const document = DOCUMENTS[type](object);
  const fields = [...new Set(document.fields.map(fieldKey).filter(Boolean))];
  const heads = fields.map((f) => f.split(' ')[0]!);
  const wholes = fields.filter((f) => !f.includes(' '));
  const words = new Set([
    workspaceWord(workspaceId),
    ...[...fields.flatMap((f) => f.split(' ')), ...document.extraWords].map(indexWord),
    ...heads.map(headWord),
    ...wholes.map(wholeWord),
  ]);
  return { title: document.title, subtitle: document.subtitle, words: [...words].join(' '), fields: `\n${fields.join('\n')}\n` };
}

