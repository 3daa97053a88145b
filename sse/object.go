package sse

// keyIs reports whether the JSON string key (quotes included) decodes to
// name. Keys without escapes, the usual case, are compared in place.
func keyIs(key []byte, name string) bool {
	inner := key[1 : len(key)-1]
	if len(inner) == len(name) && string(inner) == name {
		return true
	}
	if len(inner) <= len(name) || !containsBackslash(inner) {
		return false
	}
	var tmp [64]byte
	decoded, ok := AppendUnquoted(tmp[:0], key)
	return ok && string(decoded) == name
}

func containsBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}
