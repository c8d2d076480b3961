import { API_CONTROLLERS } from '../api.parts';
import { AuditController } from '../cluster/audit.controller';
import { EventsController } from '../events/events.controller';
import { buildOpenApiDocument, routesOf } from './openapi-document';

type Schema = Record<string, unknown>;

/** Property names that hold an instant: `…At`, and the bare ones the API uses. */
const INSTANT = /(At|^now|^since|^until|^slot|^at|^from|^to|^scheduledFor|^before|^after)$/;

/** Every `[path, schema]` of a property somewhere in `schema`. */
function* properties(schema: unknown, path: string): Generator<[string, Schema]> {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Schema;
  for (const [name, prop] of Object.entries((s.properties as Record<string, Schema> | undefined) ?? {})) {
    yield [`${path}.${name}`, prop];
    yield* properties(prop, `${path}.${name}`);
  }
  for (const key of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties']) {
    const sub = s[key];
    if (Array.isArray(sub)) for (const [i, x] of sub.entries()) yield* properties(x, `${path}.${key}[${i}]`);
    else yield* properties(sub, `${path}.${key}`);
  }
}

/** The schema itself or, for `x | null`, its non-null member. */
const nonNull = (s: Schema): Schema =>
  ((s.anyOf as Schema[] | undefined)?.find((x) => x.type !== 'null') ?? s) as Schema;

describe('time convention of the API', () => {
  const doc = buildOpenApiDocument(routesOf([...API_CONTROLLERS, AuditController, EventsController]), {
    version: 'test',
  }) as { components: { schemas: Record<string, Schema> } };

  it('answers every instant as an ISO 8601 date-time string, never epoch ms', () => {
    // A routine's definition is shown as written in the policy file (a `once` trigger's `at` too).
    const answers = Object.entries(doc.components.schemas).filter(([name]) => name !== 'RoutineDefinition');
    const instants = answers.flatMap(([name, schema]) =>
      [...properties(schema, name)].filter(([path]) => INSTANT.test(path.split('.').pop()!)),
    );
    // The walk must see the instants of runs, queues, operations, the plan and the cluster view.
    expect(instants.map(([path]) => path)).toEqual(
      expect.arrayContaining([
        'Run.createdAt',
        'Queue.updatedAt',
        'Operation.finishedAt',
        'Plan.now',
        'Plan.waiting.items.until',
        'Operation.filter.before',
        'Cluster.leader.anyOf[0].since',
        'AuditEntry.at',
      ]),
    );
    const wrong = instants
      .filter(([, s]) => !(nonNull(s).type === 'string' && nonNull(s).format === 'date-time'))
      .map(([path, s]) => `${path}: ${JSON.stringify(s)}`);
    expect(wrong).toEqual([]);
  });

  it('shows a run one way: parked runs and a routine’s runs are the Run schema', () => {
    const schemas = doc.components.schemas;
    expect(schemas.ParkedPage!.properties).toMatchObject({ items: { items: { $ref: '#/components/schemas/Run' } } });
    expect(schemas.RoutineRunPage!.properties).toMatchObject({
      items: { items: { $ref: '#/components/schemas/Run' } },
    });
    expect(Object.keys(schemas)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^(ParkedRun|AttemptError|RoutineRunSummary)$/)]),
    );
  });
});
