import { Injectable } from '@nestjs/common';
import { AppConfig } from '@drover/config';
import { HTTP_CONDITION_MAX_BYTES, httpConditionVerdict, type HttpCondition as HttpSpec } from '@drover/core';
import { ConditionKind, type ConditionKindContext } from '@drover/scheduler';
import { OutboundRefusedError } from '../http/guarded-lookup';
import { OutboundHttp, type OutboundResponse } from '../http/outbound-http';
import { UrlAllowlist } from '../http/url-allowlist';

/**
 * The built-in condition kind `http` (`{kind: http, url, headers?}`): each dispatch GETs the URL,
 * and a 2xx answer `{"run": true|false}` runs or skips the slot; anything else — refused by the
 * allow-list or the address rules, a non-2xx, another body, no answer within the routine's
 * `conditionTimeoutMs` — is a launch failure naming what went wrong. The call goes through
 * {@link OutboundHttp} with the scheduler's DROVER_HTTP_ALLOW (loopback only when unset), exactly as
 * `http.request` and `http.candidates` do: allow-list, address rules at connect time, no
 * redirects, the answer read up to 64 KiB. `headers` may not set `Host`, framing headers or any
 * `X-Drover-*`; requests carry `X-Drover-Routine` and `X-Drover-Scheduled-For`.
 */
@Injectable()
export class HttpCondition {
  private readonly http: OutboundHttp;

  constructor(config: AppConfig) {
    this.http = new OutboundHttp(new UrlAllowlist(config.env.httpAllow));
  }

  @ConditionKind('http')
  async check(ctx: ConditionKindContext): Promise<boolean> {
    const { url: href, headers: given = {} } = ctx.condition as HttpSpec;
    const url = new URL(href);
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const [name, value] of Object.entries(given)) {
      if (name.toLowerCase() !== 'accept') headers[name] = value;
    }
    headers['x-drover-routine'] = ctx.routine;
    headers['x-drover-scheduled-for'] = new Date(ctx.slot).toISOString();
    let res: OutboundResponse;
    try {
      res = await this.http.request({
        url,
        method: 'GET',
        headers,
        signal: ctx.signal,
        maxBytes: HTTP_CONDITION_MAX_BYTES,
      });
    } catch (err) {
      if (err instanceof OutboundRefusedError) throw new Error(`condition http: ${err.message}`, { cause: err });
      throw err;
    }
    const verdict = httpConditionVerdict(res.status, res.body.toString('utf8'), res.truncated);
    if ('error' in verdict) throw new Error(`condition http: ${url.origin}${url.pathname} ${verdict.error}`);
    return verdict.run;
  }
}
