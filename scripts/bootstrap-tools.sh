#!/usr/bin/env bash
# Builds the pinned Temporal CLI and (when no usable one is on PATH) Terraform into a versioned
# cache outside the clone, so a second run costs nothing. Prints where each tool is.
# `--real-stack` (make test) also builds the S3 server the backup tests use (versitygw) and what the
# real provisioner needs (kube-apiserver, etcd, the hashicorp/kubernetes and coder/coder providers):
# ~20 min the first time on 2 cores, announced tool by tool.
set -euo pipefail

# Node.js: the current LTS, the one the image ships. The machine's apt may only have an older major;
# the npm registry's node-linux-<arch> package carries the official binary, so it is installed from
# there into the cache (never into package.json: the lockfile stays as it is). `make` puts it first on PATH.
NODE_VERSION=24.22.3

REAL_STACK=0
for arg in "$@"; do
  case "$arg" in
    --real-stack) REAL_STACK=1 ;;
    --node-bin-dir) ;; # install Node.js only and print its bin folder (for the Makefile's PATH)
    -h|--help) echo "usage: $0 [--real-stack | --node-bin-dir]   (--real-stack: also kube-apiserver, etcd and the Terraform providers; --node-bin-dir: only Node.js $NODE_VERSION, printing its bin folder)"; exit 0 ;;
    *) echo "tools: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

TEMPORAL_VERSION=1.5.1
TERRAFORM_VERSION=1.8.5
TERRAFORM_MIN=1.8
BIN_DIR=${WSMIGRATE_TOOLS_DIR:-$HOME/.cache/wsmigrate/bin}
mkdir -p "$BIN_DIR"

say() { printf 'tools: %s\n' "$*"; }
fail() { printf 'tools: ERROR: %s\n' "$*" >&2; exit 1; }

require_go() {
  command -v go >/dev/null 2>&1 || fail "Go 1.25+ is needed to build $1 but 'go' is not on PATH. Install Go, or put a prebuilt $1 at $2."
  local v; v=$(go env GOVERSION 2>/dev/null | sed 's/^go//')
  local major=${v%%.*} rest=${v#*.}; local minor=${rest%%.*}
  if [ "${major:-0}" -lt 1 ] || { [ "$major" -eq 1 ] && [ "${minor:-0}" -lt 25 ]; }; then
    fail "Go $v is too old to build $1 (needs 1.25+). Install a newer Go, or put a prebuilt $1 at $2."
  fi
}

# go_build MODULE VERSION BINARY_NAME DEST
go_build() {
  local module=$1 version=$2 name=$3 dest=$4
  require_go "$name" "$dest"
  local work; work=$(mktemp -d)
  say "building $name $version with 'go install $module@v$version' (first run only; takes several minutes)"
  if ! GOBIN="$work" GOFLAGS=-buildvcs=false go install "$module@v$version" >"$work/build.log" 2>&1; then
    tail -n 30 "$work/build.log" >&2
    fail "could not build $name $version (log above). Check that the Go module proxy is reachable (GOPROXY=$(go env GOPROXY))."
  fi
  mv "$work/$name" "$dest.tmp" && mv "$dest.tmp" "$dest"
  rm -rf "$work"
}

ensure_node() {
  local dir="$BIN_DIR/node-$NODE_VERSION" arch
  case "$(uname -m)" in
    x86_64|amd64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) fail "no node-linux package for $(uname -m); install Node.js $NODE_VERSION yourself and put it first on PATH" ;;
  esac
  if [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version)" = "v$NODE_VERSION" ]; then say "node $NODE_VERSION: $dir/bin/node (cached)"; return; fi
  command -v npm >/dev/null 2>&1 || fail "npm is needed to fetch Node.js $NODE_VERSION (node-linux-$arch from the npm registry)"
  say "node $NODE_VERSION: installing node-linux-$arch@$NODE_VERSION from the npm registry into $dir (first run only)"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  if ! npm install --prefix "$dir.tmp" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node-linux-$arch@$NODE_VERSION" >"$dir.tmp.log" 2>&1; then
    tail -n 20 "$dir.tmp.log" >&2
    fail "could not install node-linux-$arch@$NODE_VERSION (log above). Is the npm registry reachable?"
  fi
  mkdir -p "$dir.tmp/bin" && ln -sfn "../node_modules/node-linux-$arch/bin/node" "$dir.tmp/bin/node"
  [ "$("$dir.tmp/bin/node" --version)" = "v$NODE_VERSION" ] || fail "the installed node does not report v$NODE_VERSION"
  rm -rf "$dir" && mv "$dir.tmp" "$dir" && rm -f "$dir.tmp.log"
  say "node $NODE_VERSION: $dir/bin/node (installed); make test, make demo and .ci/run put $dir/bin first on PATH"
}

