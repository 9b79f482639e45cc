import { EventSource } from 'eventsource';

export interface Message {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** A REST stream read through a real EventSource client; `messages` fills as events arrive. */
export function openStream(url: string, key: string, headers: Record<string, string> = {}) {
  const messages: Message[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const source = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'X-Api-Key': key, ...headers } }),
  });
  const onMessage = (e: MessageEvent) => {
    messages.push({ id: e.lastEventId, event: e.type, data: JSON.parse(e.data) });
    for (const w of waiters.filter((w) => messages.length >= w.count)) w.resolve();
  };
  const opened = new Promise<void>((resolve, reject) => {
    source.onopen = () => resolve();
    source.onerror = (e) => reject(new Error(`stream: ${String((e as { message?: string }).message ?? e.type)}`));
  });
  for (const type of ['contact.created', 'contact.updated', 'deal.created', 'company.created']) source.addEventListener(type, onMessage);
  return {
    messages,
    opened,
    /** Resolves once `count` messages have arrived (the test's timeout bounds the wait). */
    received: (count: number) => new Promise<void>((resolve) => (messages.length >= count ? resolve() : waiters.push({ count, resolve }))),
    close: () => source.close(),
  };
}
