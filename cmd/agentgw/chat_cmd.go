package main

import (
	"github.com/spf13/cobra"

	"github.com/agentgw/agentgw/chat"
)

// newChatCmd is agentgw chat, the terminal client of package chat.
func newChatCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chat [PROMPT...]",
		Short: "Talk to a gateway as an IDE plugin does",
		Long:  chat.Long,
		Example: `  agentgw chat hello
  agentgw chat --agent reviewer --file main.go --selection 10-20 "review this"
  agentgw chat "explain the retry loop" --dir . --allow-tools
  git diff | agentgw chat --agent reviewer -
  agentgw chat --task 3f2a…`,
	}
	c := chat.NewCommand(cmd.Flags(), e.getenv)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		return exit(c.Run(args, e.stdin, e.stdout, e.stderr))
	}
	return cmd
}
