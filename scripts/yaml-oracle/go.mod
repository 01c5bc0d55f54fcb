module kube-markers.invalid/yaml-oracle

go 1.22

require (
	go.yaml.in/yaml/v2 v2.4.4
	sigs.k8s.io/yaml v1.6.0
)
