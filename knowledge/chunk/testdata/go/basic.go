// Copyright 2026 The Example Authors.
// Licensed under the Apache License, Version 2.0.

//go:build linux || darwin

// Package shapes draws shapes. This comment mentions func and type on
// purpose: they must not start a chunk.
package shapes

import (
	"fmt"
	"strings"
)

import "errors"

// Kinds of shape.
const (
	KindCircle = iota // a round one
	KindSquare
)

var ErrEmpty = errors.New("empty shape")

// Shape is anything with an area.
type Shape interface {
	Area() float64
}

// Square is a square.
type Square struct {
	Side float64
}

// Area is the side squared.
func (s *Square) Area() float64 { return s.Side * s.Side }

// --- helpers below ---

// Describe names a shape; the braces in "{" and '}' and `}` are strings.
func Describe(s Shape) string {
	if s == nil {
		return "{nil}"
	}
	const tmpl = `func fake() {
	// not a declaration
}`
	return fmt.Sprintf("%s %c %s", strings.TrimSpace(tmpl), '}', "}")
}

// Set is a generic set.
type Set[T comparable] map[T]struct{}

// Add adds v.
func (s Set[T]) Add(v T) { s[v] = struct{}{} }

type (
	// Point is a point.
	Point struct{ X, Y int }
	Line  struct{ A, B Point }
)

func a() {}; func b() {}

// trailing comment at the end of the file
