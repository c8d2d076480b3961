import { isDeepStrictEqual } from 'node:util';
import { Injectable } from '@nestjs/common';
import { parse as parseYaml } from 'yaml';
import { parseBundle, type Bundle } from '@drover/core';
import { Clock } from '@drover/redis';
import { QueueRegistry, RoutineStore, type ApplyDiff } from '@drover/store';
import { ApiEvents } from '@drover/store';
import { isoOf } from '../http/api-time';
import { bodyTooDeep, MAX_BODY_DEPTH, nestedDeeperThan, yamlNestedDeeperThan } from '../http/body-depth';
import { fieldErrorsOfMessages } from '../http/field-errors';
import { ProblemError } from '../http/problem';

export interface ApplyAnswer extends ApplyDiff {
  dryRun: boolean;
  queues: ApplyDiff;
}

/**
 * POST /apply: the policy bundle of DROVER_CONFIG (YAML or JSON), applied the way the scheduler
 * leader applies the file — file queues and routines created, updated or removed, API-made ones
 * left alone, removed routines' armed runs withdrawn — without the leader's fencing token (an
 * operator's apply is not tied to a leadership). `dryRun` computes the same diff and writes nothing.
 * A scheduler started with DROVER_CONFIG applies its file again when it becomes leader.
 */
@Injectable()
export class PolicyApply {
  constructor(
    private readonly routines: RoutineStore,
    private readonly registry: QueueRegistry,
    private readonly events: ApiEvents,
    private readonly clock: Clock,
  ) {}

  /** The bundle in a request body: YAML text, or JSON already parsed. 400 naming each bad field. */
  async parse(body: unknown): Promise<Bundle> {
    let raw: unknown = body;
    if (typeof body === 'string') {
      if (yamlNestedDeeperThan(body, MAX_BODY_DEPTH)) throw bodyTooDeep();
      try {
        raw = parseYaml(body, { maxAliasCount: 100 });
      } catch (err) {
        const message = `is not valid YAML: ${(err as Error).message.split('\n')[0]}`;
        throw new ProblemError(400, `invalid request: body ${message}`, [{ path: 'body', message }]);
      }
      // Aliases can nest what the text does not.
      if (nestedDeeperThan(raw, MAX_BODY_DEPTH)) throw bodyTooDeep();
    }
    // Routines may use queues made through the API, which an apply keeps.
    const apiQueues = (await this.registry.list()).filter((q) => q.origin === 'api').map((q) => q.def.name);
    const res = parseBundle(raw ?? {}, { knownQueues: apiQueues });
    if (!res.ok)
      throw new ProblemError(400, `invalid policy bundle: ${res.errors[0]}`, fieldErrorsOfMessages(res.errors, 'body'));
    return res.bundle;
  }

  async apply(bundle: Bundle, dryRun: boolean): Promise<ApplyAnswer> {
    const now = this.clock.now();
    const queues = await this.queueDiff(bundle);
    if (!dryRun) await this.registry.put(bundle.queues, { origin: 'file', now });
    const diff = await this.routines.applyFileRoutines(bundle.routines, now, { dryRun });
    if (!dryRun) {
      await this.events.publish({
        kind: 'routine',
        action: 'applied',
        id: '*',
        at: isoOf(now),
        data: { created: diff.created, updated: diff.updated, removed: diff.removed },
      });
    }
    return { dryRun, ...diff, queues };
  }

  /** How the bundle would change the registry's queues (file queues it omits are removed). Reads only. */
  async queueDiff(bundle: Bundle): Promise<ApplyDiff> {
    const existing = new Map((await this.registry.list()).map((r) => [r.def.name, r]));
    const diff: ApplyDiff = { created: [], updated: [], removed: [], unchanged: [] };
    for (const q of bundle.queues) {
      const prev = existing.get(q.name);
      if (!prev) diff.created.push(q.name);
      else if (prev.origin === 'file' && isDeepStrictEqual(prev.def, q)) diff.unchanged.push(q.name);
      else diff.updated.push(q.name);
    }
    const wanted = new Set(bundle.queues.map((q) => q.name));
    for (const [name, rec] of existing) if (rec.origin === 'file' && !wanted.has(name)) diff.removed.push(name);
    return diff;
  }
}
