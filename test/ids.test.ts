import { expect, it } from 'vitest';
import { newId, pooledRandom } from '../src/db/ids.js';

it('ids are ULIDs, distinct and ascending in the order they are made', () => {
  const ids = Array.from({ length: 5_000 }, () => newId());
  expect(ids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(ids);
});

it("the ids' random characters come from crypto-random bytes, each of the 32 equally likely, across pool refills", () => {
  const draws = 32 * 4_096; // 32 refills of the 4 KiB pool
  const counts = new Array(32).fill(0);
  let [min, max] = [1, 0];
  for (let i = 0; i < draws; i += 1) {
    const r = pooledRandom();
    [min, max] = [Math.min(min, r), Math.max(max, r)];
    counts[Math.floor(r * 32)] += 1;
  }
  expect(min >= 0 && max < 1).toBe(true);
  // 4,096 expected per character; ±10% is over 6 standard deviations.
  for (const count of counts) expect(Math.abs(count - 4_096)).toBeLessThan(410);
});
