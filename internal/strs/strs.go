// Package strs holds string helpers for the simulator's hot path.
package strs

import "unsafe"

// Same reports whether a == b. When the two share their bytes, as a
// string and the copy of it kept to recognise it usually do, it answers
// without a call (a string comparison calls memequal, and the registers
// live across that call are saved and restored around it).
func Same(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}
