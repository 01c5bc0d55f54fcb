module kube-markers/scripts/webhook-go-client

go 1.26
