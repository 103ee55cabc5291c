package redis

import (
	"context"
	"fmt"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"github.com/overshoot-dev/overshoot/internal/kv"
)

// The limiter's atomic updates as Lua scripts, one per algorithm. Each
// reads its keys, applies the update as the limiter's core (internal/limiter,
// Limiter.Update) does, sets the key's TTL itself, and returns what the keys
// held before it and whether the request is allowed: {value or nil, value
// or nil, 0 or 1}. ARGV are the limiter's ScriptArgs, by index (Lua counts
// from 1): 1 limit, 2 window (ns), 3 into the window (ns), 4 now (Unix µs),
// 5 a new counter's TTL (ms), 6 emission interval (µs), 7 tolerance (µs).
//
// Counters are integers on Redis (INCR refuses anything else, and the
// store reports that as an error for the error policy); the core reads any
// value as JavaScript's parseInt would, which only a value nobody but the
// limiter writes would tell apart.
var scripts = map[string]*goredis.Script{
	// fixed-window: INCR, then EXPIRE on the first increment, as
	// envoyproxy/ratelimit and rate-limit-redis do; every request counts.
	"fixed-window": goredis.NewScript(`
local before = redis.call('GET', KEYS[1])
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
local allowed = 0
if n <= tonumber(ARGV[1]) then allowed = 1 end
return {before, false, allowed}
`),
	// sliding-window: two counters, the previous window's weighted by the
	// part of it still inside the sliding window (@upstash/ratelimit's
	// shape); an allowed request increments the current one.
	"sliding-window": goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
local prev = redis.call('GET', KEYS[2])
local elapsed = tonumber(ARGV[3]) / tonumber(ARGV[2])
local estimate = (tonumber(prev) or 0) * (1 - elapsed) + (tonumber(cur) or 0)
local allowed = 0
if estimate < tonumber(ARGV[1]) then
  allowed = 1
  local n = redis.call('INCR', KEYS[1])
  if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
end
return {cur, prev, allowed}
`),
	// token-bucket and gcra: GCRA over a stored theoretical arrival time in
	// Unix microseconds, as go-redis/redis_rate's script, with now given
	// by the caller (redis_rate reads the server's TIME) so that the
	// decision is the core's.
	"gcra": goredis.NewScript(`
local stored = redis.call('GET', KEYS[1])
local now = tonumber(ARGV[4])
local tat = now
if stored then tat = math.max(now, tonumber(stored) or 0) end
local allowed = 0
if tat - now <= tonumber(ARGV[7]) then
  allowed = 1
  local new = tat + tonumber(ARGV[6])
  redis.call('SET', KEYS[1], string.format('%d', new), 'PX', math.max(60000, math.ceil((new - now) / 1000)))
end
return {stored, false, allowed}
`),
}

func init() { scripts["token-bucket"] = scripts["gcra"] }

var _ kv.Updater = (*Store)(nil)

// Update implements kv.Updater: it runs the script of u.Script on the
// primary (EVALSHA, and EVAL when the server does not have it yet), one
// round trip, and returns what the keys held before. The script's decision
// is checked against u.Apply's on those values: a store that disagrees with
// the core is an error, never a silent difference.
func (s *Store) Update(ctx context.Context, u *kv.Update) ([2]kv.Value, error) {
	var cur [2]kv.Value
	sc, ok := scripts[u.Script]
	if !ok || u.NKeys < 1 || u.NKeys > 2 {
		return cur, fmt.Errorf("redis store: no atomic update script for algorithm %q with %d keys", u.Script, u.NKeys)
	}
	keys := make([]string, u.NKeys)
	for i := range keys {
		keys[i] = s.prefix + u.Keys[i]
	}
	args := make([]any, len(u.Args))
	for i, a := range u.Args {
		args[i] = a
	}
	res, err := sc.Run(ctx, s.primary, keys, args...).Slice()
	if err != nil {
		return cur, s.mapError(ctx, "put", u.Keys[0], err)
	}
	if len(res) != 3 {
		return cur, fmt.Errorf("redis store: the %s script returned %d values, want 3", u.Script, len(res))
	}
	for i := range 2 {
		if v, ok := res[i].(string); ok {
			cur[i] = kv.Value{Value: v, Found: true}
		}
	}
	allowed, _ := res[2].(int64)
	if u.Apply != nil {
		if _, want := u.Apply(cur); want != (allowed == 1) {
			return cur, fmt.Errorf("redis store: the %s script allowed=%d on %s, the limiter's core says %v: the script and the core disagree", u.Script, allowed, strconv.Quote(fmt.Sprint(cur)), want)
		}
	}
	return cur, nil
}
