package measure

import (
	"strings"
	"testing"
)

// TestParseCondition reads the grammar's forms and refuses what is not a
// condition, saying what to write.
func TestParseCondition(t *testing.T) {
	tests := []struct {
		in     string
		metric string
		op     string
		value  float64
		err    string
	}{
		{"ratio.p99<=1.5", "ratio.p99", "<=", 1.5, ""},
		{" interval.max < 2 ", "interval.max", "<", 2, ""},
		{"ratio.max<=1.5x", "ratio.max", "<=", 1.5, ""},
		{"false_denials.rate<=0.1%", "false_denials.rate", "<=", 0.001, ""},
		{"false_denials.rate<0.001", "false_denials.rate", "<", 0.001, ""},
		{"latency.p99<=50ms", "latency.p99", "<=", 50, ""},
		{"latency.p95<1.5s", "latency.p95", "<", 1500, ""},
		{"latency.p50<=20", "latency.p50", "<=", 20, ""},
		{"allowed.p99>=5", "allowed.p99", ">=", 5, ""},
		{"cost.usd_per_million>0", "cost.usd_per_million", ">", 0, ""},
		{"ratio.p99", "", "", 0, "write METRIC OP VALUE"},
		{"<=1", "", "", 0, "write METRIC OP VALUE"},
		{"ratio.p90<=1", "", "", 0, "unknown metric \"ratio.p90\""},
		{"ratio.p99<=", "", "", 0, "no value"},
		{"ratio.p99<=fast", "", "", 0, "a multiple of the limit"},
		{"false_denials.rate<=lots", "", "", 0, "a share such as"},
		{"latency.p99<=soon", "", "", 0, "a duration such as 50ms"},
		{"ratio.p99<=-1", "", "", 0, "negative"},
		{"ratio.p99<=NaN", "", "", 0, "is not"},
		{"burst:ratio.max<=1.5", "ratio.max", "<=", 1.5, ""},
		{" users : false_denials.rate<1%", "false_denials.rate", "<", 0.01, ""},
		{":ratio.max<=1.5", "", "", 0, "no population before the colon"},
		{"burst:interval.max<=2", "", "", 0, "not measured per population"},
		{"burst:ratio.p90<=2", "", "", 0, "unknown metric"},
	}
	for _, tt := range tests {
		c, err := ParseCondition(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseCondition(%q) err %v, want one saying %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || c.Metric.Name != tt.metric || c.Op != tt.op || c.Value < tt.value-1e-12 || c.Value > tt.value+1e-12 {
			t.Errorf("ParseCondition(%q) = %s %s %v, %v; want %s %s %v", tt.in, c.Metric.Name, c.Op, c.Value, err, tt.metric, tt.op, tt.value)
		}
	}
}

// FuzzParseCondition: any text is a condition or an error, never a panic,
// and a condition reads back as itself.
func FuzzParseCondition(f *testing.F) {
	for _, s := range []string{"ratio.p99<=1.5", "burst:ratio.max<=2", "latency.p99<50ms", "false_denials.rate<=0.1%", "<<=>=", "x>=1e308", "ratio.max<=1.5x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCondition(s)
		if err != nil {
			return
		}
		again, err := ParseCondition(c.Text)
		if err != nil || again.Metric.Name != c.Metric.Name || again.Population != c.Population || again.Op != c.Op || again.Value != c.Value {
			t.Errorf("%q read as %q, which reads back as %+v, %v", s, c.Text, again, err)
		}
	})
}

// TestCheck checks conditions on a run and on every point of a sweep; what
// the run did not measure fails.
func TestCheck(t *testing.T) {
	point := func(ratio float64, legit bool) *Summary {
		s := &Summary{Limiter: LimiterRef{Limit: 5}, Overshoot: Overshoot{KeyWindows: 3, Ratio: Stats{P99: ratio, Max: ratio}}}
		if legit {
			s.Populations = []Population{{Name: "users", Legitimate: true, Requests: 100, FalseDenials: 2}}
		}
		return s
	}
	conds := []Condition{}
	for _, text := range []string{"ratio.p99<=2", "false_denials.rate<5%"} {
		c, err := ParseCondition(text)
		if err != nil {
			t.Fatal(err)
		}
		conds = append(conds, c)
	}
	got := Check(point(1.5, true), conds)
	if len(got) != 2 || !got[0].Pass || !got[1].Pass || got[1].Value != 0.02 {
		t.Errorf("a run under both: %v", got)
	}
	if got[0].String() != "✓ ratio.p99<=2: 1.50x" || got[1].String() != "✓ false_denials.rate<5%: 2.0%" {
		t.Errorf("lines %q, %q", got[0], got[1])
	}
	sweep := &Summary{Points: []Point{
		{Params: []Param{{Path: "c", Value: "1"}}, Summary: point(1, false)},
		{Params: []Param{{Path: "c", Value: "8"}}, Summary: point(4, true)},
	}}
	got = Check(sweep, conds)
	want := []string{"✓ ratio.p99<=2 at c=1: 1.00x", "✗ ratio.p99<=2 at c=8: 4.00x",
		"✗ false_denials.rate<5% at c=1: not measured by this run", "✓ false_denials.rate<5% at c=8: 2.0%"}
	if len(got) != len(want) {
		t.Fatalf("%d verdicts: %v", len(got), got)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("verdict %d = %q, want %q", i, got[i], want[i])
		}
	}
	if c := (Threshold{Max: 1.5, At: "trial-p95"}).Condition(); c.Text != "trial_max.p95<=1.5" || c.Metric.Name != "trial_max.p95" {
		t.Errorf("-max-ratio 1.5 -at trial-p95 is %+v", c)
	}
}
