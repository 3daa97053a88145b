package chunk

// splitJava finds a Java file's structure with the C-like scanner (no
// parser): the package and import statements (with whatever precedes them)
// are one span; each top-level type gives a span for its head (javadoc,
// annotations and declaration up to the opening brace) and one per member
// (field group, method, constructor, initializer, nested type, an enum's
// constants), named Type.member, with its javadoc and annotations; the
// type's closing brace goes with its last member. A nested type is one
// span when it fits MaxLines, else split the same way. A file whose
// brackets do not balance, or that ends inside a comment or text block, is
// not split.
func splitJava(f *file) ([]span, bool) {
	sc := clike{textBlocks: true}.scan(f.text, len(f.lines))
	if !sc.ok {
		return nil, false
	}
	f.markComments(sc.code)
	toks := sc.toks
	var out []span
	head := span{start: 1, end: 0}
	for k := 0; k < len(toks); {
		// A top-level statement runs to a ';' or through a braced body.
		j := k
		for j < len(toks) && !(toks[j].depth == 0 && (toks[j].text == ";" || toks[j].text == "{")) {
			j++
		}
		if j == len(toks) {
			out = append(out, span{start: toks[k].line, end: toks[j-1].endLine})
			break
		}
		if toks[j].text == ";" {
			if w := toks[k].text; toks[k].kind == tokIdent && (w == "package" || w == "import") && len(out) == 0 {
				head.end = toks[j].endLine
			} else if k != j {
				out = append(out, span{start: toks[k].line, end: toks[j].endLine})
			}
			k = j + 1
			continue
		}
		c := matching(toks, j)
		if c < 0 {
			return nil, false
		}
		name, kw := javaTypeName(toks[k:j], 0)
		switch {
		case kw == "":
			out = append(out, span{start: toks[k].line, end: toks[c].endLine})
		default:
			out = append(out, javaType(f, toks, k, j, c, name)...)
		}
		k = c + 1
	}
	if head.end > 0 {
		out = append([]span{head}, out...)
	}
	return out, true
}

// matching finds the bracket that closes the one at toks[open]: the next
// token at the same depth.
func matching(toks []tok, open int) int {
	d := toks[open].depth
	for k := open + 1; k < len(toks); k++ {
		if toks[k].depth == d {
			return k
		}
	}
	return -1
}

// javaTypeName finds, in the tokens of a declaration up to its body
// (annotations skipped), the keyword that declares a type (class,
// interface, enum, record, or "@interface") and the type's name; "" when
// the declaration declares no type.
func javaTypeName(ts []tok, depth int) (name, keyword string) {
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if t.depth != depth {
			continue
		}
		if t.text == "@" {
			if i+1 < len(ts) && ts[i+1].text == "interface" {
				if i+2 < len(ts) && ts[i+2].kind == tokIdent {
					return ts[i+2].text, "@interface"
				}
				return "", ""
			}
			i = lastDecoratorToken(ts, i)
			continue
		}
		if t.kind == tokIdent {
			switch t.text {
			case "class", "interface", "enum", "record":
				if i > 0 && ts[i-1].text == "." {
					continue // Foo.class
				}
				if i+1 < len(ts) && ts[i+1].kind == tokIdent {
					return ts[i+1].text, t.text
				}
			}
		}
		if t.text == "=" || t.text == "(" {
			return "", "" // a field or a method, not a type
		}
	}
	return "", ""
}

