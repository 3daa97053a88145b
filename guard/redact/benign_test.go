package redact_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/guard/redact"
)

// benignCorpus is text that holds no credential and must pass untouched:
// the files of testdata/benign (a go.sum, an npm package-lock.json with
// its sha512 integrity hashes, Go's own sha256, sha512, md5 and base64
// test vectors: see testdata/benign/README.md) and generated lines of
// UUIDs, sha256 hex digests and base64 blobs as they appear in code and
// fixtures.
func benignCorpus(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	files, err := filepath.Glob("testdata/benign/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "README.md") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(name)] = string(data)
	}
	f := newFaker()
	var uuids, digests, blobs strings.Builder
	for i := range 2000 {
		id := uuid.NewSHA1(uuid.NameSpaceURL, fmt.Appendf(nil, "https://example.com/%d", i))
		fmt.Fprintf(&uuids, "  {\"id\": \"%s\", \"requestId\": \"%s\"},\n", id, uuid.NewMD5(uuid.NameSpaceDNS, id[:]))
		sum := sha256.Sum256(fmt.Appendf(nil, "vector %d", i))
		fmt.Fprintf(&digests, "\t{in: \"vector %d\", sha256: \"%s\"},\n", i, hex.EncodeToString(sum[:]))
		raw := []byte(f.s(alnum, 24+i%200))
		fmt.Fprintf(&blobs, "\tfixture%d = %q\n", i, base64.StdEncoding.EncodeToString(raw))
	}
	out["uuids.json"] = uuids.String()
	out["sha256_vectors.go"] = digests.String()
	out["base64_fixtures.go"] = blobs.String()
	return out
}

// TestBenign: no finding in the benign corpus.
func TestBenign(t *testing.T) {
	r := newRedactor(t)
	for name, text := range benignCorpus(t) {
		got, found := r.Redact(text)
		for _, f := range found {
			t.Errorf("%s: a false positive of %s: %q", name, f.Rule, text[f.Start:f.End])
		}
		if len(found) == 0 && got != text {
			t.Errorf("%s: changed without a finding", name)
		}
	}
}

// TestFalsePositiveRate measures the findings in ordinary code: the
// gateway's own Go, YAML and Markdown sources (tests, with their fake
// credentials, left out). It fails beyond 1 finding per MiB and logs the
// rate that docs/security/content.md reports.
func TestFalsePositiveRate(t *testing.T) {
	r := newRedactor(t)
	var files, withFinding, findings, size int
	byRule := map[string]int{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == ".git" || name == "node_modules" || name == "gitleaks" {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(p)
		if strings.HasSuffix(p, "_test.go") || (ext != ".go" && ext != ".yaml" && ext != ".md") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		size += len(data)
		found := r.Find(string(data))
		if len(found) > 0 {
			withFinding++
		}
		for _, f := range found {
			findings++
			byRule[f.Rule]++
			t.Logf("%s: %s: %q", p, f.Rule, data[f.Start:f.End])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	perMiB := float64(findings) / (float64(size) / (1 << 20))
	t.Logf("ordinary code: %d files, %.1f MiB, %d findings in %d files (%.2f%% of files, %.2f per MiB), by rule %v",
		files, float64(size)/(1<<20), findings, withFinding, 100*float64(withFinding)/float64(files), perMiB, byRule)
	if perMiB > 1 {
		t.Errorf("%.2f false positives per MiB of ordinary code, want at most 1", perMiB)
	}
}

// TestPlaceholderStable: redacting a redacted text changes nothing.
func TestPlaceholderStable(t *testing.T) {
	r := newRedactor(t)
	for _, c := range secretCorpus() {
		once, _ := r.Redact(c.text)
		twice, found := r.Redact(once)
		if twice != once || len(found) != 0 {
			t.Errorf("%s: redacted again: %q, %+v", c.name, twice, found)
		}
	}
	_ = redact.Placeholder
}
