// controller-runtime's webhook server, for scripts/bench-webhook.sh to run webhook-bench's
// scenarios against it as it runs them against ours (WEBHOOK_BENCH_SERVER): one validating
// webhook at the MyDatabase example's path that allows every request, TLS from DIR/tls.crt
// and DIR/tls.key, on a free loopback port it prints as `listening on ADDR`.
//
// Usage: controller-runtime-webhook serve DIR
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

const path = "/validate-db-example-com-v1-mydatabase"

func main() {
	if len(os.Args) != 3 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: controller-runtime-webhook serve DIR")
		os.Exit(2)
	}
	// controller-runtime's server takes a port, not a listener: take a free one.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	port := probe.Addr().(*net.TCPAddr).Port
	probe.Close()

	server := webhook.NewServer(webhook.Options{
		Host:    "127.0.0.1",
		Port:    port,
		CertDir: os.Args[2],
	})
	server.Register(path, &webhook.Admission{Handler: admission.HandlerFunc(
		func(context.Context, admission.Request) admission.Response {
			return admission.Allowed("")
		})})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	failed := make(chan error, 1)
	go func() { failed <- server.Start(ctx) }()
	started := server.StartedChecker()
	for started(nil) != nil {
		select {
		case err := <-failed:
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		case <-time.After(10 * time.Millisecond):
		}
	}
	fmt.Printf("listening on 127.0.0.1:%d\n", port)
	if err := <-failed; err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