ensure_temporal() {
  local dest="$BIN_DIR/temporal-$TEMPORAL_VERSION"
  if [ -x "$dest" ]; then say "temporal $TEMPORAL_VERSION: $dest (cached)"; return; fi
  go_build github.com/temporalio/cli/cmd/temporal "$TEMPORAL_VERSION" temporal "$dest"
  "$dest" --version >/dev/null || fail "the built temporal binary at $dest does not run"
  say "temporal $TEMPORAL_VERSION: $dest (built)"
}

version_at_least() { # A B: true when version A >= B (major.minor)
  local a=$1 b=$2
  [ "$(printf '%s\n%s\n' "$b" "$a" | sort -V | head -n1)" = "$b" ]
}

ensure_terraform() {
  local link="$BIN_DIR/terraform" cached="$BIN_DIR/terraform-$TERRAFORM_VERSION"
  if [ -x "$cached" ]; then ln -sfn "$cached" "$link"; say "terraform $TERRAFORM_VERSION: $cached (cached)"; return; fi
  local onpath; onpath=$(command -v terraform 2>/dev/null || true)
  if [ -n "$onpath" ] && [ "$(readlink -f "$onpath")" != "$(readlink -f "$link" 2>/dev/null || true)" ]; then
    local v; v=$(CHECKPOINT_DISABLE=1 "$onpath" version -json 2>/dev/null | sed -n 's/.*"terraform_version": *"\([0-9.]*\)".*/\1/p')
    if [ -n "$v" ] && version_at_least "$v" "$TERRAFORM_MIN"; then
      ln -sfn "$onpath" "$link"; say "terraform $v: $onpath (on PATH, >= $TERRAFORM_MIN)"; return
    fi
    say "terraform on PATH is ${v:-unknown}, older than $TERRAFORM_MIN: building $TERRAFORM_VERSION"
  elif [ -L "$link" ] && [ -x "$link" ]; then
    say "terraform: $(readlink -f "$link") (linked earlier)"; return
  fi
  go_build github.com/hashicorp/terraform "$TERRAFORM_VERSION" terraform "$cached"
  ln -sfn "$cached" "$link"
  say "terraform $TERRAFORM_VERSION: $cached (built)"
}

# The S3 server the blob store tests run against (Apache-2.0, POSIX backend); tests find it here.
ensure_versitygw() {
  local version=1.8.0 dest="$BIN_DIR/versitygw-1.8.0"
  if [ -x "$dest" ]; then say "versitygw $version: $dest (cached)"; return; fi
  say "versitygw $version: expect about 90 s to build on an idle machine (longer when it is busy)"
  go_build github.com/versity/versitygw/cmd/versitygw "$version" versitygw "$dest"
  "$dest" --version >/dev/null || fail "the built versitygw binary at $dest does not run"
  say "versitygw $version: $dest (built)"
}

# --- Real stack: the real provisioner's Terraform providers and a local Kubernetes API server ---
# Pinned together with src/adapters/kube/tools.ts. One directory per tool and version under
# $BIN_DIR; the providers are also laid out as a Terraform filesystem mirror ($MIRROR_DIR) so
# `terraform init` works offline against it (the project writes the CLI config pointing there).
KUBE_PROVIDER_MODULE_VERSION=v1.13.4-0.20260821094251-3a33fb6cc605 # main after 3.2.1 (see README)
KUBE_PROVIDER_MIRROR_VERSION=3.2.2                                   # the version the mirror offers it as
CODER_PROVIDER_VERSION=2.20.0
KUBERNETES_VERSION=1.34.4
ETCD_VERSION=3.6.4 # the etcd server k8s.io/kubernetes v1.34.4 itself requires
MIRROR_DIR=${WSMIGRATE_PROVIDER_MIRROR:-$(dirname "$BIN_DIR")/terraform-mirror}

