package urlallow

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func mustParse(t testing.TB, entries ...string) List {
	t.Helper()
	l, err := Parse(entries)
	if err != nil {
		t.Fatalf("Parse(%q): %v", entries, err)
	}
	return l
}

// TestAllows holds issue 24's attacks on the webhook allow-list (userinfo,
// dot segments) and the other ways a URL can read as one host or path and
// reach another.
func TestAllows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entry string
		url   string
		want  bool
	}{
		// issue 24 item 6
		{"http://127.0.0.1:19998", "http://127.0.0.1:19998/hook", true},
		{"http://127.0.0.1:19998", "http://127.0.0.1:19998@127.0.0.1:19999/x", false},
		{"http://127.0.0.1:19998", "http://127.0.0.1:19998/../x", false},
		{"http://127.0.0.1:19998/hooks", "http://127.0.0.1:19998/hooks/../admin", false},
		{"http://127.0.0.1:19998", "http://127.0.0.1:199980/x", false},
		{"http://127.0.0.1:19998", "http://127.0.0.1:19998.evil.com/x", false},
		{"http://127.0.0.1:19998", "http://127.0.0.1:1999/x", false},
		// userinfo in every form
		{"http://a.example", "http://user:pw@a.example/", false},
		{"http://a.example", "http://a.example@b.example/", false},
		{"http://a.example", "http://@a.example/", false},
		{"http://a.example", "http://a.example\\@b.example/", false},
		// scheme and port
		{"http://a.example", "https://a.example/", false},
		{"https://a.example", "https://a.example:443/x", true},
		{"http://a.example:80", "http://a.example/x", true},
		{"http://a.example", "http://a.example:8080/x", false},
		{"http://a.example", "HTTP://A.EXAMPLE/x", true},
		{"http://a.example", "ftp://a.example/x", false},
		{"http://a.example", "//a.example/x", false},
		{"http://a.example", "a.example/x", false},
		// host forms
		{"http://a.example", "http://a.example./x", true},
		{"http://a.example", "http://a.example.b.example/x", false},
		{"http://a.example", "http://a%2eexample/x", false},
		{"http://a.example", "http://xn--a-ufa.example/x", false},
		{"http://a.example", "http://á.example/x", false},
		{"http://127.0.0.1", "http://[::ffff:127.0.0.1]/x", true},
		{"http://127.0.0.1", "http://2130706433/x", false},
		{"http://127.0.0.1", "http://0x7f.0.0.1/x", false},
		{"http://127.0.0.1", "http://127.1/x", false},
		{"http://[::1]:8080", "http://[0:0::1]:8080/x", true},
		{"http://[::1]:8080", "http://[::1%25eth0]:8080/x", false},
		// path prefix on segment boundaries
		{"https://a.example/api", "https://a.example/api", true},
		{"https://a.example/api", "https://a.example/api/", true},
		{"https://a.example/api", "https://a.example/api/v1?q=1", true},
		{"https://a.example/api/", "https://a.example/api/v1", true},
		{"https://a.example/api/", "https://a.example/api", false},
		{"https://a.example/api/", "https://a.example/apix", false},
		{"https://a.example/api", "https://a.example/apix", false},
		{"https://a.example/api", "https://a.example/", false},
		{"https://a.example/api", "https://a.example/API/v1", false},
		{"https://a.example/api", "https://a.example/ap%69/v1", true},
		// dot segments, encoded or not
		{"https://a.example/api", "https://a.example/api/./v1", false},
		{"https://a.example/api", "https://a.example/api/%2e%2e/admin", false},
		{"https://a.example/api", "https://a.example/api/%2E./admin", false},
		{"https://a.example/api", "https://a.example/api/%252e%252e/admin", false},
		{"https://a.example/api", "https://a.example/api/..;/admin", false},
		{"https://a.example/api", "https://a.example/api%2f..%2fadmin", false},
		{"https://a.example/api", "https://a.example/api%2fv1", false},
		{"https://a.example/api", "https://a.example/api/..%5cadmin", false},
		{"https://a.example/api", "https://a.example/api\\..\\admin", false},
		{"https://a.example/api", "https://a.example/api/...", true},
		{"https://a.example/api", "https://a.example/api/..x", true},
	}
	for _, tc := range tests {
		t.Run(tc.entry+" "+tc.url, func(t *testing.T) {
			l := mustParse(t, tc.entry)
			if got := l.Allows(tc.url); got != tc.want {
				t.Errorf("Allows(%q) under %q = %v, want %v", tc.url, tc.entry, got, tc.want)
			}
			if err := l.Check(tc.url); (err == nil) != tc.want || err != nil && !errors.Is(err, ErrNotAllowed) {
				t.Errorf("Check(%q) = %v, want allowed %v", tc.url, err, tc.want)
			}
		})
	}
}

