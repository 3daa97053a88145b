// Package runes holds the small text helpers packages share: cutting text
// at a byte limit without leaving half a character behind, clipping a
// client's string for echoing, and telling a decimal index from a name. It
// imports nothing of the project, so every package may use it.
package runes

import (
	"strconv"
	"unicode/utf8"
)

// TrimPartial drops an incomplete UTF-8 sequence at the end of s, as a cut
// at a byte limit leaves; anything else (including invalid bytes that no
// longer byte could complete) is kept.
func TrimPartial[T ~string | ~[]byte](s T) T {
	for k := 1; k <= utf8.UTFMax && k <= len(s); k++ {
		if utf8.RuneStart(s[len(s)-k]) {
			if !utf8.FullRuneInString(string(s[len(s)-k:])) {
				return s[:len(s)-k]
			}
			return s
		}
	}
	return s
}

// IsDecimal reports whether s is a non-empty run of ASCII digits.
func IsDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Clip returns s when it is at most n bytes long, else its first n bytes
// (less a character cut in half) followed by "…(<len> bytes)": how a
// client's string of any length is echoed in messages and logs.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return TrimPartial(s[:n]) + "…(" + strconv.Itoa(len(s)) + " bytes)"
}
