package redact

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentgw/agentgw/guard/redact/internal/ruleset"
)

//go:embed rules.json
var rulesJSON []byte

// Options configures a Redactor; the zero value applies every rule.
type Options struct {
	// Disable names rules not to apply (gitleaks rule ids, such as
	// "generic-api-key").
	Disable []string
}

// Finding is a credential found in a text: the rule that found it and
// where its secret lies (byte offsets, End exclusive).
type Finding struct {
	Rule       string
	Start, End int
}

// Redactor finds credentials in text with gitleaks' default rules and
// replaces them with placeholders. It is safe for concurrent use.
type Redactor struct {
	version string
	rules   []*rule
	// keywords are the rules' distinct keywords, lower case.
	keywords []string
	// kwBytes are the keywords as bytes; groups[prefix[p]] the keywords
	// whose first two bytes are p, pairs a bitmap of those (occurrences).
	kwBytes [][]byte
	prefix  []uint16
	groups  [][]int
	pairs   [1024]uint64
	// anyAlways is set when a rule has no keywords: it runs on every text.
	anyAlways bool
	global    allowlist
	// lockfiles is agentgw's addition to the global allowlist (see
	// lockfileLines).
	lockfiles allowlist
}

// lockfileLines allows what lockfiles hold, which gitleaks leaves alone by
// their path (go.sum, package-lock.json, ... in its global allowlist) and
// a prompt holds without one: a go.sum line's h1: hash (a module named
// like golang.org/x/oauth2 or modernc.org/token otherwise makes it a
// generic-api-key), and a Subresource Integrity hash (npm, yarn, pnpm
// lockfiles).
var lockfileLines = ruleset.Allowlist{
	RegexTarget: "line",
	Regexes: []string{
		`(?m)^[ \t]*\S+ v\S+ h1:[A-Za-z0-9+/]{43}=[ \t]*$`,
		`(?:integrity|resolution|checksum)["']?\s*[:=]\s*["']?(?:\{[^}]*)?sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}`,
	},
}

// rule is a compiled gitleaks rule.
type rule struct {
	id      string
	re      *regexp.Regexp
	group   int
	entropy float64
	allow   []allowlist
	// keywords select the rule (any of them, case-insensitive): their
	// indexes in Redactor.keywords.
	keywords []int
	// assign is set for a rule of gitleaks' "semi-generic" form, a
	// keyword and an assignment (see assignTemplate).
	assign bool
	// anchored, for such a rule whose keywords each start a name its
	// regex matches, is its regex without the name's prefix, anchored:
	// it runs at each keyword (see findAnchored).
	anchored *regexp.Regexp
	// toEnd is set for a rule that runs from its keyword's line to the
	// end of the text (see Find).
	toEnd bool
	// generic rules (generic-api-key) yield to a specific rule's finding
	// of the same secret, as gitleaks' do.
	generic bool
}

// Targets of an allowlist's regexes.
const (
	targetSecret = iota
	targetMatch
	targetLine
)

// allowlist is a compiled gitleaks allowlist. Commits and paths never
// match (a prompt has neither), so that an AND allowlist that checks
// them allows nothing, as in gitleaks for a text without a path.
type allowlist struct {
	and       bool
	target    int
	regexes   []*regexp.Regexp
	stopWords []string
	// other is set when it checks commits or paths.
	other bool
}

// New compiles the embedded gitleaks rules. Rules limited to some file
// paths (5 of gitleaks' default set, such as kubernetes-secret-yaml) are
// left out: a prompt's text has no path.
func New(opts Options) (*Redactor, error) {
	var f ruleset.File
	if err := json.Unmarshal(rulesJSON, &f); err != nil {
		return nil, fmt.Errorf("redact: decoding the embedded rules: %w", err)
	}
	return compile(f, opts)
}

