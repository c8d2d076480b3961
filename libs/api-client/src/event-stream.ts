import { DroverApiError } from './api-error';
import type { FetchAnswer, FetchLike } from './fetch-like';
import { SseParser, type SseEvent } from './sse-parser';

export interface EventStreamOptions {
  /** The api's root URL, as for {@link createDroverApiClient}. */
  baseUrl: string;
  token?: string;
  /** A path under the root with its query, e.g. `/api/v1/runs/r1/events`. */
  path: string;
  /** Aborting closes the stream; the iteration then ends without an error. */
  signal?: AbortSignal;
  /** Another transport (the CLI's, on node:http); default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Called once the api answered 200: from then on the stream sees what happens. */
  onOpen?: () => void;
}

/**
 * Reads one of the api's `text/event-stream` routes from Node (browsers have `EventSource`,
 * which cannot send a bearer token). Yields events until the server closes the stream or
 * `signal` aborts. A non-200 answer rejects with a {@link DroverApiError} before any event.
 * No reconnect: the api's streams start with the current state, so a caller that wants to
 * resume simply opens the stream again.
 */
export async function* readEventStream(options: EventStreamOptions): AsyncGenerator<SseEvent> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}${options.path}`;
  let response: FetchAnswer;
  try {
    response = await (options.fetch ?? fetch)(url, {
      headers: {
        accept: 'text/event-stream',
        ...(options.token && { authorization: `Bearer ${options.token}` }),
      },
      ...(options.signal && { signal: options.signal }),
    });
  } catch (err) {
    if (options.signal?.aborted) return;
    throw err;
  }
  if (response.status !== 200 || !response.body) {
    const text = await response.text();
    throw DroverApiError.fromAnswer(`GET ${new URL(url).pathname}`, response.status, response.statusText, text);
  }
  const body = response.body;
  options.onOpen?.();
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield* parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch (err) {
    if (options.signal?.aborted) return;
    throw err;
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
