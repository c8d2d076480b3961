// Redis ACL users per Drover role (docs/redis.md, "Redis users per role"): the one definition that
// scripts/redis-acl.mjs renders, docker/redis/users.acl.template is generated from, and
// test/redis/acl.e2e-spec.ts runs every app under.
import { createHash } from 'node:crypto';

export const ROLES = ['scheduler', 'worker', 'api', 'producer'];

/** The commands every role may run: data commands, scripts, pub/sub and transactions — nothing that
 * administers the server (CONFIG, KEYS, FLUSH*, DEBUG, MONITOR, CLIENT LIST/KILL, ACL, SHUTDOWN...:
 * all `@dangerous`) and no Redis Functions (Drover uses none). INFO is the one `@dangerous` command
 * given back: ioredis's ready check and BullMQ's version check send it, and Drover reads the
 * maxmemory policy from it. */
const COMMANDS = [
  '-@all',
  '+@read',
  '+@write',
  '+@scripting',
  '+@pubsub',
  '+@transaction',
  '+@connection',
  '+@blocking',
  '-@dangerous',
  '-function',
  '-fcall',
  '-fcall_ro',
  '-script|flush',
  '-script|kill',
  '+info',
  '+time',
  '+client|setname',
  '+client|getname',
  '+client|id',
];

/**
 * The keys of every Drover queue's BullMQ keys (and Drover's own keys in a queue's slot), on Redis
 * standalone (`<p>:<queue>:…`) and Cluster (`<p>:{<queue>}:…`). Queue names are
 * `[a-z0-9][a-z0-9._-]*`, so on standalone `<p>:[a-z0-9]*` leaves out `<p>:{core}:…` (Drover's own
 * state) and `<p>:_fires:…` (the scheduler's fires). A glob cannot say "not {core}", so the hash
 * tagged names are spelt out letter by letter: every `{<queue>}` but `{core}` (and `{_fires}`).
 */
function queueKeys(p) {
  return [`${p}:[a-z0-9]*`, `${p}:{[abd-z0-9]*`, `${p}:{c[^o]*`, `${p}:{co[^r]*`, `${p}:{cor[^e]*`, `${p}:{core[^}]*`];
}

/** The scheduler's fires queue (BullMQ), standalone and Cluster. */
const firesKeys = (p) => [`${p}:_fires:*`, `${p}:{_fires}:*`];

/**
 * What each role may read (R) or read and write (RW), as key globs under the prefix `p`, and the
 * pub/sub channels it may use. Keys a Lua script is handed (EVALSHA's KEYS) need RW whatever the
 * script does with them (Redis cannot tell), so keys only ever passed to scripts are RW: e.g.
 * `leader` for every role that writes routines (the optional fencing check), `rstate:*` and
 * `rskips:*` for the worker (an armed run checks its routine's version and skips before it starts).
 */
