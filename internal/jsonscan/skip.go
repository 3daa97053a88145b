package jsonscan

// Skip consumes and validates any JSON value, iteratively, so that deep
// nesting cannot exhaust the stack.
func (s *Scanner) Skip() error {
	base := s.Depth
	var stack []byte // '{' or '[' per open container
	for {
		if err := s.skipScalarOrOpen(&stack); err != nil {
			return err
		}
		// after a value (or an empty container): close containers or move on
		for {
			if len(stack) == 0 {
				s.Depth = base
				return nil
			}
			top := stack[len(stack)-1]
			c := s.Peek()
			if c == ',' {
				s.Pos++
				if top == '{' {
					if err := s.memberKey(); err != nil {
						return err
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				s.Pos++
				stack = stack[:len(stack)-1]
				s.Depth--
				continue
			}
			return s.Unexpected("after a value")
		}
	}
}

// skipScalarOrOpen consumes one scalar or a whole empty container, opening
// (and pushing) any non-empty containers on the way to it.
func (s *Scanner) skipScalarOrOpen(stack *[]byte) error {
	for {
		switch c := s.Peek(); c {
		case '{', '[':
			s.Pos++
			if err := s.enter(); err != nil {
				return err
			}
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if s.Peek() == closer {
				s.Pos++
				s.Depth--
				return nil
			}
			*stack = append(*stack, c)
			if c == '{' {
				if err := s.memberKey(); err != nil {
					return err
				}
			}
		case '"':
			_, _, err := s.ScanString()
			return err
		case 't':
			return s.Literal("true")
		case 'f':
			return s.Literal("false")
		case 'n':
			return s.Literal("null")
		default:
			if c == '-' || (c >= '0' && c <= '9') {
				_, err := s.Number()
				return err
			}
			return s.Unexpected("looking for the beginning of a value")
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