func compile(f ruleset.File, opts Options) (*Redactor, error) {
	r := &Redactor{version: f.Version}
	var err error
	if r.global, err = compileAllowlist(f.Allowlist); err != nil {
		return nil, fmt.Errorf("redact: the global allowlist: %w", err)
	}
	if r.lockfiles, err = compileAllowlist(lockfileLines); err != nil {
		return nil, fmt.Errorf("redact: the lockfile allowlist: %w", err)
	}
	var specific, generic []*rule
	var kwSpecific, kwGeneric [][]string
	for _, fr := range f.Rules {
		if fr.Regex == "" || fr.Path != "" || slices.Contains(opts.Disable, fr.ID) {
			continue
		}
		cr, err := compileRule(fr)
		if err != nil {
			return nil, fmt.Errorf("redact: rule %s: %w", fr.ID, err)
		}
		if cr.generic {
			generic, kwGeneric = append(generic, cr), append(kwGeneric, fr.Keywords)
		} else {
			specific, kwSpecific = append(specific, cr), append(kwSpecific, fr.Keywords)
		}
	}
	r.rules = append(specific, generic...)
	keywords := append(kwSpecific, kwGeneric...)
	index := map[string]int{}
	for i, cr := range r.rules {
		kws := keywords[i]
		if len(kws) == 0 {
			r.anyAlways = true
		}
		for _, k := range kws {
			k = strings.ToLower(k)
			j, ok := index[k]
			if !ok {
				j = len(r.keywords)
				index[k] = j
				r.keywords = append(r.keywords, k)
			}
			cr.keywords = append(cr.keywords, j)
		}
	}
	for _, k := range r.keywords {
		if len(k) < 2 {
			return nil, fmt.Errorf("redact: keyword %q: shorter than 2 bytes", k)
		}
	}
	r.index()
	return r, nil
}

func compileRule(fr ruleset.Rule) (*rule, error) {
	re, err := regexp.Compile(fr.Regex)
	if err != nil {
		return nil, err
	}
	if fr.SecretGroup > re.NumSubexp() {
		return nil, fmt.Errorf("secretGroup %d, and the regex has %d groups", fr.SecretGroup, re.NumSubexp())
	}
	cr := &rule{id: fr.ID, re: re, group: fr.SecretGroup, entropy: fr.Entropy, generic: strings.Contains(fr.ID, "generic")}
	cr.toEnd = spansLines(fr.Regex) || !namesKeyword(fr.Regex, fr.Keywords)
	cr.assign = !cr.toEnd && strings.Contains(fr.Regex, assignTemplate)
	if cr.assign && strings.HasPrefix(fr.Regex, namePrefix) && startsNames(fr.Regex, fr.Keywords) {
		if cr.anchored, err = regexp.Compile("(?i)^" + fr.Regex[len(namePrefix):]); err != nil {
			return nil, err
		}
	}
	for _, a := range fr.Allowlists {
		ca, err := compileAllowlist(a)
		if err != nil {
			return nil, err
		}
		cr.allow = append(cr.allow, ca)
	}
	return cr, nil
}

// assignTemplate is what follows the keyword in the regex of gitleaks'
// semi-generic rules (generic-api-key and 95 others in 8.30: a name
// holding the keyword, assigned a value): up to 20 name characters, up to
// 3 spaces or quotes, an assignment operator. A match of such a rule has
// one of =, >, :, |, ?, or , within 60 bytes after its keyword, past
// only name characters, spaces and quotes (assignAfter).
const assignTemplate = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// assignAfter returns the offset of the assignment operator that follows
// the keyword ending at end, as assignTemplate has it, or -1 when there
// is none: the first byte that is no name character, space or quote, in
// the next 60 bytes, must be an operator.
func assignAfter(lower []byte, end int) int {
	for i := end; i < len(lower) && i < end+60; i++ {
		switch c := lower[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_', c == '.', c == '-',
			c == ' ', c == '\t', c == '\n', c == '\r', c == '\f', c == '\v', c == '\'', c == '"':
		case c == '=', c == '>', c == ':', c == '|', c == '?', c == ',':
			return i
		default:
			return -1
		}
	}
	return -1
}

// namePrefix starts the regexes of gitleaks' semi-generic rules: up to 50
// name characters before the keyword, the fewest that match.
const namePrefix = `(?i)[\w.-]{0,50}?`

// startsNames reports whether each of a semi-generic rule's keywords
// starts a name its regex matches (or a name starts it): the literal
// start of an alternative of the group after namePrefix and one of the
// keywords is a prefix of the other.
func startsNames(re string, keywords []string) bool {
	end := strings.Index(re, assignTemplate)
	group := strings.ToLower(re[len(namePrefix):end])
	group = strings.ReplaceAll(group, "(?-i:", "(?:")
	var starts []string
	for i := 0; i < len(group); i++ {
		if group[i] != '|' && !strings.HasPrefix(group[i:], "(?:") {
			continue
		}
		if group[i] == '(' {
			i += 2
		}
		j := i + 1
		for j < len(group) && (isName(group[j]) || group[j] == '[') {
			if group[j] == '[' { // [aa]: a letter in either case
				if j+3 < len(group) && group[j+3] == ']' && group[j+1] == group[j+2] {
					group = group[:j] + group[j+1:j+2] + group[j+4:]
					j++
					continue
				}
				break
			}
			j++
		}
		if j > i+1 {
			starts = append(starts, group[i+1:j])
		}
	}
	for _, k := range keywords {
		k = strings.ToLower(k)
		if !slices.ContainsFunc(starts, func(s string) bool { return strings.HasPrefix(k, s) || strings.HasPrefix(s, k) }) {
			return false
		}
	}
	return true
}

