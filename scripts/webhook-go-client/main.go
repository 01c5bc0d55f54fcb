// The API server's HTTP stack as a client of a webhook server: Go's net/http Transport, with
// the settings kube-apiserver's webhook client uses (idle connections kept 90 s, HTTP/2 if the
// server offers it, a POST not retried on a connection closed under it). Each of -connections
// clients sends a review, idles between -idle-from and -idle-to, and sends another; it prints
// how many failed, and why.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

const review = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"0df28fbd-5f5f-11e8-9b14-0800275bdd23","kind":{"group":"db.example.com","version":"v1","kind":"MyDatabase"},"resource":{"group":"db.example.com","version":"v1","resource":"mydatabases"},"name":"orders","namespace":"shop","operation":"CREATE","userInfo":{"username":"alice"},"object":{"apiVersion":"db.example.com/v1","kind":"MyDatabase","metadata":{"name":"orders","namespace":"shop"},"spec":{"replicas":1,"image":"postgres:16"}},"dryRun":false}}`

func main() {
	url := flag.String("url", "", "the webhook's URL, https://127.0.0.1:PORT/PATH")
	caFile := flag.String("ca", "", "the PEM certificate to trust")
	serverName := flag.String("server-name", "localhost", "the name the certificate is for")
	connections := flag.Int("connections", 400, "clients, one connection each")
	from := flag.Duration("idle-from", 9980*time.Millisecond, "the shortest idle time")
	to := flag.Duration("idle-to", 10020*time.Millisecond, "the longest idle time")
	flag.Parse()
	ca, err := os.ReadFile(*caFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca) {
		fmt.Fprintln(os.Stderr, "no certificate in", *caFile)
		os.Exit(2)
	}
	var wg sync.WaitGroup
	failures := make(chan string, *connections)
	for i := 0; i < *connections; i++ {
		idle := *from + time.Duration(int64(*to-*from)*int64(i)/int64(*connections))
		wg.Add(1)
		go func() {
			defer wg.Done()
			transport := &http.Transport{
				TLSClientConfig:     &tls.Config{RootCAs: roots, ServerName: *serverName},
				TLSHandshakeTimeout: 10 * time.Second,
				IdleConnTimeout:     90 * time.Second,
				MaxIdleConnsPerHost: 25,
				ForceAttemptHTTP2:   true,
			}
			client := &http.Client{Transport: transport, Timeout: 30 * time.Second}
			post := func() error {
				resp, err := client.Post(*url, "application/json", bytes.NewReader([]byte(review)))
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					return err
				}
				if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("status %d", resp.StatusCode)
				}
				return nil
			}
			if err := post(); err != nil {
				failures <- "first review: " + err.Error()
				return
			}
			time.Sleep(idle)
			if err := post(); err != nil {
				failures <- fmt.Sprintf("after %v idle: %v", idle, err)
			}
		}()
	}
	wg.Wait()
	close(failures)
	var reasons []string
	for f := range failures {
		reasons = append(reasons, f)
	}
	fmt.Printf("%d of %d failed\n", len(reasons), *connections)
	for i, r := range reasons {
		if i == 5 {
			break
		}
		fmt.Println(r)
	}
}
