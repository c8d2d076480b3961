import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { AppConfig } from '@drover/config';
import { CandidateProvider, type CandidateContext } from '@drover/scheduler';
import { UrlAllowlist } from '../http/url-allowlist';

const argsSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
});

/** The answer is read up to this size: a candidate list, not a download. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The built-in candidate provider `http.candidates`: a selector routine names it with
 * `selector: { provider: http.candidates, args: { url, headers? } }`, and each tick GETs the URL,
 * which answers the candidates as JSON (`[{key, band, stalenessSec, depth?, emphasis?, disabled?}]`).
 * So any service, in any language, can tell Drover what is owed. The URL must be allowed by
 * DROVER_HTTP_ALLOW (loopback only when unset), as for `http.request`. Requests carry
 * `X-Drover-Routine` and `X-Drover-Scheduled-For`; the routine's `conditionTimeoutMs` bounds them.
 */
@Injectable()
export class HttpCandidatesProvider {
  private readonly allow: UrlAllowlist;

  constructor(config: AppConfig) {
    this.allow = new UrlAllowlist(config.env.httpAllow);
  }

  @CandidateProvider('http.candidates')
  async candidates(ctx: CandidateContext): Promise<unknown> {
    const args = argsSchema.safeParse(ctx.args ?? {});
    if (!args.success) {
      const issue = args.error.issues[0]!;
      throw new Error(`http.candidates: args.${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    const url = new URL(args.data.url);
    if (!this.allow.allows(url))
      throw new Error(`http.candidates: ${url.href} is not allowed: ${this.allow.describe()}`);
    const res = await fetch(url, {
      headers: {
        ...args.data.headers,
        accept: 'application/json',
        'x-drover-routine': ctx.routine,
        'x-drover-scheduled-for': new Date(ctx.slot).toISOString(),
      },
      signal: ctx.signal,
      redirect: 'error',
    });
    if (!res.ok) throw new Error(`http.candidates: ${url.href} answered ${res.status}`);
    const text = await res.text();
    if (text.length > MAX_BODY_BYTES) throw new Error(`http.candidates: the answer is over ${MAX_BODY_BYTES} bytes`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`http.candidates: ${url.href} did not answer JSON`);
    }
  }
}
