// Command kubectl is kubectl, built from k8s.io/kubectl at the version of
// the module's other k8s.io libraries, so that the interop suite can run
// kubectl where none is installed (as in CI). k8s.io/kubectl has no main
// package of its own; this is the one k8s.io/kubernetes/cmd/kubectl has,
// without the client auth plugins, which a loopback test server does not
// need.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	// The verbosity is set before the command is built, as kubectl does,
	// so that logging while reading kuberc honours -v.
	_, _ = logs.GlogSetter(cmd.GetLogVerbosity(os.Args))
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
}
