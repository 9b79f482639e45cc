import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/**
 * The samples of `name` in a scrape, read with parse-prometheus-text-format (which also
 * refuses any line that is not the text format). It folds a histogram's labelled series
 * into one (labels, `_sum` and `_count` lost), so histograms are read as their untyped
 * `_bucket`, `_sum` and `_count` series: ask for `..._count`.
 */
export function samples(scrape: string, name: string): Sample[] {
  const untyped = scrape.replace(/^# TYPE \S+ histogram$/gm, '');
  // Untyped, each run of lines of one name is a family: a histogram's `_count` lines come one per series.
  const runs = parsePrometheusTextFormat(untyped).filter((f) => f.name === name);
  return runs.flatMap((f) => f.metrics).map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) }));
}

/** The value of `name`'s one sample with exactly `labels` (0 when there is none: a counter not yet counted). */
export function valueOf(scrape: string, name: string, labels: Record<string, string> = {}): number {
  const found = samples(scrape, name).filter((s) => JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(Object.entries(labels).sort()));
  if (found.length > 1) throw new Error(`${name}: ${found.length} samples with ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** Every family of a scrape (what the parser makes of it, checking each line). */
export const families = (scrape: string) => parsePrometheusTextFormat(scrape);
