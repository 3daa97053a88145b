package chunk

import (
	"os"
	"strings"
	"testing"
	"text/scanner"
)

// BenchmarkScanWays tokenises the TypeScript and Java test inputs with the
// C-like scanner and with text/scanner, the standard library's tokeniser
// for C-like text. text/scanner is no replacement (it knows neither
// regular expressions, template literals with ${} nor text blocks, and it
// reads `…` as a Go raw string); it is the measure of what the hand-written
// scanner costs against the plain way.
func BenchmarkScanWays(b *testing.B) {
	for _, in := range []struct {
		name, path string
		c          clike
	}{
		{"typescript", "testdata/js/bigclass.ts", clike{templates: true, regexps: true}},
		{"java", "testdata/java/Basic.java", clike{textBlocks: true}},
	} {
		content, err := os.ReadFile(in.path)
		if err != nil {
			b.Fatal(err)
		}
		text := string(content)
		nlines := strings.Count(text, "\n") + 1
		b.Run(in.name+"/clike", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if sc := in.c.scan(text, nlines); len(sc.toks) == 0 {
					b.Fatal("no tokens")
				}
			}
		})
		b.Run(in.name+"/text_scanner", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				var s scanner.Scanner
				s.Init(strings.NewReader(text))
				s.Error = func(*scanner.Scanner, string) {}
				n := 0
				for t := s.Scan(); t != scanner.EOF; t = s.Scan() {
					_ = s.TokenText()
					n++
				}
				if n == 0 {
					b.Fatal("no tokens")
				}
			}
		})
	}
}
