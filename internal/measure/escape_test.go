package measure

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteTextEscapes: a scenario name, question or population name with
// terminal escape sequences or a line break prints them as text.
func TestWriteTextEscapes(t *testing.T) {
	evil := "name\x1b[2J\x1b]0;title\x07\nfake: line"
	s := &Summary{Mode: "simulate", Scenario: ScenarioRef{Name: evil, Question: "why\x1b[31m red?"},
		Limiter: LimiterRef{Limit: 5, Store: "kv\x1b[1m"}, Populations: []Population{{Name: "bot\x1b[8m", Requests: 1}}}
	var b bytes.Buffer
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("the text holds raw control characters: %q", out)
	}
	if strings.Contains(out, "\nfake: line") || !strings.Contains(out, `name\x1b[2J`) {
		t.Errorf("the name is not shown as one line of text: %q", out)
	}
}
