package contextvars

// skipValue consumes and validates any JSON value, iteratively, so that deep
// nesting cannot exhaust the stack.
func (p *parser) skipValue() error {
	base := p.depth
	var stack []byte // '{' or '[' per open container
	for {
		if err := p.skipScalarOrOpen(&stack); err != nil {
			return err
		}
		// after a value (or an empty container): close containers or move on
		for {
			if len(stack) == 0 {
				p.depth = base
				return nil
			}
			top := stack[len(stack)-1]
			c := p.peek()
			if c == ',' {
				p.i++
				if top == '{' {
					if err := p.memberKey(); err != nil {
						return err
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				p.i++
				stack = stack[:len(stack)-1]
				p.depth--
				continue
			}
			return p.unexpected("after a value")
		}
	}
}

// skipScalarOrOpen consumes one scalar or a whole empty container, opening
// (and pushing) any non-empty containers on the way to it.
func (p *parser) skipScalarOrOpen(stack *[]byte) error {
	for {
		switch c := p.peek(); c {
		case '{', '[':
			p.i++
			if err := p.enter(); err != nil {
				return err
			}
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if p.peek() == closer {
				p.i++
				p.depth--
				return nil
			}
			*stack = append(*stack, c)
			if c == '{' {
				if err := p.memberKey(); err != nil {
					return err
				}
			}
		case '"':
			_, _, err := p.scanString()
			return err
		case 't':
			return p.literal("true")
		case 'f':
			return p.literal("false")
		case 'n':
			return p.literal("null")
		default:
			if c == '-' || (c >= '0' && c <= '9') {
				_, err := p.number()
				return err
			}
			return p.unexpected("looking for the beginning of a value")
		}
	}
}

// memberKey consumes `"key" :` inside an object.
func (p *parser) memberKey() error {
	if p.peek() != '"' {
		return p.unexpected("looking for an object key")
	}
	if _, _, err := p.scanString(); err != nil {
		return err
	}
	if p.peek() != ':' {
		return p.unexpected("after an object key")
	}
	p.i++
	return nil
}
