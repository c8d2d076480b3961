import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { DroverApiError } from './api-error';
import type { paths } from './schema';

export interface DroverApiClientOptions {
  /** The api's root URL, e.g. `http://127.0.0.1:8080` (the document's paths start at /api/v1). */
  baseUrl: string;
  /** A bearer token from DROVER_API_TOKENS_FILE; omit for a development-mode api. */
  token?: string;
  /** Another fetch (tests, proxies); default `globalThis.fetch`. */
  fetch?: (input: Request) => Promise<Response>;
}

/** The typed client: `client.GET('/api/v1/routines/{name}', { params: { path: { name } } })`. */
export type DroverApiClient = Client<paths>;

/**
 * A client of the Drover API typed from its OpenAPI document (libs/api-client/openapi.json), on
 * openapi-fetch. Every call resolves with `{data, response}` for a 2xx answer and rejects with a
 * {@link DroverApiError} for anything else, so a caller never mistakes an error for data; use
 * {@link ok} to get the data alone.
 */
export function createDroverApiClient(options: DroverApiClientOptions): DroverApiClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch && { fetch: options.fetch }),
  });
  const auth: Middleware = {
    onRequest({ request }) {
      if (options.token) request.headers.set('Authorization', `Bearer ${options.token}`);
      return request;
    },
    async onResponse({ request, response }) {
      if (response.status >= 400) throw await DroverApiError.fromResponse(request, response);
      return undefined;
    },
  };
  client.use(auth);
  return client;
}

/**
 * The data of a call made with a {@link createDroverApiClient} client:
 * `const page = await ok(client.GET('/api/v1/audit'))`.
 */
export async function ok<D>(call: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await call;
  // Unreachable with the client's middleware; kept so a bare openapi-fetch client fails loudly too.
  if (error !== undefined) throw new Error(`unexpected error answer ${response.status}`);
  return data as D;
}
