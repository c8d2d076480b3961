// Writes a Redis ACL file with one user per Drover role (docs/redis.md, "Redis users per role").
//   node scripts/redis-acl.mjs [--prefix drover] [--out users.acl]
//       each role's password from DROVER_REDIS_<ROLE>_PASSWORD (SCHEDULER, WORKER, API, PRODUCER;
//       ADMIN optional: a user with every right); the file holds their SHA-256, never a password
//   node scripts/redis-acl.mjs --template [--prefix drover]
//       the same with @<ROLE>_SHA256@ placeholders (docker/redis/users.acl.template)
//   node scripts/redis-acl.mjs --new-passwords
//       DROVER_REDIS_<ROLE>_PASSWORD=<random> lines, for an env file you keep out of git
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ROLES, aclFile, passwordHash } from './lib/redis-acl.mjs';

const USAGE = 'usage: node scripts/redis-acl.mjs [--prefix <prefix>] [--out <file>] [--template | --new-passwords]';
const PREFIX = /^[A-Za-z0-9_.-]{1,64}$/; // DROVER_PREFIX's own rule (libs/config)
const envName = (role) => `DROVER_REDIS_${role.toUpperCase()}_PASSWORD`;

function fail(message) {
  process.stderr.write(`redis-acl: ${message}\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      prefix: { type: 'string', default: process.env.DROVER_PREFIX || 'drover' },
      out: { type: 'string' },
      template: { type: 'boolean', default: false },
      'new-passwords': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
} catch (err) {
  fail(`${err.message}\n${USAGE}`);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (!PREFIX.test(args.prefix)) fail(`--prefix "${args.prefix}" may only hold letters, digits, "_", "." and "-" (1-64)`);

let text;
if (args['new-passwords']) {
  // Hex: safe inside a redis:// URL without escaping.
  text = ['admin', ...ROLES].map((r) => `${envName(r)}=${randomBytes(24).toString('hex')}\n`).join('');
} else if (args.template) {
  const hashes = Object.fromEntries(['admin', ...ROLES].map((r) => [r, `@${r.toUpperCase()}_SHA256@`]));
  text = aclFile(args.prefix, hashes);
} else {
  const hashes = {};
  for (const role of ROLES) {
    const password = process.env[envName(role)];
    if (!password) fail(`${envName(role)} is not set: every role needs a password (--new-passwords makes some)`);
    hashes[role] = passwordHash(password);
  }
  if (process.env[envName('admin')]) hashes.admin = passwordHash(process.env[envName('admin')]);
  text = aclFile(args.prefix, hashes);
}

if (args.out) writeFileSync(args.out, text, { mode: 0o600 });
else process.stdout.write(text);
