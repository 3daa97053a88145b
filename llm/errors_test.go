package llm

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestErrorMethods(t *testing.T) {
	cause := errors.New("dial tcp: connection refused")
	tests := []struct {
		err         *Error
		code        string
		recoverable bool
		text        string
	}{
		{&Error{Kind: KindUnavailable, Message: "cannot connect", Err: cause}, "UPSTREAM_UNAVAILABLE", true,
			"upstream unavailable: cannot connect: dial tcp: connection refused"},
		{&Error{Kind: KindStatus, Status: 429, Message: "slow down"}, "UPSTREAM_ERROR", true, "upstream status 429: slow down"},
		{&Error{Kind: KindStatus, Status: 502, Message: "bad gateway"}, "UPSTREAM_ERROR", true, "upstream status 502: bad gateway"},
		{&Error{Kind: KindStatus, Status: 400, Message: "bad"}, "UPSTREAM_ERROR", false, "upstream status 400: bad"},
		{&Error{Kind: KindStream, Message: "oops"}, "UPSTREAM_ERROR", false, "upstream stream: oops"},
		{&Error{Kind: KindTimeout, Message: "idle timeout of 1s exceeded"}, "UPSTREAM_TIMEOUT", true,
			"upstream timeout: idle timeout of 1s exceeded"},
		{&Error{Kind: KindCanceled, Message: "the request was canceled"}, "CANCELED", false,
			"upstream canceled: the request was canceled"},
	}
	for _, tt := range tests {
		if got := tt.err.Code(); got != tt.code {
			t.Errorf("%v: Code() = %s, want %s", tt.err, got, tt.code)
		}
		if got := tt.err.Recoverable(); got != tt.recoverable {
			t.Errorf("%v: Recoverable() = %v, want %v", tt.err, got, tt.recoverable)
		}
		if got := tt.err.Error(); got != tt.text {
			t.Errorf("Error() = %q, want %q", got, tt.text)
		}
	}
	if !errors.Is(tests[0].err, cause) {
		t.Error("Unwrap does not reach the cause")
	}
}

func TestUpstreamMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":{"message":"Invalid API key","type":"invalid_request_error"}}`, "Invalid API key"},
		{`{"error":"plain error string"}`, "plain error string"},
		{`{"message":"top-level message"}`, "top-level message"},
		{`{"error":{"code":42}}`, `{"error":{"code":42}}`},
		{"  <html>502 Bad Gateway</html>\n", "<html>502 Bad Gateway</html>"},
		{"", ""},
		{"bad \xff byte", "bad \uFFFD byte"},
		{strings.Repeat("é", 2000), strings.Repeat("é", maxMessage/2) + "…"},
		{strings.Repeat("a", 3000), strings.Repeat("a", maxMessage) + "…"},
		{"a" + strings.Repeat("世", 1000), "a" + strings.Repeat("世", (maxMessage-1)/3) + "…"},
	}
	for _, tt := range tests {
		// What a caller sees: the message cleaned, which cuts it.
		shown := (&Client{}).cleanError(&Error{Kind: KindStatus, Message: upstreamMessage([]byte(tt.body))}, nil).(*Error).Message
		if got := shown; got != tt.want {
			t.Errorf("upstreamMessage(%.40q) = %.60q, want %.60q", tt.body, got, tt.want)
		}
	}
}

func FuzzUpstreamMessage(f *testing.F) {
	for _, s := range []string{`{"error":{"message":"x"}}`, `{"error":"x"}`, `{"message":1}`, "text", "\xff", `{"error":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := upstreamMessage(body)
		if !utf8.ValidString(msg) || len(msg) > maxMessage+len("…") {
			t.Fatalf("upstreamMessage(%q) = %q", body, msg)
		}
	})
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{"Hello, world! This is a test.", 8},
		{"你好世界", 4},
		{"hi 你好", 3},
		{"\xff\xfe", 2},
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.s); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}
