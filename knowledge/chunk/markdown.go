package chunk

import "strings"

// mdHeading is a heading found in a Markdown file.
type mdHeading struct {
	start, end int // 1-based lines: a setext heading spans its text and underline
	level      int
	text       string
}

// splitMarkdown cuts a Markdown file at its headings, ATX (# …) and setext
// (text underlined with === or ---): a span per section, from its heading
// to the next heading of any level, named by the heading path ("Install >
// Linux"); the text before the first heading is a span with no symbol. A
// heading with nothing under it but a deeper heading goes with that one.
// Lines inside fenced code blocks (``` or ~~~), HTML comments and YAML or
// TOML front matter are never read as headings, and a section longer than MaxLines is
// not cut inside a fenced block unless the block itself is too long.
func splitMarkdown(f *file) []span {
	heads := mdHeadings(f)
	var out []span
	if len(heads) == 0 || heads[0].start > 1 {
		end := len(f.lines)
		if len(heads) > 0 {
			end = heads[0].start - 1
		}
		out = append(out, span{start: 1, end: end})
	}
	type level struct {
		n    int
		text string
	}
	var path []level
	for i, h := range heads {
		for len(path) > 0 && path[len(path)-1].n >= h.level {
			path = path[:len(path)-1]
		}
		path = append(path, level{h.level, h.text})
		names := make([]string, len(path))
		for k, l := range path {
			names[k] = l.text
		}
		end := len(f.lines)
		if i+1 < len(heads) {
			end = heads[i+1].start - 1
		}
		s := span{start: h.start, end: end, symbol: strings.Join(names, " > ")}
		// A heading with an empty section, followed by a deeper one, joins
		// it (the last span holds the previous heading).
		if i > 0 {
			prev, ph := &out[len(out)-1], heads[i-1]
			if ph.level < h.level && f.allBlank(ph.end+1, h.start-1) {
				prev.end, prev.symbol = s.end, s.symbol
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// allBlank reports whether lines from..to (1-based) are all blank.
func (f *file) allBlank(from, to int) bool {
	for n := from; n <= to; n++ {
		if !f.blank(n) {
			return false
		}
	}
	return true
}

// mdHeadings finds the headings of a Markdown file and marks the lines
// inside its fenced code blocks, HTML comments and front matter as
// noBreak.
func mdHeadings(f *file) []mdHeading {
	f.noBreak = make([]bool, len(f.lines))
	var out []mdHeading
	n := 1
	// Front matter: --- (YAML) or +++ (TOML) on the first line, to its
	// closing line.
	if first := strings.TrimRight(f.lines[0], " \t"); first == "---" || first == "+++" {
		for k := 2; k <= len(f.lines); k++ {
			l := strings.TrimRight(f.lines[k-1], " \t")
			if l == first || (first == "---" && l == "...") {
				for i := 2; i <= k; i++ {
					f.noBreak[i-1] = true
				}
				n = k + 1
				break
			}
		}
	}
	var fence string // the open fence's marker (``` or ~~~ or longer)
	paraStart := 0   // the first line of the paragraph going on, 0 when none
	inComment := false
	for ; n <= len(f.lines); n++ {
		line := f.lines[n-1]
		indent, rest := mdIndent(line)
		if inComment {
			f.noBreak[n-1] = true
			inComment = !strings.Contains(line, "-->")
			continue
		}
		if indent < 4 && strings.HasPrefix(rest, "<!--") && !strings.Contains(rest[4:], "-->") {
			inComment, paraStart = true, 0
			continue
		}
		if fence != "" {
			f.noBreak[n-1] = true
			if indent < 4 && strings.HasPrefix(rest, fence) && strings.Trim(rest, fence[:1]+" \t") == "" {
				fence = ""
			}
			continue
		}
		if indent < 4 {
			if m := mdFence(rest); m != "" {
				fence, paraStart = m, 0
				continue
			}
			if level, text, ok := mdATX(rest); ok {
				out = append(out, mdHeading{start: n, end: n, level: level, text: text})
				paraStart = 0
				continue
			}
			if level := mdSetext(rest); level > 0 && paraStart > 0 {
				parts := make([]string, 0, n-paraStart)
				for k := paraStart; k < n; k++ {
					parts = append(parts, strings.TrimSpace(f.lines[k-1]))
				}
				out = append(out, mdHeading{start: paraStart, end: n, level: level, text: strings.Join(parts, " ")})
				paraStart = 0
				continue
			}
		}
		switch {
		case strings.TrimSpace(line) == "":
			paraStart = 0
		case indent < 4 && mdBlockStart(rest):
			// A list item, a quote, a table row, HTML or a thematic
			// break: no heading text.
			paraStart = 0
		case paraStart == 0 && indent < 4:
			paraStart = n
		}
	}
	return out
}

// mdIndent counts a line's leading spaces (a tab as 4) and returns the
// rest.
func mdIndent(line string) (int, string) {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n, line[i:]
		}
	}
	return n, ""
}

// mdFence returns the marker of a fence opening at s, "" when s opens
// none.
func mdFence(s string) string {
	if s == "" || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	k := 0
	for k < len(s) && s[k] == s[0] {
		k++
	}
	if k < 3 || (s[0] == '`' && strings.Contains(s[k:], "`")) {
		return ""
	}
	return s[:k]
}

// mdATX reads an ATX heading: 1 to 6 '#' then a space or the end of the
// line; an optional closing run of '#' is dropped.
func mdATX(s string) (int, string, bool) {
	k := 0
	for k < len(s) && s[k] == '#' {
		k++
	}
	if k == 0 || k > 6 || (k < len(s) && s[k] != ' ' && s[k] != '\t') {
		return 0, "", false
	}
	text := strings.TrimSpace(s[k:])
	if t := strings.TrimRight(text, "#"); t != text && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		text = strings.TrimSpace(t)
	}
	return k, text, true
}

// mdSetext reads a setext underline: 1 for ===, 2 for ---, else 0.
func mdSetext(s string) int {
	s = strings.TrimRight(s, " \t")
	if s == "" || strings.Trim(s, s[:1]) != "" {
		return 0
	}
	switch s[0] {
	case '=':
		return 1
	case '-':
		return 2
	}
	return 0
}

// mdBlockStart reports whether s starts a block that is not a paragraph
// (so cannot be a setext heading's text): a list item, a block quote, a
// thematic break, an HTML block or a table row.
func mdBlockStart(s string) bool {
	switch {
	case s == "":
		return false
	case s[0] == '>' || s[0] == '<' || s[0] == '|':
		return true
	case (s[0] == '-' || s[0] == '*' || s[0] == '+') && (len(s) == 1 || s[1] == ' ' || s[1] == '\t'):
		return true
	case mdThematic(s):
		return true
	}
	k := 0
	for k < len(s) && k < 9 && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	return k > 0 && k < len(s) && (s[k] == '.' || s[k] == ')') && (k+1 == len(s) || s[k+1] == ' ' || s[k+1] == '\t')
}

// mdThematic reports whether s is a thematic break (***, ---, ___, with
// optional spaces).
func mdThematic(s string) bool {
	c := s[0]
	if c != '*' && c != '-' && c != '_' {
		return false
	}
	count := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case c:
			count++
		case ' ', '\t':
		default:
			return false
		}
	}
	return count >= 3
}