# mirror_provider NAMESPACE TYPE VERSION BINARY: link BINARY into the unpacked mirror layout.
mirror_provider() {
  local ns=$1 type=$2 version=$3 bin=$4
  local dir="$MIRROR_DIR/registry.terraform.io/$ns/$type/$version/linux_amd64"
  mkdir -p "$dir"
  ln -sfn "$bin" "$dir/terraform-provider-${type}_v$version"
}

# Parallel builds peak near 3.5 GB (provider 1.3 GB + kube-apiserver 2.1 GB): only with >= 4 cores
# and >= 8 GB available, or when WSMIGRATE_TOOLS_PARALLEL=1 (=0 forces sequential).
real_stack_parallel() {
  case "${WSMIGRATE_TOOLS_PARALLEL:-auto}" in 1) return 0 ;; 0) return 1 ;; esac
  local cores mem_kb
  cores=$(nproc 2>/dev/null || echo 1)
  mem_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
  [ "$cores" -ge 4 ] && [ "${mem_kb:-0}" -ge 8000000 ]
}

# go_install_to DIR MODULE@VERSION NAME EXPECTED: `go install` into DIR (atomically), 2 jobs at a time.
go_install_to() {
  local dir=$1 target=$2 name=$3 expected=$4
  require_go "$name" "$dir"
  local work; work=$(mktemp -d)
  say "building $name ($target); expected ~$expected on 2 cores the first time, then cached"
  local t0=$SECONDS
  if ! GOBIN="$work" GOFLAGS="-buildvcs=false -p=2" go install "$target" >"$work/build.log" 2>&1; then
    tail -n 30 "$work/build.log" >&2
    fail "could not build $name (log above). Check that the Go module proxy is reachable (GOPROXY=$(go env GOPROXY))."
  fi
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" && mv "$work/$name" "$dir.tmp/" && rm -rf "$dir" && mv "$dir.tmp" "$dir"
  rm -rf "$work"
  say "$name built in $((SECONDS - t0)) s"
}

ensure_kubernetes_provider() {
  local dir="$BIN_DIR/terraform-provider-kubernetes-$KUBE_PROVIDER_MODULE_VERSION"
  if [ -x "$dir/terraform-provider-kubernetes" ]; then
    say "terraform-provider-kubernetes $KUBE_PROVIDER_MODULE_VERSION: $dir (cached)"
  else
    # The module path has no /v2 suffix, so the proxy serves no v2.x/v3.x tag: pin main's pseudo-version.
    go_install_to "$dir" "github.com/hashicorp/terraform-provider-kubernetes@$KUBE_PROVIDER_MODULE_VERSION" \
      terraform-provider-kubernetes "6 min"
  fi
  mirror_provider hashicorp kubernetes "$KUBE_PROVIDER_MIRROR_VERSION" "$dir/terraform-provider-kubernetes"
}

ensure_coder_provider() {
  local dir="$BIN_DIR/terraform-provider-coder-$CODER_PROVIDER_VERSION"
  if [ -x "$dir/terraform-provider-coder" ]; then
    say "terraform-provider-coder $CODER_PROVIDER_VERSION: $dir (cached)"
  else
    go_install_to "$dir" "github.com/coder/terraform-provider-coder/v2@v$CODER_PROVIDER_VERSION" terraform-provider-coder "1 min"
  fi
  mirror_provider coder coder "$CODER_PROVIDER_VERSION" "$dir/terraform-provider-coder"
}

