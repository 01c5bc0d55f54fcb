# Scenario: the CRD; `controller` started; Document samuel (hide) created, unhidden, hidden again (a repeated HideRequested event), Document illegal (hide, a reconcile error) created and touched twice; both deleted (the finalizer's cleanup); `controller` stopped
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
crd "$OPERATOR_SRC/yaml/crd.yaml"
start controller "$OPERATOR_TARGET/controller"
sleep 3
k apply -f "$OPERATOR_SRC/yaml/instance-samuel.yaml"
until_ok 60 jsonpath_is true document samuel -o 'jsonpath={.status.hidden}'
k patch document samuel --type merge -p '{"spec":{"hide":false}}'
until_ok 60 jsonpath_is false document samuel -o 'jsonpath={.status.hidden}'
k patch document samuel --type merge -p '{"spec":{"hide":true}}'
until_ok 60 jsonpath_is true document samuel -o 'jsonpath={.status.hidden}'
k apply -f "$OPERATOR_SRC/yaml/instance-illegal.yaml"
k patch document illegal --type merge -p '{"spec":{"hide":true}}'
sleep 3
k annotate document illegal touched=1
sleep 3
k annotate document illegal touched=2 --overwrite
sleep 3
k delete document samuel illegal --timeout=60s
sleep 2
stop
grep -c "Reconciling" "$RECORD_LOGS/controller.log" >&2 || true
