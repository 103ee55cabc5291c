package measure

import "fmt"

// ErrorsDominate reports whether more than half of the requests got no
// decision (live: a status neither 2xx nor a denial status, or no response
// at all). The overshoot then describes only the few that did, and a run
// that measured nothing would read as a limiter that let nothing through.
func (s *Summary) ErrorsDominate() bool {
	return s.Totals.Requests > 0 && 2*s.Totals.Errors > s.Totals.Requests
}

// StoreMostlyDown reports whether the store, where it was observed, failed
// more than half of the reads the limiter made: most decisions were then the
// error policy's (fail-open lets them all through), not the limiter's count.
func (s *Summary) StoreMostlyDown() bool {
	k := s.KV
	return k.Observed && k.Reads > 0 && 2*k.ReadErrors > k.Reads
}

// Health returns a warning in words for each way the run's numbers may not
// mean what they seem (ErrorsDominate, StoreMostlyDown); none when they do.
func (s *Summary) Health() []string {
	var out []string
	if t := s.Totals; s.ErrorsDominate() {
		out = append(out, fmt.Sprintf("errors dominate: %d of %d requests (%.0f%%) got no decision (a status neither 2xx nor a denial status, or no response), so the overshoot covers only the %d that did: check the target",
			t.Errors, t.Requests, 100*float64(t.Errors)/float64(t.Requests), t.Requests-t.Errors))
	}
	if k := s.KV; s.StoreMostlyDown() {
		out = append(out, fmt.Sprintf("the store was down for most of the run: %d of %d reads (%.0f%%) failed, so most decisions were the %s error policy's, not the limiter's count",
			k.ReadErrors, k.Reads, 100*float64(k.ReadErrors)/float64(k.Reads), s.Limiter.ErrorPolicy))
	}
	return out
}
