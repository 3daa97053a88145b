package jsonscan

// Skip consumes and validates any JSON value, iteratively, so that deep
// nesting cannot exhaust the stack. It does not allocate for values nested
// up to 64 levels below the current depth.
func (s *Scanner) Skip() error {
	base := s.Depth
	var buf [64]byte
	stack := buf[:0] // '{' or '[' per open container
	for {
		// One value: a scalar or an empty container, or open a container
		// and go on to its first value.
		switch c := s.Peek(); c {
		case '{', '[':
			s.Pos++
			if err := s.enter(); err != nil {
				return err
			}
			if s.Peek() == c+2 { // '}' or ']'
				s.Pos++
				s.Depth--
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if err := s.memberKey(); err != nil {
					return err
				}
			}
			continue
		case '"':
			if _, _, err := s.ScanString(); err != nil {
				return err
			}
		case 't':
			if err := s.Literal("true"); err != nil {
				return err
			}
		case 'f':
			if err := s.Literal("false"); err != nil {
				return err
			}
		case 'n':
			if err := s.Literal("null"); err != nil {
				return err
			}
		default:
			if c != '-' && (c < '0' || c > '9') {
				return s.Unexpected("looking for the beginning of a value")
			}
			if _, err := s.Number(); err != nil {
				return err
			}
		}
		// After a value: close containers, or move on to the next value.
	after:
		for {
			if len(stack) == 0 {
				s.Depth = base
				return nil
			}
			top := stack[len(stack)-1]
			switch c := s.Peek(); {
			case c == ',':
				s.Pos++
				if top == '{' {
					if err := s.memberKey(); err != nil {
						return err
					}
				}
				break after
			case c == top+2: // '}' or ']'
				s.Pos++
				stack = stack[:len(stack)-1]
				s.Depth--
			default:
				return s.Unexpected("after a value")
			}
		}
	}
}

// memberKey consumes `"key" :` inside an object.
func (s *Scanner) memberKey() error {
	if s.Peek() != '"' {
		return s.Unexpected("looking for an object key")
	}
	if _, _, err := s.ScanString(); err != nil {
		return err
	}
	if s.Peek() != ':' {
		return s.Unexpected("after an object key")
	}
	s.Pos++
	return nil
}

// Member is where one object member lies in Data: its key, quotes
// included, is Data[KeyStart:KeyEnd] and its value Data[ValueStart:ValueEnd].
type Member struct {
	KeyStart, KeyEnd, ValueStart, ValueEnd int
}

// OpenObject consumes the whitespace and the '{' that start an object whose
// members NextMember then walks.
func (s *Scanner) OpenObject() error {
	if s.Peek() != '{' {
		return s.Unexpected("looking for the beginning of an object")
	}
	s.Pos++
	return s.enter()
}

// NextMember validates and skips the next member of the object OpenObject
// opened (first tells whether it is the first call) and returns where its
// key and value lie, without decoding or allocating anything. ok is false
// once the object's closing brace has been consumed.
func (s *Scanner) NextMember(first bool) (m Member, ok bool, err error) {
	m, ok, err = s.NextKey(first)
	if !ok || err != nil {
		return m, ok, err
	}
	if err := s.Skip(); err != nil {
		return m, false, err
	}
	m.ValueEnd = s.Pos
	return m, true, nil
}

// NextKey is NextMember up to the value: it validates the next member's
// key and colon and leaves the scanner at the value (m.ValueStart), which
// the caller must consume (Skip it, or walk into it) before the next call.
// m.ValueEnd is not set.
func (s *Scanner) NextKey(first bool) (m Member, ok bool, err error) {
	c := s.Peek()
	if c == '}' {
		s.Pos++
		s.Depth--
		return m, false, nil
	}
	if !first {
		if c != ',' {
			return m, false, s.Unexpected("after an object member")
		}
		s.Pos++
		c = s.Peek()
	}
	if c != '"' {
		return m, false, s.Unexpected("looking for an object key")
	}
	m.KeyStart = s.Pos
	if _, _, err := s.ScanString(); err != nil {
		return m, false, err
	}
	m.KeyEnd = s.Pos
	if s.Peek() != ':' {
		return m, false, s.Unexpected("after an object key")
	}
	s.Pos++
	s.WS()
	m.ValueStart = s.Pos
	return m, true, nil
}

// End checks that only whitespace follows the top-level value.
func (s *Scanner) End() error {
	if s.WS(); s.Pos != len(s.Data) {
		return s.Unexpected("after the top-level value")
	}
	return nil
}
