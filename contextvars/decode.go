package contextvars

import (
	"fmt"
	"strconv"
)

// listName names the request field Decode reads.
const listName = "contextVariables"

// Decode decodes a request's "contextVariables": a JSON array of {name,
// value}. nil, empty input and null give an empty Set. Every problem is an
// *Error: an element without a name (named by its index), a known variable
// whose value has the wrong shape (named with the field's path), a name given
// twice. A null value means the variable is absent; unknown names go to Other.
func Decode(data []byte) (*Set, error) {
	s, n, err := DecodePrefix(data)
	if err != nil {
		return nil, err
	}
	end := newParser(data, 0)
	end.Pos = n
	return finish(s, end)
}

// DecodePrefix is Decode for a list at the start of data (after any
// whitespace) followed by anything: it returns the Set and the length of
// data the list took, so that a caller splitting a larger JSON object reads
// the list once. Empty input gives an empty Set and 0.
func DecodePrefix(data []byte) (*Set, int, error) {
	return decodePrefix(data, 0)
}

// decodePrefix is DecodePrefix with the string arena's block size (0: the
// default; tests use tiny ones).
func decodePrefix(data []byte, block int) (*Set, int, error) {
	s := &Set{}
	p := newParser(data, block)
	switch p.Peek() {
	case 0:
		if p.Pos == len(data) {
			return s, p.Pos, nil
		}
	case 'n':
		if err := p.Literal("null"); err != nil {
			return nil, 0, asError(err, listName)
		}
		return s, p.Pos, nil
	case '[':
		d := decoder{set: s, seen: map[string]int{}}
		if err := p.Array(func() error { return d.element(p) }); err != nil {
			return nil, 0, asError(err, listName)
		}
		return s, p.Pos, nil
	}
	return nil, 0, asError(p.typeErr("an array of {name, value}"), listName)
}

// finish checks that only whitespace follows the list.
func finish(s *Set, p *parser) (*Set, error) {
	if p.Peek(); p.Pos != len(p.Data) {
		return nil, asError(p.Unexpected("after the top-level value"), listName)
	}
	return s, nil
}

// decoder holds the state of one Decode.
type decoder struct {
	set  *Set
	seen map[string]int // name -> index of the element that gave it
	n    int            // index of the current element
}

// element is what one {name, value} gave so far.
type element struct {
	idx                  int
	name                 string
	haveName, haveValue  bool
	valueStart, valueEnd int // a value met before the name, decoded afterwards
}

// element decodes one {name, value}. The value is decoded in place when the
// name comes first (the usual order), else validated and decoded afterwards.
func (d *decoder) element(p *parser) error {
	el := element{idx: d.n, valueStart: -1}
	d.n++
	where := listName + "[" + strconv.Itoa(el.idx) + "]"
	if p.Peek() != '{' {
		return asError(p.typeErr("an object {name, value}"), where)
	}
	if err := p.object(func(key []byte) error { return d.member(p, key, &el) }); err != nil {
		return asError(err, where)
	}
	if el.name == "" {
		reason := "missing name"
		if el.haveName {
			reason = "empty name"
		}
		return &Error{Variable: where, Field: "name", Reason: reason}
	}
	if el.valueStart >= 0 {
		return d.value(&parser{Scanner: p.Sub(el.valueStart, el.valueEnd)}, el.name, el.idx)
	}
	if !el.haveValue {
		return d.register(el.name, el.idx)
	}
	return nil
}

// member reads one member of an element.
func (d *decoder) member(p *parser, key []byte, el *element) error {
	switch matchKey(key, "name", "value") {
	case "name":
		if el.haveName {
			return &fieldError{reason: "given twice"}
		}
		el.haveName = true
		if p.Peek() != '"' {
			return p.typeErr("string")
		}
		var err error
		el.name, err = p.ReadString()
		return err
	case "value":
		if el.haveValue {
			return &fieldError{reason: "given twice"}
		}
		el.haveValue = true
		if el.name != "" {
			return d.value(p, el.name, el.idx)
		}
		el.valueStart = p.Pos
		err := p.Skip()
		el.valueEnd = p.Pos
		return err
	}
	return p.Skip()
}

// register checks that name was not given before and records element idx.
func (d *decoder) register(name string, idx int) error {
	if prev, ok := d.seen[name]; ok {
		return &Error{Variable: name, Reason: fmt.Sprintf("given twice (%s[%d] and %s[%d])", listName, prev, listName, idx)}
	}
	d.seen[name] = idx
	return nil
}

// value decodes the value of variable name at the parser's position.
func (d *decoder) value(p *parser, name string, idx int) error {
	if err := d.register(name, idx); err != nil {
		return err
	}
	if null, err := p.IsNull(); null || err != nil {
		return asErrorOrNil(err, name)
	}
	if err := d.set.decodeVar(p, name); err != nil {
		return asError(err, name)
	}
	d.set.order = append(d.set.order, name)
	return nil
}

func asErrorOrNil(err error, name string) error {
	if err == nil {
		return nil
	}
	return asError(err, name)
}

// decodeVar decodes the value of the (non-null) variable name into s.
func (s *Set) decodeVar(p *parser, name string) error {
	switch name {
	case NameUserInputPrompt:
		s.promptGiven = true
		return p.str(&s.UserInputPrompt)
	case NameUserInfo:
		s.UserInfo = new(UserInfo)
		return p.userInfo(s.UserInfo)
	case NameVCS:
		s.VCS = new(VCS)
		return p.vcs(s.VCS)
	case NameKnowledgeBase:
		return decodeSlice(p, &s.KnowledgeBase, p.knowledgeBase)
	case NameActiveEditor:
		s.ActiveEditor = new(Editor)
		return p.editor(s.ActiveEditor)
	case NameGlobalPrompts:
		return decodeSlice(p, &s.GlobalPrompts, p.prompt)
	case NamePackageFiles:
		return decodeSlice(p, &s.PackageFiles, p.packageFile)
	}
	var d anyDecoder
	v, err := d.value(p)
	if err != nil {
		return err
	}
	if s.Other == nil {
		s.Other = map[string]any{}
	}
	s.Other[name] = v
	return nil
}
