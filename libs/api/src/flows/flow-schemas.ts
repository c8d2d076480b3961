import { z } from 'zod';
import { listedRunFields } from '../runs/listed-run-fields';
import { FLOW_CHILD_FAILURES, MAX_FLOW_RUNS } from '@drover/core';

/** One run of a flow: what `POST /jobs` takes (without `runAt` and an idempotency key), and its parent. */
const flowRunSchema = z.strictObject({
  ...listedRunFields,
  parent: z.number().int().min(0).optional().meta({
    description: 'The index in `runs` of the run this one is a child of (an earlier run); absent only for `runs[0]`',
  }),
  onFailure: z.enum(FLOW_CHILD_FAILURES).optional().meta({
    description: "A child's: `fail` (default) parks its parent when it is parked; `ignore` lets the parent run",
  }),
});
export type FlowRunBody = z.infer<typeof flowRunSchema>;

/** A flow as a list: `runs[0]` is the top run; every other run names its parent by an earlier index. */
export const createFlowBody = z
  .strictObject({ runs: z.array(flowRunSchema).min(1).max(MAX_FLOW_RUNS) })
  .superRefine(({ runs }, ctx) => {
    runs.forEach((r, i) => {
      if (i === 0 && r.parent !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['runs', 0, 'parent'],
          message: 'runs[0] is the top run: it has no parent',
        });
      if (i === 0 && r.onFailure !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['runs', 0, 'onFailure'],
          message: 'runs[0] is the top run: it has no parent',
        });
      if (i > 0 && (r.parent === undefined || r.parent >= i))
        ctx.addIssue({ code: 'custom', path: ['runs', i, 'parent'], message: `must name an earlier run (0-${i - 1})` });
    });
  });
