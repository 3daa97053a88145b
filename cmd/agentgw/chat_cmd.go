package main

import (
	"context"
	"time"

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
	// --agent completes to the agents of the gateway at --url.
	_ = cmd.RegisterFlagCompletionFunc("agent", func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
		defer cancel()
		names, err := c.AgentNames(ctx)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError | cobra.ShellCompDirectiveNoFileComp
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		return exit(c.Run(args, e.stdin, e.stdout, e.stderr))
	}
	return cmd
}
