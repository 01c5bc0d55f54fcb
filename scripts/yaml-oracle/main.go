// yaml-oracle converts JSON documents to YAML exactly as controller-gen writes them
// (sigs.k8s.io/yaml's JSONToYAML, i.e. go-yaml v2), for kube-markers' differential tests of its
// own YAML writer. Input: one JSON document per line on stdin. Output: each document's YAML,
// preceded by "---\n" like controller-gen's WriteYAML.
//
// With -to-json it goes the other way for one YAML document on stdin (a controller-gen output
// file), printing it as JSON, so tests can compare controller-gen's objects with ours.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-to-json" {
		in, err := io.ReadAll(os.Stdin)
		if err == nil {
			var out []byte
			out, err = yaml.YAMLToJSON(in)
			if err == nil {
				_, err = os.Stdout.Write(out)
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "yaml-oracle: %v\n", err)
			os.Exit(1)
		}
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		doc, err := yaml.JSONToYAML(in.Bytes())
		if err != nil {
			fmt.Fprintf(os.Stderr, "yaml-oracle: %v\n", err)
			os.Exit(1)
		}
		out.WriteString("---\n")
		out.Write(doc)
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "yaml-oracle: %v\n", err)
		os.Exit(1)
	}
}
