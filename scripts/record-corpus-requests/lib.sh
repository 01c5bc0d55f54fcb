# Shared by the scenarios of scripts/record-corpus-requests.sh (sourced, not run).
set -euo pipefail
k() { "$KUBECTL" "$@"; }

# start NAME CMD...: runs CMD as the operator's ServiceAccount, its log in $RECORD_LOGS/NAME.log.
started=()
start() {
  local name="$1"; shift
  KUBECONFIG="$OPERATOR_KUBECONFIG" RUST_LOG="${RUST_LOG:-info}" "$@" >"$RECORD_LOGS/$name.log" 2>&1 &
  started+=("$!")
}
# stop: SIGTERM (a background job of a script ignores SIGINT), then SIGKILL after 10 s, to every process start began.
stop() {
  local pid
  for pid in "${started[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 100); do
    local alive=0
    for pid in "${started[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${started[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  started=()
}
trap stop EXIT

# until_ok SECONDS CMD...: retries CMD every half second until it succeeds, or fails.
until_ok() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then echo "timed out: $*" >&2; return 1; fi
    sleep 0.5
  done
}
# jsonpath_is WANT ARGS...: `kubectl get ARGS -o jsonpath=...` prints WANT.
jsonpath_is() { local want="$1"; shift; [ "$(k get "$@" 2>/dev/null)" = "$want" ]; }
crd() { k apply -f "$1" >/dev/null && k wait --for condition=established --timeout=60s -f "$1" >/dev/null; }

# once NAME TIMEOUT CMD...: runs a one-shot program as the operator's ServiceAccount until it
# ends or TIMEOUT seconds pass; its exit code is logged, not fatal (the requests it made before
# failing are what is recorded).
once() {
  local name="$1" limit="$2"; shift 2
  local code=0
  KUBECONFIG="$OPERATOR_KUBECONFIG" RUST_LOG="${RUST_LOG:-info}" timeout "$limit" "$@" \
    >"$RECORD_LOGS/$name.log" 2>&1 || code=$?
  echo "$name: exit $code" | tee -a "$RECORD_LOGS/summary.txt" >&2
}
