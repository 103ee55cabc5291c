package plan

import "testing"

// TestParseShard reads I/N and refuses what is not a shard of a run.
func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/1", Shard{0, 1}, true},
		{"3/4", Shard{3, 4}, true},
		{" 2 / 5 ", Shard{2, 5}, true},
		{"4/4", Shard{}, false},
		{"-1/4", Shard{}, false},
		{"1/0", Shard{}, false},
		{"1", Shard{}, false},
		{"a/b", Shard{}, false},
		{"0/10001", Shard{}, false},
	} {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestShare: the shards' shares of n items add up to n, and each is the
// count of j < n with j mod N = I.
func TestShare(t *testing.T) {
	for n := int64(0); n < 30; n++ {
		for count := 1; count <= 7; count++ {
			var sum int64
			for i := 0; i < count; i++ {
				s := Shard{i, count}
				var want int64
				for j := int64(0); j < n; j++ {
					if j%int64(count) == int64(i) {
						want++
					}
				}
				if got := s.Share(n); got != want {
					t.Fatalf("Shard %v share of %d = %d, want %d", s, n, got, want)
				}
				sum += s.Share(n)
			}
			if sum != n {
				t.Fatalf("shares of %d over %d shards add to %d", n, count, sum)
			}
		}
	}
}
