/** Reads a Server-Sent Events response the way a client does, parsed with `eventsource-parser`. */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: any;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** Messages as they arrive; ends when the server closes the stream. */
  messages: AsyncIterable<SseMessage>;
  /** Heartbeat comments seen so far. */
  comments: number;
  abort(): void;
}

/** Opens `url` as a stream, with `apiKey` as its Bearer key, or with no key (a signed events URL) when it is undefined. */
export async function openSse(url: string, apiKey: string | undefined, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const credential: Record<string, string> = apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
  const res = await fetch(url, {
    headers: { ...credential, accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const stream: SseStream = {
    status: res.status,
    headers: res.headers,
    comments: 0,
    abort: () => controller.abort(),
    messages: (async function* () {
      if (!res.body) return;
      const queue: EventSourceMessage[] = [];
      const parser = createParser({
        onEvent: (message) => queue.push(message),
        onComment: () => {
          stream.comments += 1;
        },
      });
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
          while (queue.length > 0) {
            const message = queue.shift()!;
            yield { id: message.id, event: message.event, data: JSON.parse(message.data) };
          }
        }
      } catch (err) {
        if (!controller.signal.aborted) throw err;
      }
    })(),
  };
  return stream;
}

/** Collects messages until `until` says stop (inclusive) or the stream ends. */
export async function collectSse(stream: SseStream, until: (message: SseMessage) => boolean = () => false): Promise<SseMessage[]> {
  const seen: SseMessage[] = [];
  for await (const message of stream.messages) {
    seen.push(message);
    if (until(message)) break;
  }
  return seen;
}
