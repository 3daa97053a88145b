package stepkind

import (
	"encoding/json"
	"math"
)

// ToPlain turns a step's result into plain data (maps, lists, strings,
// whole numbers as int), as templates and references read it.
func ToPlain(v any) (any, error) {
	switch v.(type) {
	case nil, string, bool, int, float64, map[string]any, []any:
		return v, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return WholeNumbers(out), nil
}

// WholeNumbers turns the integral float64s of decoded JSON into ints.
func WholeNumbers(v any) any {
	switch t := v.(type) {
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return int(t)
		}
	case map[string]any:
		for k, e := range t {
			t[k] = WholeNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = WholeNumbers(e)
		}
	}
	return v
}