// isName reports whether c is a name character of a literal: a lower-case
// letter, a digit, _, - or . (after ToLower).
func isName(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// spansLines reports whether a regex's matches may run over several lines
// beyond a line break after the secret: it matches any character ([\s\S],
// (?s)).
func spansLines(re string) bool {
	return strings.Contains(re, `[\s\S`) || strings.Contains(re, `(?s`)
}

// namesKeyword reports whether a regex names one of its rule's keywords
// (case-insensitive): its matches then hold one, on their first line.
func namesKeyword(re string, keywords []string) bool {
	lower := strings.ToLower(strings.ReplaceAll(re, `\`, ""))
	return slices.ContainsFunc(keywords, func(k string) bool { return strings.Contains(lower, strings.ToLower(k)) })
}

func compileAllowlist(a ruleset.Allowlist) (allowlist, error) {
	ca := allowlist{and: strings.EqualFold(a.Condition, "AND"), other: len(a.Paths)+len(a.Commits) > 0}
	switch a.RegexTarget {
	case "", "secret":
	case "match":
		ca.target = targetMatch
	case "line":
		ca.target = targetLine
	default:
		return ca, fmt.Errorf("allowlist: unknown regexTarget %q", a.RegexTarget)
	}
	for _, s := range a.Regexes {
		re, err := regexp.Compile(s)
		if err != nil {
			return ca, fmt.Errorf("allowlist: %w", err)
		}
		ca.regexes = append(ca.regexes, re)
	}
	for _, w := range a.StopWords {
		ca.stopWords = append(ca.stopWords, strings.ToLower(w))
	}
	return ca, nil
}

// Version is the gitleaks version the rules come from.
func (r *Redactor) Version() string { return r.version }

// Rules lists the ids of the rules applied, in the order they apply.
func (r *Redactor) Rules() []string {
	out := make([]string, len(r.rules))
	for i, cr := range r.rules {
		out[i] = cr.id
	}
	return out
}

// Placeholder is what replaces a secret of rule: "[REDACTED:<rule>]".
func Placeholder(rule string) string { return "[REDACTED:" + rule + "]" }

// Redact returns text with each secret found replaced by its rule's
// Placeholder, and the findings (offsets in text), in text order. A text
// without any finding is returned as it is.
func (r *Redactor) Redact(text string) (string, []Finding) {
	found := r.Find(text)
	if len(found) == 0 {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, f := range found {
		b.WriteString(text[last:f.Start])
		b.WriteString(Placeholder(f.Rule))
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String(), found
}

// Find returns the secrets in text, in text order, none overlapping. Only
// the rules one of whose keywords text holds (case-insensitive) run their
// regex, as in gitleaks; a secret must pass its rule's entropy threshold
// and allowlists and the global one. Where two findings overlap, the one
// found first wins: the specific rules run before the generic one.
//
// A rule's regex runs on the lines around its keywords' occurrences (the
// line of each, and the next), not on the whole text: Go's regexp costs
// about 1 ms per KiB for gitleaks' generic rules over a whole text, which
// would make redaction the dearest step of a request. Rules whose matches
// need not hold their keyword (their regex does not name it) and rules
// whose matches span lines ([\s\S], (?s): private keys) run from the
// keyword's line to the end of the text.
func (r *Redactor) Find(text string) []Finding {
	if r == nil || text == "" {
		return nil
	}
	lower := lowerASCII(text)
	occ := r.occurrences(lower)
	if occ == nil && !r.anyAlways {
		return nil
	}
	var found []Finding
	var spans []span
	for _, cr := range r.rules {
		if cr.anchored != nil {
			found = r.findAnchored(found, cr, text, lower, occ)
			continue
		}
		spans = r.spans(spans[:0], cr, text, lower, occ)
		for _, w := range spans {
			for _, m := range cr.re.FindAllStringSubmatchIndex(text[w.start:w.end], -1) {
				for k := range m {
					if m[k] >= 0 {
						m[k] += w.start
					}
				}
				start, end := secretOf(cr, m)
				if start == end || overlaps(found, start, end) {
					continue
				}
				if !r.keep(cr, text, m, start, end) {
					continue
				}
				found = append(found, Finding{Rule: cr.id, Start: start, End: end})
			}
		}
	}
	slices.SortFunc(found, func(a, b Finding) int { return a.Start - b.Start })
	return found
}

// findAnchored appends the findings of a semi-generic rule with an
// anchored regex: it runs at each occurrence of the rule's keywords
// followed by an assignment (assignAfter), past the end of its previous
// match; a match's start is then where the rule's regex would start it,
// up to 50 name characters before the keyword. This is what the rule's
// regex finds, at a cost per keyword instead of about 2 µs per byte of
// text (Go's regexp runs such a rule's regex, which may start anywhere,
// with up to a few hundred threads at each byte).
func (r *Redactor) findAnchored(found []Finding, cr *rule, text string, lower []byte, occ [][]int) []Finding {
	if occ == nil {
		return found
	}
	var at []span
	for _, k := range cr.keywords {
		for _, p := range occ[k] {
			if op := assignAfter(lower, p+len(r.keywords[k])); op >= 0 {
				at = append(at, span{p, op})
			}
		}
	}
	slices.SortFunc(at, func(a, b span) int { return a.start - b.start })
	next := 0
	for _, a := range at {
		p := a.start
		if p < next {
			continue
		}
		// The value lies on the operator's line or, past up to 5 spaces,
		// on one of the next two: no secret holds a line break. Bounding
		// the input keeps the regexp's backtracker from clearing a bit
		// per instruction for each byte of the rest of the text.
		end := lineEnd(text, lineEnd(text, lineEnd(text, a.end)))
		m := cr.anchored.FindStringSubmatchIndex(text[p:end])
		if m == nil {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += p
			}
		}
		s := p
		for s > max(p-50, next) && isNameByte(text[s-1]) {
			s--
		}
		m[0] = s
		next = max(m[1], p+1)
		start, end := secretOf(cr, m)
		if start == end || overlaps(found, start, end) || !r.keep(cr, text, m, start, end) {
			continue
		}
		found = append(found, Finding{Rule: cr.id, Start: start, End: end})
	}
	return found
}

// isNameByte reports whether c is in [\w.-], the characters of a name
// before a semi-generic rule's keyword.
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// span is a part of a text a rule runs on: [start, end).
type span struct{ start, end int }

// occurrences returns where each keyword occurs in lower (by its index
// in r.keywords), nil when none does. It looks at each pair of bytes once:
// the keywords (all of 2 bytes or more) are indexed by their first two
// (prefix), and a bitmap of those pairs (8 KiB, in the first-level cache)
// rules out most positions (82% of those of Go source) at the cost of one
// load. Measured on 128 KiB of the gateway's Go source, the same day on
// the same (busy) machine: 5.3 ms with gitleaks' own Aho-Corasick
// automaton (github.com/BobuSumisu/aho-corasick: a 2 KiB transition row
// per state, a cache miss at most bytes), 1.7 ms this way.
func (r *Redactor) occurrences(lower []byte) [][]int {
	var occ [][]int
	for i := 0; i+1 < len(lower); i++ {
		pair := uint16(lower[i])<<8 | uint16(lower[i+1])
		if r.pairs[pair>>6]&(1<<(pair&63)) == 0 {
			continue
		}
		for _, k := range r.groups[r.prefix[pair]] {
			if bytes.HasPrefix(lower[i:], r.kwBytes[k]) {
				if occ == nil {
					occ = make([][]int, len(r.keywords))
				}
				occ[k] = append(occ[k], i)
			}
		}
	}
	return occ
}

// index indexes the keywords by their first two bytes (occurrences).
func (r *Redactor) index() {
	r.prefix = make([]uint16, 1<<16)
	r.groups = [][]int{nil}
	for k, kw := range r.keywords {
		r.kwBytes = append(r.kwBytes, []byte(kw))
		pair := uint16(kw[0])<<8 | uint16(kw[1])
		r.pairs[pair>>6] |= 1 << (pair & 63)
		if r.prefix[pair] == 0 {
			r.prefix[pair] = uint16(len(r.groups))
			r.groups = append(r.groups, nil)
		}
		g := r.prefix[pair]
		r.groups[g] = append(r.groups[g], k)
	}
}

// spans appends the parts of text the rule runs on, in order and
// disjoint, given where its keywords occur: none when none does, the
// whole text for a rule without keywords.
func (r *Redactor) spans(out []span, cr *rule, text string, lower []byte, occ [][]int) []span {
	if len(cr.keywords) == 0 {
		return append(out, span{0, len(text)})
	}
	if occ == nil {
		return out
	}
	var starts []span
	for _, k := range cr.keywords {
		for _, p := range occ[k] {
			op := p
			if cr.assign {
				if op = assignAfter(lower, p+len(r.keywords[k])); op < 0 {
					continue
				}
			}
			starts = append(starts, span{p, op})
		}
	}
	if len(starts) == 0 {
		return out
	}
	slices.SortFunc(starts, func(a, b span) int { return a.start - b.start })
	for _, at := range starts {
		p := at.start
		lo := strings.LastIndexByte(text[:p], '\n') + 1
		if cr.assign {
			lo = max(lo, p-50)
		}
		hi := len(text)
		if !cr.toEnd {
			hi = lineEnd(text, lineEnd(text, at.end))
		}
		if n := len(out); n > 0 && lo <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, hi)
			continue
		}
		out = append(out, span{lo, hi})
	}
	return out
}

// lineEnd is the offset just after the line break that ends the line p
// lies on, len(text) on the last line.
func lineEnd(text string, p int) int {
	if p >= len(text) {
		return len(text)
	}
	i := strings.IndexByte(text[p:], '\n')
	if i < 0 {
		return len(text)
	}
	return p + i + 1
}

// lowerASCII is s with its ASCII letters in lower case (the keywords are
// ASCII), as bytes for the automaton.
func lowerASCII(s string) []byte {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// secretOf is where the secret of match m lies: the rule's secret group,
// else the first non-empty group, else the whole match (trimmed of line
// breaks, as gitleaks does).
func secretOf(cr *rule, m []int) (int, int) {
	if cr.group > 0 && m[2*cr.group] >= 0 {
		return m[2*cr.group], m[2*cr.group+1]
	}
	if cr.group == 0 {
		for g := 1; 2*g < len(m); g++ {
			if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
				return m[2*g], m[2*g+1]
			}
		}
	}
	return m[0], m[1]
}

// overlaps reports whether [start, end) overlaps a finding of found.
func overlaps(found []Finding, start, end int) bool {
	for _, f := range found {
		if start < f.End && f.Start < end {
			return true
		}
	}
	return false
}

// keep reports whether the secret text[start:end] of match m is reported:
// its entropy above the rule's threshold, allowed by no allowlist.
func (r *Redactor) keep(cr *rule, text string, m []int, start, end int) bool {
	secret := text[start:end]
	if cr.entropy != 0 && entropy(secret) <= cr.entropy {
		return false
	}
	match := strings.Trim(text[m[0]:m[1]], "\n")
	if r.global.allows(text, secret, match, m) || r.lockfiles.allows(text, secret, match, m) {
		return false
	}
	for _, a := range cr.allow {
		if a.allows(text, secret, match, m) {
			return false
		}
	}
	return true
}

// allows reports whether a allows the finding.
func (a allowlist) allows(text, secret, match string, m []int) bool {
	target := secret
	switch a.target {
	case targetMatch:
		target = match
	case targetLine:
		target = lineOf(text, m[0], m[1])
	}
	regex := target != "" && slices.ContainsFunc(a.regexes, func(re *regexp.Regexp) bool { return re.MatchString(target) })
	lower := strings.ToLower(secret)
	stop := slices.ContainsFunc(a.stopWords, func(w string) bool { return strings.Contains(lower, w) })
	if !a.and {
		return regex || stop
	}
	if a.other {
		return false
	}
	checks := 0
	if len(a.regexes) > 0 {
		if !regex {
			return false
		}
		checks++
	}
	if len(a.stopWords) > 0 {
		if !stop {
			return false
		}
		checks++
	}
	return checks > 0
}

// lineOf is the text of the lines [start, end) lies on.
func lineOf(text string, start, end int) string {
	lo := strings.LastIndexByte(text[:start], '\n') + 1
	hi := strings.IndexByte(text[end:], '\n')
	if hi < 0 {
		return text[lo:]
	}
	return text[lo : end+hi]
}

// entropy is the Shannon entropy of s's characters, gitleaks' measure
// (its counts are of runes, its length in bytes).
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var ascii [utf8.RuneSelf]int
	var other map[rune]int
	for _, c := range s {
		if c < utf8.RuneSelf {
			ascii[c]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[c]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	add := func(n int) {
		if n > 0 {
			p := float64(n) * inv
			e -= p * math.Log2(p)
		}
	}
	for _, n := range ascii {
		add(n)
	}
	for _, n := range other {
		add(n)
	}
	return e
}
