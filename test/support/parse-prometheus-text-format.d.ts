// The package ships no types: the part of its output the tests read (its README shows the shape).
declare module 'parse-prometheus-text-format' {
  interface Family {
    name: string;
    help: string;
    type: string;
    metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string; sum?: string }[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
