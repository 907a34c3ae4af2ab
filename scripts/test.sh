#!/usr/bin/env bash
# `npm test`: unit + API tests (vitest), the production build, the SDK's build, then the end-to-end tests
# (Playwright, against that build). Every part runs even when an earlier one fails, so one red test does
# not hide the others; the end-to-end tests need the builds and are skipped, as a failure, without them.
# Exits non-zero when any part failed, after a summary of each part's result and time.
set -u
cd "$(dirname "$0")/.."

failed=0
summary=()

part() {
  local name=$1
  shift
  local start=$SECONDS
  echo "==> $name: $*"
  "$@"
  local rc=$?
  local took=$((SECONDS - start))
  if [ "$rc" -eq 0 ]; then
    summary+=("ok      $name (${took} s)")
  else
    summary+=("FAILED  $name (exit $rc, ${took} s)")
    failed=1
  fi
  return "$rc"
}

part "vitest (unit + api)" npx vitest run
built=0
part "build" npm run build && built=1
part "sdk build" npm run sdk:build || built=0
if [ "$built" -eq 1 ]; then
  part "playwright (e2e + sdk)" npx playwright test
else
  summary+=("SKIPPED playwright (e2e + sdk): a build failed")
  failed=1
fi

echo "==> npm test summary"
printf '    %s\n' "${summary[@]}"
exit "$failed"
