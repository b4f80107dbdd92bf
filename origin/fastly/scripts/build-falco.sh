#!/usr/bin/env bash
# Builds falco (Fastly VCL linter / simulator / test runner) from the Go module proxy into
# <repo>/.cache/falco/falco. `go install ...@latest` is refused here (the proxy's module list is
# not served), so a throwaway module pins the version and `go build` fetches it by exact path.
# Cached: does nothing when the binary already reports the pinned version. Prints the binary's path.
set -euo pipefail

FALCO_VERSION="${FALCO_VERSION:-v1.11.2}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
dir="${FALCO_CACHE_DIR:-$repo_root/.cache/falco}"
bin="$dir/falco"

fail() { echo "build-falco: $*" >&2; exit 1; }

# falco -V prints its version (stamped at build, see below) on stderr and exits 1.
falco_version() { "$bin" -V 2>&1 || true; }

if [ -x "$bin" ] && [ "$(falco_version)" = "$FALCO_VERSION" ]; then
  echo "$bin"
  exit 0
fi

# The machine image puts Go in /usr/local/go/bin, which a non-login shell (CI) may not have on PATH.
command -v go >/dev/null 2>&1 || [ ! -x /usr/local/go/bin/go ] || PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null 2>&1 || fail "Go is not installed (https://go.dev/dl/); it is needed to build falco $FALCO_VERSION."

mkdir -p "$dir"
cd "$dir"
# Parallel test runs share the cache: one builds, the others wait and then find the binary.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$dir/.lock"
  flock 9
  if [ -x "$bin" ] && [ "$(falco_version)" = "$FALCO_VERSION" ]; then
    echo "$bin"
    exit 0
  fi
fi
cat > go.mod <<MOD
module sammy.local/falco-build

go 1.22

require github.com/ysugimoto/falco $FALCO_VERSION
MOD
cat > tools.go <<'GO'
//go:build tools

// Keeps falco's command in the module graph so `go build` can resolve it.
package tools

import _ "github.com/ysugimoto/falco/cmd/falco"
GO
rm -f go.sum

echo "build-falco: building falco $FALCO_VERSION in $dir (about a minute on first run)" >&2
# GOSUMDB=off: the checksum database is not reachable here; -mod=mod lets go fill go.sum itself;
# -buildvcs=false: the cache sits inside this git checkout, whose status go need not read.
# -X main.version: a plain `go build` leaves falco's version empty; stamping it makes `falco -V`
# the cache check above.
tmp="$bin.tmp.$$"
if ! GOSUMDB=off GOFLAGS="-mod=mod -buildvcs=false" go build -ldflags "-X main.version=$FALCO_VERSION" \
  -o "$tmp" github.com/ysugimoto/falco/cmd/falco >&2; then
  rm -f "$tmp"
  fail "go build of github.com/ysugimoto/falco@$FALCO_VERSION failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"
fi
mv -f "$tmp" "$bin"   # atomic: a concurrent run never sees a half-written binary
[ "$(falco_version)" = "$FALCO_VERSION" ] || fail "built $bin but it reports version '$(falco_version)', not $FALCO_VERSION"
echo "$bin"
