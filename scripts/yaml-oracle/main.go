// yaml-oracle converts JSON documents to YAML exactly as controller-gen writes them
// (sigs.k8s.io/yaml's JSONToYAML, i.e. go-yaml v2), for kube-markers' differential tests of its
// own YAML writer. Input: one JSON document per line on stdin. Output: each document's YAML,
// preceded by "---\n" like controller-gen's WriteYAML.
package main

import (
	"bufio"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

func main() {
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
