import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { AppConfig } from '@drover/config';
import { candidateHeadersSchema } from '@drover/core';
import { CandidateProvider, type CandidateContext } from '@drover/scheduler';
import { OutboundRefusedError } from '../http/guarded-lookup';
import { OutboundHttp, type OutboundResponse } from '../http/outbound-http';
import { UrlAllowlist } from '../http/url-allowlist';

const argsSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: candidateHeadersSchema.default({}),
});

/** The answer is read up to this size: a candidate list, not a download. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The built-in candidate provider `http.candidates`: a selector routine names it with
 * `selector: { provider: http.candidates, args: { url, headers? } }`, and each tick GETs the URL,
 * which answers the candidates as JSON (`[{key, band, stalenessSec, depth?, emphasis?, disabled?}]`).
 * So any service, in any language, can tell Drover what is owed. The call goes through
 * {@link OutboundHttp} with the scheduler's DROVER_HTTP_ALLOW (loopback only when unset), as for
 * `http.request`: allow-list, address rules, no redirects; the answer is read up to 4 MiB and the
 * connection dropped beyond. `headers` may not set `Host`, framing headers or any `X-Drover-*`.
 * Requests carry `X-Drover-Routine` and `X-Drover-Scheduled-For`; the routine's
 * `conditionTimeoutMs` bounds them.
 */
@Injectable()
export class HttpCandidatesProvider {
  private readonly http: OutboundHttp;

  constructor(config: AppConfig) {
    this.http = new OutboundHttp(new UrlAllowlist(config.env.httpAllow));
  }

  @CandidateProvider('http.candidates')
  async candidates(ctx: CandidateContext): Promise<unknown> {
    const args = argsSchema.safeParse(ctx.args ?? {});
    if (!args.success) {
      const issue = args.error.issues[0]!;
      throw new Error(`http.candidates: args.${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    const url = new URL(args.data.url);
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const [name, value] of Object.entries(args.data.headers)) {
      if (name.toLowerCase() !== 'accept') headers[name] = value;
    }
    headers['x-drover-routine'] = ctx.routine;
    headers['x-drover-scheduled-for'] = new Date(ctx.slot).toISOString();
    let res: OutboundResponse;
    try {
      res = await this.http.request({ url, method: 'GET', headers, signal: ctx.signal, maxBytes: MAX_BODY_BYTES });
    } catch (err) {
      if (err instanceof OutboundRefusedError) throw new Error(`http.candidates: ${err.message}`, { cause: err });
      throw err;
    }
    if (res.status < 200 || res.status > 299) {
      const redirect = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : '';
      throw new Error(`http.candidates: ${url.href} answered ${res.status}${redirect}`);
    }
    if (res.truncated) throw new Error(`http.candidates: the answer is over ${MAX_BODY_BYTES} bytes`);
    try {
      return JSON.parse(res.body.toString('utf8')) as unknown;
    } catch {
      throw new Error(`http.candidates: ${url.href} did not answer JSON`);
    }
  }
}
