import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { ApiRoute, In } from '../http/api-route.decorator';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { PolicyApply } from './policy-apply.service';
import { ApplySchema } from './routine-schemas';

const applyPolicy = route({
  operationId: 'applyPolicy',
  method: 'POST',
  path: 'apply',
  summary: 'Apply a policy bundle (the DROVER_CONFIG format, YAML or JSON); dryRun=true only diffs',
  description:
    'File queues and routines are created, updated or removed to match the bundle; API-made ones are left alone; API edits of file routines are overwritten (their drift cleared); a pause made through the API survives. Answers the routine names by outcome, and the queues under `queues`.',
  tag: 'routines',
  role: 'admin',
  query: z.strictObject({
    dryRun: z
      .enum(['true', 'false'], { message: 'must be true or false' })
      .default('false')
      .transform((v) => v === 'true'),
  }),
  body: z
    .union([
      z.string(),
      z.object({ queues: z.array(z.unknown()).optional(), routines: z.array(z.unknown()).optional() }).loose(),
    ])
    .optional(),
  bodyTypes: ['application/yaml', 'text/yaml'],
  responses: { 200: { description: 'What changed (or would change)', schema: ApplySchema } },
});

@Controller('api/v1')
export class ApplyController {
  constructor(private readonly policy: PolicyApply) {}

  @ApiRoute(applyPolicy)
  async apply(@In() { query, body }: RouteInput<typeof applyPolicy>) {
    if (body === undefined) {
      throw new ProblemError(415, 'send the bundle as application/json, application/yaml or text/yaml');
    }
    return this.policy.apply(await this.policy.parse(body), query.dryRun);
  }
}
