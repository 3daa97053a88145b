package apierr

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCodeTable pins what each code implies: its status before the
// stream, its source and whether trying again may help, as the errors
// built one by one had them before the table.
func TestCodeTable(t *testing.T) {
	for _, tc := range []struct {
		code        string
		status      int
		source      string
		recoverable bool
	}{
		{CodeBadRequest, 400, SourceClient, false},
		{CodeStateInvalid, 400, SourceClient, false},
		{CodeUnauthorized, 401, SourceClient, false},
		{CodeDeclined, 403, SourceClient, false},
		{CodeRepositoryNotAllowed, 403, SourceClient, false},
		{CodeForbidden, 403, SourceClient, false},
		{CodeAgentNotFound, 404, SourceClient, false},
		{CodeCommandNotFound, 404, SourceClient, false},
		{CodeNotFound, 404, SourceClient, false},
		{CodeContextNotFound, 404, SourceClient, false},
		{CodeContextConflict, 409, SourceClient, true},
		{CodeMethodNotAllowed, 405, SourceClient, false},
		{CodePayloadTooLarge, 413, SourceClient, false},
		{CodeUnsupportedMediaType, 415, SourceClient, false},
		{CodeInvalidContext, 422, SourceClient, false},
		{CodeDefinitionNotAllowed, 422, SourceClient, false},
		{CodeInvalidParameters, 422, SourceClient, false},
		{CodeToolNotUnattended, 422, SourceClient, false},
		{CodeScheduleTooFrequent, 422, SourceClient, false},
		{CodeScheduleQuota, 409, SourceClient, false},
		{CodeRateLimited, 429, SourceClient, true},
		{CodeInternal, 500, SourceServer, false},
		{CodeTemplateError, 500, SourceServer, false},
		{CodeActionInvalid, 500, SourceServer, false},
		{CodeCommandEmpty, 500, SourceServer, false},
		{CodeToolFailed, 500, SourceServer, false},
		{CodeToolRoundsExceeded, 500, SourceServer, false},
		{CodeStepFailed, 500, SourceServer, false},
		{CodeStepNotReady, 500, SourceServer, false},
		{CodeUpstreamError, 502, SourceUpstream, false},
		{CodeUpstreamUnavailable, 502, SourceUpstream, false},
		{CodeUpstreamTimeout, 502, SourceUpstream, false},
		{CodeUpstreamNotConfigured, 503, SourceServer, false},
		{CodeRepositoriesNotConfigured, 503, SourceServer, false},
		{CodeStoreUnavailable, 503, SourceServer, true},
		{CodeStepTimeout, 504, SourceServer, true},
		{CodePlanTimeout, 504, SourceServer, true},
		{CodeCanceled, 0, SourceServer, false},
		{"SOMETHING_NEW", 500, SourceServer, false},
	} {
		e := New(tc.code, "m")
		if e.Status != tc.status || e.Source != tc.source || e.Recoverable != tc.recoverable || e.Message != "m" {
			t.Errorf("New(%s) = status %d, source %s, recoverable %v; want %d, %s, %v", tc.code, e.Status, e.Source, e.Recoverable, tc.status, tc.source, tc.recoverable)
		}
		if tc.code != "SOMETHING_NEW" {
			if _, ok := codes[tc.code]; !ok {
				t.Errorf("%s is not in the table of codes", tc.code)
			}
		}
	}
	cause := errors.New("cause")
	e := New(CodeToolFailed, "ide").WithStatus(http.StatusBadGateway).From(SourceClient).Wrap(cause).Suggest("s")
	if e.Status != 502 || e.Source != SourceClient || !errors.Is(e, cause) || e.SuggestedAction != "s" {
		t.Errorf("adjusted error %+v", e)
	}
	if c := Canceled(cause); c.(*Error).Code != CodeCanceled || !errors.Is(c, cause) || Canceled(nil) != nil {
		t.Errorf("Canceled: %v", c)
	}
}

// literalCode finds an error code written as a string where an Error is
// built or compared.
var literalCode = regexp.MustCompile(`(Code:\s*|\.Code\s*[!=]=\s*|(New|Errorf)\()"[A-Z_]+"`)

// TestNoLiteralCodes keeps error codes constants: no code of the packages
// that build client errors is a string literal.
func TestNoLiteralCodes(t *testing.T) {
	for _, dir := range []string{".", "../server", "../gitrepo/gitstep", "../tools/toolstep"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return fs.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range literalCode.FindAll(data, -1) {
				t.Errorf("%s: error code as a string literal: %s (use a Code constant)", p, m)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
