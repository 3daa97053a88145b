package contextvars

import (
	"fmt"
	"sort"
	"strings"
)

// Cut removes about need tokens (as measured by count) of the least valuable
// context and returns one human-readable line per thing it cut, or nil when
// nothing is left to cut. It cuts, in order until need is met: knowledge
// references, lowest score first; package files beyond the first, last first;
// activeEditor.content lines farthest from the selection (a shrinking window
// around it); visibleRange.content lines outside the selection;
// contentBefore/AfterSelection lines farthest from the selection; the last
// package file. userInputPrompt, globalPrompts, userInfo, vcs and the
// selected text are never cut. Callers loop: Cut, re-render, re-measure.
//
// A windowed activeEditor.content keeps the file's line numbers in the
// editor's positions; its first line is no longer line 1 of the file.
func (s *Set) Cut(need int, count func(string) int) []string {
	need = max(need, 1)
	tokens := func(t string) int { return max(count(t), 0) }
	stages := []func(int, func(string) int) (int, string){
		s.cutReferences, s.cutExtraPackages, s.cutEditorContent,
		s.cutVisibleRange, s.cutAroundSelection, s.cutLastPackage,
	}
	var lines []string
	total := 0
	for _, stage := range stages {
		if total >= need {
			break
		}
		n, line := stage(need-total, tokens)
		if line != "" {
			lines = append(lines, line)
			total += n
		}
	}
	return lines
}

// cutReferences drops knowledge references, lowest score first.
func (s *Set) cutReferences(need int, count func(string) int) (int, string) {
	type ref struct {
		kb, idx int
		score   float64
	}
	var refs []ref
	for k, kb := range s.KnowledgeBase {
		for j, r := range kb.References {
			refs = append(refs, ref{k, j, r.Score})
		}
	}
	if len(refs) == 0 {
		return 0, ""
	}
	sort.SliceStable(refs, func(a, b int) bool { return refs[a].score < refs[b].score })
	drop := map[[2]int]bool{}
	cut, top := 0, 0.0
	for _, r := range refs {
		if cut >= need {
			break
		}
		x := s.KnowledgeBase[r.kb].References[r.idx]
		cut += count(x.Chunk) + count(x.Metadata.FileName) + count(x.Metadata.Source)
		drop[[2]int{r.kb, r.idx}] = true
		top = r.score
	}
	for k := range s.KnowledgeBase {
		kb := &s.KnowledgeBase[k]
		kept := make([]Reference, 0, len(kb.References))
		for j, r := range kb.References {
			if !drop[[2]int{k, j}] {
				kept = append(kept, r)
			}
		}
		if kb.References != nil {
			kb.References = kept
		}
	}
	return cut, fmt.Sprintf("knowledgeBase: dropped %d %s with score <= %.4g (~%d tokens)",
		len(drop), plural(len(drop), "reference"), top, cut)
}

// cutExtraPackages drops package files beyond the first, last first.
func (s *Set) cutExtraPackages(need int, count func(string) int) (int, string) {
	return s.dropPackages(need, count, 1, "beyond the first")
}

// cutLastPackage drops the one package file the other stages left.
func (s *Set) cutLastPackage(need int, count func(string) int) (int, string) {
	return s.dropPackages(need, count, 0, "(the last one)")
}

// dropPackages drops package files from the end while more than keep remain.
func (s *Set) dropPackages(need int, count func(string) int, keep int, what string) (int, string) {
	n := len(s.PackageFiles)
	cut := 0
	var names []string
	for n > keep && cut < need {
		n--
		f := s.PackageFiles[n]
		cut += count(f.Filepath) + count(f.Content)
		names = append(names, f.Filepath)
	}
	if len(names) == 0 {
		return 0, ""
	}
	s.PackageFiles = s.PackageFiles[:n]
	return cut, fmt.Sprintf("packageFiles: dropped %d %s %s: %s (~%d tokens)",
		len(names), plural(len(names), "file"), what, strings.Join(names, ", "), cut)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
