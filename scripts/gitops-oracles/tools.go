//go:build tools

// Pins kubeconform in this module's go.sum; scripts/build-gitops-oracles.sh builds its command.
package main

import _ "github.com/yannh/kubeconform/cmd/kubeconform"
