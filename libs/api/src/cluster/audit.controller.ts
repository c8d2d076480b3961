import { Controller } from '@nestjs/common';
import { AUDIT_LOGS, AuditLog } from '@drover/store';
import { z } from 'zod';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoInstantInput, isoSchema } from '../http/api-time';
import { parseIsoInstant } from '@drover/core';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';

const AuditEntrySchema = named(
  'AuditEntry',
  z.object({
    id: z.string(),
    at: isoSchema,
    token: z.string(),
    role: z.string(),
    action: z.string(),
    target: z.string(),
    status: z.number().int(),
    ip: z.string(),
  }),
);

const listAudit = route({
  operationId: 'listAudit',
  method: 'GET',
  path: 'audit',
  summary: 'Who changed what: every mutating call, newest first',
  description:
    'Two logs, each a capped Redis stream. `log=principals` (the default): every mutating call of an ' +
    "authenticated caller that passed the route's role check; the newest 10 000 are kept. " +
    '`log=refused`: mutating calls refused at the door, before anybody was authenticated (no or an ' +
    "invalid token, a failed login; token `anonymous`) or for a role below the route's (403), kept " +
    "apart so they never push a principal's entry out; the newest 1 000 are kept, and a client address " +
    'past DROVER_API_REFUSAL_LIMIT is answered 429 and not recorded. Control ' +
    'characters in every text field are stored escaped (`\\n`, `\\x1b`), and `\\` is doubled. ' +
    'With `token`, `action` or `target` a page reads at most 5 000 entries: it may hold fewer than ' +
    '`page_size` matches (even none) and still carry `next_page_token` to read on.',
  tag: 'cluster',
  role: 'admin',
  query: z.strictObject({
    log: z
      .enum(AUDIT_LOGS)
      .default('principals')
      .describe('Which log: what authenticated callers did (default), or the calls refused at the door'),
    page_size: z.coerce.number().int().min(1).max(1000).default(100),
    page_token: z
      .string()
      .regex(/^\d+-\d+$/, { message: 'is not a page token from next_page_token' })
      .optional(),
    token: z.string().max(200).optional().describe('Only entries whose token (who) contains this, any case'),
    action: z
      .string()
      .max(200)
      .optional()
      .describe('Only entries whose action (an operationId: `pauseRoutine`) contains this, any case'),
    target: z
      .string()
      .max(200)
      .optional()
      .describe('Only entries whose target (`name=nightly`) contains this, any case'),
    from: isoInstantInput.optional().describe('Only entries at or after this instant'),
    to: isoInstantInput.optional().describe('Only entries before this instant'),
  }),
  responses: {
    200: {
      description: 'Audit entries',
      schema: named(
        'AuditPage',
        z.object({ items: z.array(AuditEntrySchema), next_page_token: z.string().optional() }),
      ),
    },
  },
});

@Controller('api/v1')
export class AuditController {
  constructor(private readonly audit: AuditLog) {}

  @ApiRoute(listAudit)
  async list(@In() { query }: RouteInput<typeof listAudit>) {
    const at = (iso: string | undefined) => (iso === undefined ? undefined : parseIsoInstant(iso));
    const filter = {
      token: query.token,
      action: query.action,
      target: query.target,
      from: at(query.from),
      to: at(query.to),
    };
    const page = await this.audit.list({ limit: query.page_size, before: query.page_token, log: query.log, filter });
    return { items: page.entries, ...(page.next && { next_page_token: page.next }) };
  }
}