func TestParseRefusesBadEntries(t *testing.T) {
	t.Parallel()
	for _, entry := range []string{
		"", "127.0.0.1:8080", "ftp://a.example", "http://", "http://u@a.example", "http://a.example/x/../y",
		"http://a.example/?q=1", "http://a.example/#f", "http://á.example", "http://a.example:0", "http://a..example",
		"mailto:x@a.example", "http://a.example/%2e%2e/",
	} {
		if _, err := ParsePrefix(entry); err == nil {
			t.Errorf("ParsePrefix(%q): no error", entry)
		}
	}
	l, err := Parse([]string{"http://ok.example", "http://u@bad.example"})
	if err == nil || !strings.Contains(err.Error(), "bad.example") || l.Len() != 1 || !l.Allows("http://ok.example/x") {
		t.Fatalf("Parse with one bad entry: len %d, err %v; want the good one kept and the bad one named", l.Len(), err)
	}
	if (List{}).Allows("http://ok.example/") {
		t.Fatal("the zero List allows a URL")
	}
}

func TestPrefixString(t *testing.T) {
	t.Parallel()
	for entry, want := range map[string]string{
		"HTTP://A.Example":       "http://a.example:80/",
		"https://a.example/api/": "https://a.example:443/api/",
		"http://[::1]:8080/x":    "http://[::1]:8080/x",
	} {
		p, err := ParsePrefix(entry)
		if err != nil || p.String() != want {
			t.Errorf("ParsePrefix(%q) = %q, %v; want %q", entry, p, err, want)
		}
	}
}

// TestCheckRedirect follows a redirect inside the list and refuses one
// out of it: the server outside is never called.
func TestCheckRedirect(t *testing.T) {
	t.Parallel()
	var outsideCalls atomic.Int32
	outside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		outsideCalls.Add(1)
	}))
	defer outside.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/hop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/api/end", http.StatusFound) })
	mux.HandleFunc("/api/end", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("end")) })
	mux.HandleFunc("/api/out", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, outside.URL+"/x", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/api/dots", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/api/../admin")
		w.WriteHeader(http.StatusFound)
	})
	mux.HandleFunc("/admin", func(w http.ResponseWriter, r *http.Request) { outsideCalls.Add(1) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	l := mustParse(t, srv.URL+"/api")
	c := &http.Client{CheckRedirect: l.CheckRedirect}
	resp, err := c.Get(srv.URL + "/api/hop")
	if err != nil {
		t.Fatalf("redirect inside the list: %v", err)
	}
	_ = resp.Body.Close()
	for _, path := range []string{"/api/out", "/api/dots"} {
		resp, err := c.Get(srv.URL + path)
		if err == nil {
			_ = resp.Body.Close()
		}
		var ue *url.Error
		if !errors.As(err, &ue) || !errors.Is(err, ErrNotAllowed) {
			t.Errorf("%s: error %v, want ErrNotAllowed", path, err)
		}
	}
	if n := outsideCalls.Load(); n != 0 {
		t.Fatalf("a server off the list was called %d times", n)
	}
}

// FuzzAllows: whatever the URL, an allowed one names the entry's scheme,
// host and port, has no userinfo, and its path lies under the entry's
// without dot segments.
func FuzzAllows(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1:19998/hook", "http://127.0.0.1:19998@127.0.0.1:19999/x", "http://127.0.0.1:19998/../x",
		"http://127.0.0.1:19998/api/%2e%2e/x", "http://127.0.0.1:19998/api/..;/x", "http://[::ffff:127.0.0.1]:19998/api",
		"http://127.0.0.1:19998/api%2f..%2fx", "http://127.0.0.1.:19998/api/v", "http://127.0.0.1:19998\\@x/api",
	} {
		f.Add(s)
	}
	l := mustParse(f, "http://127.0.0.1:19998/api")
	f.Fuzz(func(t *testing.T, raw string) {
		if !l.Allows(raw) {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("allowed %q that does not parse", raw)
		}
		if u.User != nil || !strings.EqualFold(u.Scheme, "http") || u.Port() != "19998" {
			t.Fatalf("allowed %q: userinfo %v, scheme %q, port %q", raw, u.User, u.Scheme, u.Port())
		}
		if h := strings.TrimSuffix(u.Hostname(), "."); h != "127.0.0.1" && h != "::ffff:127.0.0.1" {
			t.Fatalf("allowed %q: host %q", raw, u.Hostname())
		}
		if u.Path != "/api" && !strings.HasPrefix(u.Path, "/api/") {
			t.Fatalf("allowed %q: path %q not under /api", raw, u.Path)
		}
		for _, seg := range strings.Split(u.Path, "/") {
			dec, _ := url.PathUnescape(seg)
			if seg == "." || seg == ".." || dec == "." || dec == ".." || strings.Contains(seg, "\\") {
				t.Fatalf("allowed %q: segment %q", raw, seg)
			}
		}
	})
}