# kube-apiserver and etcd refuse `go install` (their go.mod has replace directives), so both are
# built from a throwaway wrapper module that replaces each k8s.io staging module by its release.
ensure_kube_apiserver_and_etcd() {
  local api_dir="$BIN_DIR/kube-apiserver-$KUBERNETES_VERSION" etcd_dir="$BIN_DIR/etcd-$ETCD_VERSION"
  if [ -x "$api_dir/kube-apiserver" ] && [ -x "$etcd_dir/etcd" ]; then
    say "kube-apiserver $KUBERNETES_VERSION: $api_dir (cached)"
    say "etcd $ETCD_VERSION: $etcd_dir (cached)"
    return
  fi
  require_go kube-apiserver "$api_dir"
  local work; work=$(mktemp -d)
  local t0=$SECONDS
  say "building kube-apiserver $KUBERNETES_VERSION and etcd $ETCD_VERSION from a wrapper module; expected ~10 min on 2 cores the first time, then cached"
  local kmod; kmod=$(go mod download -json "k8s.io/kubernetes@v$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
  [ -f "$kmod" ] || fail "could not download k8s.io/kubernetes v$KUBERNETES_VERSION's go.mod (GOPROXY=$(go env GOPROXY))"
  local minor=${KUBERNETES_VERSION#*.}; minor=${minor%%.*}
  {
    printf 'module wsmigrate.local/kube-tools\n\ngo 1.24.0\n\ngodebug default=go1.24\n\n'
    printf 'require (\n\tk8s.io/kubernetes v%s\n\tgo.etcd.io/etcd/server/v3 v%s\n)\n\n' "$KUBERNETES_VERSION" "$ETCD_VERSION"
    printf 'replace (\n'
    # every `k8s.io/x => ./staging/...` of k8s.io/kubernetes, to its published v0.MINOR.PATCH
    sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$kmod" |
      grep -v -e '^k8s.io/sample-cli-plugin$' -e '^k8s.io/sample-controller$' |
      while read -r m; do printf '\t%s => %s v0.%s\n' "$m" "$m" "${KUBERNETES_VERSION#*.}"; done
    printf ')\n'
  } >"$work/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "go.etcd.io/etcd/server/v3"\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver"\n)\n' >"$work/tools.go"
  local vpkg ldflags="-s -w"
  for vpkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $vpkg.gitVersion=v$KUBERNETES_VERSION -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor"
  done
  if ! (cd "$work" && go mod tidy >"$work/build.log" 2>&1 &&
        GOFLAGS="-buildvcs=false -p=2" go build -ldflags "$ldflags" -o "$work/out/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver >>"$work/build.log" 2>&1 &&
        GOFLAGS="-buildvcs=false -p=2" go build -ldflags "-s -w" -o "$work/out/etcd" go.etcd.io/etcd/server/v3 >>"$work/build.log" 2>&1); then
    tail -n 30 "$work/build.log" >&2
    fail "could not build kube-apiserver/etcd (log above; wrapper module in $work)."
  fi
  "$work/out/kube-apiserver" --version | grep -q "v$KUBERNETES_VERSION" || fail "the built kube-apiserver does not report v$KUBERNETES_VERSION"
  for d in "$api_dir:kube-apiserver" "$etcd_dir:etcd"; do
    local dir=${d%%:*} name=${d#*:}
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" && mv "$work/out/$name" "$dir.tmp/" && rm -rf "$dir" && mv "$dir.tmp" "$dir"
  done
  rm -rf "$work"
  say "kube-apiserver $KUBERNETES_VERSION and etcd $ETCD_VERSION built in $((SECONDS - t0)) s: $api_dir, $etcd_dir"
}

if [ "${1:-}" = "--node-bin-dir" ]; then ensure_node >&2; echo "$BIN_DIR/node-$NODE_VERSION/bin"; exit 0; fi
ensure_node
ensure_temporal
ensure_terraform
# The demo needs only the two above; the test suite also needs the S3 server and the real stack.
if [ "$REAL_STACK" = 1 ]; then
  ensure_versitygw
  if real_stack_parallel; then
    say "building the real stack in parallel ($(nproc) cores, enough memory)"
    ensure_kubernetes_provider & provider_pid=$!
    ensure_coder_provider & coder_pid=$!
    ensure_kube_apiserver_and_etcd
    wait "$provider_pid"
    wait "$coder_pid"
  else
    ensure_kubernetes_provider
    ensure_coder_provider
    ensure_kube_apiserver_and_etcd
  fi
fi
