# Scenario: `version` started; Deployment web (nginx:1.27) created, its image set to nginx:1.28, deleted, each seen in `GET :8000/versions`; `version` stopped
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start version "$OPERATOR_TARGET/version"
versions() { curl -sf http://127.0.0.1:8000/versions; }
until_ok 60 versions
k create deployment web --image=nginx:1.27
until_ok 60 sh -c 'curl -sf http://127.0.0.1:8000/versions | grep -q "\"version\":\"1.27\""'
k set image deployment/web nginx=nginx:1.28
until_ok 60 sh -c 'curl -sf http://127.0.0.1:8000/versions | grep -q "\"version\":\"1.28\""'
k delete deployment web
until_ok 60 sh -c '[ "$(curl -sf http://127.0.0.1:8000/versions)" = "[]" ]'
stop
