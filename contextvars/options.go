package contextvars

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/agentgw/agentgw/internal/suggest"
)

// Options are a command's resolverOptions for one variable (the platform
// spells the key resolverOptions or resolveOptions; the caller handles that).
type Options struct {
	// ContentBeforeSelectionLines (activeEditor): nil drops the text before
	// each selection, 0 keeps only the selection's own line, N adds N lines.
	ContentBeforeSelectionLines *int `json:"contentBeforeSelectionLines,omitempty"`
	// ContentAfterSelectionLines (activeEditor): the same, after each selection.
	ContentAfterSelectionLines *int `json:"contentAfterSelectionLines,omitempty"`
	// MaximumNumber (packageFiles) keeps at most that many files.
	MaximumNumber *int `json:"maximumNumber,omitempty"`
	// KnowledgeBaseIDs (knowledgeBase), when not empty, keeps only those knowledge bases.
	KnowledgeBaseIDs []string `json:"knowledgeBaseIds,omitempty"`
	// RecallByAgent (knowledgeBase) asks the agent to recall references itself.
	RecallByAgent *bool `json:"recallByAgent,omitempty"`
	// TopK (knowledgeBase, an extension) is how many references the agent
	// recalls per knowledge base; nil means the gateway's default.
	TopK *int `json:"topK,omitempty"`
}

// The option names.
const (
	optBefore  = "contentBeforeSelectionLines"
	optAfter   = "contentAfterSelectionLines"
	optMax     = "maximumNumber"
	optKBIDs   = "knowledgeBaseIds"
	optRecall  = "recallByAgent"
	optTopK    = "topK"
	optionPref = "resolver option "
)

// optionsFor returns the option names that mean something for variable name.
func optionsFor(name string) []string {
	switch name {
	case NameActiveEditor:
		return []string{optBefore, optAfter}
	case NamePackageFiles:
		return []string{optMax}
	case NameKnowledgeBase:
		return []string{optKBIDs, optRecall, optTopK}
	}
	return nil
}

// ParseOptions reads the resolverOptions of variable name. raw comes from YAML
// (integers as int) or JSON (numbers as float64); nil values count as unset.
// The warnings name unknown options (with a "did you mean" when one is close)
// and options that mean nothing for this variable; those are ignored. The
// error reports options of the wrong type or negative numbers.
func ParseOptions(name string, raw map[string]any) (Options, []string, error) {
	var o Options
	var warns []string
	var errs []error
	own := optionsFor(name)
	all := []string{optBefore, optAfter, optMax, optKBIDs, optRecall, optTopK}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := raw[k]
		switch {
		case !slices.Contains(all, k):
			warns = append(warns, unknownOption(k, own, all))
		case !slices.Contains(own, k):
			warns = append(warns, fmt.Sprintf("%s%q means nothing for this variable (ignored)", optionPref, k))
		case v != nil:
			if err := o.set(k, v); err != nil {
				errs = append(errs, fmt.Errorf("%s%q: %w", optionPref, k, err))
			}
		}
	}
	if o.RecallByAgent != nil && *o.RecallByAgent && len(o.KnowledgeBaseIDs) == 0 && len(errs) == 0 {
		warns = append(warns, "recallByAgent is true and knowledgeBaseIds lists none: only the knowledge bases a request's "+
			"knowledgeBase variable names are recalled, and a request without them recalls nothing (list knowledgeBaseIds)")
	}
	return o, warns, errors.Join(errs...)
}

func unknownOption(k string, own, all []string) string {
	w := fmt.Sprintf("unknown %s%q (ignored)", optionPref, k)
	s := suggest.Closest(k, own)
	if s == "" {
		s = suggest.Closest(k, all)
	}
	if s != "" {
		w += fmt.Sprintf("; did you mean %q?", s)
	}
	return w
}

// set stores the value v of the known option k.
func (o *Options) set(k string, v any) error {
	switch k {
	case optBefore:
		return setCount(&o.ContentBeforeSelectionLines, v)
	case optAfter:
		return setCount(&o.ContentAfterSelectionLines, v)
	case optMax:
		return setCount(&o.MaximumNumber, v)
	case optTopK:
		return setCount(&o.TopK, v)
	case optRecall:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("expected true or false, got %s", describe(v))
		}
		o.RecallByAgent = &b
		return nil
	}
	ids, err := stringList(v)
	o.KnowledgeBaseIDs = ids
	return err
}

// setCount stores a non-negative integer option.
func setCount(dst **int, v any) error {
	n, ok := asInt(v)
	if !ok {
		return fmt.Errorf("expected a non-negative integer, got %s", describe(v))
	}
	if n < 0 {
		return fmt.Errorf("expected a non-negative integer, got %d", n)
	}
	*dst = &n
	return nil
}

// asInt converts the integer kinds YAML and JSON decoders produce.
func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return intOf(n)
	case float32:
		return floatInt(float64(n))
	case float64:
		return floatInt(n)
	case json.Number:
		if i, err := n.Int64(); err == nil && i >= math.MinInt && i <= math.MaxInt {
			return int(i), true
		}
		if f, err := n.Float64(); err == nil {
			return floatInt(f)
		}
	}
	return 0, false
}

func intOf(v any) (int, bool) {
	switch n := v.(type) {
	case int8:
		return int(n), true
	case int16:
		return int(n), true
	case int32:
		return int(n), true
	case int64:
		return int(n), n >= math.MinInt && n <= math.MaxInt
	case uint:
		return int(n), n <= math.MaxInt
	case uint8:
		return int(n), true
	case uint16:
		return int(n), true
	case uint32:
		return int(n), uint64(n) <= math.MaxInt
	case uint64:
		return int(n), n <= math.MaxInt
	}
	return 0, false
}

func floatInt(f float64) (int, bool) {
	if f != math.Trunc(f) || f < math.MinInt || f >= math.MaxInt {
		return 0, false
	}
	return int(f), true
}

// stringList reads a list of strings.
func stringList(v any) ([]string, error) {
	switch l := v.(type) {
	case []string:
		return slices.Clone(l), nil
	case []any:
		out := make([]string, 0, len(l))
		for k, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("element %d: expected a string, got %s", k, describe(e))
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("expected a list of strings, got %s", describe(v))
}

// describe names v's kind and value for an error message.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case []any, []string:
		return "a list"
	case map[string]any:
		return "a map"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, json.Number:
		return fmt.Sprintf("number %v", x)
	}
	return fmt.Sprintf("%T", v)
}