export function roleRules(p) {
  const c = `${p}:{core}`;
  // The watchdog's index, the change count and log, and the counts per status: every routine write keeps them.
  const routines = [
    `${c}:routines`,
    `${c}:rstate:*`,
    `${c}:rskips:*`,
    `${c}:slot:*`,
    `${c}:disarm`,
    `${c}:routine-due`,
    `${c}:routine-change-seq`,
    `${c}:routine-changes`,
    `${c}:routine-counts`,
  ];
  // Every role that writes runs registers its producer name (`producers`); the worker reads the codes.
  // A batch is written with its runs and counted by the workers as they settle (`batch:*`, `batches*`).
  const runRecords = [
    `${c}:run:*`,
    `${c}:runs-kept:*`,
    `${c}:routine-runs:*`,
    `${c}:routine-open:*`,
    `${c}:producers`,
    `${c}:batch:*`,
    `${c}:batches`,
    `${c}:batches-open`,
  ];
  const catalogs = [`${c}:worker:*`, `${c}:workers`, `${c}:process:*`, `${c}:processes:*`];
  return {
    scheduler: {
      why: 'leads (lease, fencing epoch), fires routines into their queues, reconciles and repairs',
      rw: [
        `${c}:leader`,
        `${c}:leader-epoch`,
        `${c}:leader-candidate:*`,
        `${c}:scheduler-defs`,
        `${c}:schedules-later`,
        `${c}:reconciled`,
        ...routines,
        `${c}:rstats:*`,
        `${c}:queues`,
        `${c}:queues-ranked`,
        ...runRecords,
        `${c}:process:scheduler:*`,
        `${c}:processes:scheduler`,
        `${c}:candidates-probe:*`,
        ...queueKeys(p),
        ...firesKeys(p),
      ],
      r: [...catalogs],
      channels: [
        `${c}:routines-changed`,
        `${c}:queues-changed`,
        `${c}:queues-ranked`,
        `${c}:cancel`,
        `${c}:candidates-ask`,
      ],
    },
    worker: {
      why: 'consumes the queues (BullMQ), records attempts and stats, starts armed runs',
      rw: [
        ...queueKeys(p),
        `${c}:slot:*`,
        `${c}:rstate:*`,
        `${c}:rskips:*`,
        `${c}:rstats:*`,
        `${c}:qstats:*`,
        ...runRecords,
        `${c}:worker:*`,
        `${c}:workers`,
        `${c}:process:worker:*`,
        `${c}:processes:worker`,
      ],
      r: [`${c}:routines`, `${c}:queues`, `${c}:queues-ranked`, `${c}:leader`],
      channels: [`${c}:cancel`, `${c}:queues-changed`, `${c}:queues-ranked`, `${c}:routines-changed`],
    },
    api: {
      why: 'serves the HTTP API and console: routines, runs, queues, sessions, the audit log',
      rw: [
        `${c}:leader`,
        ...routines,
        `${c}:queues`,
        `${c}:queues-ranked`,
        ...runRecords,
        `${c}:session:*`,
        `${c}:audit*`,
        `${c}:operation:*`,
        `${c}:process:api:*`,
        `${c}:processes:api`,
        `${c}:candidates-probe:*`,
        ...queueKeys(p),
      ],
      r: [`${c}:rstats:*`, `${c}:qstats:*`, ...catalogs],
      channels: [
        `${c}:routines-changed`,
        `${c}:queues-changed`,
        `${c}:queues-ranked`,
        `${c}:cancel`,
        `${c}:api-events`,
        `${c}:candidates-ask`,
      ],
    },
    producer: {
      why: "a team's service through @drover/client: enqueues, tracks, cancels and triggers runs",
      rw: [...queueKeys(p), ...runRecords],
      r: [`${c}:routines`, `${c}:rstate:*`, `${c}:queues`, `${c}:queues-ranked`, `${c}:rstats:*`],
      channels: [`${c}:cancel`, `${c}:queues-changed`, `${c}:queues-ranked`],
    },
  };
}

/** The SHA-256 of a password, as an ACL file names it (`#<hex>`): the file holds no secret. */
export const passwordHash = (password) => createHash('sha256').update(password).digest('hex');

/** One `user` line; `hash` is the password's SHA-256 hex or a placeholder the caller substitutes. */
export function userLine(name, hash, rule) {
  return [
    'user',
    name,
    'on',
    `#${hash}`,
    'resetkeys',
    'resetchannels',
    ...rule.rw.map((k) => `~${k}`),
    ...rule.r.map((k) => `%R~${k}`),
    ...rule.channels.map((ch) => `&${ch}`),
    ...COMMANDS,
  ].join(' ');
}

/**
 * The ACL file: the unauthenticated `default` user may only PING (health probes need no secret),
 * one user per role, and `admin` (everything) when its hash is given.
 */
export function aclFile(prefix, hashes) {
  const rules = roleRules(prefix);
  // An ACL file has no comments: what it is for is said in docs/redis.md.
  const lines = [
    'user default on nopass resetkeys resetchannels -@all +ping',
    ...ROLES.map((role) => userLine(role, hashes[role], rules[role])),
  ];
  if (hashes.admin) lines.push(`user admin on #${hashes.admin} ~* &* +@all`);
  return `${lines.join('\n')}\n`;
}
