package attack

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// DefaultDenyStatus is the statuses that are denials when none are given:
// 429 Too Many Requests, what rate limiters answer.
var DefaultDenyStatus = []int{429}

// ParseDenyStatus reads a list of denial statuses such as "429,503" (the
// attack -deny-status flag): HTTP statuses 100-599, not 2xx (a 2xx is
// allowed), separated by commas. It returns them sorted without repeats;
// an error says which one is wrong (the flag package names the flag).
func ParseDenyStatus(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || len(f) > 3 {
			return nil, fmt.Errorf("%q is not an HTTP status: give statuses separated by commas, e.g. 429,503", f)
		}
		if err := checkStatus(n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// checkDenyStatus checks a list of denial statuses (Options.DenyStatus).
func checkDenyStatus(codes []int) error {
	for _, n := range codes {
		if err := checkStatus(n); err != nil {
			return fmt.Errorf("attack: deny status: %v", err)
		}
	}
	return nil
}

// checkStatus says what is wrong with n as a denial status.
func checkStatus(n int) error {
	switch {
	case n < 100 || n > 599:
		return fmt.Errorf("%d is not an HTTP status (100-599)", n)
	case n >= 200 && n < 300:
		return fmt.Errorf("%d is a success, which attack counts as allowed; a denial is e.g. 429 or 503", n)
	}
	return nil
}

// FormatDenyStatus writes denial statuses as the flag takes them, "429,503".
func FormatDenyStatus(codes []int) string {
	if len(codes) == 0 {
		codes = DefaultDenyStatus
	}
	s := make([]string, len(codes))
	for i, c := range codes {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// IsDenyStatus reports whether code is one of codes (none: DefaultDenyStatus).
func IsDenyStatus(code int, codes []int) bool {
	if len(codes) == 0 {
		codes = DefaultDenyStatus
	}
	return slices.Contains(codes, code)
}
