// server.js: express with express-rate-limit, the target of overshoot's
// header test (express_test.go). One process is one server: its
// standardHeaders setting, limit and window come from the command line.
//
//   node server.js HEADERS LIMIT WINDOW_MS
//
// HEADERS is draft-6, draft-7, draft-8 (standardHeaders) or legacy
// (legacyHeaders: true, standardHeaders: false). The server listens on a
// free port of 127.0.0.1 and prints "listening http://127.0.0.1:PORT/" on
// stdout. It keys callers by the X-Anon-Token header attack sends, counts
// what it decided (GET /counts answers {"allowed": N, "denied": M}, outside
// the limiter) and exits when its stdin closes, so that it never outlives
// the test that started it.
import express from "express";
import { rateLimit } from "express-rate-limit";

const [headers, limitArg, windowArg] = process.argv.slice(2);
const limit = Number(limitArg);
const windowMs = Number(windowArg);
if (!["draft-6", "draft-7", "draft-8", "legacy"].includes(headers) || !(limit > 0) || !(windowMs > 0)) {
  console.error("usage: node server.js draft-6|draft-7|draft-8|legacy LIMIT WINDOW_MS");
  process.exit(2);
}

const counts = { allowed: 0, denied: 0 };
const app = express();
app.get("/counts", (req, res) => res.json(counts));
app.use(
  rateLimit({
    limit,
    windowMs,
    standardHeaders: headers === "legacy" ? false : headers,
    legacyHeaders: headers === "legacy",
    keyGenerator: (req) => req.get("X-Anon-Token") ?? "anonymous",
    // The key is a header, not the address: the checks of how the client
    // address is found (X-Forwarded-For, trust proxy) do not apply.
    validate: false,
    handler: (req, res, next, options) => {
      counts.denied++;
      res.status(options.statusCode).send("too many requests\n");
    },
  }),
);
app.get("/", (req, res) => {
  counts.allowed++;
  res.send("ok\n");
});

const server = app.listen(0, "127.0.0.1", () => {
  console.log(`listening http://127.0.0.1:${server.address().port}/`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
