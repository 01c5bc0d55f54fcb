# Scenario: 21 examples in turn (dynamic_api left out), a loop acting as the kubelet (every Pending pod's status set to Running) and as the job controller (every job's status set to Complete); the controllers and watchers started, their objects created, updated and deleted, then stopped; the one-shot examples run to their end or a timeout, their failures logged
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ex="$OPERATOR_TARGET/examples"
: > "$RECORD_LOGS/summary.txt"

# No kubelet and no kube-controller-manager on envtest: this loop plays both, as the admin.
kubelet() {
  local running='{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}'
  while true; do
    for p in $(k get pods -A --field-selector=status.phase=Pending -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}{" "}{end}' 2>/dev/null); do
      k patch pod -n "${p%%/*}" "${p#*/}" --subresource=status --type=merge -p "$running" >/dev/null 2>&1 || true
    done
    for j in $(k get jobs -o name 2>/dev/null); do
      [ -n "$(k get "$j" -o jsonpath='{.status.completionTime}' 2>/dev/null)" ] && continue
      now="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
      k patch "$j" --subresource=status --type=merge -p "{\"status\":{\"startTime\":\"$now\",\"completionTime\":\"$now\",\"succeeded\":1,\"conditions\":[{\"type\":\"SuccessCriteriaMet\",\"status\":\"True\"},{\"type\":\"Complete\",\"status\":\"True\"}]}}" >/dev/null 2>&1 || true
    done
    sleep 0.5
  done
}
kubelet & started+=("$!")

# configmapgen_controller: a ConfigMapGenerator's ConfigMap, created, updated, garbage-free delete
crd "$OPERATOR_SRC/examples/configmapgen_controller_crd.yaml"
start configmapgen_controller "$ex/configmapgen_controller"
sleep 3
k apply -f "$OPERATOR_SRC/examples/configmapgen_controller_object.yaml"
until_ok 60 jsonpath_is 'Hey!' configmap foo -o 'jsonpath={.data.content}'
k patch configmapgenerator foo --type merge -p '{"spec":{"content":"Ho!"}}'
until_ok 60 jsonpath_is 'Ho!' configmap foo -o 'jsonpath={.data.content}'
k delete configmap foo
until_ok 60 k get configmap foo
k delete configmapgenerator foo
sleep 2
stop; kubelet & started+=("$!")

# secret_syncer: a labelled ConfigMap's Secret, created, updated, deleted with the ConfigMap
start secret_syncer "$ex/secret_syncer"
sleep 3
k apply -f "$OPERATOR_SRC/examples/secret_syncer_configmap.yaml"
until_ok 60 k get secret cmsyncer-secret-syncer-example
k patch configmap secret-syncer-example --type merge -p '{"data":{"foo":"baz"}}'
sleep 3
k delete configmap secret-syncer-example --timeout=60s
until_ok 60 sh -c "! '$KUBECTL' get secret cmsyncer-secret-syncer-example"
stop; kubelet & started+=("$!")

# shared_stream_controllers: a Deployment and a Pod, reconciled, then deleted
start shared_stream_controllers "$ex/shared_stream_controllers"
sleep 3
k create deployment shared --image=nginx:1.27
k run shared-pod --image=nginx:1.27
sleep 5
k delete deployment shared
k delete pod shared-pod --wait=false
sleep 3
stop; kubelet & started+=("$!")

# The watchers and reflectors: each started, shown objects of its kind, stopped.
start pod_watcher "$ex/pod_watcher"
start multi_watcher "$ex/multi_watcher"
start secret_reflector "$ex/secret_reflector"
start errorbounded_configmap_watcher "$ex/errorbounded_configmap_watcher"
start event_watcher "$ex/event_watcher"
start node_watcher "$ex/node_watcher"
start node_reflector "$ex/node_reflector"
sleep 5
k run watched-pod --image=nginx:1.27
k create deployment watched --image=nginx:1.27
k create configmap watched --from-literal=ca.crt=x
k create secret generic watched --from-literal=a=b
k apply -f - <<'YAML'
apiVersion: v1
kind: Node
metadata:
  name: cordoned
  labels: {kubernetes.io/arch: amd64}
spec:
  unschedulable: true
status:   # a Node may be created with its status (node_watcher unwraps its conditions)
  conditions: [{type: Ready, status: "False", reason: KubeletDown, message: no kubelet}]
YAML
k label node cordoned touched=1
k apply -f - <<'YAML'
apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: watched.1
  namespace: default
eventTime: "2026-01-01T00:00:00.000000Z"
reportingController: recorder
reportingInstance: recorder
action: Testing
reason: Recorded
type: Normal
regarding: {kind: Pod, name: watched-pod, namespace: default}
note: seen by event_watcher
YAML
sleep 12
k delete pod watched-pod --wait=false
k delete deployment watched
k delete configmap watched
k delete secret watched
k delete node cordoned
sleep 3
stop; kubelet & started+=("$!")

# crd_reflector: applies Foo's CRD and watches Foos; one Foo created, deleted
start crd_reflector "$ex/crd_reflector"
until_ok 60 k get crd foos.clux.dev
k wait --for condition=established --timeout=60s crd/foos.clux.dev
sleep 2
k apply -f "$OPERATOR_SRC/examples/crd-baz.yaml"
sleep 3
k delete -f "$OPERATOR_SRC/examples/crd-baz.yaml"
sleep 2
stop; kubelet & started+=("$!")

# The one-shot programs.
once crd_api 120 "$ex/crd_api"
once crd_apply 120 "$ex/crd_apply"
once job_api 60 "$ex/job_api"
once pod_api 60 "$ex/pod_api"
once pod_paged 60 "$ex/pod_paged"
once pod_evict 60 "$ex/pod_evict"
once pod_resize 90 "$ex/pod_resize"
k delete pod resize-demo --wait=false >/dev/null 2>&1 || true
# exec and attach need a kubelet to connect to: each is requested, then fails.
once pod_exec 60 "$ex/pod_exec"
k delete pod example --wait=false >/dev/null 2>&1 || true
until_ok 60 sh -c "! '$KUBECTL' get pod example"
once pod_attach 60 "$ex/pod_attach"
k delete pod example --wait=false >/dev/null 2>&1 || true
k run logged --image=nginx:1.27
once log_stream 30 "$ex/log_stream" logged
k delete pod logged --wait=false
stop
cat "$RECORD_LOGS/summary.txt" >&2
