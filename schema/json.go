package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON is a schema as the committed files hold it: indented by two
// spaces, keys sorted, "<", ">" and "&" as written, and a final newline.
func JSON(s Schema) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encoding the schema: %w", err)
	}
	return b.Bytes(), nil
}
