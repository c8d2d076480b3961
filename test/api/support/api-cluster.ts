import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ApiRole } from '@drover/config';
import { waitFor, type AppProcess } from '@drover/testing';
import { TestCluster } from '../../support/test-cluster';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers field by field
export interface ApiAnswer<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON (problem documents included), else the text. */
  body: T;
  text: string;
}

export interface CallOptions {
  /** A role's token (default `admin`), `none` for no Authorization header, or a raw token string. */
  as?: ApiRole | 'none' | { token: string };
  body?: unknown;
  /** Sent as is (no JSON encoding), with `contentType`. */
  raw?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface ApiClusterOptions {
  /** The policy file every process gets (queues and routines). */
  policy?: unknown;
  /** Start a scheduler (default true) and a worker (default true) next to the api. */
  scheduler?: boolean;
  worker?: boolean;
  /** DROVER_API_RATE_LIMIT of the api (default 0: no limit, so tests are not throttled). */
  rateLimitPerMinute?: number;
  /** DROVER_API_REFUSAL_LIMIT of the api (default 0: no limit, so tests are not throttled). */
  refusalLimitPerMinute?: number;
  /** No tokens file: development mode. */
  devMode?: boolean;
  env?: Record<string, string>;
  /** Environment of the api process only. */
  apiEnv?: Record<string, string>;
}

/**
 * An api process (with real tokens of each role) over a private TestCluster, plus a scheduler and
 * a worker unless told otherwise: what an operator's curl meets. `call` speaks HTTP to the api.
 */
export class ApiCluster {
  readonly tokens: Record<ApiRole, string> = {
    viewer: `v-${randomBytes(16).toString('hex')}`,
    operator: `o-${randomBytes(16).toString('hex')}`,
    admin: `a-${randomBytes(16).toString('hex')}`,
  };
  /** The api's DROVER_API_TOKENS_FILE (unset in development mode); tests may rewrite it. */
  tokensFile?: string;
  api!: AppProcess;
  scheduler?: AppProcess;
  worker?: AppProcess;

  private constructor(readonly cluster: TestCluster) {}

  static async start(label: string, opts: ApiClusterOptions = {}): Promise<ApiCluster> {
    const c = new ApiCluster(new TestCluster(opts.policy, opts.env ?? {}, label));
    const apiEnv: Record<string, string> = {
      DROVER_API_RATE_LIMIT: String(opts.rateLimitPerMinute ?? 0),
      DROVER_API_REFUSAL_LIMIT: String(opts.refusalLimitPerMinute ?? 0),
      ...opts.apiEnv,
    };
    if (!opts.devMode) {
      const file = join(mkdtempSync(join(tmpdir(), 'drover-tokens-')), 'tokens.yaml');
      const tokens = (Object.entries(c.tokens) as [ApiRole, string][]).map(([role, token]) => ({
        name: `${role}-token`,
        role,
        sha256: createHash('sha256').update(token).digest('hex'),
      }));
      writeFileSync(file, stringify({ tokens }));
      apiEnv.DROVER_API_TOKENS_FILE = file;
      c.tokensFile = file;
    }
    const [api, scheduler, worker] = await Promise.all([
      c.cluster.start('api', `${label}-api`, apiEnv),
      opts.scheduler === false ? undefined : c.cluster.start('scheduler', `${label}-scheduler`),
      opts.worker === false ? undefined : c.cluster.startWorker(`${label}-worker`),
    ]);
    c.api = api;
    c.scheduler = scheduler;
    c.worker = worker;
    await c.untilPolicyVisible(opts);
    return c;
  }

  /**
   * The api can answer before the policy's queues reached its registry view; a first
   * `POST /jobs` then gets "queue not defined". Tests start once every queue of the policy is
   * listed.
   */
  private async untilPolicyVisible(opts: ApiClusterOptions): Promise<void> {
    const names = ((opts.policy as { queues?: { name: string }[] } | undefined)?.queues ?? []).map((q) => q.name);
    // The scheduler leader publishes the policy's queues; without one there is nothing to wait for.
    if (names.length === 0 || opts.scheduler === false) return;
    await waitFor(
      `the api to list queues ${names.join(', ')}`,
      async () => {
        const res = await this.call('GET', '/queues', { as: opts.devMode ? 'none' : 'viewer' });
        if (res.status !== 200) return false;
        const items = (res.body as { items: { name: string }[] }).items;
        return names.every((n) => items.some((q) => q.name === n));
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }

  get url(): string {
    return `${this.api.baseUrl}/api/v1`;
  }

  authHeader(as: CallOptions['as'] = 'admin'): Record<string, string> {
    if (as === 'none') return {};
    const token = typeof as === 'object' ? as.token : this.tokens[as];
    return { authorization: `Bearer ${token}` };
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as ApiAnswer
  async call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { ...this.authHeader(opts.as), ...opts.headers };
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) {
      body = opts.raw;
      headers['content-type'] = opts.contentType ?? 'application/json';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = opts.contentType ?? 'application/json';
    }
    const res = await fetch(`${this.url}${path}`, { method, headers, body });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const parsed = type.includes('json') && text ? (JSON.parse(text) as T) : (text as T);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  async close(): Promise<void> {
    await this.cluster.close();
  }
}

/** Asserts the shape every API error has (docs/api.md) and returns it. */
export function expectProblem(
  answer: ApiAnswer,
  status: number,
): { detail: string; errors?: { path: string; message: string }[] } {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({
    type: expect.stringMatching(/^urn:drover:problem:/),
    title: expect.any(String),
    status,
    detail: expect.any(String),
  });
  expect(answer.text).not.toMatch(/\n\s+at /); // never a stack trace
  return answer.body;
}
