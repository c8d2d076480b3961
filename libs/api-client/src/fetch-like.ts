/**
 * The part of `fetch` the clients use, so a caller can hand them another transport: Node's global
 * `fetch` fits as it is, and so does a transport on node:http (the CLI's), which never loads
 * undici, the code behind Node's `fetch`, `Request` and `Headers` — a fresh process pays tens of
 * ms for that on its first request.
 */
export interface FetchInit {
  method?: string;
  /** Lower-case names. */
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** The part of a `Response` the clients read. */
export interface FetchAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  /** For event streams: the body as it arrives. */
  readonly body: ReadableStream<Uint8Array> | null;
}

/**
 * Resolves with the answer, whatever its status; rejects as `fetch` does: a `TypeError('fetch
 * failed')` whose `cause` is the network error (ECONNREFUSED, a certificate's code…), or the abort.
 */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchAnswer>;
