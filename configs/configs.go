// Package configs embeds the default gateway configuration and the example
// agents, so that `agentgw serve` runs with no flags and no files.
package configs

import "embed"

// FS holds gateway.yaml and the agents/ directory.
//
//go:embed gateway.yaml agents
var FS embed.FS

// AgentsDir is the directory of the example agents inside FS.
const AgentsDir = "agents"

// GatewayFile is the default gateway configuration inside FS.
const GatewayFile = "gateway.yaml"
