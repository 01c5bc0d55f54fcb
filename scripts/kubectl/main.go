// kubectl v1.37.2 built from k8s.io/kubectl at the version pinned in go.mod: the client whose
// reading of files (and dry-run creates) check-crds' recorded verdicts were taken with, so that
// the tests re-check them with that client rather than whatever kubectl the machine has.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
)

func main() {
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		os.Exit(1)
	}
}
