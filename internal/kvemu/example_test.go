package kvemu_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/overshoot-dev/overshoot/internal/kvemu"
)

// The emulator answers as the Cloudflare API does, envelopes and all.
func Example() {
	emu, _ := kvemu.New(kvemu.Config{AccountID: "acct", Token: "secret", Namespaces: []string{"ns"}})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	values := srv.URL + kvemu.Prefix + "accounts/acct/storage/kv/namespaces/ns/values/"

	send := func(method, url, body string) {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer secret")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		fmt.Println(res.StatusCode, string(b))
	}
	send("GET", values+"a%2Fb", "")
	send("PUT", values+"a%2Fb?expiration_ttl=30", "1")
	send("PUT", values+"a%2Fb?expiration_ttl=60", "1")
	send("PUT", values+"a%2Fb?expiration_ttl=60", "2")
	send("GET", values+"a%2Fb", "")
	// Output:
	// 404 {"success":false,"errors":[{"code":10009,"message":"get: 'key not found'"}],"messages":[],"result":null}
	// 400 {"success":false,"errors":[{"code":10033,"message":"Invalid expiration_ttl of 30. Expiration TTL must be at least 60."}],"messages":[],"result":null}
	// 200 {"success":true,"errors":[],"messages":[],"result":{}}
	// 429 {"success":false,"errors":[{"code":10022,"message":"KV PUT failed: 429 Too Many Requests: at most one write per second to the same key"}],"messages":[],"result":null}
	// 200 1
}
