/**
 * A least-recently-used cache bounded by entries and by the total length of its
 * keys (for parse caches the key is the document text, and a document's AST grows
 * with it), so no sequence of requests can make it hold more than a fixed amount.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();
  private keyChars = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxKeyChars: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Most recently used goes last.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    if (key.length > this.maxKeyChars / 10) return; // one entry never takes more than a tenth
    if (this.entries.delete(key)) this.keyChars -= key.length;
    this.entries.set(key, value);
    this.keyChars += key.length;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.keyChars <= this.maxKeyChars) break;
      this.entries.delete(oldest);
      this.keyChars -= oldest.length;
    }
  }
}
