#!/bin/sh
# The compose stack's api tokens (docker/compose.yaml, service tokens-init; docs/deploy.md).
# A fixed, published token would let any web page a developer opens drive the stack's api (DNS
# rebinding reaches 127.0.0.1:3000 too), so the stack makes its own random token on first start.
# The tokens file keeps only SHA-256 hashes; each token is printed once, to this service's log:
#   docker compose logs tokens-init                 the admin token made on first start
#   docker compose run --rm tokens-init add NAME ROLE   one more token (viewer, operator or admin)
#   docker compose run --rm tokens-init reset       forget every token, make a new admin token
# The api re-reads the file within seconds: added tokens work and reset ones stop without a restart.
# Plain POSIX sh and coreutils, so it runs in the redis image the stack already has.
set -eu

dir=${DROVER_TOKENS_DIR:-/tokens}
file="$dir/tokens.yaml"

say() { printf 'drover tokens-init: %s\n' "$*"; }
fail() {
  say "$*" >&2
  exit 2
}

new_token() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
sha256() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }

# Writes the file through a rename, so the api never reads half of it.
write() {
  tmp="$file.tmp.$$"
  cat >"$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$file"
}

show() {
  say "token \"$1\" ($2), shown once (only its SHA-256 is kept in $file):"
  printf '\n  %s\n\n' "$3"
  say "try: curl -H 'Authorization: Bearer $3' http://127.0.0.1:3000/api/v1/queues"
  say "or log in to the console at http://127.0.0.1:3000/ui with it"
}

header='# Made by docker/tokens-init.sh: SHA-256 hashes of the compose stack'"'"'s api tokens (docs/deploy.md).'

fresh_admin() {
  token=$(new_token)
  printf '%s\ntokens:\n  - { name: compose-admin, role: admin, sha256: %s }\n' "$header" "$(sha256 "$token")" | write
  show compose-admin admin "$token"
}

case "${1:-init}" in
  init)
    if [ -s "$file" ]; then
      say "$file exists: its tokens stay. Lost the admin token? docker compose run --rm tokens-init reset"
      exit 0
    fi
    fresh_admin
    ;;
  reset)
    fresh_admin
    say "every earlier token of this stack is revoked"
    ;;
  add)
    [ $# -eq 3 ] || fail "usage: add NAME ROLE (ROLE: viewer, operator or admin)"
    name=$2
    role=$3
    # Written unquoted into a YAML flow mapping: no character YAML reads as an indicator there.
    printf '%s' "$name" | grep -Eq '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$' ||
      fail "NAME must be 1-128 letters, digits or \"_.-\" (a letter or digit first), not \"$name\""
    case "$role" in viewer | operator | admin) ;; *) fail "ROLE must be viewer, operator or admin, not \"$role\"" ;; esac
    [ -s "$file" ] || fail "$file does not exist yet: start the stack (docker compose up) first"
    if grep -Fq "{ name: $name," "$file"; then fail "a token named \"$name\" exists already"; fi
    token=$(new_token)
    { cat "$file"; printf '  - { name: %s, role: %s, sha256: %s }\n' "$name" "$role" "$(sha256 "$token")"; } | write
    show "$name" "$role" "$token"
    ;;
  *)
    fail "unknown command \"$1\": init (default), add NAME ROLE, or reset"
    ;;
esac
