// Package runes holds the one UTF-8 helper that output caps share: cutting
// text at a byte limit must not leave half a character behind. It imports
// nothing of the project, so every package may use it.
package runes

import "unicode/utf8"

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
