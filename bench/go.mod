module github.com/agentgw/agentgw/bench

go 1.26.0
