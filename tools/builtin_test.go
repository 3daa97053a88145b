package tools

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// builtinManager registers the builtins the tests call.
func builtinManager() *Manager {
	return NewManager(Config{Builtins: map[string]BuiltinFunc{
		"git_status": func(_ context.Context, p map[string]any) (any, error) {
			return map[string]any{"branch": "main", "params": p}, nil
		},
		"fails": func(context.Context, map[string]any) (any, error) {
			return nil, errors.New("repository is locked")
		},
		"coded": func(context.Context, map[string]any) (any, error) {
			return nil, &toolspec.ResultError{Code: toolspec.CodeNotAllowed, Message: "push is disabled"}
		},
		"panics": func(context.Context, map[string]any) (any, error) { panic("boom") },
		"waits": func(ctx context.Context, _ map[string]any) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}})
}

func TestBuiltinResults(t *testing.T) {
	t.Parallel()
	m := builtinManager()
	tests := []struct {
		entry   string
		timeout time.Duration
		status  string
		code    string
		substr  string
	}{
		{"git_status", 0, toolspec.StatusSuccess, "", ""},
		{"fails", 0, toolspec.StatusError, toolspec.CodeToolFailed, "repository is locked"},
		{"coded", 0, toolspec.StatusError, toolspec.CodeNotAllowed, "push is disabled"},
		{"panics", 0, toolspec.StatusError, toolspec.CodeToolFailed, "panicked: boom"},
		{"waits", 20 * time.Millisecond, toolspec.StatusTimeout, toolspec.CodeTimeout, "timed out after 20ms"},
	}
	for _, tc := range tests {
		t.Run(tc.entry, func(t *testing.T) {
			spec := Spec{Name: "b_" + tc.entry, Description: "d", Runtime: "builtin", Entry: tc.entry, Timeout: tc.timeout, Parameters: declare("a")}
			res := mustCompile(t, m, spec, t.TempDir()).Call(context.Background(), Call{ID: "call_7", Parameters: map[string]any{"a": 1.0}})
			if res.CallID != "call_7" || res.ExecutionTime < 0 {
				t.Errorf("callId %q executionTime %d", res.CallID, res.ExecutionTime)
			}
			if tc.status == toolspec.StatusSuccess {
				wantSuccess(t, res)
				want := map[string]any{"branch": "main", "params": map[string]any{"a": 1.0}}
				if !reflect.DeepEqual(res.Result, want) {
					t.Errorf("result %#v", res.Result)
				}
				return
			}
			wantError(t, res, tc.status, tc.code, tc.substr)
		})
	}
}

func TestBuiltinCallerCanceled(t *testing.T) {
	t.Parallel()
	tool := mustCompile(t, builtinManager(), Spec{Name: "w", Runtime: "builtin", Entry: "waits"}, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	wantError(t, tool.Call(ctx, Call{ID: "c"}), toolspec.StatusError, toolspec.CodeCanceled, "canceled")
	wantError(t, tool.Call(ctx, Call{ID: "c"}), toolspec.StatusError, toolspec.CodeCanceled, "before it started")
}

func TestBuiltinDefaultsToName(t *testing.T) {
	t.Parallel()
	tool := mustCompile(t, builtinManager(), Spec{Name: "git_status", Runtime: "builtin"}, t.TempDir())
	wantSuccess(t, call(tool, nil))
	_, _, err := builtinManager().Compile(Spec{Name: "git_stats", Runtime: "builtin"}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `did you mean "git_status"?`) {
		t.Errorf("unknown builtin: %v", err)
	}
}

func TestFrontendTool(t *testing.T) {
	t.Parallel()
	spec := Spec{Name: "screenshot", Description: "d", Runtime: "FRONTEND", PermissionLevel: "user_consent", UserPrompt: "Allow?"}
	tool := mustCompile(t, NewManager(Config{}), spec, t.TempDir())
	if !tool.NeedsConsent() || tool.FallbackBehavior != toolspec.FallbackAbort || tool.Runtime != "frontend" {
		t.Errorf("consent %v fallback %q runtime %q", tool.NeedsConsent(), tool.FallbackBehavior, tool.Runtime)
	}
	wantError(t, call(tool, nil), toolspec.StatusError, toolspec.CodeUnavailable, "runs in the IDE")
}
