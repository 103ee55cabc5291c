//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cli

import "os"

// termWidth is 0 where the terminal's width is not asked for: text is
// wrapped at 80 columns.
func termWidth(*os.File) int { return 0 }
