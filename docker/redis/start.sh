#!/bin/sh
# The compose stack's Redis (docs/redis.md, "Redis users per role"): renders users.acl.template with
# the SHA-256 of each role's password (from the environment, i.e. docker/.env) and starts Redis with
# it, through the image's own entrypoint (which drops root). No admin user here; regenerated at
# every start.
set -eu
for role in SCHEDULER WORKER API PRODUCER; do
  eval "pw=\${DROVER_REDIS_${role}_PASSWORD:-}"
  if [ -z "$pw" ]; then
    echo "DROVER_REDIS_${role}_PASSWORD is not set: node scripts/redis-acl.mjs --new-passwords > docker/.env" >&2
    exit 2
  fi
done
hash() { printf %s "$1" | sha256sum | cut -d' ' -f1; }
acl=/tmp/users.acl
umask 077
sed -e "s/@SCHEDULER_SHA256@/$(hash "$DROVER_REDIS_SCHEDULER_PASSWORD")/" \
    -e "s/@WORKER_SHA256@/$(hash "$DROVER_REDIS_WORKER_PASSWORD")/" \
    -e "s/@API_SHA256@/$(hash "$DROVER_REDIS_API_PASSWORD")/" \
    -e "s/@PRODUCER_SHA256@/$(hash "$DROVER_REDIS_PRODUCER_PASSWORD")/" \
    -e "/^user admin /d" \
    "${DROVER_REDIS_ACL_TEMPLATE:-/etc/drover/redis/users.acl.template}" > "$acl"
if [ "$(id -u)" = 0 ]; then chown redis "$acl"; fi
exec docker-entrypoint.sh redis-server --aclfile "$acl" "$@"
