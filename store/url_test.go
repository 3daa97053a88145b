package store

import "testing"

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://agentgw:s3cret@db.example:5432/agentgw?sslmode=require", "postgres://agentgw:xxxxx@db.example:5432/agentgw?sslmode=require"},
		{"postgres://agentgw@db/agentgw", "postgres://agentgw@db/agentgw"},
		{"postgresql://db/agentgw?user=a&Password=s3cret", "postgresql://db/agentgw?Password=xxxxx&user=a"},
		{"postgres://a:s3%20cret@db/x", "postgres://a:xxxxx@db/x"},
		{"postgres://a:s3cret@db:port/x", "(a URL that does not parse)"},
		{"host=db password=s3cret", "(a URL that does not parse)"},
		{"", "(a URL that does not parse)"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
