import { PHONE } from '../validation/rules.js';

/**
 * How search reads text (API.md section 10, "Search"): case- and accent-insensitive
 * words, an e-mail's parts, a phone's digits. The same folding serves what is stored and
 * what is asked, so both databases compare plain lower-case ASCII-or-letter words.
 */

/** Lower case without accents (José -> jose, Ærø -> ærø: only combining marks go). */
const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();

/** The words of a text: runs of letters and digits, folded. */
export const wordsOf = (text: string): string[] => fold(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/** A field as the rank compares it: its words, one space apart. */
export const fieldKey = (text: string): string => wordsOf(text).join(' ');


/** A phone's digits. */
export const digitsOf = (phone: string): string => phone.replace(/\D+/g, '');

/**
 * A phone's words: every suffix of its digits of 3 digits or more, so that a query's
 * digits, matched as a prefix, find the number by its end as by its start
 * (`+55 (11) 9 8765-4321` by `987654321`, by `11987654321`, by `5511`).
 */
export const phoneWords = (phone: string): string[] => {
  const digits = digitsOf(phone);
  return Array.from({ length: Math.max(0, digits.length - 2) }, (_, i) => digits.slice(i));
};

/** The words a query asks for, each matched as a prefix (a phone-shaped query is its digits, one word). */
export function queryWords(query: string): string[] {
  const trimmed = query.trim();
  if (PHONE.test(trimmed) && /[\s+().-]/.test(trimmed)) return [digitsOf(trimmed)];
  return wordsOf(trimmed);
}