// javaType splits the type whose declaration starts at toks[k], opens its
// body at toks[open] and closes it at toks[close]: its head, then its
// members.
func javaType(f *file, toks []tok, k, open, close int, name string) []span {
	head := span{start: toks[k].line, end: toks[open].line, symbol: name}
	_, kw := javaTypeName(toks[k:open], toks[k].depth)
	d := toks[open].depth + 1
	out := []span{head}
	first := true
	var fields []string // the names of the field group out ends with
	for p := open + 1; p < close; {
		if toks[p].text == ";" && toks[p].depth == d {
			p++
			first = false
			continue
		}
		end := close - 1
		if first && kw == "enum" {
			// The constants run to the first ';' or the end of the body.
			var names []string
			for q := p; q < close; q++ {
				t := toks[q]
				if t.depth != d {
					continue
				}
				if t.text == ";" {
					end = q
					break
				}
				if t.kind == tokIdent && (q == p || toks[q-1].text == ",") {
					names = append(names, t.text)
				} else if t.text == "@" {
					q = lastDecoratorToken(toks[:close], q)
					if q+1 < close && toks[q+1].kind == tokIdent {
						names = append(names, toks[q+1].text)
						q++
					}
				}
			}
			out = append(out, span{start: toks[p].line, end: toks[end].endLine, symbol: name + "." + listSymbol(names)})
			first, fields = false, nil
			p = end + 1
			continue
		}
		first = false
		sawAssign := false
	member:
		for q := p; q < close; q++ {
			t := toks[q]
			if t.depth != d {
				continue
			}
			switch t.text {
			case "=":
				sawAssign = true
			case ";":
				end = q
				break member
			case "{":
				m := matching(toks, q)
				if m < 0 || m > close {
					break member
				}
				if !sawAssign {
					end = m
					break member
				}
				q = m
			}
		}
		ms := span{start: toks[p].line, end: toks[end].endLine}
		if inner, kw := javaTypeName(toks[p:end+1], d); kw != "" {
			ms.symbol = name + "." + inner
			if ms.end-ms.start+1 > f.opts.MaxLines {
				if o := javaOpen(toks, p, end, d); o >= 0 {
					out = append(out, javaType(f, toks, p, o, matching(toks, o), ms.symbol)...)
					p = end + 1
					continue
				}
			}
			fields = nil
		} else {
			label, names := javaMember(toks[p:end+1], d)
			switch {
			case names == nil:
				ms.symbol = name + "." + label
				fields = nil
			case fields != nil && ms.start == out[len(out)-1].end+1:
				// A field right below a field: one group.
				fields = append(fields, names...)
				last := &out[len(out)-1]
				last.end, last.symbol = ms.end, name+"."+listSymbol(fields)
				p = end + 1
				continue
			default:
				fields = names
				ms.symbol = name + "." + listSymbol(names)
			}
		}
		out = append(out, ms)
		p = end + 1
	}
	last := &out[len(out)-1]
	last.end = max(last.end, toks[close].line)
	return out
}

// javaOpen finds the opening brace of a nested type's body among the
// tokens p..end at depth d.
func javaOpen(toks []tok, p, end, d int) int {
	for q := p; q <= end; q++ {
		if toks[q].depth == d && toks[q].text == "{" {
			return q
		}
		if toks[q].depth == d && toks[q].text == "@" {
			q = lastDecoratorToken(toks[:end+1], q)
		}
	}
	return -1
}

// javaMember names a member from its tokens at depth d, annotations
// skipped: a method or constructor by the identifier before its '(', an
// initializer "static" or "{}", a record's compact constructor by its
// name; a field declaration gives instead the names it declares (all of a
// group's: int a, b;).
func javaMember(ts []tok, d int) (label string, fields []string) {
	last := ""
	angle := 0 // inside type arguments
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if t.depth != d {
			continue
		}
		switch {
		case t.text == "<":
			angle++
		case t.text == ">":
			angle = max(angle-1, 0)
		case angle > 0:
		case t.text == "@":
			i = lastDecoratorToken(ts, i)
		case t.kind == tokIdent:
			last = t.text
		case t.text == "(":
			if last != "" && fields == nil {
				return last, nil
			}
		case t.text == "=" || t.text == "," || t.text == ";":
			if last != "" && (len(fields) == 0 || fields[len(fields)-1] != last) {
				fields = append(fields, last)
			}
			if t.text == "=" { // skip the initializer to the next declarator
				for i+1 < len(ts) && !(ts[i+1].depth == d && (ts[i+1].text == "," || ts[i+1].text == ";")) {
					i++
				}
			}
		case t.text == "{":
			if fields == nil {
				switch last {
				case "static":
					return "static", nil
				case "":
					return "{}", nil
				}
				return last, nil // a record's compact constructor
			}
		}
	}
	if fields == nil {
		return last, nil
	}
	return "", fields
}
