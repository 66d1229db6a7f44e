#!/usr/bin/env bash
# Records kube-apiserver's audit events for the requests of TestRecorded:
# starts the reference kube-apiserver ($REF_DIR, by default
# ../shared/reference beside the repository; see its README) with
# policy.yaml, makes the requests as anonymous (cluster-admin there), as a
# ServiceAccount without rights and with a bad token, and keeps the events
# of the requests whose User-Agent is audit-recorder in reference.jsonl.
#
#   REF_BIN_DIR=... REF_STATE_DIR=/tmp/ref-audit ./record.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ref="${REF_DIR:-$here/../../../shared/reference}"
state="${REF_STATE_DIR:?set REF_STATE_DIR}"
export API_PORT="${API_PORT:-16443}" ETCD_PORT="${ETCD_PORT:-12379}" ETCD_PEER_PORT="${ETCD_PEER_PORT:-12380}"
log="$state/logs/audit.log" # the start script makes $state/logs, after wiping $state
export API_EXTRA_FLAGS="--audit-policy-file=$here/policy.yaml --audit-log-path=$log"
export WARM_RESTART=0
"$ref/start-reference.sh"
trap '"$ref/stop-reference.sh"' EXIT
api="https://127.0.0.1:$API_PORT"
admin="$(cat "$state/admin-token")"
c() { curl -sk -A audit-recorder -o /dev/null -w '%{http_code} ' "$@"; }

# A ServiceAccount without rights, and a token for it.
curl -sk -o /dev/null -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
  -X POST --data '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"nobody"}}' \
  "$api/api/v1/namespaces/default/serviceaccounts"
sa="$(curl -sk -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
  -X POST --data '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}' \
  "$api/api/v1/namespaces/default/serviceaccounts/nobody/token" | sed -n 's/.*"token": *"\([^"]*\)".*/\1/p')"
[ -n "$sa" ] || { echo "no ServiceAccount token" >&2; exit 1; }

cm='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"audit-demo"},"data":{"greeting":"hello"}}'
c -H 'Content-Type: application/json' -X POST --data "$cm" "$api/api/v1/namespaces/default/configmaps"
c "$api/api/v1/namespaces/default/configmaps/audit-demo"
c -H 'Content-Type: application/json' -X PUT --data "${cm/hello/hi}" "$api/api/v1/namespaces/default/configmaps/audit-demo"
c -H 'Content-Type: application/merge-patch+json' -X PATCH --data '{"data":{"extra":"<&>"}}' "$api/api/v1/namespaces/default/configmaps/audit-demo"
c "$api/api/v1/namespaces/default/configmaps?labelSelector=app%3Daudit"
c "$api/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Daudit-demo&timeoutSeconds=1"
c "$api/api/v1/namespaces/default/configmaps/missing"
c -H "Authorization: Bearer $sa" "$api/api/v1/namespaces/default/configmaps"
c "$api/version"
c -H "Authorization: Bearer not-a-token" "$api/api/v1/namespaces/default/configmaps"
c -X DELETE "$api/api/v1/namespaces/default/configmaps/audit-demo"
echo
sleep 1 # a response can reach the client before its ResponseComplete line is written
grep '"userAgent":"audit-recorder"' "$log" >"$here/reference.jsonl"
wc -l "$here/reference.jsonl"
