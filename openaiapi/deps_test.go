package openaiapi_test

import (
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the endpoint is an http.Handler over the runner: the server
// mounts it, it knows neither the server nor echo.
func TestDeps(t *testing.T) {
	deps, err := deptest.List(deptest.Module + "/openaiapi")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range deps {
		if d == deptest.Module+"/server" || strings.HasPrefix(d, "github.com/labstack/echo") {
			t.Errorf("openaiapi depends on %s", d)
		}
	}
}
