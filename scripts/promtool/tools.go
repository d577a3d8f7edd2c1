//go:build tools

// Package tools pins promtool (github.com/prometheus/prometheus/cmd/promtool), which
// scripts/build-promtool.sh builds to test deploy/monitoring's alert rules (promtool test rules).
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
