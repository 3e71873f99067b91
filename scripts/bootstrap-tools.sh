#!/usr/bin/env bash
# Builds the pinned Temporal CLI and (when no usable one is on PATH) Terraform into a versioned
# cache outside the clone, so a second run costs nothing. Prints where each tool is.
set -euo pipefail

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

ensure_temporal
ensure_terraform
ensure_versitygw
