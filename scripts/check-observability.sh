#!/usr/bin/env bash
# Offline checks of the observability artifacts (issue 7): dashboards, alert rules, Prometheus and kustomize copies.
#   scripts/check-observability.sh
# Needs node (npx ts-node from devDependencies) and promtool (Debian package `prometheus`); kubectl is optional.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

tsnode() { npx --no-install ts-node --transpile-only "$@"; }
step() { printf '\n== %s\n' "$*"; }

step "dashboards: committed JSON equals what the generator writes"
tsnode observability/dashboards/generate.ts --out-dir "$tmp/dashboards" >/dev/null
for f in "$tmp"/dashboards/*.json; do
  diff -u "observability/dashboards/$(basename "$f")" "$f" ||
    { echo "stale: run npx ts-node --transpile-only observability/dashboards/generate.ts" >&2; exit 1; }
done
extra="$(comm -23 <(cd observability/dashboards && ls -- *.json) <(cd "$tmp/dashboards" && ls -- *.json))"
[[ -z "$extra" ]] || { echo "dashboards not written by the generator: $extra" >&2; exit 1; }
echo ok

step "dashboards: structure (fixed uid, id null, datasource variable, every target on \${datasource})"
tsnode observability/dashboards/validate.ts observability/dashboards/*.json k8s/base/observability/dashboards/*.json

step "prometheus: promtool check rules / test rules / check config; labels, annotations, runbooks, tests, metric docs"
promtool check rules observability/prometheus/drover-rules.yml
promtool test rules observability/prometheus/drover-rules.test.yml
promtool check config observability/prometheus/prometheus.yml
tsnode observability/prometheus/validate-rules.ts

step "k8s: PrometheusRule and dashboard copies in sync with observability/"
tsnode observability/sync-k8s.ts --out-dir "$tmp/k8s" >/dev/null
diff -ru --exclude=kustomization.yaml k8s/base/observability "$tmp/k8s" ||
  { echo "out of sync: run npx ts-node --transpile-only observability/sync-k8s.ts" >&2; exit 1; }
# The spec promtool sees must be the rules file promtool just checked.
node -e '
  const { parse } = require("yaml");
  const fs = require("fs");
  const rule = parse(fs.readFileSync("k8s/base/observability/prometheusrule.yaml", "utf8"));
  fs.writeFileSync(process.argv[1], JSON.stringify(rule.spec));
' "$tmp/spec-rules.json"
promtool check rules "$tmp/spec-rules.json"
if command -v kubectl >/dev/null 2>&1; then
  kubectl kustomize k8s/base/observability >"$tmp/observability.yaml"
  echo "kustomize build ok ($(grep -c '^kind:' "$tmp/observability.yaml") objects)"
else
  echo "kubectl not installed: skipped kustomize build"
fi

printf '\nobservability checks passed\n'
