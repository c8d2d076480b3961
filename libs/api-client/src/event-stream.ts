import { DroverApiError } from './api-error';
import { SseParser, type SseEvent } from './sse-parser';

export interface EventStreamOptions {
  /** The api's root URL, as for {@link createDroverApiClient}. */
  baseUrl: string;
  token?: string;
  /** A path under the root with its query, e.g. `/api/v1/runs/r1/events`. */
  path: string;
  /** Aborting closes the stream; the iteration then ends without an error. */
  signal?: AbortSignal;
  fetch?: (input: Request) => Promise<Response>;
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
  const request = new Request(`${options.baseUrl.replace(/\/+$/, '')}${options.path}`, {
    headers: {
      accept: 'text/event-stream',
      ...(options.token && { authorization: `Bearer ${options.token}` }),
    },
    ...(options.signal && { signal: options.signal }),
  });
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(request);
  } catch (err) {
    if (options.signal?.aborted) return;
    throw err;
  }
  if (response.status !== 200 || !response.body) throw await DroverApiError.fromResponse(request, response);
  options.onOpen?.();
  const reader = response.body.getReader();
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
    await response.body.cancel().catch(() => undefined);
  }
}
