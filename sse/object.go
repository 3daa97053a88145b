package sse

// member is one top-level member of an object: the key as it appears in the
// input, quotes included, and where its value lies in the scanner's data.
type member struct {
	key                  []byte
	valueStart, valueEnd int
}

// openObject consumes the '{' that starts the text.
func (s *scanner) openObject() error {
	if !s.consume('{') {
		return s.fail()
	}
	return nil
}

// nextMember scans the next member of the object opened by openObject; first
// tells whether it is the first call. ok is false once the closing brace has
// been consumed.
func (s *scanner) nextMember(first bool) (m member, ok bool, err error) {
	if s.consume('}') {
		return m, false, nil
	}
	if !first && !s.consume(',') {
		return m, false, s.fail()
	}
	s.skipSpace()
	keyStart := s.pos
	if !s.str() {
		return m, false, s.fail()
	}
	m.key = s.data[keyStart:s.pos]
	if !s.consume(':') {
		return m, false, s.fail()
	}
	s.skipSpace()
	m.valueStart = s.pos
	if !s.value(1) {
		return m, false, s.fail()
	}
	m.valueEnd = s.pos
	return m, true, nil
}

// end checks that only whitespace follows the object's closing brace.
func (s *scanner) end() error {
	s.skipSpace()
	if s.pos != len(s.data) {
		return s.fail()
	}
	return nil
}

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
