package redact_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/guard/redact"
)

// newRedactor is the redactor of the default rules.
func newRedactor(t testing.TB) *redact.Redactor {
	t.Helper()
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Alphabets of the fake keys.
const (
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower    = "abcdefghijklmnopqrstuvwxyz"
	digits   = "0123456789"
	alnum    = upper + lower + digits
	base32   = upper + "234567"
	hexLower = "0123456789abcdef"
	urlsafe  = alnum + "_-"
	b64      = alnum + "+/"
)

// faker makes real-shaped fake keys from a fixed seed: the same corpus on
// every run, and no key-shaped string in the repository.
type faker struct{ rng *rand.Rand }

func newFaker() faker { return faker{rand.New(rand.NewPCG(31, 3))} }

// s is n characters of alphabet.
func (f faker) s(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[f.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// secretCase is a text holding one credential, and the rule that must
// find it.
type secretCase struct {
	name, rule, text, secret string
}

// secretCorpus is the corpus of real-shaped fake credentials, each in the
// context it usually appears in.
func secretCorpus() []secretCase {
	f := newFaker()
	var out []secretCase
	add := func(name, rule, format, secret string) {
		out = append(out, secretCase{name: name, rule: rule, text: strings.ReplaceAll(format, "$S", secret), secret: secret})
	}
	add("aws access key id", "aws-access-token", "[default]\naws_access_key_id = $S\nregion = eu-west-1\n", "AKIA"+f.s(base32, 16))
	add("aws session key id", "aws-access-token", "export AWS_ACCESS_KEY_ID=$S\n", "ASIA"+f.s(base32, 16))
	add("github classic pat", "github-pat", "git remote set-url origin https://$S@github.com/acme/app.git\n", "ghp_"+f.s(alnum, 36))
	add("github fine-grained pat", "github-fine-grained-pat", "GITHUB_TOKEN=$S\n", "github_pat_"+f.s(alnum+"_", 82))
	add("github oauth token", "github-oauth", `{"token": "$S"}`, "gho_"+f.s(alnum, 36))
	add("github app token", "github-app-token", "token: $S\n", "ghs_"+f.s(alnum, 36))
	add("gitlab pat", "gitlab-pat", "curl --header 'PRIVATE-TOKEN: $S' https://gitlab.example.com/api/v4/projects\n", "glpat-"+f.s(alnum, 20))
	add("openai project key", "openai-api-key", "client = OpenAI(api_key=\"$S\")\n",
		"sk-proj-"+f.s(urlsafe, 74)+"T3BlbkFJ"+f.s(urlsafe, 73)+f.s(alnum, 1)) // \b after the key
	add("openai legacy key", "openai-api-key", "OPENAI_API_KEY=$S\n", "sk-"+f.s(alnum, 20)+"T3BlbkFJ"+f.s(alnum, 20))
	add("anthropic key", "anthropic-api-key", "ANTHROPIC_API_KEY=$S\n", "sk-ant-api03-"+f.s(urlsafe, 93)+"AA")
	add("rsa private key", "private-key", "key := `$S`\n", "-----BEGIN RSA PRIVATE KEY-----\n"+f.s(b64, 64)+"\n"+f.s(b64, 64)+"\n"+f.s(b64, 40)+"==\n-----END RSA PRIVATE KEY-----")
	add("openssh private key", "private-key", "$S\n", "-----BEGIN OPENSSH PRIVATE KEY-----\n"+f.s(b64, 70)+"\n"+f.s(b64, 70)+"\n-----END OPENSSH PRIVATE KEY-----")
	add("jwt", "jwt", "Authorization: Bearer $S\n",
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ"+f.s(alnum, 40)+"."+f.s(urlsafe, 43))
	add("slack bot token", "slack-bot-token", "SLACK_BOT_TOKEN=$S\n", "xoxb-"+f.s(digits, 12)+"-"+f.s(digits, 13)+"-"+f.s(alnum, 24))
	add("slack webhook", "slack-webhook-url", "url = \"$S\"\n", "https://hooks.slack.com/services/T"+f.s(upper+digits, 8)+"/B"+f.s(upper+digits, 8)+"/"+f.s(alnum, 24))
	add("stripe live key", "stripe-access-token", "stripe.api_key = '$S'\n", "sk_live_"+f.s(alnum, 24))
	add("stripe restricted key", "stripe-access-token", "STRIPE_KEY=$S\n", "rk_live_"+f.s(alnum, 24))
	add("gcp api key", "gcp-api-key", "const firebaseKey = \"$S\";\n", "AIza"+f.s(urlsafe, 35))
	add("npm token", "npm-access-token", "//registry.npmjs.org/:_authToken=$S\n", "npm_"+f.s(lower+digits, 36))
	add("sendgrid key", "sendgrid-api-token", "SENDGRID_API_KEY=$S\n", "SG."+f.s(urlsafe, 22)+"."+f.s(urlsafe, 43))
	add("hugging face token", "huggingface-access-token", "HF_TOKEN=$S\n", "hf_"+f.s(lower+upper, 34))
	add("generic password", "generic-api-key", "db:\n  password: \"$S\"\n", f.s(alnum, 24))
	add("generic secret in code", "generic-api-key", "const apiSecret = \"$S\"\n", f.s(alnum, 32))
	return out
}

// TestCorpus: every fake credential of the corpus is found by its rule
// and replaced by its placeholder; the rest of the text is untouched.
func TestCorpus(t *testing.T) {
	r := newRedactor(t)
	for _, c := range secretCorpus() {
		t.Run(c.name, func(t *testing.T) {
			got, found := r.Redact(c.text)
			if len(found) != 1 {
				t.Fatalf("findings %+v in %q, want one of %s", found, c.text, c.rule)
			}
			if found[0].Rule != c.rule {
				t.Errorf("rule %s, want %s", found[0].Rule, c.rule)
			}
			want := strings.Replace(c.text, c.secret, redact.Placeholder(c.rule), 1)
			if got != want {
				t.Errorf("redacted\n%q\nwant\n%q", got, want)
			}
			if strings.Contains(got, c.secret) {
				t.Errorf("the secret is still there: %q", got)
			}
		})
	}
}

// TestAllTogether: a text holding the whole corpus comes out with every
// secret replaced, in text order.
func TestAllTogether(t *testing.T) {
	r := newRedactor(t)
	var b strings.Builder
	corpus := secretCorpus()
	for _, c := range corpus {
		b.WriteString(c.text)
		b.WriteString("\n\n")
	}
	got, found := r.Redact(b.String())
	if len(found) != len(corpus) {
		t.Errorf("%d findings, want %d: %+v", len(found), len(corpus), found)
	}
	for _, c := range corpus {
		if strings.Contains(got, c.secret) {
			t.Errorf("%s: the secret is still there", c.name)
		}
	}
}

// TestUntouched: text without credentials is returned as it is, without
// findings: placeholders of the gateway's own, examples gitleaks' global
// allowlist knows, low-entropy values.
func TestUntouched(t *testing.T) {
	r := newRedactor(t)
	for _, text := range []string{
		"",
		"func main() { fmt.Println(\"hello\") }",
		"aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
		"password: ${DB_PASSWORD}",
		"token = \"{{ .Values.token }}\"",
		"api_key = \"your-api-key-here\"",
		"secret: aaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"the key [REDACTED:aws-access-token] was removed",
		"primary_key = user_id",
	} {
		got, found := r.Redact(text)
		if got != text || len(found) != 0 {
			t.Errorf("%q: redacted to %q, findings %+v", text, got, found)
		}
	}
}

// TestDisable: a disabled rule finds nothing.
func TestDisable(t *testing.T) {
	r, err := redact.New(redact.Options{Disable: []string{"generic-api-key"}})
	if err != nil {
		t.Fatal(err)
	}
	text := "const apiSecret = \"" + newFaker().s(alnum, 32) + "\"\n"
	if _, found := r.Redact(text); len(found) != 0 {
		t.Errorf("findings %+v with generic-api-key disabled", found)
	}
	if ids := r.Rules(); len(ids) < 200 {
		t.Errorf("%d rules applied, want gitleaks' ~216", len(ids))
	}
}
