// Package collect gathers context variables on the client's side, the way
// an IDE plugin does: the active editor (with the language from the file
// name), the git repository's vcs and userInfo, and the project's package
// manager files. It is what `agentgw chat` sends; the gateway never runs it,
// which keeps go-git out of the server's context package.
package collect
