/**
 * The normalized keys duplicates are grouped by (API.md section 12), kept on each row by
 * the writes that change what they are made of, so the database groups them by index.
 * '' is "nothing to group by"; a null column is one not computed yet (src/modules/duplicates/backfill.ts).
 */

/** Text compared ignoring case, accents and runs of spaces. */
export const folded = (text: string | null | undefined) =>
  (text ?? '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();

/** A contact's first and last name. */
export const personNameKey = (firstName: string, lastName: string | null | undefined) => folded(`${firstName} ${lastName ?? ''}`);

/** A company's name without a trailing legal form (Inc, Ltd, LLC, GmbH, S.A., Ltda, ME). */
export const companyNameKey = (name: string) =>
  folded(name)
    .replace(/[\s,]+(inc|ltd|llc|gmbh|s\.?\s?a|ltda|me)\.?$/u, '')
    .replace(/[.,]+$/u, '')
    .trim();

/** A company's domain without case or a leading "www.". */
export const domainKey = (domain: string | null | undefined) => folded(domain).replace(/^www\./, '');

/** The key columns of a company's write: only those of the fields it sets. */
export const companyKeys = (data: { name?: string; domain?: string | null }) => ({
  ...(data.name === undefined ? {} : { nameKey: companyNameKey(data.name) }),
  ...(data.domain === undefined ? {} : { domainKey: domainKey(data.domain) }),
});
