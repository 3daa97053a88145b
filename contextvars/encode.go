package contextvars

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalJSON encodes the set back to [{name, value}]: the request's
// variables in request order, then known variables set by code in KnownNames
// order, then other variables set by code sorted by name.
func (s *Set) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for k, name := range s.Names() {
		if k > 0 {
			b.WriteByte(',')
		}
		n, err := json.Marshal(name)
		if err != nil {
			return nil, fmt.Errorf("encoding the name %q: %w", name, err)
		}
		b.WriteString(`{"name":`)
		b.Write(n)
		b.WriteString(`,"value":`)
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // prompts are not HTML: keep <, > and & readable
		if err := enc.Encode(s.value(name)); err != nil {
			return nil, fmt.Errorf("encoding context variable %q: %w", name, err)
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// value returns the typed value of the variable name.
func (s *Set) value(name string) any {
	switch name {
	case NameUserInputPrompt:
		return s.UserInputPrompt
	case NameUserInfo:
		return s.UserInfo
	case NameVCS:
		return s.VCS
	case NameKnowledgeBase:
		return s.KnowledgeBase
	case NameActiveEditor:
		return s.ActiveEditor
	case NameGlobalPrompts:
		return s.GlobalPrompts
	case NamePackageFiles:
		return s.PackageFiles
	}
	return s.Other[name]
}
