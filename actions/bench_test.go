package actions

import (
	"testing"
	"time"
)

func BenchmarkMarshalConfirm(b *testing.B) {
	a := &Action{Kind: KindConfirm, State: "v1.eyJhIjoiaGFwcHkifQ.c2ln",
		Confirm: &Confirm{Title: "Get the version", Message: "Shows the agent's version", Command: "version"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSign(b *testing.B) {
	s := NewSigner(testSecret, time.Hour)
	c := Claims{Agent: "happy", Command: "default", Kind: KindTree, TreeID: "files", Data: map[string]string{"page": "2"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Sign(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	s := NewSigner(testSecret, time.Hour)
	tok, err := s.Sign(Claims{Agent: "happy", Command: "default", Kind: KindTree, TreeID: "files", Data: map[string]string{"page": "2"}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Verify(tok); err != nil {
			b.Fatal(err)
		}
	}
}
